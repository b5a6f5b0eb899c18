"""collect's side of an episode benchmark: one rollout = one whole episode (gym.episodes).

`EpisodeSetup` holds what every episode of a run shares (the environment, the simulated user, the
limits) and `identity`, the part of each rollout key an answer benchmark does not have (the user model
and its sampling, the limits, the environment's upstream version). `play` runs one episode against the
policy client and grades it with the benchmark's verifier; gym.rollouts.row.make_episode_rollout turns
the result into the row, which keeps the trajectory: resume redoes only unfinished episodes and
task=reverify re-grades stored trajectories without any model call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError
from gym.episodes.agents import ClientAgent
from gym.episodes.base import EpisodeFailed, Limits
from gym.episodes.loop import Episode, EpisodeRunner
from gym.rollouts.row import verify_answer

if TYPE_CHECKING:  # pragma: no cover
    from gym.core.typed import RunConfig
    from gym.verifiers.episode import EpisodeVerifier

HOLDS = (None, "agent", "user")  # episode.hold: which side's seed stays fixed across a task's rollouts


def episode_hold(knobs: dict[str, Any]) -> str | None:
    """`episode.hold` checked: None, agent or user; anything else is one GymError (collect checks it before it
    reads any data)."""
    hold = knobs.get("hold")
    if hold not in HOLDS:
        raise GymError(f"episode.hold={hold} is not one of: agent, user (or null)")
    return hold


@dataclass
class EpisodeSetup:
    env: Any
    user: Any
    limits: Limits
    user_model: str | None = None
    identity: dict = field(default_factory=dict)

    def prompt(self, row: dict) -> list[dict]:
        """The messages an episode starts from (its rollout key hashes them); no user: solo mode's."""
        return self.env.initial_messages(row, solo=True) if self.user is None else self.env.initial_messages(row)


@dataclass
class Played:
    prompt: list
    episode: Episode
    verdict: dict
    summary: dict
    seconds: float


def play(setup: EpisodeSetup, client: Any, verifier: EpisodeVerifier, row: dict, seed: int | None,
         agent_seed: int | None = None) -> Played:
    """One episode: played, graded, and its environment's resources released (a container task's
    container) whatever happened. An environment may play the agent itself (`scripted_agent`: a container
    task's oracle or nop); a typed failure (EpisodeFailed) becomes its own unscored status, never a 0.
    `seed` goes to the world and the simulated user, `agent_seed` (None: the same) to the agent."""
    started = time.monotonic()
    prompt = setup.prompt(row)
    scripted = getattr(setup.env, "scripted_agent", None)
    agent = (scripted(row) if scripted else None) or ClientAgent(
        client, seed if agent_seed is None else agent_seed, tool_choice="required" if setup.user is None else None)
    runner = EpisodeRunner(setup.env, agent, setup.user, setup.limits)
    try:
        try:
            episode = runner.run(row, seed)
        except EpisodeFailed as exc:  # the environment could not give this row a world (a build that failed)
            episode = Episode(list(prompt), status=exc.status, error=str(exc))
            episode.state = exc.details
        except Exception as exc:  # the environment failed on this row (bad data): unscored, not the model's fault
            episode = Episode(list(prompt), status="verifier_error",
                              error=f"environment failed: {exc.__class__.__name__}: {exc}")
        if episode.status == "ok":
            verdict = verify_answer(verifier, row, {"trajectory": episode.trajectory,
                                                    "termination": episode.termination, "state": episode.state})
            own = getattr(setup.env, "agent_trajectory", None)  # a CLI agent's own calls, from the proxy
            episode.trajectory = (own(episode.state) if own else None) or episode.trajectory
        else:
            details = episode.state if isinstance(episode.state, dict) else {}
            verdict = {"status": episode.status, "reward": None, "scores": None, "extracted_answer": None,
                       "verifier": details, "error": episode.error}
    finally:  # graded, failed or interrupted: the world the runner made is given back
        release = getattr(setup.env, "release", None)
        if release is not None:
            release(runner.live_state)
    return Played(prompt, episode, verdict, episode.summary(setup.user_model), time.monotonic() - started)


def episode_limits(episode: dict[str, Any] | None) -> Limits:
    """The episode.* knobs as Limits (collect's and serve's episodes alike); a bad value is one GymError."""
    from gym.core.errors import GymError

    knobs = {"max_steps": 200, "max_errors": 10, **(episode or {})}
    try:
        return Limits(max_steps=int(knobs["max_steps"]), max_errors=int(knobs["max_errors"]),
                      max_agent_steps=knobs.get("max_agent_steps"), timeout=knobs.get("timeout"),
                      max_steps_per_turn=knobs.get("max_steps_per_turn"))
    except ValueError as exc:
        raise GymError(str(exc)) from None


class TurnCache:
    """The policy client seen through the response cache: each agent turn is stored under the episode's
    rollout key and the exact request, so a redone episode replays its earlier turns without asking."""

    def __init__(self, client: Any, cache: Any, key: str):
        self.client, self.cache, self.key = client, cache, key

    def complete(self, messages: list[dict], **kwargs: Any) -> Any:
        import hashlib
        import json

        blob = json.dumps([self.key, messages, kwargs], sort_keys=True, ensure_ascii=False, default=str)
        turn_key = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
        hit = self.cache.get(turn_key)
        if hit is not None:
            hit.from_cache = True
            return hit
        completion = self.client.complete(messages, **kwargs)
        if completion.status == "ok":
            self.cache.put(turn_key, completion)
        return completion


