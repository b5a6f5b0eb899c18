"""model.base_url as a list of replicas: least-loaded first, a failing replica set aside and tried again
later while its work goes to the others, per-replica figures in the summary and run.json, and rollout
keys that do not depend on which replica answered."""

from __future__ import annotations

import json
import threading

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.mock.server import MockServer
from gym.model.replicas import ReplicaPool
from gym.tasks import collect
from tests.conftest import wait_until
from tests.model_time_data import read_rows, write_tasks


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_least_loaded_first_and_a_failing_replica_set_aside_then_tried_again():
    clock = Clock()
    pool = ReplicaPool(["http://a/v1", "http://b/v1", "http://c/v1"], fail_after=2, cooldown=10, clock=clock)
    first, second, third = pool.acquire(), pool.acquire(), pool.acquire()
    assert {first.base_url, second.base_url, third.base_url} == {"http://a/v1", "http://b/v1", "http://c/v1"}
    pool.release(second, False, 0.1)
    assert pool.acquire() is second  # the only one with nothing in flight
    a = pool.replicas[0]
    pool.release(first, True, error="ConnectionError")
    assert pool.release(a, True, error="ConnectionError") is True  # twice in a row: set aside, others can take it
    assert a.set_aside == 1 and all(pool.acquire() is not a for _ in range(20))
    clock.now += 10  # cool-down over: back in service, tried like the others
    assert a in [pool.acquire() for _ in range(30)]
    pool.release(a, True)
    assert a.set_aside == 2 and a.cooldown == 20  # failed again: set aside for twice as long
    summary = {r["base_url"]: r for r in pool.summary()}
    assert summary["http://a/v1"]["errors"] == 3 and summary["http://b/v1"]["mean_latency_s"] == 0.1


def collect_on(urls, run_dir, *extra):
    return collect.run(compose(["task=collect", "benchmark=gsm8k", "model=vllm", "model.name=gym-mock",
                                f"model.base_url=[{','.join(urls)}]", "model.n_per_request=false", "progress=false",
                                f"+run_dir={run_dir}", *extra]))


def test_one_of_four_replicas_killed_mid_run_costs_no_rollout(data_dir, tmp_path):
    path = write_tasks(data_dir, 60)
    servers = [MockServer(data_paths=[path], latency=0.005) for _ in range(4)]
    urls = [server.start() for server in servers]
    victim = servers[2]

    def kill_when_busy():
        wait_until(lambda: victim.stats["requests"] >= 15, "the replica to serve some requests")
        victim.stop()

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    try:
        summary = collect_on(urls, tmp_path / "run", "num_repeats=4", "concurrency=8")
    finally:
        killer.join()
        for server in servers:
            server.stop()
    assert summary["counts"] == {"ok": 240}  # no infra_error: the others took the dead replica's work
    replicas = {r["base_url"]: r for r in summary["replicas"]}
    assert replicas[urls[2]]["set_aside"] >= 1 and replicas[urls[2]]["errors"] >= 1
    assert all(replicas[url]["requests"] > 15 and replicas[url]["errors"] == 0 for url in (urls[0], urls[1], urls[3]))
    assert json.loads((tmp_path / "run" / "run.json").read_text())["replicas"] == summary["replicas"]
    # the same keys as a run on one endpoint: which replica answered is not part of a rollout's identity
    with MockServer(data_paths=[path]) as single:
        collect_on([single.base_url], tmp_path / "single", "num_repeats=4")
    keys = {r["key"] for r in read_rows(tmp_path / "run" / "rollouts.jsonl")}
    assert keys == {r["key"] for r in read_rows(tmp_path / "single" / "rollouts.jsonl")}


def test_a_replica_down_at_start_is_set_aside_and_auto_concurrency_is_per_replica(data_dir, tmp_path):
    path = write_tasks(data_dir, 10)
    down = MockServer(data_paths=[path])
    down_url = down.start()
    down.stop()
    with MockServer(data_paths=[path]) as up, MockServer(data_paths=[path]) as other:
        summary = collect_on([down_url, up.base_url, other.base_url], tmp_path, "num_repeats=2", "concurrency=auto",
                             "model.max_concurrency=4")
    assert summary["counts"] == {"ok": 20}
    by_url = {r["base_url"]: r for r in summary["replicas"]}
    assert by_url[down_url]["set_aside"] >= 1
    assert by_url[up.base_url]["concurrency"]["mode"] == "auto" and by_url[up.base_url]["concurrency"]["max"] == 4
    assert summary["concurrency"]["per_replica"] is True


def test_no_replica_answering_is_one_clear_error(data_dir, tmp_path):
    write_tasks(data_dir, 2)
    gone = []
    for _ in range(2):
        server = MockServer(rows=[])
        gone.append(server.start())
        server.stop()
    with pytest.raises(GymError, match="no replica of model.base_url answers"):
        collect_on(gone, tmp_path)
