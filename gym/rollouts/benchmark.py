"""One benchmark, loaded once from its typed config: the pieces every user of a benchmark assembles.

collect, e2e, task=serve, reverify, the trainer functions (gym.serve.trainers, gym.serve.environment),
export and the viewer all need the same things of a benchmark: its prepared rows, a row's messages (prompt
templates, system prompt, images from the data folder with the benchmark's `image_detail`; an episode's
opening messages from its environment), the verifier with its judge and embeddings attached, and the
environment behind an episode verifier. `Benchmark` holds them, so a row renders to the same messages and
grades to the same reward wherever it is used.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from gym.core.errors import GymError
from gym.core.io import iter_jsonl, sha256_file
from gym.core.prompts import build_messages
from gym.core.schema import BenchmarkConfig
from gym.rollouts.subsets import task_subsets
from gym.verifiers.base import Verifier

if TYPE_CHECKING:  # pragma: no cover
    from gym.core.typed import RunConfig


def prepared_file(config: BenchmarkConfig, prepare_args: dict[str, Any] | None = None) -> Path:
    """The prepared file a run reads; with `prepare_args` (task=prepare's +prepare_args.<k>=), it must have
    been prepared with them (collect reads prepared data, it does not prepare). benchmark=local: its
    checked copy (made now when missing or out of date)."""
    from gym.data import local
    from gym.data.prepare_context import read_manifest

    if local.is_local(config):
        return local.task_file(config)
    path, prepare_args = Path(config.dataset.path), prepare_args or {}
    wanted = {**(config.dataset.prepare_args or {}), **prepare_args}
    command = " ".join([f"python -m gym task=prepare benchmark={config.name}",
                        *(f"+prepare_args.{key}={_override_value(value)}" for key, value in prepare_args.items())])
    if not path.is_file():
        raise GymError(f"{config.name} is not prepared ({path} is missing): run {command}")
    made_with = (read_manifest(path) or {}).get("prepare_args", wanted) if prepare_args else wanted
    if made_with != wanted:
        raise GymError(f"{config.name} was prepared with prepare_args {made_with}, not {wanted}: run {command} "
                       "(or task=e2e, which prepares)")
    return path


def _override_value(value: Any) -> str:
    """A prepare argument as a command line writes it: [a,b] for a list."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_override_value(item) for item in value) + "]"
    return "null" if value is None else str(value)


