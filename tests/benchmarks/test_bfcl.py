"""BFCL end to end on its upstream-format fixture (real BFCL v4 rows): prepare through the loopback mirror,
collect against the reference server over every API and both tool-call modes, aggregate with BFCL's
figures; the tool-call trouble counters; reverify from stored calls."""

from __future__ import annotations

import json
import logging

import pytest

from gym.core.config import compose
from gym.tasks import aggregate, collect, prepare, reverify
from tests.conftest import run_gym
from tests.verifiers.test_tool_call_verifier import REJECTED_BY_UPSTREAM

CATEGORIES = 13


def _prepare(mirror_url, *extra):
    prepare.run(compose(["task=prepare", "benchmark=bfcl", f"data.mirror={mirror_url}", *extra]))


def _collect(tmp_path, mirror_url, name, *overrides):
    run_dir = tmp_path / name
    summary = collect.run(compose(["task=collect", "benchmark=bfcl", f"data.mirror={mirror_url}", "model=mock",
                                   "model.mock.accuracy=1.0", "progress=false", f"+run_dir={run_dir}", *overrides]))
    rows = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    return summary, rows, run_dir


def _wrong(rows):
    return {row["verifier"]["category"] + ":" + str(row["task_index"]) for row in rows if row["reward"] != 1.0}


@pytest.mark.parametrize("overrides, native", [
    (["model.api=chat"], True),
    (["model.api=responses"], True),
    (["model.api=completions"], False),  # no native tools: BFCL's prompt, calls read from the text
    (["model.api=chat", "benchmark.verifier.options.mode=prompt"], False),
    (["model.api=responses", "benchmark.verifier.options.mode=prompt", "benchmark.verifier.options.format=hermes"],
     False),
    (["model.api=completions", "benchmark.verifier.options.mode=native"], True),  # gym renders and parses Hermes
])
def test_every_api_and_mode_scores_the_gold_calls(overrides, native, tmp_path, data_dir, mirror_url):
    _prepare(mirror_url)
    prepared = [json.loads(line) for line in (data_dir / "bfcl" / "bfcl.jsonl").read_text().splitlines()]
    summary, rows, _ = _collect(tmp_path, mirror_url, "run", *overrides)
    assert len(rows) == len(prepared) and all(row["status"] == "ok" for row in rows)
    failed = {prepared[row["task_index"]]["metadata"]["id"] for row in rows if row["reward"] != 1.0}
    assert failed == REJECTED_BY_UPSTREAM  # only the rows BFCL's own checker rejects
    assert all(("tool_calls" in row) is native for row in rows)
    assert summary["tool_calls"] == {"unparsed_tool_calls": 0, "invalid_tool_arguments": 0, "unknown_tools": 0} \
        if native else "tool_calls" not in summary
    first = rows[0]
    if native:
        assert first["tool_calls"] and "arguments" in first["tool_calls"][0]
    if not native and "hermes" not in " ".join(overrides):
        assert first["prompt"][0]["content"].startswith("You are an expert in composing functions.")


def test_a_server_without_a_tool_parser_is_counted_and_hinted_once(tmp_path, data_dir, mirror_url, caplog):
    _prepare(mirror_url)
    with caplog.at_level(logging.WARNING, logger="gym.toolcalls"):
        summary, rows, run_dir = _collect(tmp_path, mirror_url, "run", "model.mock.tool_parser=false", "limit=30")
    call_rows = [r for r in rows if "relevance" not in r["verifier"]["category"]]
    assert all(r["status"] == "ok" and r["reward"] == 0.0 for r in call_rows)  # wrong, never a crash
    assert summary["tool_calls"]["unparsed_tool_calls"] == len(call_rows)
    assert all(r["tool_call_problems"] == {"unparsed_tool_calls": 1} for r in call_rows)
    hints = [r.getMessage() for r in caplog.records if "unparsed_tool_calls" in r.getMessage()]
    assert len(hints) == 1 and "--enable-auto-tool-choice --tool-call-parser" in hints[0]
    assert json.loads((run_dir / "run.json").read_text())["tool_calls"]["unparsed_tool_calls"] == len(call_rows)
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    figures = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["bfcl"]["family_metrics"]
    assert figures["tool_call_problems"]["unparsed_tool_calls"] == len(call_rows)
    assert figures["error_types"]["ast_decoder:decoder_failed"] == len(call_rows)


def test_prepare_selects_categories_and_keeps_bfcl_ids(data_dir, mirror_url):
    _prepare(mirror_url, "+prepare_args.categories=[live_simple,irrelevance]")
    rows = [json.loads(line) for line in (data_dir / "bfcl" / "bfcl.jsonl").read_text().splitlines()]
    assert {row["metadata"]["category"] for row in rows} == {"live_simple", "irrelevance"}
    assert all(row["metadata"]["id"].startswith(row["metadata"]["category"]) for row in rows)
    simple = next(row for row in rows if row["metadata"]["category"] == "live_simple")
    assert simple["tools"][0]["type"] == "function" and "." not in simple["tools"][0]["function"]["name"]
    assert simple["prompt_functions"][0]["description"].endswith("Note that the provided function is in Python 3 syntax.")
    assert simple["functions"][0]["parameters"]["type"] == "dict"  # the checker reads BFCL's own docs


def test_prepare_rejects_an_unknown_category(mirror_url, tmp_path):
    result = run_gym("task=prepare", "benchmark=bfcl", f"data.mirror={mirror_url}",
                     "+prepare_args.categories=[simple_cobol]", f"hydra.run.dir={tmp_path}")
    assert result.returncode != 0 and "unknown category simple_cobol" in result.stderr
    assert "Traceback" not in result.stderr


