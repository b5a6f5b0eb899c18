"""ToolSandbox (apple/ToolSandbox): stateful phone tools, a simulated user, milestone similarity scoring.

Prepare scripts take their tools from this package (its FACE, loaded on first use).
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

FACE = {"gold_play": "gym.episodes.toolsandbox.gold"}
__all__ = sorted(FACE)
__getattr__ = lazy_getattr(__name__, FACE)
