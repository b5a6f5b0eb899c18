"""task=search: ranking, filters, JSON output, the detailed view, did-you-mean."""

from __future__ import annotations

import json

import pytest

from gym.data.catalog import load_catalog
from gym.core.config import compose
from gym.tasks import search
from tests.conftest import assert_clean_failure, run_gym


def _names(capsys, overrides):
    cfg = compose(["task=search", "format=json", *overrides])
    search.run(cfg)
    return [hit["name"] for hit in json.loads(capsys.readouterr().out) if hit["runs"]]


@pytest.mark.parametrize("query, expected", [("aime42", "aime24"), ("gsm8", "gsm8k"), ("mathh", None),
                                             ("AIME", "aime24"), ("grade school", "gsm8k")])
def test_typo_tolerant_ranking(capsys, query, expected):
    names = _names(capsys, [f"query={query}" if " " not in query else f"query='{query}'"])
    assert names, f"no match for {query}"
    if expected:
        assert names[0] == expected or expected in names[:2]
    else:  # "mathh" finds math benchmarks only
        assert all(e.domain == "math" for e in load_catalog() if e.name in names)


def test_empty_query_lists_everything(capsys):
    assert sorted(_names(capsys, [])) == sorted(e.name for e in load_catalog())


def test_no_match(capsys):
    assert _names(capsys, ["query=zzzqqqxxx"]) == []


def test_filters(capsys):
    names = _names(capsys, ["domain=math"])
    assert names and all(e.domain == "math" for e in load_catalog() if e.name in names)
    with pytest.raises(Exception, match="did you mean math"):
        _names(capsys, ["domain=mathh"])


def test_prepared_flag(capsys, data_dir):
    (data_dir / "gsm8k").mkdir(parents=True)
    (data_dir / "gsm8k" / "gsm8k.jsonl").write_text('{"question": "q", "expected_answer": "1"}\n')
    cfg = compose(["task=search", "format=json", "query=gsm8k"])
    search.run(cfg)
    hits = {h["name"]: h for h in json.loads(capsys.readouterr().out)}
    assert hits["gsm8k"]["prepared"] is True


def test_show_one_benchmark(capsys, data_dir):
    (data_dir / "gsm8k").mkdir(parents=True)
    (data_dir / "gsm8k" / "gsm8k.jsonl").write_text('{"question": "q", "expected_answer": "1"}\n' * 3)
    cfg = compose(["task=search", "benchmark=gsm8k"])
    info = search.run(cfg)
    out = capsys.readouterr().out
    assert info["prepared"] and info["rows"] == 3 and len(info["sha256"]) == 64
    assert "python -m gym task=prepare benchmark=gsm8k" in out
    assert "family: math" in out


def test_cli_table_and_json(tmp_path):
    table = run_gym("task=search", "query=aime", f"hydra.run.dir={tmp_path}/a")
    assert table.returncode == 0, table.stderr
    assert "aime24" in table.stdout and "verifier" in table.stdout.splitlines()[1]
    js = run_gym("task=search", "query=aime", "format=json", f"hydra.run.dir={tmp_path}/b")
    hits = json.loads(js.stdout)  # stdout is pure JSON; Hydra's log lines go to stderr
    assert hits[0]["name"] in ("aime24", "aime25")


def test_cli_did_you_mean(tmp_path):
    result = run_gym("task=search", "benchmark=aime42", f"hydra.run.dir={tmp_path}")
    assert_clean_failure(result, "unknown benchmark 'aime42'", "did you mean", "aime24")
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_unknown_task_and_bad_override(tmp_path):
    assert_clean_failure(run_gym("task=serch"), "unknown task 'serch'", "did you mean search")
    bad = run_gym("task=search", "querry=math", f"hydra.run.dir={tmp_path}")
    assert_clean_failure(bad, "unknown key 'querry'", "did you mean query?")
    assert len(bad.stderr.strip().splitlines()) == 1
    wrong_type = run_gym("task=collect", "benchmark=gsm8k", "concurrency=lots", f"hydra.run.dir={tmp_path}/b")
    assert_clean_failure(wrong_type, "conf/task/collect.yaml", "concurrency", "lots")
    assert len(wrong_type.stderr.strip().splitlines()) == 1
    assert_clean_failure(run_gym("task=collect", "model=vlm"), "unknown model 'vlm'", "did you mean vllm")


def test_no_task_prints_help():
    result = run_gym()
    assert result.returncode == 0
    for word in ("Tasks:", "search", "prepare", "collect", "aggregate", "profile", "e2e", "Examples:"):
        assert word in result.stdout
