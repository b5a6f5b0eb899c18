"""Shared set-up for the rollout-file tests: MMLU prepared from its upstream fixture, collected against the
reference server, with a verifier that can be made to fail on chosen questions."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import collect, prepare
from gym.verifiers.base import Verdict, VerifierError
from gym.verifiers.mcq import MCQVerifier


def prepare_mmlu(mirror_url: str) -> list[dict]:
    """Prepare mmlu into $GYM_DATA_DIR through the loopback mirror; its task rows."""
    cfg = compose(["task=prepare", "benchmark=mmlu", f"data.mirror={mirror_url}"])
    prepare.run(cfg)
    path = Path(cfg.benchmark.dataset.path)
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


@contextmanager
def failing_verifier(monkeypatch, questions: dict[str, BaseException | Verdict]):
    """MCQ verification raises the given exception (or returns the given, wrong, verdict) for tasks whose
    question contains a key: a verifier with a bug, as a later fix finds it."""
    real = MCQVerifier.verify

    def verify(self, row, response):
        for needle, outcome in questions.items():
            if needle in row.get("question", ""):
                if isinstance(outcome, Verdict):
                    return outcome
                raise outcome
        return real(self, row, response)

    with monkeypatch.context() as patch:
        patch.setattr(MCQVerifier, "verify", verify)
        yield


def run_collect(run_dir: Path, *overrides: str) -> dict | GymError:
    cfg = compose(["task=collect", "benchmark=mmlu", "model=mock", "progress=false", f"+run_dir={run_dir}",
                   *overrides])
    try:
        return collect.run(cfg)
    except GymError as exc:  # infra errors end the run non-zero; the rows are on disk
        return exc


VERIFIER_CRASH = VerifierError("worker crashed", {"worker": "mcq-0", "exit_code": -9})
