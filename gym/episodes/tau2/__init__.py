"""τ²-bench (sierra-research/tau2-bench, MIT) in gym: domains, their tools over JSON databases, the
episode state and replay, the scorer, and the prepare-time reading of upstream's files.

Prepare scripts take their tools from this package (its FACE, loaded on first use).
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

FACE = {"DOMAINS": "gym.episodes.tau2.prepare", "prepare_domain": "gym.episodes.tau2.prepare",
        "prepare_banking": "gym.episodes.tau2.banking.prepare"}
__all__ = sorted(FACE)
__getattr__ = lazy_getattr(__name__, FACE)