@dataclass
class Benchmark:
    config: BenchmarkConfig
    data: Path  # the prepared tasks file (image paths in rows are relative to its folder)
    # the benchmark's verifier, strict as reward.strict says; its judge/embeddings once attached (None: loaded
    # for its rows and messages only)
    verifier: Verifier | None
    user_template: str  # the user prompt template (benchmark=local: "{messages}" for a file of conversations)
    _environment: Any = field(default=None, repr=False)

    @classmethod
    def load(cls, config: BenchmarkConfig, stack: ExitStack | None = None, strict: bool = False,
             prepare_args: dict[str, Any] | None = None) -> "Benchmark":
        """The benchmark's prepared file (found and checked: prepared_file, prepared with `prepare_args` where
        the run names them) and, given a `stack` to close it with, its verifier."""
        from gym.data import local
        from gym.verifiers import make_verifier

        data = prepared_file(config, prepare_args)
        verifier: Verifier | None = None
        if stack is not None:
            verifier = make_verifier(str(config.verifier.family), dict(config.verifier.options or {}))
            verifier.strict = strict
            stack.callback(verifier.close)
        return cls(config, data, verifier, local.user_prompt(config))

    @cached_property
    def data_sha(self) -> str:
        """The prepared file's sha256, part of every rollout key (a changed file makes other rollouts)."""
        return sha256_file(self.data)

    @property
    def name(self) -> str:
        return str(self.config.name)

    @property
    def kind(self) -> str:  # answer | episode
        return str(self.config.kind or "answer")

    @property
    def environment(self) -> Any:
        """An episode benchmark's environment: the one its verifier grades with (None for an answer benchmark;
        loaded without a verifier, one of its own)."""
        if self.kind != "episode":
            return None
        if self.verifier is not None:
            return self.verifier.env
        if self._environment is None:
            from gym.episodes import make_environment

            self._environment = make_environment(str(self.config.environment or ""), self.data)
        return self._environment

    def rows(self, limit: int | None = None, shard: tuple[int, int] | None = None) -> Iterator[tuple[int, int, dict]]:
        """(task_index, line, row) of the prepared file, streamed: the first `limit` tasks, of `shard` (i, n)."""
        for task_index, (line, row) in enumerate(iter_jsonl(self.data)):
            if limit is not None and task_index >= limit:
                return
            if shard is None or task_index % shard[1] == shard[0]:
                yield task_index, line, row

    def all_rows(self) -> list[dict]:
        rows = [row for _, _, row in self.rows()]
        if not rows:
            raise GymError(f"{self.data} has no tasks")
        return rows

    def messages(self, row: dict, line: int | None = None, solo: bool = False) -> list[dict]:
        """The messages a task starts with: the benchmark's templates filled from the row, the row's images
        (files below the data folder, with the benchmark's image_detail); an episode's opening messages
        (system prompt, any history, first turn; `solo`: user=none's)."""
        if self.kind == "episode":
            return self.environment.initial_messages(row, solo=True) if solo else self.environment.initial_messages(row)
        where = f"{self.data} line {line}" if line is not None else f"{self.name} row"
        return build_messages(self.config.prompt.system, self.user_template, row, where, self.data.parent,
                              self.config.prompt.image_detail)

    def prompts(self, solo: bool = False) -> Callable[[dict, int], list[dict]]:
        """(row, line) -> a task's messages; `solo` (user=none on an episode benchmark): solo mode's, checked
        here to exist before any row is rendered."""
        solo = solo and self.kind == "episode"
        if solo:
            self.check_solo()
        return lambda row, line: self.messages(row, line, solo=solo)

    def check_tasks(self, prompt_of: Callable[[dict, int], list[dict]], limit: int | None = None,
                    shard: tuple[int, int] | None = None, completions: bool = False) -> int:
        """The number of tasks (the first `limit`, of `shard`); every prompt is made once, so a row missing a
        template field stops the run before the first request (`completions`: as does an image, which the
        completions API cannot send). A task `prompt_of` cannot pose (TaskNotSent) is left out, saying why."""
        from collections import Counter

        from gym.core.errors import TaskNotSent
        from gym.model.images import no_images

        count, not_sent = 0, Counter()
        for _, line, row in self.rows(limit, shard):
            try:
                messages = prompt_of(row, line)
                if completions:
                    no_images(messages, f"{self.data} line {line}")
            except TaskNotSent as exc:
                not_sent[str(exc)] += 1
            count += 1
        if not count and shard is None:
            raise GymError(f"{self.data} has no tasks")
        if count and sum(not_sent.values()) == count:
            raise GymError(f"{self.name}: none of the {count} tasks of {self.data} can run here: " + "; ".join(not_sent))
        return count

    def subsets(self, row: dict) -> dict[str, str] | None:
        """The row's values of the benchmark's grouping columns (and cluster_by's), stamped on its rollouts."""
        return task_subsets([row], self.config.subsets, self.config.cluster_by)[0]

    def check_solo(self) -> None:
        """user=none runs an episode benchmark in solo mode, where its environment has one."""
        if not self.environment.supports_solo:
            raise GymError(f"{self.name} has no solo mode (user=none) and needs a simulated user: user=mock (gym's "
                           "deterministic user, offline), user=vllm user.base_url=http://host:port/v1, or user=openai")

    def attach_endpoints(self, run: RunConfig, stack: ExitStack, policy_base_url: str, pool_size: int,
                         cache: Any = None) -> tuple[dict | None, dict | None]:
        """The verifier's judge (when it needs one) and the environment's embeddings endpoint (when the
        benchmark names one), from the typed config `run` (its benchmark is taken to be this one).
        `policy_base_url` "" where no policy endpoint runs. Returns their fingerprints for run.json."""
        from dataclasses import replace

        from gym.model.embeddings import connect_embeddings
        from gym.model.endpoints import connect_judge

        run = replace(run, benchmark=self.config)
        judge = connect_judge(run, stack, self.verifier, policy_base_url, pool_size, cache)
        return judge, connect_embeddings(run, stack, self.verifier, policy_base_url)
