"""task=search as a person reads it: lines fit the terminal (COLUMNS, else 80 when piped), a plain word finds
what it says before near words, and the detailed view of one benchmark has its sha256 line."""

from __future__ import annotations

import json

from tests.conftest import run_gym


def _width(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_lines_fit_columns_and_the_full_text_stays_in_json(tmp_path):
    for columns in ("60", "100", "200"):
        result = run_gym("task=search", "query=math", env={"COLUMNS": columns})
        assert result.returncode == 0, result.stderr
        assert _width(result.stdout) <= int(columns), result.stdout
        assert "…" in result.stdout  # descriptions are cut, not dropped
    piped = run_gym("task=search", env={"COLUMNS": ""})  # no terminal, no COLUMNS: 80
    assert piped.returncode == 0 and _width(piped.stdout) <= 80
    full = json.loads(run_gym("task=search", "query=iheval", "format=json").stdout)
    assert len(full[0]["description"]) > 200  # format=json keeps every word


def test_a_plain_word_finds_what_it_says_first_and_near_words_are_cut():
    hits = json.loads(run_gym("task=search", "query=math", "format=json").stdout)
    names = [h["name"] for h in hits]
    assert not any(n.startswith(("banking", "litmus", "tau2", "hotpotqa", "longbench")) for n in names), names
    assert names[:3] == ["hendrycks_math", "math-500", "polymath"]
    runnable = [h for h in hits if h["runs"]]
    assert all(h["domain"] == "math" for h in runnable), [(h["name"], h["domain"]) for h in runnable]
    table = run_gym("task=search", "query=math").stdout
    assert "banking" not in table and "litmus" not in table
    typo = [h["name"] for h in json.loads(run_gym("task=search", "query=mathh", "format=json").stdout)]
    assert "gsm8k" in typo and "aime24" in typo  # a typo matches nothing as typed: near words stay


def test_one_benchmark_shows_its_sha256_line(tmp_path, mirror_url):
    root = f"data.root={tmp_path}/data"
    before = run_gym("task=search", "benchmark=aime24", root)
    assert before.returncode == 0, before.stderr
    assert "sha256:    none yet" in before.stdout
    prepared = run_gym("task=prepare", "benchmark=aime24", root, f"data.mirror={mirror_url}",
                       f"hydra.run.dir={tmp_path}/run")
    assert prepared.returncode == 0, prepared.stderr
    after = run_gym("task=search", "benchmark=aime24", root)
    (line,) = [line for line in after.stdout.splitlines() if line.startswith("sha256:")]
    assert len(line.split()[1]) == 64
    assert json.loads(run_gym("task=search", "benchmark=aime24", root, "format=json").stdout)["sha256"] == line.split()[1]
