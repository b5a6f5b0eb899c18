"""A benchmark's first rows rendered the three ways gym sends them: collect's prompts, task=serve's (`/run`,
`/reset`: gym.serve.catalog) and the trainer functions' (gym.serve.in_process, behind gym.serve.trainers and
gym.serve.environment). Each path composes its own config, as its entry point does."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Callable

from gym.core.config import compose
from gym.core.typed import typed

ENDPOINTS = ("model=mock", "judge=mock", "user=mock")  # offline: no endpoint is asked anything here


def sent(render: Callable[[], list[dict]]) -> list[dict] | str:
    """A row's messages, or why it is not sent (TaskNotSent: a tool gym does not call, say)."""
    from gym.core.errors import TaskNotSent

    try:
        return render()
    except TaskNotSent as exc:
        return f"not sent: {exc}"


def collect_messages(name: str, data_root: Path, count: int, out: Path) -> list[list[dict]]:
    from gym.rollouts.benchmark import Benchmark
    from gym.rollouts.settings import CollectKnobs, CollectSettings

    run = replace(typed(compose(["task=collect", f"benchmark={name}", *ENDPOINTS, f"data.root={data_root}"])), home=out)
    settings = CollectSettings.from_config(run, CollectKnobs.read(run))
    with ExitStack() as stack:
        bench = Benchmark.load(settings.benchmark, stack, prepare_args=settings.knobs.prepare_args)
        prompt_of = bench.prompts(solo=run.user_kind == "none")
        return [sent(lambda: prompt_of(row, line)) for _, line, row in islice(bench.rows(), count)]


def serve_messages(name: str, data_root: Path, count: int) -> list[list[dict]]:
    from gym.serve.catalog import load

    run = typed(compose(["task=serve", f"benchmark={name}", *ENDPOINTS, f"data.root={data_root}"]))
    with ExitStack() as stack:
        served = load(run, run.benchmark, stack)
        return [sent(lambda: served.messages(row)) for row in served.rows[:count]]


def trainer_messages(name: str, data_root: Path, count: int) -> list[list[dict]]:
    from gym.serve.in_process import benchmark

    served = benchmark(name, [*ENDPOINTS, f"data.root={data_root}"])
    return [sent(lambda: served.messages(row)) for row in served.rows[:count]]


def rendered_three_ways(name: str, data_root: Path, out: Path, count: int = 3,
                        extra: tuple[str, ...] = ()) -> dict[str, list]:
    """path -> the first `count` rows' messages (a row a path does not send: the reason, as a string)."""
    global ENDPOINTS
    saved, ENDPOINTS = ENDPOINTS, (*ENDPOINTS, *extra)
    try:
        return {"collect": collect_messages(name, data_root, count, out),
                "serve": serve_messages(name, data_root, count), "trainer": trainer_messages(name, data_root, count)}
    finally:
        ENDPOINTS = saved