def test_java_rows_send_source_text_types_natively(data_dir, mirror_url):
    _prepare(mirror_url, "+prepare_args.categories=[simple_java]")
    row = json.loads((data_dir / "bfcl" / "bfcl.jsonl").read_text().splitlines()[0])
    properties = row["tools"][0]["function"]["parameters"]["properties"]
    assert all(spec["type"] == "string" for spec in properties.values())
    assert "in string representation" in next(iter(properties.values()))["description"]


def test_reverify_scores_the_stored_calls_again(tmp_path, data_dir, mirror_url):
    _prepare(mirror_url)
    _, rows, run_dir = _collect(tmp_path, mirror_url, "run", "model.mock.accuracy=0.5")
    reverify.run(compose(["task=reverify", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'rev'}"]))
    again = [json.loads(line) for line in (tmp_path / "rev" / "rollouts.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in again] == [r["reward"] for r in rows]
    assert 0 < sum(r["reward"] for r in rows) < len(rows)


def test_the_cli_e2e_prints_per_category_accuracy_and_bfcl_summary(tmp_path, mirror_url):
    result = run_gym("task=e2e", "benchmark=bfcl", "model=mock", "limit=200", f"data.mirror={mirror_url}",
                     f"data.root={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}", "progress=false")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "bfcl by category:" in result.stdout and "live_parallel_multiple" in result.stdout
    assert "BFCL summary: non_live" in result.stdout
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"]["bfcl"]
    assert len(metrics["subsets"]["category"]) == CATEGORIES
    figures = metrics["family_metrics"]
    assert len(figures["by_category"]) == CATEGORIES
    assert set(figures["bfcl_summary"]) == {"non_live", "live", "irrelevance", "relevance"}
    assert all(not figure["missing"] for figure in figures["bfcl_summary"].values())


def test_bfcl_against_a_real_server_reply(tmp_path, data_dir, mirror_url):
    """model=vllm against llama.cpp's recorded reply with a real tool call (--jinja): the call is kept in
    the row, graded by BFCL's rules (it calls a function the row does not offer: wrong, and counted)."""
    from tests.replay import ReplayServer, load

    _prepare(mirror_url, "+prepare_args.categories=[simple_python]")
    with ReplayServer(load("llamacpp_models"), load("llamacpp_tools_chat_calls")) as server:
        summary = collect.run(compose(["task=collect", "benchmark=bfcl", f"data.mirror={mirror_url}", "model=vllm",
                                       f"model.base_url={server.root}/v1", "limit=2", "progress=false",
                                       f"+run_dir={tmp_path / 'run'}"]))
        sent = [body for method, path, body in server.requests if path == "/v1/chat/completions"]
    rows = [json.loads(line) for line in (tmp_path / "run" / "rollouts.jsonl").read_text().splitlines()]
    assert [(r["status"], r["reward"]) for r in rows] == [("ok", 0.0), ("ok", 0.0)]
    assert rows[0]["tool_calls"][0]["name"] == "get_weather" and rows[0]["tool_calls"][0]["arguments"] == {"city": "Paris"}
    assert rows[0]["tool_call_problems"] == {"unknown_tools": 1} and summary["tool_calls"]["unknown_tools"] == 2
    assert rows[0]["verifier"]["error_type"] == "wrong_func_name"
    assert sent and all(body["tools"][0]["type"] == "function" for body in sent)


def test_export_writes_the_calls_as_function_call_items_and_reads_them_back(tmp_path, data_dir, mirror_url):
    from gym.rollouts import nemo_gym
    from gym.tasks import export

    _prepare(mirror_url, "+prepare_args.categories=[parallel]")
    _, rows, run_dir = _collect(tmp_path, mirror_url, "run", "model.mock.accuracy=0.5")
    export.run(compose(["task=export", f"rollouts={run_dir}", "format=nemo_gym", f"output_dir={tmp_path / 'nemo'}",
                        f"+run_dir={tmp_path / 'exp'}"]))
    exported = [json.loads(line) for line in (tmp_path / "nemo" / "bfcl_rollouts.jsonl").read_text().splitlines()]
    rows = sorted(rows, key=lambda row: row["task_index"])
    assert [row["_ng_task_index"] for row in exported] == [row["task_index"] for row in rows]
    items = [item for item in exported[0]["response"]["output"] if item["type"] == "function_call"]
    assert [(i["name"], json.loads(i["arguments"])) for i in items] == \
        [(c["name"], c["arguments"]) for c in rows[0]["tool_calls"]] and len(items) > 1
    back = [nemo_gym.to_gym(row, tmp_path / "x.jsonl", "x:1") for row in exported]
    assert [[{k: v for k, v in c.items() if k != "id"} for c in r["tool_calls"]] for r in back] == \
        [[{k: v for k, v in c.items() if k != "id"} for c in r["tool_calls"]] for r in rows]
    reverify.run(compose(["task=reverify", f"rollouts={tmp_path / 'nemo' / 'bfcl_rollouts.jsonl'}",
                          f"+run_dir={tmp_path / 'rev2'}"]))
    again = [json.loads(line) for line in (tmp_path / "rev2" / "bfcl_rollouts.jsonl").read_text().splitlines()]
    assert sorted(r["reward"] for r in again) == sorted(r["reward"] for r in rows)
