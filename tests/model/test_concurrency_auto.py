"""concurrency=auto: AIMD on 429/503 and rising latency, from a safe start, never above
model.max_concurrency; a rate-limited reference server is met without infra errors."""

from __future__ import annotations

import threading

import pytest

from gym.core.task_knobs import parse_concurrency
from gym.model.concurrency import AdaptiveLimit
from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import collect
from tests.conftest import assert_clean_failure, run_gym
from tests.model_time_data import write_tasks


def test_parse_concurrency():
    assert parse_concurrency("auto", 64) == ("auto", 64)
    assert parse_concurrency(8, 64) == ("fixed", 8)
    for bad in ("lots", 0, 2.5, None):
        with pytest.raises(GymError, match="concurrency"):
            parse_concurrency(bad, 64)
    with pytest.raises(GymError, match="max_concurrency"):
        parse_concurrency("auto", 0)


def test_additive_increase_multiplicative_decrease_within_the_cap():
    limit = AdaptiveLimit(cap=10, start=4)
    for _ in range(6):  # slow start: one more per clean reply
        limit.release(limit.acquire(), 200, 0.05)
    assert limit.limit == 10 and limit.peak == 10  # ...and never above the cap
    epochs = [limit.acquire() for _ in range(3)]  # three requests in flight when the server pushes back
    for epoch in epochs:
        limit.release(epoch, 429, 0.01)
    assert int(limit.limit) == 7 and limit.decreases == 1  # one congestion event, one cut
    limit.release(limit.acquire(), 503, 0.01)
    assert int(limit.limit) == 5 and limit.decreases == 2
    for _ in range(5):  # after a decrease: +1 per window of clean replies (5 replies at limit 5)
        limit.release(limit.acquire(), 200, 0.05)
    assert int(limit.limit) == 6
    for _ in range(50):  # latency climbing far above the best seen: queueing in the server
        limit.release(limit.acquire(), 200, 0.5)
    assert limit.limit < 6


def test_acquire_blocks_beyond_the_limit():
    limit = AdaptiveLimit(cap=2, start=1)
    first = limit.acquire()
    entered = threading.Event()

    def second():
        limit.acquire()
        entered.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert not entered.wait(0.2)  # the only slot is taken
    limit.release(first, 200, 0.05)
    assert entered.wait(10)
    thread.join()


def test_auto_meets_a_rate_limit_without_infra_errors(data_dir, tmp_path):
    write_tasks(data_dir, 60)
    summary = collect.run(compose([
        "task=collect", "benchmark=gsm8k", "model=mock", "progress=false", f"+run_dir={tmp_path}", "num_repeats=4",
        "concurrency=auto", "model.max_concurrency=16", "model.mock.rate_limit=6", "model.mock.retry_after=0",
        "model.mock.latency=0.01"]))
    assert summary["counts"] == {"ok": 240}
    auto = summary["concurrency"]
    assert auto["mode"] == "auto" and auto["peak"] <= 16 and 1 <= auto["settled"] <= 16
    assert auto["decreases"] >= 1  # it grew until the server (or its latency) pushed back, and backed off


def test_auto_never_exceeds_max_concurrency(data_dir, tmp_path):
    write_tasks(data_dir, 40)
    summary = collect.run(compose([
        "task=collect", "benchmark=gsm8k", "model=mock", "progress=false", f"+run_dir={tmp_path}", "num_repeats=5",
        "concurrency=auto", "model.max_concurrency=3", "model.mock.rate_limit=3"]))
    assert summary["counts"] == {"ok": 200} and summary["concurrency"]["peak"] <= 3


def test_bad_concurrency_fails_in_one_line(tmp_path):
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "concurrency=lots",
                     f"hydra.run.dir={tmp_path}")
    assert_clean_failure(result, "concurrency")
