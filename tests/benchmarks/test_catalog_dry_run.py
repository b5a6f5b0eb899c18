"""The README's whole-catalog dry run (`python -m gym -m task=e2e 'benchmark=glob(*)' model=mock judge=mock
limit=3 data.mirror=tests/fixtures/upstream data.root=outputs/dry-run-data`):

1. every job the sweep makes is one gym runs or skips with a reason: the glob is the catalog, each job's
   config composes, benchmark=local (no file given) is skipped, and an episode benchmark gets a user it can
   run with (its own default_user, else gym's mock user, as model=mock has no user chosen);
2. the command as typed, over the whole catalog, run for real from a user's checkout: tests/benchmarks/test_catalog_smoke.py.

Each benchmark's own prepare -> collect -> aggregate run is tests/benchmarks/test_benchmarks_e2e.py.
"""

from __future__ import annotations

import re
import shlex

from gym.cli.main import own_data_missing
from gym.cli.overrides import check_argv
from gym.core.config import compose, offline_user, user_kind
from gym.core.paths import CONF_DIR
from gym.data.catalog import benchmark_files
from tests.conftest import CATALOG_RUN, ROOT, composed

README = (ROOT / "README.md").read_text()


def typed_command() -> list[str]:
    """The README's dry-run line, continuation joined, as `python -m gym` receives it."""
    joined = re.sub(r"\\\n\s*", " ", README)
    line = next(line for line in joined.splitlines() if "'benchmark=glob(*" in line)
    words = shlex.split(line, comments=True)
    assert words[:3] == ["python", "-m", "gym"], words
    return words[3:]


def test_every_job_of_the_catalog_sweep_runs_or_is_skipped_with_a_reason():
    argv = typed_command()
    assert check_argv(argv) == argv
    options = sorted(p.stem for p in (CONF_DIR / "benchmark").glob("*.yaml"))  # what glob(*) picks
    assert set(benchmark_files()) < set(options) and "local" in options
    assert {a.split("=")[0] for a in argv} >= {"task", "model", "judge"} and set(CATALOG_RUN) <= set(argv)
    skipped, users = [], {}
    for name in options:  # the job's config (the data knobs aside, which decide nothing here)
        cfg = composed(*CATALOG_RUN, f"benchmark={name}")
        offline_user(cfg)
        reason = own_data_missing(cfg)
        if reason:
            skipped.append(name)
            assert "benchmark.dataset.path=" in reason or "benchmark.dataset.tasks=" in reason
            continue
        if cfg.benchmark.get("kind") == "episode" and cfg.benchmark.get("default_user") != "none":
            users[name] = user_kind(cfg.user, cfg.benchmark)  # (container tasks are solo by design: no user)
    assert skipped == ["harbor", "local"]
    assert users and all(kind in ("mock", "scripted") for kind in users.values()), users
    assert users["bfcl_multi_turn"] == "scripted" and users["tau2_retail"] == "mock"


def test_a_real_model_with_no_user_chosen_keeps_user_nones_check():
    cfg = compose(["task=e2e", "benchmark=tau2_retail", "model=vllm", "model.base_url=http://127.0.0.1:1/v1"])
    offline_user(cfg)
    assert user_kind(cfg.user, cfg.benchmark) == "none"  # a real agent: pick a user (one line says which)
