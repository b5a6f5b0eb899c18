"""The settings of one collect run, read from the typed config once.

task=collect turns `cfg` into typed objects at its door (gym.core.typed); gym.collect reads its knobs into
CollectKnobs, makes a CollectSettings of them and hands it to its steps; the endpoint starters
(gym.model.run_endpoints) take the typed sections it keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.schema import BenchmarkConfig, ModelConfig
from gym.core.task_knobs import parse_concurrency
from gym.core.typed import RunConfig
from gym.model.endpoints import check_settings, sampling_sent
from gym.rollouts import resume
from gym.rollouts.adaptive import AdaptiveRule
from gym.rollouts.cost import Budget


@dataclass(frozen=True)
class CollectKnobs:
    """The knobs collect reads (conf/task/collect.yaml's, and the global `budget`), read from the
    typed config once where collect starts (gym.collect.pipeline.run_collect) and checked; below it collect reads
    these fields, never `run.knob`."""

    output: Path | None = None  # the rollouts file; None: rollouts.jsonl in the run's directory
    resume: bool = False  # resume=true: continue the rollouts file (one that exists is continued anyway)
    limit: int | None = None  # the first N tasks of the file
    num_repeats: int | None = None  # None: the benchmark's dataset.num_repeats
    concurrency: Any = None  # a number or "auto" (gym.core.task_knobs.parse_concurrency)
    shard: tuple[int, int] | None = None
    adaptive: dict[str, Any] = field(default_factory=dict)  # adaptive.*: used when adaptive.enabled
    cache: dict[str, Any] = field(default_factory=dict)  # cache.dir / cache.max_mb
    progress: bool = True
    prepare_args: dict[str, Any] = field(default_factory=dict)  # the data must have been prepared with them
    episode: dict[str, Any] = field(default_factory=dict)  # episode.*: limits, seed, hold
    budget: dict[str, Any] = field(default_factory=dict)  # budget.usd / budget.tokens

    @classmethod
    def read(cls, run: RunConfig) -> "CollectKnobs":
        knobs = run.knobs
        episode = knobs.get("episode") or {}
        if episode.get("hold") is not None:  # a misspelt episode.hold fails before any data is read
            from gym.rollouts.episodes import episode_hold  # (episodes' imports only where a hold is asked)

            episode_hold(episode)
        return cls(output=Path(str(knobs["output"])) if knobs.get("output") else None,
                   resume=bool(knobs.get("resume")), limit=_task_limit(knobs.get("limit")),
                   num_repeats=knobs.get("num_repeats"), concurrency=knobs.get("concurrency"),
                   shard=parse_shard(knobs.get("shard")), adaptive=knobs.get("adaptive") or {},
                   cache=knobs.get("cache") or {}, progress=bool(knobs.get("progress", True)),
                   prepare_args=knobs.get("prepare_args") or {}, episode=episode,
                   budget=knobs.get("budget") or {})

    def rollouts(self, home: Path) -> Path:
        """The rollouts file: output=, else rollouts.jsonl in the run's directory."""
        return self.output or home / "rollouts.jsonl"


@dataclass(frozen=True)
class RunPaths:
    rollouts: Path  # rollouts are appended here
    run_dir: Path  # run.json's home
    resuming: bool  # continue the rollouts file: keys already final are skipped


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

    @classmethod
    def of(cls, knobs: CollectKnobs, model: ModelConfig, repeats: int) -> "Limits":
        """`limit`, the repeats, `concurrency` (a number, or "auto" up to model.max_concurrency) and the replicas."""
        mode, concurrency = parse_concurrency(knobs.concurrency, model.max_concurrency)
        urls = model.base_url if model.kind == "openai_compatible" else None
        return cls(knobs.limit, repeats, concurrency, mode == "auto", len(urls) if isinstance(urls, list) else 1)

    @property
    def workers(self) -> int:
        """Rollouts in flight: concurrency, or concurrency=auto's ceiling for each replica."""
        return self.concurrency * self.replicas if self.auto_concurrency else self.concurrency


@dataclass(frozen=True)
class CollectSettings:
    benchmark: BenchmarkConfig
    paths: RunPaths
    sampling: Sampling
    limits: Limits
    adaptive: AdaptiveRule | None  # None: a fixed number of repeats
    shard: tuple[int, int] | None  # shard=i/n: the tasks with task_index % n == i
    n_per_request: bool
    knobs: CollectKnobs  # cache, progress, episode.* ...
    identity: dict[str, Any]  # what makes two runs the same experiment (gym.rollouts.resume)
    resume_hint: str  # the command that continues this run
    run: RunConfig  # the typed config: the endpoints' sections for gym.model.endpoints
    budget: Budget = field(default_factory=Budget)  # prices per role and budget.usd / budget.tokens
    strict: bool = False  # reward.strict: the verifier's training-safe rewards

    @property
    def first_round(self) -> int:
        """The rollouts a task is first sent for: its repeats, or an adaptive run's first round."""
        return self.adaptive.wanted([]) if self.adaptive is not None else self.limits.repeats

    @classmethod
    def from_config(cls, run: RunConfig, knobs: CollectKnobs) -> "CollectSettings":
        """The settings of the run `run` (a resume's output already found: gym.rollouts.resume.resolve), its
        endpoints' settings checked before any data is read (the prepared data is found where the benchmark is
        loaded: gym.rollouts.benchmark.Benchmark.load)."""
        from gym.verifiers import strict_rewards

        bench, run_dir = run.benchmark, run.home
        if bench is None:
            raise GymError("choose a benchmark: benchmark=<name> (python -m gym task=search lists them)")
        rollouts = knobs.rollouts(run_dir)
        repeats = int(knobs.num_repeats or bench.dataset.num_repeats)
        if repeats < 1:
            raise GymError(f"num_repeats={repeats} must be at least 1")
        rule = AdaptiveRule.from_config(knobs.adaptive, repeats) if knobs.adaptive.get("enabled") else None
        limits = Limits.of(knobs, run.model, rule.max_repeats if rule else repeats)
        sampling, identity, hint = _sampling(run), resume.identity(run), resume.resume_command(run, rollouts)
        budget = Budget.from_config(run, knobs.budget)
        check_settings(run)
        return cls(benchmark=bench, paths=RunPaths(rollouts, run_dir, knobs.resume or rollouts.is_file()),
                   sampling=sampling, limits=limits, adaptive=rule, shard=knobs.shard,
                   n_per_request=bool(run.model.n_per_request), knobs=knobs, identity=identity, resume_hint=hint,
                   run=run, budget=budget, strict=strict_rewards(run.knobs))


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


def _task_limit(limit: Any) -> int | None:
    if limit is not None and int(limit) < 1:
        raise GymError(f"limit={limit} must be a positive number of tasks (or null for all)")
    return None if limit is None else int(limit)


def _sampling(run: RunConfig) -> Sampling:
    """The sampling sent: model.sampling without empty values; max_tokens is model.sampling.max_tokens,
    else the benchmark's default cap (benchmark.max_tokens)."""
    sent = sampling_sent(run.model.sampling)
    if sent.get("max_tokens") is not None:
        sent["max_tokens"] = int(sent["max_tokens"])
    elif run.benchmark is not None and run.benchmark.max_tokens:
        sent["max_tokens"] = int(run.benchmark.max_tokens)
    seed = sent.pop("seed", None)
    return Sampling(sent, None if seed is None else int(seed))
