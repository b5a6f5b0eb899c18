"""status verifier_error end to end: collect records it, aggregate and profile leave it out of every score
and count it, and a resume redoes it."""

from __future__ import annotations

import json

import pytest

from gym.core.config import compose
from gym.tasks import aggregate, profile
from tests.rollout_runs import VERIFIER_CRASH, failing_verifier, prepare_mmlu, read_rows, run_collect


@pytest.fixture
def mmlu(data_dir, mirror_url):
    return prepare_mmlu(mirror_url)


def test_collect_aggregate_profile_and_resume(mmlu, tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    crashes = {"symmetric group": VERIFIER_CRASH, "latitude": KeyError("options")}
    with failing_verifier(monkeypatch, crashes):
        summary = run_collect(run, "num_repeats=3", "model.mock.accuracy=1.0")
    rows = read_rows(run / "rollouts.jsonl")
    failed = [r for r in rows if r["status"] == "verifier_error"]
    assert {r["task_index"] for r in failed} == {1, 3} and len(failed) == 6
    assert all(r["reward"] is None and r["extracted_answer"] is None and r["scores"] is None for r in failed)
    crash = next(r for r in failed if r["task_index"] == 1)
    assert crash["error"] == "verifier: worker crashed" and crash["verifier"] == {"worker": "mcq-0", "exit_code": -9}
    assert "KeyError" in next(r for r in failed if r["task_index"] == 3)["error"]
    assert crash["response"] and crash["schema_version"] == 4  # the reply is kept for a re-verification
    assert summary["counts"] == {"ok": 9, "verifier_error": 6}
    assert json.loads((run / "run.json").read_text())["status"] == "incomplete"
    assert "verifier_error 6" in capsys.readouterr().out

    aggregate.run(compose(["task=aggregate", f"rollouts={run}", f"+run_dir={tmp_path / 'agg'}"]))
    table = capsys.readouterr().out
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["mmlu"]
    assert entry["counts"] == {"ok": 9, "model_error": 0, "infra_error": 0, "verifier_error": 6}
    assert entry["pass@1"]["value"] == 100.0  # never scored as wrong answers
    assert entry["tasks"] == 3 and entry["unscored_tasks"] == 2 and entry["scored_rollouts"] == 9
    assert "verifier errors" in table and "only have infra errors or verifier errors" in table
    csv_text = (tmp_path / "agg" / "metrics.csv").read_text()
    assert "mmlu,gym-mock,count/verifier_error,6,,,count" in csv_text

    profile.run(compose(["task=profile", f"rollouts={run}", f"+run_dir={tmp_path / 'prof'}", "allow_partial=true",
                         "plots=false", "samples_per_bucket=0"]))
    assert "left out of every score: 0 infra_error, 6 verifier_error" in capsys.readouterr().out
    summary_json = json.loads((tmp_path / "prof" / "profile_summary.json").read_text())
    assert summary_json["completion"]["groups"][0]["counts"]["verifier_error"] == 6
    assert summary_json["completion"]["total"]["missing_tasks"] == 2
    assert "verifier errors" in (tmp_path / "prof" / "report.html").read_text()

    again = run_collect(run, "num_repeats=3", "model.mock.accuracy=1.0", "resume=true")  # verifier fixed
    assert again["ran"] == 6 and again["skipped_done"] == 9 and again["counts"] == {"ok": 6}
    latest = {r["key"]: r for r in read_rows(run / "rollouts.jsonl")}
    assert len(latest) == 15 and all(r["status"] == "ok" and r["reward"] == 1.0 for r in latest.values())


def test_e2e_finishes_with_verifier_errors(mmlu, tmp_path, monkeypatch, capsys):
    from gym.tasks import e2e

    with failing_verifier(monkeypatch, {"Kaaba": VERIFIER_CRASH}):
        summary = e2e.run(compose(["task=e2e", "benchmark=mmlu", "model=mock", "model.mock.accuracy=1.0",
                                   "num_repeats=2", "progress=false", f"+run_dir={tmp_path}", "+profile.plots=false"]))
    assert summary["headline"]["pass@1"] == 100.0  # the unverified task is left out, not scored 0
    assert "left out of every score: 0 infra_error, 2 verifier_error" in capsys.readouterr().out
    assert (tmp_path / "reward_profile.jsonl").is_file()
