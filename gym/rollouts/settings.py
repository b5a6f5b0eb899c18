"""The settings of one collect run, read from the composed config once.

task=collect resolves `cfg` into a CollectSettings at the start and hands that to its steps; nothing
after it reads the config again, except the endpoint starters (gym.model.endpoints), which take the
model and judge sections as composed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig

from gym.core.config import to_plain
from gym.core.errors import GymError
from gym.core.task_knobs import parse_concurrency
from gym.data import local
from gym.rollouts.adaptive import AdaptiveRule
from gym.rollouts.cost import Budget


@dataclass(frozen=True)
class RunPaths:
    data: Path  # the prepared tasks file
    rollouts: Path  # rollouts are appended here
    run_dir: Path  # run.json's home
    resuming: bool  # continue the rollouts file: keys already final are skipped


@dataclass(frozen=True)
class BenchmarkSettings:
    name: str
    system: str | None  # prompt templates
    user: str
    subsets: Any  # benchmark.subsets, as plain data
    verifier_family: str
    verifier_options: dict[str, Any]
    image_detail: str | None = None  # rows with images: the detail asked of each image (gym.core.images)
    kind: str = "answer"  # answer | episode (gym.rollouts.episodes)
    environment: str | None = None  # episode benchmarks: the gym.episodes environment
    default_user: str | None = None  # episode benchmarks: the user when user=none (bfcl_multi_turn: scripted)
    cluster_by: str | None = None  # the column tasks share, copied into rollouts as subsets.cluster


@dataclass(frozen=True)
class Sampling:
    sent: dict[str, Any]  # what every request carries (max_tokens included), without the seed
    seed: int | None  # a rollout's seed is seed + rollout_index

    def seed_of(self, rollout_index: int) -> int | None:
        return None if self.seed is None else int(self.seed) + rollout_index


@dataclass(frozen=True)
class Limits:
    tasks: int | None  # `limit`: the first N tasks of the file
    repeats: int  # rollouts per task (an adaptive run's maximum)
    concurrency: int  # requests in flight (the ceiling for concurrency=auto, per replica)
    auto_concurrency: bool
    replicas: int  # base_urls of the policy

    @property
    def workers(self) -> int:
        """Rollouts in flight: concurrency, or concurrency=auto's ceiling for each replica."""
        return self.concurrency * self.replicas if self.auto_concurrency else self.concurrency


@dataclass(frozen=True)
class CollectSettings:
    benchmark: BenchmarkSettings
    paths: RunPaths
    sampling: Sampling
    limits: Limits
    adaptive: AdaptiveRule | None  # None: a fixed number of repeats
    shard: tuple[int, int] | None  # shard=i/n: the tasks with task_index % n == i
    n_per_request: bool
    cache: dict[str, Any]  # cache.dir / cache.max_mb
    progress: bool
    identity: dict[str, Any]  # what makes two runs the same experiment (gym.rollouts.resume)
    resume_hint: str  # the command that continues this run
    endpoints: DictConfig  # the model and judge sections, for gym.model.endpoints
    budget: Budget = field(default_factory=Budget)  # prices per role and budget.usd / budget.tokens

    @classmethod
    def from_config(cls, cfg: DictConfig, rollouts: Path, run_dir: Path, identity: dict[str, Any],
                    resume_hint: str) -> "CollectSettings":
        from gym.verifiers.judge import require_judge

        bench = cfg.get("benchmark")
        if bench is None:
            raise GymError("choose a benchmark: benchmark=<name> (python -m gym task=search lists them)")
        local.check_required(bench)
        require_judge(cfg)  # a judge-graded benchmark without a judge fails before anything starts
        paths = RunPaths(_data_path(bench, to_plain(cfg.get("prepare_args") or {})), rollouts, run_dir, bool(cfg.get("resume")) or rollouts.is_file())
        repeats = int(cfg.get("num_repeats") or bench.dataset.num_repeats)
        if repeats < 1:
            raise GymError(f"num_repeats={repeats} must be at least 1")
        rule = AdaptiveRule.from_config(cfg.adaptive, repeats) if cfg.get("adaptive", {}).get("enabled") else None
        mode, concurrency = parse_concurrency(cfg.get("concurrency"), cfg.model.get("max_concurrency", 256))
        urls = cfg.model.get("base_url") if cfg.model.get("kind") == "openai_compatible" else None
        limits = Limits(_task_limit(cfg.get("limit")), rule.max_repeats if rule else repeats, concurrency,
                        mode == "auto", len(urls) if isinstance(urls, ListConfig) else 1)
        return cls(benchmark=_benchmark(bench), paths=paths, sampling=_sampling(cfg), limits=limits, adaptive=rule,
                   shard=parse_shard(cfg.get("shard")),
                   n_per_request=bool(cfg.model.get("n_per_request", False)), cache=to_plain(cfg.get("cache") or {}),
                   progress=bool(cfg.get("progress", True)), identity=identity, resume_hint=resume_hint,
                   endpoints=cfg, budget=Budget.from_config(cfg))


