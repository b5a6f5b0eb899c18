"""model.n_per_request: a task's repeats in one request with n=k, split into rollouts; single requests
when the server refuses n > 1 or a seed makes each rollout its own request."""

from __future__ import annotations

from collections import Counter

from gym.model.client import ModelClient
from gym.core.config import compose
from gym.mock.server import MockServer
from gym.model.calls import ModelCalls
from gym.tasks import collect
from tests.model_time_data import read_rows, write_tasks


def run_collect(run_dir, *overrides):
    return collect.run(compose(["task=collect", "benchmark=gsm8k", "model=mock", "progress=false",
                                f"+run_dir={run_dir}", *overrides]))


def test_one_request_per_task_split_into_rollouts(data_dir, tmp_path):
    write_tasks(data_dir, 12)
    summary = run_collect(tmp_path, "num_repeats=5", "model.n_per_request=true")
    assert summary["model_requests"] == summary["requests_with_n"] == 12
    rows = read_rows(tmp_path / "rollouts.jsonl")
    assert Counter(r["task_index"] for r in rows) == {t: 5 for t in range(12)}
    assert {(r["task_index"], r["rollout_index"]) for r in rows} == {(t, k) for t in range(12) for k in range(5)}
    assert len({r["key"] for r in rows}) == 60 and all(r["status"] == "ok" for r in rows)
    assert all(r["usage"]["completion_tokens"] > 0 for r in rows)  # the reply's total, split over its choices
    # the same keys as one request per rollout: n per request changes how, not what, is asked
    single = run_collect(tmp_path / "single", "num_repeats=5")
    assert single["model_requests"] == 60
    assert {r["key"] for r in read_rows(tmp_path / "single" / "rollouts.jsonl")} == {r["key"] for r in rows}


def test_falls_back_to_single_requests_when_the_server_refuses_n(data_dir, tmp_path):
    write_tasks(data_dir, 6)
    summary = run_collect(tmp_path, "num_repeats=4", "model.n_per_request=true", "model.mock.max_n=1", "concurrency=1")
    assert summary["counts"] == {"ok": 24} and summary["n_per_request"] is False
    assert summary["requests_with_n"] == 1  # refused once, then never asked again
    assert summary["model_requests"] == 1 + 24
    rows = read_rows(tmp_path / "rollouts.jsonl")
    assert {(r["task_index"], r["rollout_index"]) for r in rows} == {(t, k) for t in range(6) for k in range(4)}


def test_a_server_that_ignores_n_is_asked_for_the_rest_singly():
    rows = [{"question": "How many legs does a spider have?", "expected_answer": "8"}]
    with MockServer(rows=rows, accuracy=1.0) as server:
        client = ModelClient(server.base_url, model="gym-mock")
        original = client._payload
        client._payload = lambda messages, seed, n=1, *offered: original(messages, seed, 1, *offered)  # drops n, like some proxies
        calls = ModelCalls(client, n_per_request=True)
        members = [(i, None, f"key{i}") for i in range(3)]
        results = calls.complete([{"role": "user", "content": rows[0]["question"]}], members)
        assert [m[0] for m, _, _ in results] == [0, 1, 2] and all(c.status == "ok" for _, c, _ in results)
        assert calls.n_per_request is False and server.stats["requests"] == 3


def test_a_seed_keeps_one_request_per_rollout(data_dir, tmp_path):
    write_tasks(data_dir, 4)
    summary = run_collect(tmp_path, "num_repeats=3", "model.n_per_request=true", "model.sampling.seed=7")
    assert summary["model_requests"] == 12 and summary["requests_with_n"] == 0


def test_adaptive_rounds_go_out_as_n_requests(data_dir, tmp_path):
    write_tasks(data_dir, 20)
    summary = run_collect(tmp_path, "num_repeats=16", "adaptive.enabled=true", "model.n_per_request=true",
                          "model.mock.task_accuracy=beta:0.5:0.5")
    rows = read_rows(tmp_path / "rollouts.jsonl")
    assert summary["ran"] == len(rows) and summary["model_requests"] < len(rows) / 2  # 4 first, then 2 per round
    per_task = Counter(r["task_index"] for r in rows)
    assert {(r["task_index"], r["rollout_index"]) for r in rows} == {(t, k) for t, n in per_task.items()
                                                                      for k in range(n)}


def test_after_a_server_ignores_n_a_tasks_rollouts_spread_over_the_workers(data_dir, tmp_path):
    """A server that accepts n and answers one choice: the rest of each task's rollouts go out one per
    worker, all at once, not one after another on the worker that sent the n request."""
    path = write_tasks(data_dir, 2)
    with MockServer(data_paths=[path], ignore_n=True, latency=0.05) as server:
        summary = collect.run(compose(["task=collect", "benchmark=gsm8k", "model=vllm", "progress=false",
                                       f"model.base_url={server.base_url}", "model.name=gym-mock",
                                       "num_repeats=8", "concurrency=8", f"+run_dir={tmp_path}"]))
        in_flight = server.stats["max_in_flight"]
    assert summary["counts"] == {"ok": 16} and summary["n_per_request"] is False
    assert summary["model_requests"] == 16  # each rollout answered once: by an n request (one choice) or singly
    assert in_flight > 2  # more requests at once than tasks: the leftovers did not queue behind one worker each
    rows = read_rows(tmp_path / "rollouts.jsonl")
    assert {(r["task_index"], r["rollout_index"]) for r in rows} == {(t, k) for t in range(2) for k in range(8)}
