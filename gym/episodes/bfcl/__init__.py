"""BFCL multi-turn (Berkeley Function Calling Leaderboard v4): the API classes an entry's calls run on,
the environment that plays an entry turn by turn, and upstream's multi-turn checker in gym's words.

Prepare scripts take their tools from this package (its FACE, loaded on first use).
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

FACE = {"API_CLASSES": "gym.episodes.bfcl.apis", "parameter_names": "gym.episodes.bfcl.calls",
        **{name: "gym.episodes.bfcl.upstream" for name in ("ADDED_FUNCTIONS_MESSAGE", "COMMIT", "DOC_FILES",
                                                           "LONG_CONTEXT_PY", "SOURCE", "gold_call",
                                                           "long_context_constants")}}
__all__ = sorted(FACE)
__getattr__ = lazy_getattr(__name__, FACE)