def parse_shard(value: Any) -> tuple[int, int] | None:
    """`shard=i/n` -> (i, n); None for no shard."""
    if value is None or str(value).strip() in ("", "null", "None"):
        return None
    text = str(value).strip()
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise GymError(f"shard={text!r} must be i/n, e.g. shard=0/8 (the first of 8 parts)") from None
    if not 0 <= index < count:
        raise GymError(f"shard={text}: need 0 <= i < n (shard=0/{max(count, 1)} ... shard={max(count, 1) - 1}/{max(count, 1)})")
    return index, count


def _data_path(bench: DictConfig, prepare_args: dict[str, Any]) -> Path:
    """The prepared file; with `prepare_args` (the keys of task=prepare's +prepare_args.<k>=), it must have
    been prepared with them (collect reads prepared data, it does not prepare)."""
    from gym.data.prepare_context import read_manifest

    if local.is_local(bench):
        return local.task_file(bench)
    path = Path(bench.dataset.path)
    wanted = {**to_plain(bench.dataset.prepare_args), **prepare_args}
    command = " ".join([f"python -m gym task=prepare benchmark={bench.name}",
                        *(f"+prepare_args.{key}={_override_value(value)}" for key, value in prepare_args.items())])
    if not path.is_file():
        raise GymError(f"{bench.name} is not prepared ({path} is missing): run {command}")
    made_with = (read_manifest(path) or {}).get("prepare_args", wanted)
    if prepare_args and made_with != wanted:
        raise GymError(f"{bench.name} was prepared with prepare_args {made_with}, not {wanted}: run {command} "
                       "(or task=e2e, which prepares)")
    return path


def _override_value(value: Any) -> str:
    """A prepare argument as a command line writes it: [a,b] for a list."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_override_value(item) for item in value) + "]"
    return "null" if value is None else str(value)


def _task_limit(limit: Any) -> int | None:
    if limit is not None and int(limit) < 1:
        raise GymError(f"limit={limit} must be a positive number of tasks (or null for all)")
    return None if limit is None else int(limit)


def _benchmark(bench: DictConfig) -> BenchmarkSettings:
    return BenchmarkSettings(name=str(bench.name), system=bench.prompt.system, user=local.user_prompt(bench),
                             image_detail=bench.prompt.get("image_detail"),
                             subsets=to_plain(bench.get("subsets")), cluster_by=bench.get("cluster_by"),
                             verifier_family=str(bench.verifier.family),
                             verifier_options=to_plain(bench.verifier.options), kind=str(bench.get("kind") or "answer"),
                             environment=bench.get("environment"), default_user=bench.get("default_user"))


def _sampling(cfg: DictConfig) -> Sampling:
    """The sampling sent: model.sampling without empty values; max_tokens is model.sampling.max_tokens,
    else the benchmark's default cap (benchmark.max_tokens)."""
    sent = {k: v for k, v in to_plain(cfg.model.sampling).items() if v not in (None, {}, [])}
    if sent.get("max_tokens") is not None:
        sent["max_tokens"] = int(sent["max_tokens"])
    elif cfg.benchmark.get("max_tokens"):
        sent["max_tokens"] = int(cfg.benchmark.max_tokens)
    seed = sent.pop("seed", None)
    return Sampling(sent, None if seed is None else int(seed))