class EpisodeRun:
    """What collect does differently for an episode benchmark, in one place: the user endpoint, the extra
    identity in every key, the per-episode seed, and the rollouts themselves. It stands in for
    gym.model.calls.ModelCalls in collect's rollout pool (`groups`, `complete_spread`, `summary`): one
    member is one whole episode, played on the pool's threads."""

    def __init__(self, run: RunConfig, knobs: dict[str, Any], stack: Any, client: Any, verifier: EpisodeVerifier,
                 concurrency: int, cache: Any, row_of: Any):
        """`run`: the typed config, for the user's endpoint; `knobs`: episode.* (collect's CollectKnobs.episode)."""
        from gym.model import endpoints

        limits = episode_limits(knobs)
        user, self.user_info = endpoints.connect_user(run, stack, client, concurrency)  # None: solo mode,
        # which collect's prompts checked the environment offers before any endpoint started
        self.episode_seed = knobs.get("seed")
        self.hold = episode_hold(knobs)  # agent | user: that side's seed stays at the base seed (task=noise's replays)
        identity = {"user": {k: self.user_info.get(k) for k in ("kind", "model", "sampling_sent")},
                    "limits": {"max_steps": limits.max_steps, "max_errors": limits.max_errors,
                               "max_agent_steps": limits.max_agent_steps,
                               **({"max_steps_per_turn": limits.max_steps_per_turn}
                                  if limits.max_steps_per_turn is not None else {})},
                    **verifier.env.identity,  # the environment's own (a container task's agent)
                    **({"hold": self.hold} if self.hold else {})}  # a held side's episodes are other episodes
        self.setup = EpisodeSetup(verifier.env, user, limits, user_model=self.user_info.get("model"), identity=identity)
        from gym.cliagents import attach

        attach(verifier.env, client)  # a CLI agent (agent=mini_swe_agent ...) works through gym's model proxy
        self.client, self.verifier, self.cache = client, verifier, cache
        self.row_of = row_of  # a live task's opening messages -> its row
        self.terminations: dict[str, int] = {}
        self.agent_requests = 0  # agent turns asked of the endpoint (not answered from the cache)

    def key_sampling(self, sampling: dict) -> dict:
        return {**sampling, "episode": self.setup.identity}

    def seed(self, base_seed: Any, rollout_index: int) -> int | None:
        """model.sampling.seed + rollout index when set, else episode.seed + rollout index (τ²: seed 300)."""
        base = base_seed if base_seed is not None else self.episode_seed
        return None if base is None else int(base) + rollout_index

    def seeds(self, rollout_index: int, seed: int | None) -> tuple[int | None, int | None]:
        """(the world's and user's seed, the agent's seed) of a rollout: with episode.hold one side keeps
        rollout 0's seed, so the k rollouts of a task vary only the other side."""
        base = None if seed is None else seed - rollout_index
        return (base if self.hold == "user" else seed), (base if self.hold == "agent" else seed)

    def groups(self, work: list) -> list[tuple[int, list]]:
        return [(task, [(rollout, seed, key)]) for task, rollout, seed, key in work]

    def complete_spread(self, messages: list[dict], members: list, offered: Any = None) -> tuple[list, list]:
        """(member, Played, from_cache) for each member: the episodes of one task, played here."""
        row = self.row_of(messages)
        answered = []
        for member in members:
            client = TurnCache(self.client, self.cache, member[2]) if self.cache is not None else self.client
            world, agent = self.seeds(member[0], member[1])
            answered.append((member, play(self.setup, client, self.verifier, row, world, agent), False))
        return answered, []

    def stop(self) -> None:
        """The run is interrupted: the environment lets go of what it holds (a container task's containers)."""
        stop = getattr(self.setup.env, "stop", None)
        if stop is not None:
            stop()

    def count(self, rollout: dict) -> None:
        episode = rollout.get("episode") or {}
        termination = episode.get("termination") or "unfinished"
        self.terminations[termination] = self.terminations.get(termination, 0) + 1
        self.agent_requests += int(episode.get("agent_turns") or 0) - int(episode.get("cached_turns") or 0)

    def summary(self) -> dict:
        out: dict[str, Any] = {"model_requests": self.agent_requests, "n_per_request": False, "requests_with_n": 0,
                               "episodes": {"terminations": dict(sorted(self.terminations.items())),
                                            "user": self.user_info}}
        if self.cache is not None:
            out["cache"] = self.cache.summary()
        return out


def episode_lines(summary: dict) -> list[str]:
    """The collect summary's lines about episodes (terminations, the user, a user that is the policy)."""
    episodes = summary.get("episodes")
    if not episodes:
        return []
    user = episodes["user"]
    lines = ["episodes ended by: " + ", ".join(f"{name} {n}" for name, n in episodes["terminations"].items()),
             "no simulated user: solo mode (the agent works from the task's ticket, by tool calls alone)"
             if user.get("solo") else f"simulated user: {user.get('model')} ({user.get('kind')})"]
    if user.get("same_as_policy"):
        lines.append("WARNING: the simulated user is the policy's own endpoint and model; episode scores depend "
                     "strongly on the user model")
    return lines
