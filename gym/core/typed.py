"""The config's door: a task's composed DictConfig turned once into typed objects.

Each task's `run(cfg)` calls `typed(cfg)` (or `typed_benchmark` for a benchmark it composes itself) and
hands the result down; below gym/tasks/ code reads dataclasses, not the config. The endpoint sections
become the schemas' dataclasses (gym.core.schema: ModelConfig, JudgeConfig, UserConfig, BenchmarkConfig,
EmbeddingsConfig inside it) through OmegaConf's own conversion of structured configs; `judges=[...]` is
merged over `judge` and checked here; every other top-level key (the task's knobs, data, reward, cache,
episode, budget ...) is resolved to plain data. A caller that needs another endpoint changes a field
(`dataclasses.replace(run.model, kind=..., base_url=...)`) instead of copying the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from omegaconf import DictConfig, OmegaConf, SCMode
from omegaconf.errors import OmegaConfBaseException

from gym.core.config import compose_benchmark, run_dir, user_kind
from gym.core.errors import GymError
from gym.core.paths import CONF_DIR
from gym.core.schema import BenchmarkConfig, JudgeConfig, ModelConfig, UserConfig

SECTIONS = ("model", "judge", "user", "benchmark", "judges", "judges_rule", "hydra")
Section = TypeVar("Section")


@dataclass(frozen=True)
class RunConfig:
    """One task's config, typed: the endpoints and the benchmark as dataclasses, the rest as plain data."""

    model: ModelConfig = field(default_factory=ModelConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    user: UserConfig = field(default_factory=UserConfig)
    benchmark: BenchmarkConfig | None = None
    judges: tuple[JudgeConfig, ...] = ()  # judges=[...]: each entry merged over `judge`; () for one judge
    judges_rule: str = "majority"  # how a panel's verdicts make the reward
    knobs: dict[str, Any] = field(default_factory=dict)  # every other top-level key, resolved plain
    home: Path = field(default_factory=Path.cwd)  # the run's directory (Hydra's, or the `run_dir` key)
    # name -> another benchmark's typed config, composed as `benchmark=<name>` would be (reverify, serve, export)
    composer: Callable[[str], BenchmarkConfig] | None = field(default=None, repr=False, compare=False)

    def benchmark_named(self, name: str) -> BenchmarkConfig:
        """The benchmark `name`: the selected one, else composed against this config's data root."""
        if self.benchmark is not None and self.benchmark.name == name:
            return self.benchmark
        if self.composer is None:
            raise GymError(f"benchmark {name}: this config composes no other benchmark")
        return self.composer(name)

    @property
    def user_kind(self) -> str:
        """The simulated user an episode run gets (gym.core.config.user_kind): "none" is solo mode."""
        return user_kind(self.user, self.benchmark)

    def knob(self, name: str, default: Any = None) -> Any:
        """A top-level knob (`concurrency`, `cache`, `episode`, `reward` ...); `default` when unset or null."""
        value = self.knobs.get(name)
        return default if value is None else value


def typed(cfg: DictConfig) -> RunConfig:
    """The composed config as a RunConfig; a value that does not resolve is one GymError naming its key."""
    bench = cfg.get("benchmark")
    knobs = {str(key): _plain(cfg, str(key)) for key in cfg if key not in SECTIONS}
    return RunConfig(model=section(cfg.get("model"), ModelConfig, "model"),
                     judge=section(cfg.get("judge"), JudgeConfig, "judge"),
                     user=section(cfg.get("user"), UserConfig, "user"),
                     benchmark=None if bench is None else typed_benchmark(bench),
                     judges=judge_panel(cfg), judges_rule=str(cfg.get("judges_rule") or "majority"), knobs=knobs,
                     home=run_dir(cfg),
                     composer=lambda name: typed_benchmark(compose_benchmark(cfg, name)))


def is_local(bench: Any) -> bool:
    """A benchmark over the user's own file (benchmark=local or one built on it): its dataset names `columns`
    (a composed node or its dataclass; gym.data.local reads the file)."""
    return bench is not None and getattr(bench.dataset, "columns", None) is not None


def own_file_given(bench: Any) -> bool:
    """Whether a benchmark over the user's own file (benchmark=local) was given its file. Only the composed node
    tells: `path: ???` merged over the base's prepared-file layout keeps that layout (OmegaConf does not let a
    missing value replace a set one), so the layout itself, unresolved, also means none was given."""
    if OmegaConf.is_missing(bench.dataset, "path"):
        return False
    layout = OmegaConf.load(CONF_DIR / "benchmark" / "_base" / "base.yaml").dataset._get_node("path")._value()
    return bench.dataset._get_node("path")._value() != layout


def check_own_file(bench: Any) -> None:
    """At the door, before typing: one line for a benchmark over the user's own file given no file or no
    verifier family, instead of a config traceback."""
    if not is_local(bench):
        return
    if not own_file_given(bench):
        raise GymError(f"benchmark={bench.name} reads your own file: give benchmark.dataset.path=<file.jsonl or .parquet>")
    if OmegaConf.is_missing(bench.verifier, "family"):
        raise GymError(f"benchmark={bench.name} needs a verifier family: benchmark.verifier.family=math "
                       "(or mcq, exact, qa, ...)")


def knobs_of(cfg: DictConfig, names: tuple[str, ...]) -> dict[str, Any]:
    """The named top-level knobs resolved plain, for a task that reads no endpoint (aggregate, profile): a knob
    the config lacks, or leaves unset (`???`), is absent."""
    return {name: _plain(cfg, name) for name in names if name in cfg}


def typed_benchmark(node: Any) -> BenchmarkConfig:
    """A composed `benchmark` node (the selected one, or one composed by name) as its dataclass. The free-form
    mappings (verifier options, prepare arguments) stay plain data, even where they name a typed node
    (a container benchmark's `runtime: ${runtime}`)."""
    config = section(node, BenchmarkConfig, "benchmark")
    config.verifier.options = _plain(node.verifier, "options") or {}
    config.dataset.prepare_args = _plain(node.dataset, "prepare_args") or {}
    return config


def section(node: Any, schema: type[Section], where: str) -> Section:
    """A config node as its schema's dataclass: OmegaConf's own conversion (a node composed without the schema is
    merged over it first, so its keys are checked); unset values (`???`) come as None."""
    if node is None:
        return schema()
    try:
        if not isinstance(node, DictConfig) or not issubclass(OmegaConf.get_type(node) or dict, schema):
            node = OmegaConf.merge(OmegaConf.structured(schema), node)
        return OmegaConf.to_container(node, resolve=True, throw_on_missing=False,
                                      structured_config_mode=SCMode.INSTANTIATE)  # type: ignore[return-value]
    except OmegaConfBaseException as exc:
        raise GymError(f"{where}: {str(exc).splitlines()[0]}") from None


def judge_panel(cfg: Any) -> tuple[JudgeConfig, ...]:
    """`judges=[...]`: each entry a model name on judge.base_url, or a mapping of judge keys (base_url, name,
    api_key_env, sampling, price ...) over the `judge` node; () for one judge."""
    entries = _plain(cfg, "judges") or []
    if not isinstance(entries, list):
        raise GymError(f"judges must be a list of judge model names or mappings, got {entries!r}")
    if len(entries) == 1:
        raise GymError("judges=[...] needs at least two judges (one judge is judge=...)")
    panel = []
    for number, entry in enumerate(entries):
        override = {"name": entry} if isinstance(entry, str) else entry
        if not isinstance(override, dict):
            raise GymError(f"judges[{number}] must be a model name or a mapping of judge keys, got {entry!r}")
        try:
            merged = OmegaConf.merge(OmegaConf.structured(JudgeConfig), cfg.get("judge") or {}, override)
        except OmegaConfBaseException as exc:
            raise GymError(f"judges[{number}]: {str(exc).splitlines()[0]}") from None
        panel.append(section(merged, JudgeConfig, f"judges[{number}]"))
    return tuple(panel)


def _plain(cfg: Any, key: str) -> Any:
    node = cfg.get(key)
    if not OmegaConf.is_config(node):
        return node
    try:
        return OmegaConf.to_container(node, resolve=True)
    except OmegaConfBaseException as exc:
        raise GymError(f"{key}: {str(exc).splitlines()[0]}") from None
