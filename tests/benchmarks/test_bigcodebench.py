"""BigCodeBench-Hard through the command line (prepare from the upstream parquet layout over loopback HTTP,
e2e with the reference server) and the unittest judge against the reference's own verdicts: NeMo Gym's
example rollouts of BigCodeBench/15 (fails one named test) and /19 (passes), judged again by gym."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.verifiers import make_verifier
from tests.conftest import run_gym

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bigcodebench"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, mirror_url):
    root = tmp_path_factory.mktemp("bcb")
    result = run_gym("task=e2e", "benchmark=bigcodebench", "model=mock", f"data.mirror={mirror_url}",
                     f"data.root={root}",
                     f"hydra.run.dir={root / 'run'}", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return root, result


def test_prepare_and_e2e(prepared):
    root, result = prepared
    rows = [json.loads(line) for line in (root / "bigcodebench" / "bigcodebench.jsonl").read_text().splitlines()]
    assert [r["task_id"] for r in rows] == ["BigCodeBench/15", "BigCodeBench/19"]
    question = rows[1]["question"]  # the reference's: instruction, the sentence, the code prompt fenced, tabs
    assert question.endswith("You should write self-contained code starting with:\n```python\nimport os\n"
                             "import glob\nimport zipfile\ndef task_func(directory):\n\n```")
    assert "\t" in rows[0]["question"] and "    " not in rows[0]["question"]
    assert not (root / "bigcodebench" / "env").exists()  # environment=skip builds nothing
    rollouts = [json.loads(line) for line in next((root / "run").rglob("rollouts.jsonl")).read_text().splitlines()]
    # the mock answers with the canonical solution where the row has one (BigCodeBench/19)
    assert sorted((r["task_index"], r["reward"]) for r in rollouts) == [(0, 0.0), (1, 1.0)]


def test_reference_verdicts(prepared):
    root, _ = prepared
    options = compose(["benchmark=bigcodebench", f"data.root={root}"]).benchmark.verifier.options
    rows = {json.loads(line)["task_id"]: json.loads(line)
            for line in (root / "bigcodebench" / "bigcodebench.jsonl").read_text().splitlines()}
    with make_verifier("code", dict(options)) as verifier:
        for line in (FIXTURES / "reference_rollouts.jsonl").read_text().splitlines():
            reference = json.loads(line)
            verdict = verifier.verify(rows[reference["task_id"]], reference["output_text"])
            assert verdict.reward == reference["reward"], reference["task_id"]
            assert (verdict.details.get("failure") or {}).get("failed_tests", []) == reference["failed_tests"]


def test_environment_of_another_python(tmp_path):
    (tmp_path / "env" / "lib" / "python2.7").mkdir(parents=True)
    with pytest.raises(GymError, match="has no lib/python3"):
        make_verifier("code", {"environment": str(tmp_path / "env")})
