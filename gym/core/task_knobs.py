"""Each task's top-level knobs (conf/task/<task>.yaml) as dataclasses, type-checked before the task runs so that
`concurrency=lots` fails in one line naming the file, not deep inside the task (gym.core.schema holds the
config groups' schemas)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from gym.core.errors import GymError


@dataclass
class SearchKnobs:
    query: Any = ""
    domain: Optional[str] = None
    verifier: Optional[str] = None
    language: Optional[str] = None
    gated: Optional[bool] = None
    needs_judge: Optional[bool] = None
    needs_sandbox: Optional[bool] = None
    max_rows: int = 0
    format: str = "table"


@dataclass
class PrepareOptions:
    skip_bad_rows: bool = False
    force: bool = False


@dataclass
class PrepareKnobs:
    benchmarks: Any = None
    limit: Optional[int] = None
    n_jobs: int = 1
    prepare_args: Dict[str, Any] = field(default_factory=dict)
    prepare: PrepareOptions = field(default_factory=PrepareOptions)


@dataclass
class AdaptiveKnobs:
    enabled: bool = False
    min_repeats: int = 4
    max_repeats: Optional[int] = None
    step: int = 2
    confidence: float = 0.95
    split_extremes: bool = False
    hard_max: float = 0.25
    easy_min: float = 0.75


@dataclass
class CacheKnobs:
    dir: Optional[str] = None
    max_mb: float = 10000


@dataclass
class EpisodeKnobs:
    max_steps: int = 200
    max_errors: int = 10
    max_agent_steps: Optional[int] = None
    max_steps_per_turn: Optional[int] = None  # None: the environment's own (BFCL multi-turn: 20)
    timeout: Optional[float] = None
    seed: Optional[int] = 300
    hold: Optional[str] = None  # agent | user: that side keeps rollout 0's seed (task=noise's replays)


@dataclass
class CollectKnobs:
    concurrency: Any = 32  # a number, or "auto"
    limit: Optional[int] = None
    num_repeats: Optional[int] = None
    resume: bool = False
    output: Optional[str] = None
    progress: bool = True
    shard: Optional[str] = None  # i/n: this job's part of the tasks (task_index % n == i)
    adaptive: AdaptiveKnobs = field(default_factory=AdaptiveKnobs)
    cache: CacheKnobs = field(default_factory=CacheKnobs)
    episode: EpisodeKnobs = field(default_factory=EpisodeKnobs)
    prepare_args: Dict[str, Any] = field(default_factory=dict)  # as task=prepare's; collect checks the data has them


@dataclass
class E2EKnobs(CollectKnobs):
    prepare: PrepareOptions = field(default_factory=PrepareOptions)
    aggregate: Dict[str, Any] = field(default_factory=dict)
    profile: Dict[str, Any] = field(default_factory=dict)


def value_knob(default: Any = None) -> Any:
    """A knob of any type that holds one value (a spec, a list): no keys may be added under it, so
    `compare.test=x` is an unknown key rather than an override Hydra cannot apply to a list."""
    return field(default=default, metadata={"subkeys": False})


@dataclass
class AggregateKnobs:
    rollouts: Any = value_knob()
    compare: Any = value_knob()
    k: Any = value_knob()
    format: str = "table"
    allow_partial: bool = False  # merge the shards there are when some are missing or unfinished


@dataclass
class NoiseOptions:
    runs: Dict[str, Any] = field(default_factory=dict)
    repeats: int = 4  # replays: rollouts of each task in each part
    judge_repeats: int = 4  # replays with a single judge: times the same trajectories are judged again


@dataclass
class NoiseKnobs:
    rollouts: Any = None
    noise: NoiseOptions = field(default_factory=NoiseOptions)
    format: str = "table"
    limit: Optional[int] = None  # replays: tasks of the benchmark
    concurrency: Any = 32
    progress: bool = True


@dataclass
class BucketEdges:
    hard_max: float = 0.25
    easy_min: float = 0.75


@dataclass
class SelectKnobs:
    min_pass_rate: Optional[float] = None
    max_pass_rate: Optional[float] = None
    buckets: Optional[List[str]] = None


@dataclass
class ProfileKnobs:
    rollouts: Any = None
    allow_partial: bool = False
    expected_repeats: Optional[int] = None
    buckets: BucketEdges = field(default_factory=BucketEdges)
    select: SelectKnobs = field(default_factory=SelectKnobs)
    prepared: Any = None
    plots: bool = True
    report: bool = True
    samples_per_bucket: int = 2


@dataclass
class ReverifyKnobs:
    rollouts: Any = None
    concurrency: int = 16
    examples: int = 3
    k: Any = None
    cache: CacheKnobs = field(default_factory=CacheKnobs)


@dataclass
class ExportKnobs:
    rollouts: Any = None
    format: str = "nemo_gym"
    output_dir: Optional[str] = None
    select: SelectKnobs = field(default_factory=SelectKnobs)
    buckets: BucketEdges = field(default_factory=BucketEdges)


@dataclass
class ViewOptions:
    host: str = "127.0.0.1"
    port: Optional[int] = None
    export: Optional[str] = None
    token_env: str = "GYM_VIEW_TOKEN"
    progress: bool = True


@dataclass
class ViewKnobs:
    rollouts: Any = None
    view: ViewOptions = field(default_factory=ViewOptions)


@dataclass
class ServerKnobs:
    host: str = "127.0.0.1"
    port: int = 0
    url_file: Optional[str] = None
    max_sessions: int = 4096
    session_ttl: float = 600.0
    max_body_bytes: int = 16 * 1024 * 1024
    token_env: Optional[str] = None
    allow_unauthenticated: bool = False
    on_verifier_error: Optional[float] = 0.0
    threads: int = 64
    rollout_threads: int = 4096


@dataclass
class ServeKnobs:
    benchmarks: Any = None
    serve: ServerKnobs = field(default_factory=ServerKnobs)
    episode: EpisodeKnobs = field(default_factory=EpisodeKnobs)


@dataclass
class CleanKnobs:
    run: Optional[str] = None
    live: bool = False
    images: Any = False  # false | true | all (gym.tasks.clean checks it)
    dry_run: bool = False


TASK_KNOBS = {"search": SearchKnobs, "prepare": PrepareKnobs, "collect": CollectKnobs, "e2e": E2EKnobs,
              "aggregate": AggregateKnobs, "noise": NoiseKnobs, "profile": ProfileKnobs, "reverify": ReverifyKnobs, "export": ExportKnobs,
              "serve": ServeKnobs, "view": ViewKnobs, "clean": CleanKnobs}


def check_task_knobs(cfg: Any) -> None:
    """Type-check the chosen task's knobs; a bad value raises GymError naming conf/task/<task>.yaml."""
    from dataclasses import fields

    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    task = cfg.task.name
    schema = TASK_KNOBS.get(task)
    if schema is None:
        return
    names = [f.name for f in fields(schema) if f.name in cfg]
    try:
        OmegaConf.merge(OmegaConf.structured(schema), OmegaConf.masked_copy(cfg, names))
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None) or "?"
        message = str(exc).splitlines()[0]
        raise GymError(f"conf/task/{task}.yaml: bad value for '{key}': {message}") from None
    if "concurrency" in names:  # a number or "auto": a union the dataclass schema cannot express

        try:
            parse_concurrency(cfg.concurrency, 1)
        except GymError as exc:
            raise GymError(f"conf/task/{task}.yaml: bad value for 'concurrency': {exc}") from None
    for key in AT_LEAST_ONE:  # 0 would silently mean "the default" or "nothing"
        value = cfg.get(key) if key in names else None
        if value is not None and int(value) < 1:
            raise GymError(f"{key}={value} must be at least 1 (or null for the default)")


AT_LEAST_ONE = ("num_repeats", "limit")


def parse_concurrency(value: Any, max_concurrency: Any) -> tuple[str, int]:
    """("fixed", n) or ("auto", cap) from the `concurrency` and `model.max_concurrency` knobs."""
    try:
        cap = int(max_concurrency)
    except (TypeError, ValueError):
        raise GymError(f"model.max_concurrency={max_concurrency!r} must be a positive integer") from None
    if cap < 1:
        raise GymError(f"model.max_concurrency={cap} must be at least 1")
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto", cap
    try:
        fixed = int(value) if not isinstance(value, bool) and value is not None else None
    except (TypeError, ValueError):
        fixed = None
    if fixed is None or str(fixed) != str(value).strip():
        raise GymError(f"concurrency={value!r} must be a number of requests in flight or 'auto'")
    if fixed < 1:
        raise GymError(f"concurrency={fixed} must be at least 1 (or 'auto')")
    return "fixed", fixed
