"""Benchmarks loaded in a trainer's own process (gym.serve.trainers, gym.serve.environment): once per
process id and settings, so a child forked after its parent scored builds its own verifiers and workers."""

from __future__ import annotations

import atexit
import difflib
import os
import threading
from contextlib import ExitStack
from dataclasses import replace
from typing import Any, Sequence

from gym.core.errors import GymError
from gym.serve.catalog import Served
from gym.serve.reward_settings import RewardSettings, current_settings
from gym.verifiers import family_class

# Other projects' names for gym benchmarks (verl's own preprocessing writes these as data_source).
ALIASES = {"openai/gsm8k": "gsm8k", "lighteval/MATH": "hendrycks_math",
           "DigitalLearningGmbH/MATH-lighteval": "hendrycks_math", "HuggingFaceH4/MATH-500": "math-500"}
_loaded: dict[tuple, Served] = {}
_stacks: dict[int, ExitStack] = {}
_lock = threading.Lock()


def benchmark_name(data_source: str) -> str:
    """A gym benchmark from a trainer's dataset name: itself, a known alias (openai/gsm8k), else one line
    naming the benchmarks that look like it."""
    from gym.core.config import CONF_DIR

    name = ALIASES.get(str(data_source), str(data_source))
    known = sorted(path.stem for path in (CONF_DIR / "benchmark").glob("*.yaml"))
    if name in known:
        return name
    tail = name.rsplit("/", 1)[-1].lower()
    close = [b for b in known if tail and (tail in b.lower() or b.lower() in tail)]
    close += [b for b in difflib.get_close_matches(tail, known, n=3, cutoff=0.6) if b not in close]
    hint = f"benchmarks that match: {', '.join(close[:5])}" if close else "see python -m gym task=search"
    raise GymError(f"data_source {data_source!r} is not a gym benchmark ({hint}); write the gym benchmark's "
                   "name as the data_source")


def benchmark(name: str, overrides: Sequence[str] = ()) -> Served:
    """The benchmark `name` composed as the command line would (`overrides`: e.g. ["judge=mock"]; a key the
    config does not have yet needs no `+`), with this process's reward settings."""
    name = benchmark_name(name)
    settings = current_settings()
    wanted = (*settings.overrides, *overrides)
    key = (os.getpid(), name, wanted, settings, os.environ.get("GYM_DATA_DIR"))  # the data root decides the rows
    with _lock:
        if key not in _loaded:
            _loaded[key] = _load(name, wanted, settings)
        return _loaded[key]


def _load(name: str, overrides: Sequence[str], settings: RewardSettings) -> Served:
    """The trainer's process is a door of its own: the config composed and typed here (gym.core.typed), the
    reward settings laid over it as changed fields."""
    from gym.core.typed import typed
    from gym.serve.catalog import load

    run = typed(_compose([f"benchmark={name}", *overrides]))
    reward = run.knob("reward", {})
    run = replace(run, knobs={**run.knobs, "reward": {**reward, "strict": settings.strict or bool(reward.get("strict"))}})
    bench = run.benchmark
    if "workers" in family_class(str(bench.verifier.family)).OPTIONS:  # checks run in worker processes
        options = dict(bench.verifier.options)
        if not any(o.lstrip("+").startswith("benchmark.verifier.options.workers=") for o in overrides):
            options["workers"] = settings.workers  # an override naming the workers wins
        if settings.timeout is not None:
            options["timeout"] = settings.timeout
        bench = replace(bench, verifier=replace(bench.verifier, options=options))
    pid = os.getpid()
    if pid not in _stacks:
        _stacks[pid] = ExitStack()
        atexit.register(_close_own, pid)
    return load(run, bench, _stacks[pid])


def _close_own(pid: int) -> None:
    if os.getpid() == pid:  # a forked child leaves its parent's verifiers to the parent
        _stacks[pid].close()


def _compose(overrides: list[str]) -> Any:
    """compose(), adding the `+` Hydra wants before a key the config does not have yet."""
    from hydra.errors import ConfigCompositionException

    from gym.core.config import compose

    for _ in range(len(overrides) + 1):
        try:
            return compose(overrides)
        except ConfigCompositionException as exc:
            missing = str(exc).partition("Could not override '")[2].partition("'")[0]
            at = [i for i, o in enumerate(overrides) if o.split("=", 1)[0] == missing]
            if not missing or not at:
                raise GymError(" ".join(str(exc).split())) from None
            overrides = [("+" + o if i == at[0] else o) for i, o in enumerate(overrides)]
    raise GymError(f"cannot compose {overrides}")
