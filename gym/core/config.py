"""Config helpers shared by the entry point, the tasks and the tests."""

from __future__ import annotations

import functools

from pathlib import Path
from typing import Any, Iterable

from omegaconf import DictConfig, ListConfig, OmegaConf

import gym.core.schema  # noqa: F401  (registers the schemas in Hydra's ConfigStore)
from gym.core.paths import CONF_DIR, default_data_root

if not OmegaConf.has_resolver("gym_data_root"):
    OmegaConf.register_new_resolver("gym_data_root", lambda: str(default_data_root()))


def _job_dir(num: Any, benchmark: Any = None, model: Any = None, task: Any = None) -> str:
    """<num>_<benchmark>[_<model>]: the model only for tasks that talk to one."""
    parts = [str(num)] + [str(p) for p in (benchmark,) if p]
    if model and task in ("collect", "e2e"):
        parts.append(str(model))
    return "_".join(parts)


if not OmegaConf.has_resolver("gym_job_dir"):
    # sweep sub-dir name: <job num>_<benchmark>, or just <job num> when no benchmark is chosen
    OmegaConf.register_new_resolver("gym_job_dir", _job_dir)


def family_prompt(family: Any) -> str:
    """The user prompt of a verifier family's benchmarks (conf/benchmark/_base/<family>.yaml), else the bare
    question: benchmark=local asks the way the family's own benchmarks do unless given a template."""
    path = CONF_DIR / "benchmark" / "_base" / f"{family}.yaml"
    if not str(family).isidentifier() or not path.is_file():
        return "{question}"
    return str(OmegaConf.select(OmegaConf.load(path), "prompt.user", default="{question}"))


def path_key(path: Any) -> str:
    """<folder name>-<short hash of its absolute path and what it holds (names, times)>: a data directory per
    folder and version of it (benchmark=harbor prepares a changed folder anew)."""
    import hashlib

    if path is None or str(path) in ("", "???"):
        return "none"
    folder = Path(str(path)).expanduser().resolve()
    held = sorted(f"{p.name}:{p.stat().st_mtime_ns}" for p in folder.glob("*/*")) if folder.is_dir() else []
    return f"{folder.name}-{hashlib.sha256(chr(0).join([str(folder), *held]).encode()).hexdigest()[:8]}"


def run_dir_label() -> str:
    """The run's own directory (absolute), the label its containers carry (gym.run); "" outside a Hydra run."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return ""
    found = OmegaConf.select(HydraConfig.get(), "runtime.output_dir", default=None, throw_on_missing=False)
    return str(Path(found).resolve()) if found else ""


if not OmegaConf.has_resolver("gym_run_label"):
    OmegaConf.register_new_resolver("gym_run_label", run_dir_label)


if not OmegaConf.has_resolver("gym_path_key"):
    OmegaConf.register_new_resolver("gym_path_key", path_key)


if not OmegaConf.has_resolver("gym_family_prompt"):
    OmegaConf.register_new_resolver("gym_family_prompt", family_prompt)


def user_kind(user: Any, benchmark: Any) -> str:
    """The simulated user an episode run gets: user.kind, or with user=none the benchmark's own default_user
    (bfcl_multi_turn's scripted turns); "none" is solo mode."""
    kind = str(getattr(user, "kind", None) or "none")  # (a composed node or its dataclass alike)
    default = getattr(benchmark, "default_user", None)
    return str(default) if kind == "none" and default in ("mock", "scripted") else kind


def chosen_groups() -> set[str]:
    """Config groups and nodes the command line names (`user=mock`, `user.kind=...`, `+user=...`): what a
    running Hydra app was told, as opposed to its defaults; empty outside one."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return set()
    overrides = HydraConfig.get().overrides.task
    return {str(o).lstrip("+~").split("=", 1)[0].split(".", 1)[0].split("@", 1)[0] for o in overrides}


def offline_user(cfg: DictConfig) -> None:
    """model=mock and no user chosen: an episode benchmark is played by gym's mock user too, so a mock run
    (and the whole-catalog dry run) needs no endpoint; a benchmark's own default_user (scripted turns) still
    comes first, and `user=none` typed out stays solo mode. Real models keep user=none's check (solo mode,
    else one line naming the users to pick)."""
    bench, user = cfg.get("benchmark"), cfg.get("user")
    if bench is None or user is None or bench.get("kind") != "episode" or bench.get("default_user"):
        return
    if (cfg.get("model") or {}).get("kind") != "mock" or user.get("kind") != "none" or "user" in chosen_groups():
        return
    user.kind = "mock"


def compose(overrides: Iterable[str] = (), config_dir: str | Path = CONF_DIR) -> DictConfig:
    """Compose gym's config the way the CLI does (for tests, e2e and notebooks)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3", job_name="gym"):
        return hydra_compose(config_name="config", overrides=list(overrides), return_hydra_config=False)


