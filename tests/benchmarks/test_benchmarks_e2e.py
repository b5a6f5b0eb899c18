"""Every benchmark end to end on its upstream-format fixture: prepare (through a loopback mirror) ->
collect (model=mock, always right) -> aggregate. New benchmarks are picked up automatically."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from gym.data.catalog import benchmark_files, load_catalog
from gym.core.config import compose_step, offline_user
from gym.data.prepare_context import read_manifest
from gym.tasks import aggregate, collect, prepare
from tests.conftest import CATALOG_RUN, composed

from conftest import ROOT

# Families whose answers the reference server cannot produce (it echoes the gold answer): the pipeline
# must still run and score every rollout.
# ioi: upstream ships no solution column, so the reference server has no gold program to answer with
UNSOLVABLE_BY_MOCK = {"ifeval", "ifbench", "iheval", "ioi"}
UNSOLVABLE_NAMES: set[str] = set()  # benchmarks of a solvable family whose gold the reference server lacks
ENTRIES = {e.name: e for e in load_catalog()}
FIXTURE_ARGS = {
    # ToolSandbox: five scenarios of the shipped file (tools/make_toolsandbox_fixture.py), all sent
    "toolsandbox": [f"benchmark.dataset.prepare_args.scenarios={ROOT}/tests/fixtures/toolsandbox/scenarios.json.gz"],
}
# RULER generates its rows: a short length and a few samples per task keep the suite lean
FIXTURE_ARGS["ruler"] = ["benchmark.dataset.prepare_args.max_length=900", "benchmark.dataset.prepare_args.num_samples=2"]
FIXTURE_ARGS["ruler2"] = ["benchmark.dataset.prepare_args.max_length=1500", "benchmark.dataset.prepare_args.num_samples=2"]


@pytest.mark.parametrize("name", sorted(benchmark_files()))
def test_prepare_collect_aggregate(name, tmp_path, data_dir, mirror_url):
    # the benchmark composed as the whole-catalog dry run's job is (shared with tests/core/test_configs.py), each
    # step derived from it as task=e2e derives its steps; no user chosen: the benchmark's own, else gym's mock
    cfg = composed(*CATALOG_RUN, f"benchmark={name}")
    if cfg.benchmark.get("environment") == "harbor":
        pytest.skip("container tasks: tests/benchmarks/test_containers.py runs them end to end in podman")
    if cfg.benchmark.get("environment") == "swebench":
        pytest.skip("SWE-bench in containers: tests/benchmarks/test_swebench_containers.py runs it end to end in podman")
    offline_user(cfg)
    cfg = OmegaConf.merge(cfg, OmegaConf.from_dotlist([f"data.mirror={mirror_url}", f"data.root={data_dir}",
                                                       *FIXTURE_ARGS.get(name, [])]))
    prepare.run(compose_step(cfg, "prepare", benchmarks=None, run_dir=str(tmp_path / "prepare")))
    rows = (data_dir / name / f"{name}.jsonl").read_text().splitlines()
    assert rows, name
    counts = read_manifest(data_dir / name / f"{name}.jsonl")["upstream_rows"]  # every upstream row accounted for
    assert counts["kept"] == len(rows) and counts["seen"] == counts["kept"] + counts["left_out"] + counts["skipped"]

    run_dir = tmp_path / "run"
    collect.run(compose_step(OmegaConf.merge(cfg, OmegaConf.from_dotlist(["model.mock.accuracy=1.0"])), "collect",
                             num_repeats=2, limit=4, progress=False, run_dir=str(run_dir)))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 * min(4, len(rows))
    assert all(r["status"] == "ok" for r in rollouts), [r["error"] for r in rollouts]

    aggregate.run(compose_step(cfg, "aggregate", rollouts=str(run_dir), run_dir=str(tmp_path / "agg")))
    metrics = json.loads((tmp_path / "agg" / "metrics.json").read_text())
    entry = metrics["benchmarks"][name]
    assert entry["rollouts"] == len(rollouts)
    if ENTRIES[name].verifier not in UNSOLVABLE_BY_MOCK and name not in UNSOLVABLE_NAMES:
        assert entry["pass@1"]["value"] == 100.0, (name, [r["response"] for r in rollouts if not r["reward"]][:2])
