"""The documentation site: it builds strictly (a broken link or anchor fails), its generated pages (catalog,
configuration reference) match conf/ and the schemas, and the README stays a short front door into it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gym.core import schema
from gym.data.catalog import config_dirs, load_catalog

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import docs_pages  # noqa: E402
import docs_reference  # noqa: E402

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_site_builds_strictly_and_fetches_nothing(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                             "-d", str(site)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    pages = list(site.rglob("*.html"))
    assert (site / "index.html").is_file() and (site / "catalog" / "index.html").is_file()
    assert not any("fonts.googleapis" in page.read_text(encoding="utf-8") for page in pages)  # opens offline
    catalog = (site / "catalog" / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{entry.name}</code>" in catalog for entry in load_catalog())


def test_a_broken_link_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = docs / "concepts" / "tasks.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the metrics](metrics.md#no-such-heading).\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode != 0 and "no-such-heading" in result.stderr


def test_generated_pages_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "docs_pages.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_catalog_lists_every_benchmark_and_family():
    page = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8")
    entries = load_catalog()
    assert f"{len(entries)} benchmarks" in page
    for entry in entries:
        assert re.search(rf"(?<![\w-]){re.escape(entry.name)}(?![\w-])", page), entry.name
        assert f"| `{entry.verifier}` (" in page


def test_a_new_benchmark_file_and_the_not_run_list_show_up_by_themselves(tmp_path, monkeypatch):
    conf = tmp_path / "conf" / "benchmark"
    conf.mkdir(parents=True)
    text = (ROOT / "conf" / "benchmark" / "gsm8k.yaml").read_text(encoding="utf-8")
    (conf / "fresh_bench.yaml").write_text(text.replace("name: gsm8k", "name: fresh_bench"), encoding="utf-8")
    monkeypatch.setattr(docs_pages, "load_catalog", lambda: load_catalog(config_dirs([tmp_path / "conf"])))
    not_run = tmp_path / "not_run.yaml"
    monkeypatch.setattr(docs_pages, "NOT_RUN", not_run)
    page = docs_pages.catalog_page()
    assert "| `fresh_bench` |" in page and "## Not run yet" not in page  # no list yet: no section
    not_run.write_text("- {name: big_agentic, needs: [docker, a browser], why: 'tools run in containers | VMs'}\n"
                       "- {name: audio_qa, needs: audio input, why: speech in the prompt}\n", encoding="utf-8")
    page = docs_pages.catalog_page()
    section = page[page.index("## Not run yet"):]
    assert "2 benchmarks" in section and "| `audio_qa` | audio input | speech in the prompt |" in section
    assert "| `big_agentic` | docker, a browser | tools run in containers &#124; VMs |" in section
    not_run.write_text("- {needs: x}\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="entry 1 has no name"):
        docs_pages.catalog_page()


def test_a_benchmark_with_its_own_page_is_linked(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "gsm8k.md").write_text("# gsm8k\n", encoding="utf-8")
    (tmp_path / "benchmarks" / "contests.md").write_text("# AIME 2025 (`aime25`)\n\n`aime24` too\n", encoding="utf-8")
    monkeypatch.setattr(docs_pages, "DOCS", tmp_path)
    page = docs_pages.catalog_page()
    assert "[`gsm8k`](benchmarks/gsm8k.md)" in page and "[`aime25`](benchmarks/contests.md)" in page
    assert "| `aime24` |" in page  # named in the text only: no link


def test_configuration_reference_has_every_knob():
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "conf" / "task").glob("*.yaml")):
        assert f"### task={path.stem}" in page
        for key in docs_reference._values(path):
            assert f"| `{key}` |" in page, (path.name, key)
    for group, cls in (("model", schema.ModelConfig), ("judge", schema.JudgeConfig), ("user", schema.UserConfig),
                       ("tracker", schema.TrackerConfig), ("benchmark", schema.BenchmarkConfig)):
        for key, *_ in docs_reference.schema_fields(cls):
            assert f"| `{group}.{key}` |" in page, (group, key)
    assert "| `model.timeout` | `600` | float | seconds per request |" in page
    assert "| `episode` | `nl_assertions` | `skip` | `skip`, `judge` |" in page


def test_comments_are_read_from_option_files(tmp_path):
    path = tmp_path / "knobs.yaml"
    path.write_text("# @package _global_\n# What these knobs do.\n# Second line.\ntask:\n  name: x\n"
                    "limit: null  # number of TASKS\nquery: \"a # b\"  # free text\n"
                    "prompt:\n  user: |-\n    Solve: # not a comment\n    {question}\n  system: null  # the system\n"
                    "cache:  # replies kept\n  dir: null  # e.g. ~/.cache\n", encoding="utf-8")
    header, comments = docs_reference.file_comments(path)
    assert header == "What these knobs do. Second line."
    assert comments == {"limit": "number of TASKS", "query": "free text", "prompt.system": "the system",
                        "cache": "replies kept", "cache.dir": "e.g. ~/.cache"}


def test_readme_is_a_short_front_door():
    lines = README.splitlines()
    assert len(lines) <= 250
    assert ".venv/bin/python -m pytest" in README  # .ci/run runs the README's test command
    assert "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'" in README
    assert "python -m gym task=e2e benchmark=tau2_mock model=mock user=mock" in README
    assert "python -m gym task=view rollouts=outputs/e2e" in README
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), target


def test_new_knobs_tasks_and_groups_show_up_by_themselves(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "conf", conf)
    (conf / "task" / "peek.yaml").write_text("# @package _global_\n# Look at a run.\ntask:\n  name: peek\n"
                                            "port: null  # null = a free port\n", encoding="utf-8")
    (conf / "palette").mkdir()
    (conf / "palette" / "dark.yaml").write_text("# Dark pages.\ncontrast: 7  # WCAG ratio\n", encoding="utf-8")
    with (conf / "config.yaml").open("a", encoding="utf-8") as config:
        config.write("outputs_root: outputs  # where run dirs go\n")
    monkeypatch.setattr(docs_reference, "CONF_DIR", conf)
    page = docs_reference.configuration_page()
    assert "### task=peek" in page and "| `port` | `null` |  | null = a free port |" in page
    assert "| `palette=dark` | Dark pages. | `palette.contrast` = `7`: WCAG ratio |" in page
    assert "| `outputs_root` | `outputs` | where run dirs go |" in page
