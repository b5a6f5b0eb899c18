"""Response cache: a rerun with the same settings makes no model calls; writers in several real
processes (as in a joblib sweep) leave a sound database; the size cap evicts least recently used."""

from __future__ import annotations

import sqlite3

import pytest
from joblib import Parallel, delayed

from gym.model.client import Completion
from gym.core.config import compose
from gym.core.errors import GymError
from gym.model.response_cache import ResponseCache
from gym.tasks import collect
from tests.conftest import assert_clean_failure, run_gym
from tests.model_time_data import read_rows, write_tasks


def run_collect(run_dir, *overrides):
    return collect.run(compose(["task=collect", "benchmark=gsm8k", "model=mock", "progress=false",
                                f"+run_dir={run_dir}", *overrides]))


def test_identical_rerun_makes_zero_model_calls_and_gives_the_same_rollouts(data_dir, tmp_path):
    write_tasks(data_dir, 20)
    cache = f"cache.dir={tmp_path / 'cache'}"
    first = run_collect(tmp_path / "one", cache, "num_repeats=3")
    assert first["model_requests"] == 60 and first["cache"]["stored"] == 60
    again = run_collect(tmp_path / "two", cache, "num_repeats=3")
    assert again["model_requests"] == 0 and again["cache"]["hits"] == 60 and again["counts"] == {"ok": 60}
    one = {r["key"]: r for r in read_rows(tmp_path / "one" / "rollouts.jsonl")}
    two = read_rows(tmp_path / "two" / "rollouts.jsonl")
    assert all(r["cached"] and r["response"] == one[r["key"]]["response"] and r["reward"] == one[r["key"]]["reward"]
               for r in two)
    # another sampling setting is another experiment: all misses, new calls
    other = run_collect(tmp_path / "three", cache, "num_repeats=3", "model.sampling.temperature=0.2")
    assert other["model_requests"] == 60 and other["cache"]["hits"] == 0
    # more repeats reuse the ones already asked
    more = run_collect(tmp_path / "four", cache, "num_repeats=4")
    assert more["model_requests"] == 20 and more["cache"]["hits"] == 60


def test_infra_errors_are_not_cached(data_dir, tmp_path):
    write_tasks(data_dir, 5)
    cache = f"cache.dir={tmp_path / 'cache'}"
    with pytest.raises(GymError, match="infrastructure errors"):
        run_collect(tmp_path / "one", cache, "model.mock.faults.error_500=1.0", "model.max_retries=0")
    assert ResponseCache(tmp_path / "cache").size_bytes() == 0


def _writer(directory: str, worker: int, count: int) -> int:
    cache = ResponseCache(directory)
    for i in range(count):
        key = f"k{i % 150}" if i % 2 else f"w{worker}-{i}"  # half the keys are shared by every worker
        cache.put(key, Completion("ok", text=f"reply {key}", usage={"completion_tokens": i}))
        assert cache.get(key) is not None
    cache.close()
    return count


def test_concurrent_writer_processes_leave_a_sound_database(tmp_path):
    directory = str(tmp_path / "cache")
    written = Parallel(n_jobs=4, backend="loky")(delayed(_writer)(directory, w, 400) for w in range(4))
    assert written == [400] * 4
    db = sqlite3.connect(tmp_path / "cache" / "responses.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 4 * 200 + 75  # 200 own keys per worker, 75 shared (odd i % 150)
    cache = ResponseCache(directory)
    assert cache.get("k7").text == "reply k7" and cache.get("w3-398").text == "reply w3-398"


def test_size_cap_evicts_the_least_recently_used(tmp_path):
    cache = ResponseCache(tmp_path, max_mb=1)
    blob = "x" * 10_000
    for i in range(150):
        cache.put(f"key{i}", Completion("ok", text=blob))
    assert cache.get("key0") is not None  # used again: now more recent than key1..key149
    for i in range(150, 200):
        cache.put(f"key{i}", Completion("ok", text=blob))
    cache._enforce_cap()
    assert cache.size_bytes() <= 1024 * 1024
    assert cache.get("key0") is not None and cache.get("key1") is None and cache.get("key199") is not None
    assert cache.evicted > 0


def test_bad_cache_settings_fail_in_one_line(data_dir, tmp_path):
    write_tasks(data_dir, 2)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", f"cache.dir={blocker}",
                     f"hydra.run.dir={tmp_path / 'run'}", env={"GYM_DATA_DIR": str(data_dir)})
    assert_clean_failure(result, "cache.dir")


def test_the_cache_is_off_by_default_and_on_for_model_local():
    assert compose(["task=collect", "model=mock"]).cache.dir is None
    assert compose(["task=collect", "model=vllm"]).cache.dir is None
    assert compose(["task=collect", "model=local"]).cache.dir == "~/.cache/gym/responses"
    assert compose(["task=collect", "model=local", "cache.dir=null"]).cache.dir is None
    assert compose(["task=e2e", "model=local"]).cache.dir == "~/.cache/gym/responses"
