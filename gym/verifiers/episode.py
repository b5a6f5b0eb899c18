"""Family `episode`: grades a finished multi-turn episode (gym.episodes) instead of a reply text.

`verify(row, episode)` takes the episode as collect recorded it, {"trajectory": chat messages,
"termination": reason[, "state": the world it left, when live]}, and asks the benchmark's environment to
score it. Without the live state the environment replays the trajectory on a fresh one: no model is
called, so task=reverify gives the same reward from a stored trajectory. A scorer that fails (a replayed call
answering differently, broken data) raises VerifierError: the rollout is a verifier_error, not a 0.

Options: `environment` (gym.episodes registry name), `environment_options` (its own keyword options), `data_path` (the prepared JSONL, whose directory
holds the environment's domain files), `nl_assertions: skip | judge` (τ²'s natural-language assertions:
skip drops them from the reward basis, as NeMo Gym does; judge asks the judge endpoint, as τ²'s CLI does by
default: its evaluation type ALL judges them wherever a task's reward basis names them).
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

from gym.core.errors import GymError
from gym.episodes.base import EpisodeFailed, JudgeFailed
from gym.verifiers.base import FamilyStats, JudgeUnavailable, Verdict, Verifier, VerifierError, ci_text


class EpisodeVerifier(Verifier):
    family: ClassVar[str] = "episode"
    OPTIONS: ClassVar[dict[str, Any]] = {
        "environment": "tau2", "data_path": None,
        "test_data": None,  # a file the grader reads (SciCode's test_data.h5); must exist when set
        "step_timeout": None,  # seconds per graded program (SciCode's sub-steps; null: the environment's own)
        "environment_options": None,  # more keyword options for the environment (harbor: agent, runtime, ...)
    }
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"nl_assertions": ("skip", "judge")}

    headlines: ClassVar[tuple[str, ...]] = ("pass^k", "pass^k_method")  # beside pass@k, not a detail

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        """pass^k, terminations, per-episode counts and the environment's own figures (gym.episodes.metrics)."""
        from gym.episodes.metrics import episode_metrics

        return episode_metrics(rows, stats.mean_ci)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        return episode_text(entry)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._env: Any = None
        self._lock = threading.Lock()
        self.needs_judge = self.nl_assertions == "judge"
        test_data = self.options["test_data"]
        if test_data is not None and not Path(str(test_data)).expanduser().is_file():  # before any model call
            raise GymError(f"verifier 'episode': test_data {test_data} not found: place the benchmark's test data "
                           f"there (SciCode: docs/benchmarks/scicode.md) or set benchmark.verifier.options.test_data")
        self._judge: tuple[Any, int | None] = (None, None)
        if test_data is not None:  # built now, so an environment that cannot grade says so before any model call
            _ = self.env

    def attach_judge(self, client: Any, seed: int | None = None) -> None:
        """nl_assertions=judge: the judge endpoint's client (gym.model.endpoints.connect_judge)."""
        self._judge = (client, seed)
        if self._env is not None:
            self._env.judge_client, self._env.judge_seed = client, seed

    def attach_embedder(self, embedder: Any) -> dict:
        """An embeddings endpoint's client for the environment's tools (gym.model.embeddings); what it built."""
        attach = getattr(self.env, "attach_embedder", None)
        if attach is None:
            raise GymError(f"environment {self.options['environment']!r} uses no embeddings endpoint")
        return attach(embedder)

    @property
    def env(self) -> Any:
        with self._lock:
            if self._env is None:
                from gym.episodes import make_environment

                if not self.options["data_path"]:
                    raise GymError("verifier 'episode': option data_path (the prepared JSONL) is not set")
                self._env = make_environment(str(self.options["environment"]), self.options["data_path"],
                                             nl_assertions=self.nl_assertions, **{
                                                 name: self.options[name] for name in ("test_data", "step_timeout")
                                                 if self.options[name] is not None},
                                             **dict(self.options["environment_options"] or {}))
                self._env.judge_client, self._env.judge_seed = self._judge
            return self._env

    def verify(self, row: dict, response: Any) -> Verdict:
        episode = json.loads(response) if isinstance(response, str) else response
        if not isinstance(episode, dict) or not isinstance(episode.get("trajectory"), list):
            raise VerifierError("an episode needs its trajectory (a rollout written by an episode run)")
        termination = episode.get("termination") or (episode.get("episode") or {}).get("termination") or ""
        env = self.env
        try:
            score = env.score(row, episode["trajectory"], termination, episode.get("state"))
        except GymError:
            raise
        except JudgeFailed as exc:  # the judge's endpoint failed: unfinished (infra_error); its reply: unreadable
            if exc.transport:
                raise JudgeUnavailable(str(exc)) from None
            raise VerifierError(str(exc)) from None
        except EpisodeFailed as exc:  # a typed failure (a container task's build_error, agent_timeout ...)
            raise VerifierError(str(exc), exc.details) from None
        except Exception as exc:
            raise VerifierError(f"episode scorer failed: {exc.__class__.__name__}: {exc}") from None
        details = {"family": "episode", "environment": env.name, "termination": termination, **score.details}
        breakdown = score.details.get("breakdown") or {}
        if breakdown:  # each check's pass rate becomes a secondary score in metrics.json
            details["scores"] = {name.lower(): float(value) for name, value in breakdown.items()}
        return Verdict(float(score.reward), actions_fingerprint(episode["trajectory"]), details)


