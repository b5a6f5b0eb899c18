"""The catalog's smoke test: the README's whole-catalog dry run, exactly as it spells it, from a checkout
(`python -m gym -m task=e2e 'benchmark=glob(*,exclude=[terminal_bench_2,swebench_*])' model=mock judge=mock limit=3
data.mirror=tests/fixtures/upstream data.root=outputs/dry-run-data`): every benchmark prepares from the fixtures,
runs and is scored, or is skipped with its reason (benchmark=local and benchmark=harbor, which need your own file or
folder), and the sweep exits 0; the container benchmarks are left out by the line's own glob."""

from __future__ import annotations

import json

import pytest

from gym.data.catalog import benchmark_files
from tests.benchmarks.test_catalog_dry_run import typed_command
from tests.conftest import NO_NETWORK, ROOT, run_gym


def swept(names) -> list[str]:
    """The benchmarks the typed line's glob(...) picks, by Hydra's own parser."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    (glob,) = [word for word in typed_command() if word.startswith("benchmark=glob(")]
    return OverridesParser.create().parse_override(glob).value().filter(sorted(names))


def test_the_sweep_leaves_out_only_the_container_benchmarks():
    assert set(benchmark_files()) - set(swept(benchmark_files())) == {"terminal_bench_2", "swebench_lite",
                                                                       "swebench_verified"}


@pytest.mark.slow
@pytest.mark.timeout(1200)  # 95 jobs in one process: ~2 min of CPU (docs/performance.md), more on a busy machine
def test_the_whole_catalog_dry_run_as_typed_exits_0(tmp_path):
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # a checkout: data.mirror=tests/fixtures/upstream
    env = {**NO_NETWORK, "GYM_DATA_DIR": str(tmp_path / "no-data")}
    result = run_gym(*typed_command(), cwd=tmp_path, env=env, timeout=1200)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr
    (summary,) = (tmp_path / "outputs" / "e2e" / "multirun").glob("*/summary.json")
    jobs = {job["job"].split("_", 1)[1].rsplit("_", 1)[0]: job for job in json.loads(summary.read_text())["jobs"]}
    assert set(jobs) == set(swept(benchmark_files())) | {"local", "harbor"}
    local, harbor = jobs.pop("local"), jobs.pop("harbor")
    assert local["status"] == "skipped" and "runs your own file" in local["error"]
    assert harbor["status"] == "skipped" and "benchmark.dataset.tasks=" in harbor["error"]
    assert "gym: skipped: benchmark=local runs your own file" in result.stderr
    assert {name: job["status"] for name, job in jobs.items() if job["status"] != "ok"} == {}
    assert all(job["pass@1"] is not None for job in jobs.values())
    assert not (tmp_path / "no-data").exists()  # prepared under data.root=outputs/dry-run-data only
    prepared = tmp_path / "outputs" / "dry-run-data"
    assert sorted(p.name for p in prepared.iterdir() if p.is_dir()) == sorted(jobs)
    run = json.loads(next(summary.parent.glob("*_tau2_retail_mock/run.json")).read_text())
    assert run["endpoint"]["user"]["kind"] == "mock"  # an agent benchmark gets gym's mock user
