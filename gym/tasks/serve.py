"""task=serve: gym's verifiers and environments over HTTP, for RL trainers (gym.serve has the rest).

    python -m gym task=serve benchmarks=[gsm8k,tau2_retail] user=mock

One server answers NeMo Gym's resources-server routes (/verify, /seed_session, /<tool>,
/aggregate_metrics), a step interface (/reset, /step, /close) and an agent's /run for every benchmark
under /<benchmark>/ (and at / too when there is one); the URL goes to <run dir>/serve.json.
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.core.typed import check_own_file, typed
    from gym.serve.server import serve

    check_own_file(cfg.get("benchmark"))  # benchmark=local without its file or family: one line
    return serve(typed(cfg))  # the door: below here, typed objects only
