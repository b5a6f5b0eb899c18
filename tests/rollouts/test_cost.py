"""Cost from price tables and the run budget, as a user types them."""

from __future__ import annotations

import json

import pytest

from gym.rollouts.cost import Budget, Price, price_of
from tests.conftest import UPSTREAM, assert_clean_failure, run_gym

PRICED = ("model.price.input=3", "model.price.output=15")


def test_price_per_million_with_cached_tokens():
    usage = {"prompt_tokens": 1000, "completion_tokens": 200, "cached_tokens": 600}
    assert Price(3.0, 15.0).usd(usage) == pytest.approx((1000 * 3 + 200 * 15) / 1e6)  # no cached price: input
    assert Price(3.0, 15.0, 0.3).usd(usage) == pytest.approx((400 * 3 + 600 * 0.3 + 200 * 15) / 1e6)
    budget = Budget({"policy": Price(3.0, 15.0), "judge": Price(1.0, 1.0)})
    row = {"usage": {"prompt_tokens": 100, "completion_tokens": 10}, "verifier": {"judge_usage": {"prompt_tokens": 50,
                                                                                              "completion_tokens": 5}}}
    budget.stamp(row)
    assert row["cost_usd"] == pytest.approx((300 + 150 + 55) / 1e6)
    budget.add([row])
    assert budget.spent_tokens == 165
    with pytest.raises(Exception, match="model.price.input=-1"):
        price_of({"input": -1}, "model.price")


def test_budget_stops_collect_in_one_line_and_resume_finishes(tmp_path, data_dir):
    run = tmp_path / "run"
    args = ("task=e2e", "benchmark=gsm8k", "model=mock", "limit=8", "num_repeats=2", "concurrency=2",
            "progress=false", f"data.mirror={UPSTREAM}", *PRICED, f"hydra.run.dir={run}")
    first = run_gym(*args, "budget.usd=0.002")
    assert_clean_failure(first, "gym: error: stopped: budget.usd=0.002 reached ($", "continue with: python -m gym")
    assert [line for line in first.stderr.splitlines() if "error:" in line][0].count("\n") == 0
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped" and info["cost"]["budget"]["stopped"].startswith("budget.usd=0.002 reached")
    written = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    assert 0 < len(written) < 16 and all(row["cost_usd"] > 0 for row in written)
    assert (run / "metrics.json").is_file()  # what finished is scored
    again = run_gym(*args, "resume=true")
    assert again.returncode == 0, again.stderr
    rows = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == len({row["key"] for row in rows}) == 16  # 8 tasks x 2: nothing redone, nothing lost
    cost = json.loads((run / "metrics.json").read_text())["benchmarks"]["gsm8k"]["cost"]
    assert cost["usd"] == pytest.approx(sum(row["cost_usd"] for row in rows), abs=1e-5)
    assert cost["tokens"]["policy"] == sum(row["usage"]["total_tokens"] for row in rows)
    assert "gsm8k: tokens policy" in again.stdout and "a task)" in again.stdout


def test_budget_knobs_fail_in_one_line(tmp_path, data_dir):
    no_price = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "budget.usd=1", f"data.mirror={UPSTREAM}",
                       f"hydra.run.dir={tmp_path / 'a'}")
    assert_clean_failure(no_price, "budget.usd needs the model's price")
    bad = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "budget.tokens=-5", f"data.mirror={UPSTREAM}",
                  f"hydra.run.dir={tmp_path / 'b'}")
    assert_clean_failure(bad, "budget.tokens=-5 must be a positive number of tokens")
    typo = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "model.price.inptu=1",
                   f"hydra.run.dir={tmp_path / 'c'}")
    assert_clean_failure(typo, "model.price.inptu")