def to_plain(node: Any) -> Any:
    """A resolved plain-Python copy of a config node."""
    return OmegaConf.to_container(node, resolve=True) if isinstance(node, (DictConfig, ListConfig)) else node


def run_dir(cfg: DictConfig) -> Path:
    """The run's output directory (Hydra's, or a `run_dir` key set by a caller such as e2e/tests)."""
    explicit = cfg.get("run_dir")
    if explicit:
        return Path(explicit)
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        return Path(HydraConfig.get().runtime.output_dir)
    return Path.cwd()


def compose_in_app(overrides: Iterable[str]) -> DictConfig:
    """Compose gym's config with Hydra's compose API and the running app's search path.

    Inside a running app this reuses Hydra's search path (user config dirs from --config-dir or
    hydra.searchpath included); otherwise (tests, notebooks) it composes from gym's own config dir.
    """
    from hydra import compose as hydra_compose
    from hydra.core.global_hydra import GlobalHydra

    overrides = list(overrides)
    if not GlobalHydra.instance().is_initialized():
        return compose(overrides)
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():  # keep user config dirs given as hydra.searchpath=[...]
        overrides += [o for o in HydraConfig.get().overrides.hydra if o.startswith("hydra.searchpath")]
    return hydra_compose(config_name="config", overrides=overrides)


def compose_benchmark(cfg: DictConfig, name: str) -> DictConfig:
    """The `benchmark` node for another benchmark than the selected one, its interpolations resolved against
    cfg's own nodes (the data root; a container benchmark's `${agent...}` and `${runtime}`)."""
    composed = compose_in_app([f"benchmark={name}"])
    for key in composed:
        if key not in ("benchmark", "task", "hydra") and key in cfg:
            composed[key] = cfg[key]
    return composed.benchmark


@functools.lru_cache(maxsize=None)
def task_knobs(task: str) -> DictConfig:
    """The knobs of conf/task/<task>.yaml with those of the options its defaults list names, read
    without composing (a step of e2e is derived from e2e's composed config, not composed again); read once
    per process and never changed (merging copies it)."""
    node = OmegaConf.load(CONF_DIR / "task" / f"{task}.yaml")
    parents = [name for name in node.pop("defaults", None) or () if name != "_self_"]
    return OmegaConf.merge(*[task_knobs(name) for name in parents], node) if parents else node


def compose_step(cfg: DictConfig, task: str, overrides: Any = None, **values: Any) -> DictConfig:
    """The config `task=<task>` would get, derived from the caller's composed config: the global nodes
    (data, model, judge, benchmark, tracker ...) as the caller has them, the step's own knobs at their
    defaults except those the caller has too (e2e's collect knobs), then `overrides` (a mapping of the
    step's own knobs, e.g. e2e's `aggregate.k`) and `values`; written into the caller's run dir."""
    own, knobs = task_knobs(cfg.task.name), task_knobs(task)
    carried = {key: cfg[key] for key in cfg
               if key not in ("task", "hydra") and (key not in own or key in knobs)}
    # one merge: each merge copies the whole config, and a sweep's jobs make five steps each
    return OmegaConf.merge(knobs, carried, {"run_dir": str(run_dir(cfg))}, *(extra for extra in (overrides, values)
                                                                             if extra))
