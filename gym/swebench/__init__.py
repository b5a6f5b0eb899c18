"""SWE-bench: instances, per-repo environment specs, eval scripts and grading.

Prepare scripts take their tools from this package (its FACE, loaded on first use).
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

FACE = {"prepare_instances": "gym.swebench.prepare"}
__all__ = sorted(FACE)
__getattr__ = lazy_getattr(__name__, FACE)
