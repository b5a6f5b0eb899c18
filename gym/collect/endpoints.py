"""The endpoints of one collect run: the policy started (or reached) and checked, the judge and embeddings
attached to the benchmark's verifier, the simulated user of an episode benchmark, and what the run
fingerprints of them for run.json (gym.model.run_endpoints checks and starts them together)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from gym.model.calls import ModelCalls
from gym.model.client import ModelClient
from gym.model.run_endpoints import start_run_endpoints
from gym.rollouts.benchmark import Benchmark
from gym.rollouts.settings import CollectSettings, Sampling
from gym.verifiers.base import Verifier

if TYPE_CHECKING:  # gym.rollouts.episodes (and gym.episodes below it) load only for an episode benchmark
    from gym.rollouts.episodes import EpisodeRun


@dataclass
class RunEndpoints:
    client: ModelClient
    calls: ModelCalls
    verifier: Verifier
    judge_model: str | None  # part of every rollout key
    fingerprint: dict[str, Any]  # who answered, for run.json
    sampling: Sampling  # what every request carries
    offers: ToolOffers  # the tools a task's requests carry
    episodes: EpisodeRun | None = None  # episode benchmarks: plays the rollouts in place of `calls`

    def request_identity(self, rollout_index: int) -> tuple[dict[str, Any], int | None]:
        """What a rollout's key holds of its requests: the sampling sent and the seed; for an episode also
        the user, its sampling and the limits (they make another experiment)."""
        if self.episodes is not None:
            return self.episodes.key_sampling(self.sampling.sent), self.episodes.seed(self.sampling.seed, rollout_index)
        return self.sampling.sent, self.sampling.seed_of(rollout_index)


def start_endpoints(settings: CollectSettings, bench: Benchmark, stack: ExitStack,
                    row_of: Callable[[list[dict]], dict]) -> RunEndpoints:
    run, limits, sampling = settings.run, settings.limits, settings.sampling
    offers = ToolOffers(bench.verifier, str(run.model.api))
    servers = start_run_endpoints(run, stack, bench.verifier, bench.data, limits.concurrency, limits.auto_concurrency,
                                  sampling.sent, sampling.seed, settings.knobs.cache)
    client, fingerprint = servers.client, servers.fingerprint
    if settings.benchmark.kind != "episode":
        return RunEndpoints(client, ModelCalls(client, settings.n_per_request, servers.cache), bench.verifier,
                            servers.judge_model, fingerprint, sampling, offers)
    from gym.rollouts.episodes import EpisodeRun

    episodes = EpisodeRun(run, settings.knobs.episode, stack, client, bench.verifier, limits.concurrency, servers.cache,
                          row_of)
    fingerprint["user"] = episodes.user_info
    embedded = fingerprint.get("embeddings")
    if embedded is not None:  # another embedding model is another experiment: its rollouts get other keys
        episodes.setup.identity["embeddings"] = {k: embedded[k] for k in ("model", "dimensions")}
    return RunEndpoints(client, episodes, bench.verifier, servers.judge_model, fingerprint, sampling, offers,  # type: ignore[arg-type]
                        episodes)


class ToolOffers:
    """The tools a tool-calling verifier has a task's requests carry (`request`); it may rewrite the task's
    messages too (prompt mode documents the tools there), before any rollout key is made."""

    def __init__(self, verifier: Verifier, api: str):
        self.request, self.api, self.offered = verifier.request if verifier.tools_per_task else None, api, False

    def __call__(self, row: dict, prompt: list[dict]) -> tuple[list[dict], dict | None]:
        if self.request is None:
            return prompt, None
        prompt, tools, choice = self.request(row, prompt, self.api)
        self.offered = self.offered or bool(tools)
        return prompt, {"tools": tools, "tool_choice": choice} if tools else None
