"""Every benchmark and model option composes, validates against its schema and fully resolves."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from gym.data.catalog import OWN_DATA_OPTIONS, benchmark_files, load_catalog
from gym.core.config import compose
from gym.core.paths import BENCHMARKS_DIR, CONF_DIR, resolve_script
from tests.conftest import CATALOG_RUN, composed

BENCHMARKS = sorted(benchmark_files())
MODELS = sorted(p.stem for p in (CONF_DIR / "model").glob("*.yaml"))
TASKS = sorted(p.stem for p in (CONF_DIR / "task").glob("*.yaml"))


def own_script_folder(name: str) -> str:
    """The benchmarks/ folder of an option's prepare script: its own, or (a variant such as mrcr_n3_1m) the
    benchmark it varies."""
    script = OmegaConf.select(OmegaConf.load(benchmark_files()[name]), "dataset.prepare_script") or ""
    return script.split("/")[1] if script.startswith("benchmarks/") and "${" not in script else name


def test_catalog_and_scripts_match():
    # benchmarks over the user's own data (harbor: a folder of tasks) have their own script but no catalog entry
    folders = {p.name for p in BENCHMARKS_DIR.iterdir() if (p / "prepare.py").is_file()} - set(OWN_DATA_OPTIONS)
    assert folders == {own_script_folder(name) for name in BENCHMARKS}
    assert all(own_script_folder(name) in BENCHMARKS for name in BENCHMARKS)  # a variant's base is an option too


@pytest.mark.parametrize("name", BENCHMARKS)
def test_every_benchmark_composes_and_resolves(name):
    cfg = composed(*CATALOG_RUN, f"benchmark={name}")
    plain = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    bench = plain["benchmark"]
    assert bench["name"] == name
    assert bench["description"] and bench["domain"] and bench["verifier"]["family"]
    assert bench["dataset"]["path"].endswith(f"{name}/{name}.jsonl")
    assert resolve_script(bench["dataset"]["prepare_script"]).is_file()
    assert bench["dataset"]["sources"], "every benchmark names its upstream sources"
    assert bench["dataset"]["num_repeats"] >= 1


def test_catalog_reader_agrees_with_composition():
    """search reads YAML directly (fast); it must see what composition sees, inherited values included."""
    for entry in load_catalog():
        bench = composed(*CATALOG_RUN, f"benchmark={entry.name}").benchmark
        assert (entry.domain, entry.verifier, entry.num_repeats) == (
            bench.domain, bench.verifier.family, bench.dataset.num_repeats), entry.name


@pytest.mark.parametrize("model", MODELS)
def test_every_model_composes(model):
    cfg = compose([f"model={model}", "task=collect"])
    OmegaConf.to_container(cfg.model, resolve=True)
    assert cfg.model.api in ("chat", "responses", "completions")
    assert "key" not in str(cfg.model.get("api_key_env") or "").lower() or cfg.model.api_key_env.isupper()


@pytest.mark.parametrize("task", TASKS)
def test_every_task_composes(task):
    cfg = compose([f"task={task}", "benchmark=gsm8k"])
    assert cfg.task.name == task


def test_schema_rejects_typos_and_wrong_types():
    with pytest.raises(Exception, match="num_repeat"):
        compose(["benchmark=gsm8k", "benchmark.dataset.num_repeat=3"])
    with pytest.raises(Exception, match="num_repeats"):
        compose(["benchmark=gsm8k", "benchmark.dataset.num_repeats=lots"])


@pytest.mark.parametrize("task", TASKS)
def test_task_knob_schemas_accept_the_shipped_defaults(task):
    from gym.core.task_knobs import check_task_knobs

    check_task_knobs(compose([f"task={task}", "benchmark=gsm8k"]))


def test_task_knob_schema_rejects_wrong_types():
    from gym.core.errors import GymError
    from gym.core.task_knobs import check_task_knobs

    with pytest.raises(GymError, match=r"conf/task/collect.yaml: bad value for 'concurrency'"):
        check_task_knobs(compose(["task=collect", "concurrency=lots"]))
    with pytest.raises(GymError, match=r"'select.max_pass_rate'"):
        check_task_knobs(compose(["task=profile", "select.max_pass_rate=high"]))
