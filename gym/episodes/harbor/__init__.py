"""Harbor's task format (task.toml, instruction.md, environment/, solution/, tests/) as episodes in containers:
task.py reads and scans task folders, trial.py runs one trial (build, start, verify, remove), support.py
supplies what tests would download (uv, their Python), env.py is the Environment (shell tool, oracle, nop),
prepare.py turns a folder of tasks into prepared rows (benchmark=harbor, terminal_bench_2).

Prepare scripts take their tools from this package (its FACE, loaded on first use).
"""

from __future__ import annotations

from gym.core.faces import lazy_getattr

FACE = {"DEFAULT_REACHABLE": "gym.episodes.harbor.prepare", "prepare_tasks": "gym.episodes.harbor.prepare"}
__all__ = sorted(FACE)
__getattr__ = lazy_getattr(__name__, FACE)
