"""The HTML report says what it is about (benchmark and model in its title) and stays usable with many tasks."""

from __future__ import annotations

import re

from tests.tasks.test_profile_task import rows_for, run, write


def test_title_names_benchmark_and_model(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for({0: [1, 0], 1: [0, 0]}, benchmark="aime24", model="qwen-7b"))
    _, out = run(tmp_path, f"rollouts={path}", "plots=false")
    html = (out / "report.html").read_text()
    assert "<title>aime24 · qwen-7b: gym reward profile</title>" in html
    assert "<h1>aime24 · qwen-7b: gym reward profile</h1>" in html


def test_long_task_table_is_folded_and_sortable(tmp_path):
    few = write(tmp_path / "few.jsonl", rows_for({i: [1, 0] for i in range(5)}))
    _, out = run(tmp_path / "a", f"rollouts={few}", "plots=false")
    html = (out / "report.html").read_text()
    assert "<table class='sortable'>" in html and "<details>" not in html
    many = write(tmp_path / "many.jsonl", rows_for({i: [i % 2, 1] for i in range(150)}))
    _, out = run(tmp_path / "b", f"rollouts={many}", "plots=false")
    html = (out / "report.html").read_text()
    folded = re.search(r"<details><summary>150 tasks[^<]*</summary><table class='sortable'>", html)
    assert folded and html.count("<tr>") >= 150
    assert "table.sortable th" in html  # the sorting script ships inside the page: nothing fetched
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