def actions_fingerprint(trajectory: list[dict]) -> str:
    """What an episode did, as a short stable text: the agent's calls (name and arguments) in order.
    It is the episode's `extracted_answer`, so majority@k asks whether the most common course of action
    succeeds."""
    calls = [[call.get("function", {}).get("name"), call.get("function", {}).get("arguments")]
             for m in trajectory if m.get("role") == "assistant" for call in m.get("tool_calls") or []]
    return "calls:" + hashlib.sha256(json.dumps(calls, sort_keys=True).encode()).hexdigest()[:16]


def _percent(value: float | None) -> str:
    """A rate for the family line: two decimals, or "n/a" where no episode had the check."""
    return "n/a" if value is None else f"{value:.2f}%"


def episode_text(entry: dict[str, Any]) -> str:
    """The aggregate table's line for an episode benchmark."""
    fm = entry["family_metrics"]
    per = fm["per_episode"]
    parts = [", ".join(f"pass^{k} {ci_text(m)}" for k, m in (entry.get("pass^k") or {}).items()),
             "ended by " + ", ".join(f"{name} {t['percent']}%" for name, t in fm["terminations"].items())]
    if fm.get("db_match_rate") is not None or fm.get("communicate_rate") is not None:
        parts.append(f"DB match {_percent(fm['db_match_rate'])}, communicate {_percent(fm['communicate_rate'])}")
    if fm.get("bfcl"):
        parts.append(f"BFCL overall accuracy {fm['bfcl']['overall_accuracy']}% (mean of "
                     + ", ".join(f"{name} {value}%" for name, value in fm["bfcl"]["accuracy_by_category"].items()) + ")")
    if fm.get("scicode"):
        sc = fm["scicode"]
        parts.append(f"sub-step accuracy {sc['subtask_accuracy']}% ({sc['steps_passed']}/{sc['steps_total']} steps, "
                     f"pooled), main-problem accuracy {sc['problem_accuracy']}%")
    parts += [f"per episode: {per['steps']} steps, {per['tool_calls']} tool calls, {per['tool_errors']} tool errors",
              f"transfers {_percent(fm['transfer_rate'])}", f"user {', '.join(fm['user_models'])} ({fm['user_tokens']['total']} tokens)"]
    if fm.get("nl_assertions_skipped"):
        parts.append(f"NL assertions skipped in {fm['nl_assertions_skipped']} episodes (nl_assertions=skip)")
    return "; ".join(parts)
