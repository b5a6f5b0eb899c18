"""task=prepare driven through the real CLI, with a user benchmark on the search path and a loopback mirror."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import assert_clean_failure, run_gym, serve_directory

GOOD_SCRIPT = """
def prepare(ctx, scale=1):
    raw = ctx.fetch("https://example.org/toy/data.jsonl")
    rows = [{"question": r["q"], "expected_answer": str(r["a"] * scale)} for r in ctx.read_jsonl(raw)]
    return ctx.write_rows(rows)
"""


def _bench(conf: Path, name: str, script: str | None, extra: str = "") -> None:
    scripts = conf.parent / "scripts" / name
    scripts.mkdir(parents=True, exist_ok=True)
    if script is not None:
        (scripts / "prepare.py").write_text(textwrap.dedent(script))
    (conf / "benchmark").mkdir(parents=True, exist_ok=True)
    (conf / "benchmark" / f"{name}.yaml").write_text(textwrap.dedent(f"""\
        defaults:
          - _base/math@_here_
          - _self_
        name: {name}
        description: a user benchmark outside gym
        dataset:
          prepare_script: {scripts / 'prepare.py'}
          sources: [https://example.org/toy/data.jsonl]
        """) + extra)


@pytest.fixture
def user_setup(tmp_path):
    conf = tmp_path / "userconf"
    _bench(conf, "toy", GOOD_SCRIPT)
    _bench(conf, "toy2", GOOD_SCRIPT)
    mirror = tmp_path / "mirror"
    upstream = mirror / "example.org" / "toy"
    upstream.mkdir(parents=True)
    (upstream / "data.jsonl").write_text('{"q": "1+1?", "a": 2}\n{"q": "2+3?", "a": 5}\n')
    server, url = serve_directory(mirror)
    data = tmp_path / "data"
    yield {"conf": conf, "mirror": mirror, "url": url, "data": data, "tmp": tmp_path,
           "args": [f"hydra.searchpath=[file://{conf}]", f"data.root={data}"]}
    server.shutdown()


def test_prepare_user_benchmark_through_mirror(user_setup):
    s = user_setup
    result = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", *s["args"],
                     f"hydra.run.dir={s['tmp']}/run")
    assert result.returncode == 0, result.stderr
    out = s["data"] / "toy" / "toy.jsonl"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == [{"question": "1+1?", "expected_answer": "2"}, {"question": "2+3?", "expected_answer": "5"}]
    manifest = json.loads((out.parent / "manifest.json").read_text())
    assert manifest["rows"] == 2 and manifest["sources"] == ["https://example.org/toy/data.jsonl"]
    assert len(manifest["sha256"]) == 64 and manifest["gym_version"]
    assert "toy" in result.stdout and "ok" in result.stdout
    # a local-directory mirror works too, and prepare_args reach prepare()
    again = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['mirror']}", "+prepare_args.scale=10",
                    *s["args"], f"hydra.run.dir={s['tmp']}/run2")
    assert again.returncode == 0, again.stderr
    assert '"expected_answer": "20"' in out.read_text()


# A user's prepare script written against the documented API (gym.data), and one written against the module
# paths of earlier releases: both keep working.
API_BODY = """
def prepare(ctx: PrepareContext):
    raw = ctx.fetch("https://example.org/toy/data.jsonl")
    items = [{"q": r["q"], "a": str(r["a"])} for r in ctx.read_jsonl(raw)]
    rows = ctx.convert_rows(raw, items, lambda item, index: text_row(item, index, ("q", "a")))
    if not rows:
        raise GymError("no rows")
    return ctx.write_rows(rows)
"""
API_SCRIPTS = {
    "documented": "from gym.data import GymError, PrepareContext, text_row\n" + API_BODY,
    "earlier_paths": ("from gym.converters import text_row\nfrom gym.errors import GymError\n"
                      "from gym.prepare_context import PrepareContext\n" + API_BODY),
}


@pytest.mark.parametrize("style", sorted(API_SCRIPTS))
def test_a_user_benchmark_written_against_the_prepare_api_runs(user_setup, style):
    s = user_setup
    _bench(s["conf"], "toy", API_SCRIPTS[style])
    result = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", *s["args"],
                     f"hydra.run.dir={s['tmp']}/run")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (s["data"] / "toy" / "toy.jsonl").read_text().splitlines()]
    assert [(r["question"], r["expected_answer"]) for r in rows] == [("1+1?", "2"), ("2+3?", "5")]


def test_several_with_joblib_and_cache(user_setup):
    s = user_setup
    result = run_gym("task=prepare", "benchmarks=[toy,toy2]", "n_jobs=2", f"data.mirror={s['url']}", *s["args"],
                     f"hydra.run.dir={s['tmp']}/run")
    assert result.returncode == 0, result.stderr
    assert (s["data"] / "toy2" / "toy2.jsonl").is_file() and (s["data"] / "toy" / "toy.jsonl").is_file()
    cached = run_gym("task=prepare", "benchmarks=[toy,toy2]", "data.offline=true", *s["args"],
                     f"hydra.run.dir={s['tmp']}/run2")
    assert cached.returncode == 0, cached.stderr
    assert "already prepared" in cached.stderr and cached.stdout.count("cached") == 2


def test_multirun_sweep(user_setup):
    s = user_setup
    result = run_gym("-m", "task=prepare", "benchmark=toy,toy2", f"data.mirror={s['url']}", *s["args"],
                     f"hydra.sweep.dir={s['tmp']}/sweep")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (s["tmp"] / "sweep").iterdir() if p.is_dir()) == ["0_toy", "1_toy2"]
    assert (s["data"] / "toy2" / "toy2.jsonl").is_file()


def test_offline_names_missing_file(user_setup):
    s = user_setup
    result = run_gym("task=prepare", "benchmark=toy", "data.offline=true", *s["args"], f"hydra.run.dir={s['tmp']}/r")
    assert_clean_failure(result, "offline=true", "example.org/toy/data.jsonl")
    assert not (s["data"] / "toy" / "toy.jsonl").exists()


def test_upstream_failures_leave_nothing_half_written(user_setup):
    s = user_setup
    (s["mirror"] / "example.org" / "toy" / "data.jsonl").unlink()
    missing = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", "data.retries=0", *s["args"],
                      f"hydra.run.dir={s['tmp']}/r1")
    assert_clean_failure(missing, "404")
    refused = run_gym("task=prepare", "benchmark=toy", "data.mirror=http://127.0.0.1:9", "data.retries=1",
                      *s["args"], f"hydra.run.dir={s['tmp']}/r2")
    assert_clean_failure(refused, "cannot download http://127.0.0.1:9/example.org/toy/data.jsonl after 2 attempts",
                         "Connection refused", "ways out: data.mirror=", "data.offline=true")
    (s["mirror"] / "example.org" / "toy" / "data.jsonl").write_text('{"q": "ok", "a": 1}\n{"q": broken\n')
    corrupt = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", *s["args"], f"hydra.run.dir={s['tmp']}/r3")
    assert_clean_failure(corrupt, "data.jsonl:2", "malformed JSON")
    toy_dir = s["data"] / "toy"
    assert not (toy_dir / "toy.jsonl").exists()
    assert not [p for p in toy_dir.rglob("*") if p.name.endswith(".tmp")]
    skipped = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", "prepare.skip_bad_rows=true",
                      *s["args"], f"hydra.run.dir={s['tmp']}/r4")
    assert skipped.returncode == 0, skipped.stderr
    assert "data.jsonl:2" in json.loads((toy_dir / "manifest.json").read_text())["skipped_rows"][0]
    assert len((toy_dir / "toy.jsonl").read_text().splitlines()) == 1


def test_all_problems_reported_before_anything_runs(user_setup):
    s = user_setup
    _bench(s["conf"], "noscript", None)
    _bench(s["conf"], "nofunc", "x = 1\n")
    _bench(s["conf"], "wrongpath", "def prepare(ctx):\n    return '/elsewhere.jsonl'\n")
    result = run_gym("task=prepare", "benchmarks=[toy,noscript,nofunc]", "+prepare_args.bogus=1",
                     f"data.mirror={s['url']}", *s["args"], f"hydra.run.dir={s['tmp']}/r")
    assert_clean_failure(result, "noscript: prepare script not found", "nofunc:", "defines no prepare()",
                         "toy: prepare() does not accept")
    assert not (s["data"] / "toy").exists()
    wrong = run_gym("task=prepare", "benchmark=wrongpath", *s["args"], f"hydra.run.dir={s['tmp']}/r2")
    assert_clean_failure(wrong, "/elsewhere.jsonl", "config expects")


def test_data_root_not_writable(user_setup):
    s = user_setup
    blocker = s["tmp"] / "a-file"
    blocker.write_text("not a directory")  # a data root below a file cannot be created, even by root
    result = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", *s["args"],
                     f"data.root={blocker}/data", f"hydra.run.dir={s['tmp']}/r")
    assert_clean_failure(result, "not writable")


def test_typo_in_benchmark_yaml_fails_at_compose(user_setup):
    s = user_setup
    _bench(s["conf"], "typo", GOOD_SCRIPT, extra="num_repeat: 3\n")
    result = run_gym("task=search", "benchmark=typo", *s["args"], f"hydra.run.dir={s['tmp']}/r")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "benchmark/typo" in result.stderr and "num_repeat" in result.stderr


def test_search_sees_what_a_user_benchmark_inherits_from_gym(user_setup):
    s = user_setup
    result = run_gym("task=search", "query=toy", "format=json", *s["args"], f"hydra.run.dir={s['tmp']}/r")
    assert result.returncode == 0, result.stderr
    hits = {hit["name"]: hit for hit in json.loads(result.stdout)}
    assert hits["toy"]["verifier"] == "math" and hits["toy"]["domain"] == "math"  # from gym's _base/math


BLOCKED = {"HTTPS_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def test_prepared_is_cached_force_redoes_and_new_args_prepare_again(user_setup):
    s = user_setup
    out = s["data"] / "toy" / "toy.jsonl"
    first = run_gym("task=prepare", "benchmark=toy", f"data.mirror={s['url']}", *s["args"], f"hydra.run.dir={s['tmp']}/r1")
    assert first.returncode == 0, first.stderr
    stamp = out.stat().st_mtime_ns
    # cached by default: no network needed, the file is not rewritten
    cached = run_gym("task=prepare", "benchmark=toy", *s["args"], f"hydra.run.dir={s['tmp']}/r2", env=BLOCKED)
    assert cached.returncode == 0, cached.stderr
    assert "cached" in cached.stdout and out.stat().st_mtime_ns == stamp
    # prepare.force: downloaded and prepared again
    (s["mirror"] / "example.org" / "toy" / "data.jsonl").write_text('{"q": "1+1?", "a": 2}\n{"q": "2+5?", "a": 7}\n')
    forced = run_gym("task=prepare", "benchmark=toy", "prepare.force=true", f"data.mirror={s['url']}", *s["args"],
                     f"hydra.run.dir={s['tmp']}/r3")
    assert forced.returncode == 0, forced.stderr
    assert "ok" in forced.stdout and '"expected_answer": "7"' in out.read_text()
    # other prepare arguments than the manifest's: prepared again
    scaled = run_gym("task=prepare", "benchmark=toy", "prepare_args.scale=10", *s["args"], f"hydra.run.dir={s['tmp']}/r4",
                     env=BLOCKED)
    assert scaled.returncode == 0, scaled.stderr
    assert '"expected_answer": "70"' in out.read_text()
    report = json.loads((s["tmp"] / "r4" / "prepare.json").read_text())
    assert [(r["benchmark"], r["status"], r["rows"]) for r in report] == [("toy", "ok", 2)]


def test_file_in_place_is_used_without_the_network(user_setup):
    s = user_setup
    raw = s["data"] / "toy" / "raw" / "example.org" / "toy" / "data.jsonl"
    raw.parent.mkdir(parents=True)
    raw.write_text('{"q": "3+4?", "a": 7}\n')
    result = run_gym("task=prepare", "benchmark=toy", *s["args"], f"hydra.run.dir={s['tmp']}/r", env=BLOCKED)
    assert result.returncode == 0, result.stderr
    assert json.loads((s["data"] / "toy" / "toy.jsonl").read_text())["expected_answer"] == "7"


def test_no_network_fails_at_once_naming_the_ways_out(user_setup):
    s = user_setup
    result = run_gym("task=prepare", "benchmark=toy", "data.retries=4", *s["args"], f"hydra.run.dir={s['tmp']}/r",
                     env=BLOCKED)
    line = result.stderr.strip().splitlines()[-1]
    assert_clean_failure(result, "no network")
    assert "attempts" not in line  # not retried: there is no network to come back
    raw = s["data"] / "toy" / "raw" / "example.org" / "toy" / "data.jsonl"
    assert line.endswith(f"ways out: data.mirror=<URL or dir holding example.org/toy/data.jsonl>, or put the file at "
                         f"{raw} (a file in place is used as is), or data.offline=true to use only local files")
    assert not (s["data"] / "toy").exists()  # no empty dirs left behind


def test_many_failures_give_a_short_table_and_leave_no_empty_dirs(user_setup):
    s = user_setup
    for n in range(6):
        _bench(s["conf"], f"gone{n}", GOOD_SCRIPT)
    result = run_gym("task=prepare", "benchmarks=[toy,gone0,gone1,gone2,gone3,gone4,gone5]", *s["args"],
                     f"hydra.run.dir={s['tmp']}/r", env=BLOCKED)
    assert_clean_failure(result, "7 of 7 benchmarks failed to prepare", "prepare.json", "data.mirror=", "data.offline=true")
    assert len(result.stderr.strip().splitlines()[-1]) < 400
    table = [line for line in result.stdout.splitlines() if "failed" in line]
    assert len(table) == 7 and all(len(line) < 200 and "no network" in line for line in table)
    assert not s["data"].exists() or not any(s["data"].iterdir())
    report = json.loads((s["tmp"] / "r" / "prepare.json").read_text())
    assert all(r["status"] == "failed" and "ways out" in r["error"] for r in report)
    assert "ways out" in (s["tmp"] / "r" / "gym.log").read_text()


def test_e2e_on_a_user_benchmark_composes_its_steps_on_the_user_search_path(user_setup):
    s = user_setup
    run = s["tmp"] / "e2e"
    result = run_gym("task=e2e", "benchmark=toy", "model=mock", "num_repeats=2", "progress=false", "aggregate.k=[1,2]",
                     f"data.mirror={s['url']}", *s["args"], f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["benchmarks"]["toy"]["tasks"] == 2 and (run / "report.html").is_file()
    assert json.loads((run / "prepare.json").read_text())[0]["benchmark"] == "toy"
