"""The rollout row: one JSON object per line of a rollouts file.

collect and reverify write it, aggregate/profile/reverify/export read it; this module is the one place
that says what a row holds. FIELDS documents every field (the "Rollout file" section of
docs/concepts/rollouts.md mirrors it); `make_rollout` builds a row, `verify_answer` turns a verifier's outcome into the row's verdict
fields, `check_row` validates a row read back, `upgrade` brings an older row to the current version.

Versions
--------
* 1: rows written before `schema_version` existed (the field is absent). Statuses ok, model_error,
  infra_error; a verifier that crashed was recorded as `ok` with reward 0 and `verifier.error`
  (task=reverify re-scores such rows).
* 2: `schema_version: 2`; adds the status `verifier_error`, `data_sha256` and, on re-verified rows,
  `reverified`.
* 3: `schema_version: 3`; rows of tasks that offer tools add `tool_calls` (the reply's calls) and, when a
  reply had any, `tool_call_problems` (gym.toolcalls.counters).
* 4: rows of episode benchmarks (benchmark.kind: episode) add `trajectory` (the whole conversation as
  OpenAI chat messages) and `episode` (termination, steps, turns, tool calls and errors, the user model
  and its usage); `response` is the agent's last text. Every row this gym writes says 4, answer rows too
  (they have nothing new): one version for the files of one version of gym.
A row of a newer version than this gym knows is refused with a hint to upgrade gym.
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Any, Optional, TypedDict

from gym.core.errors import GymError
from gym.verifiers.base import JudgeUnavailable, Verifier, VerifierError

if TYPE_CHECKING:  # pragma: no cover
    from gym.model.client import Completion

SCHEMA_VERSION = 4


class Status(str, Enum):
    OK = "ok"  # a usable reply, verified
    MODEL_ERROR = "model_error"  # the endpoint refused the task itself: scored 0
    INFRA_ERROR = "infra_error"  # transport/timeouts/5xx (or the judge's call failed): unscored, redone by resume
    VERIFIER_ERROR = "verifier_error"  # the verifier could not decide: unscored, redone by reverify or resume


STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
STATUSES_BY_VERSION: dict[int, tuple[str, ...]] = {1: ("ok", "model_error", "infra_error"), 2: STATUSES, 3: STATUSES,
                                                   4: STATUSES}
SUPPORTED_VERSIONS = tuple(STATUSES_BY_VERSION)
SCORED = ("ok", "model_error")  # enter every score (a model_error as 0)
UNSCORED = ("infra_error", "verifier_error")  # left out of every score, only counted
FINAL = SCORED  # statuses a resumed collect does not redo
REVERIFIABLE = ("ok", "verifier_error")  # rows with a reply that task=reverify scores again


class Rollout(TypedDict, total=False):
    schema_version: int
    benchmark: str
    model: str
    task_index: int
    rollout_index: int
    key: str
    status: str
    reward: Optional[float]
    scores: Optional[dict]
    extracted_answer: Optional[str]
    expected_answer: Any
    prompt: list
    response: Optional[str]
    reasoning: Optional[str]
    verifier: dict
    error: Optional[str]
    attempts: int
    latency_s: Optional[float]
    finish_reason: Optional[str]
    usage: Optional[dict]
    time: str
    data_sha256: Optional[str]
    subsets: dict
    reverified: dict
    cached: bool
    adaptive: str
    tool_calls: list
    tool_call_problems: dict
    tokens: dict
    trajectory: list
    episode: dict
    cost_usd: float


OPTIONAL = ("subsets", "reverified", "tool_calls", "tool_call_problems", "tokens", "trajectory", "episode",
            "cost_usd")  # fields only some rows carry

# Field -> what it holds. Kept in step with Rollout; tests check the docs document every one.
FIELDS: dict[str, str] = {
    "schema_version": "row format version (absent = 1)",
    "benchmark": "benchmark name",
    "model": "served model id",
    "task_index": "0-based line of the task in the prepared file",
    "rollout_index": "0-based repeat of the task",
    "key": "identity of the rollout (see Resume); readers keep the last row per key",
    "status": "ok | model_error | infra_error | verifier_error",
    "reward": "in [0, 1]; null for infra_error and verifier_error",
    "scores": "secondary scores {name: number in [0, 1]} (a pooled score's weight, e.g. instructions: a count) or null",
    "extracted_answer": "the answer the verifier read (majority voting), or null",
    "expected_answer": "the gold answer from the prepared row",
    "prompt": "the messages sent",
    "response": "the reply text (reasoning split off), or null",
    "reasoning": "the reasoning text, or null",
    "verifier": "the verifier's details (family specific; a VerifierError's details)",
    "error": "why the rollout is not ok (HTTP error, judge or verifier failure), else null",
    "attempts": "HTTP attempts made",
    "latency_s": "seconds for the model call",
    "finish_reason": "the endpoint's finish reason (length = cut by max_tokens)",
    "usage": "token counts {prompt_tokens, completion_tokens, total_tokens[, cached_tokens]}",
    "time": "UTC time the row was written",
    "data_sha256": "sha256 of the prepared file (version 2)",
    "subsets": "the task's groups for per-subset metrics, e.g. {language: de}; absent when it has none",
    "reverified": "on rows written by task=reverify: {time, status, reward, extracted_answer} before",
    "cached": "true when the reply came from the response cache (cache.dir), not from a model call",
    "adaptive": "on rows of an adaptive-repeats run: the stopping rule that sampled them (gym.rollouts.adaptive)",
    "tool_calls": "when tools were offered: the reply's calls [{name, arguments[, raw_arguments][, id]}] (version 3)",
    "tool_call_problems": "counts of unparsed_tool_calls, invalid_tool_arguments, unknown_tools in the reply, when any",
    "tokens": "when the server returned them: {prompt_token_ids, generation_token_ids, generation_log_probs} (an "
              "episode keeps them on each assistant message of its trajectory)",
    "trajectory": "episode rows (version 4): the conversation as chat messages (system, user, assistant with "
                  "tool_calls, tool with tool_call_id)",
    "cost_usd": "when a price is set (model.price.*, judge.price.*, user.price.*): what the rollout cost in US dollars",
    "episode": "episode rows (version 4): {termination, steps, agent_turns, user_turns, tool_calls, tool_errors, "
               "unknown_tools, transfers, user_model, agent_usage, user_usage, ...}",
}


def rollout_key(data_sha: str, task_index: int, messages: list[dict], sampling: dict, model: str, api: str,
                rollout_index: int, judge: str | None = None) -> str:
    """Identity of one rollout; the task index keeps two identical questions apart.

    The bytes hashed must never change: resumed runs find their finished rows by this key."""
    parts = [data_sha, task_index, messages, sampling, model, api, rollout_index]
    if judge is not None:  # judge-graded: another judge is another experiment
        parts.append({"judge": judge})
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def verify_answer(verifier: Verifier, row: dict, text: str, tool_calls: list | None = None,
                  finish_reason: str | None = None) -> dict[str, Any]:
    """The verdict fields (status, reward, scores, extracted_answer, verifier, error) for one reply.

    A verifier that grades tool calls (`uses_tool_calls`) gets the reply's calls beside its text (None
    when no tools were offered). A GymError (bad data or config) propagates; a failed judge call is an
    infra_error; a VerifierError or any other exception from the verifier is a verifier_error: never a
    wrong answer. A strict verifier (`reward.strict`) scores 0 a reply cut at the length limit
    (`finish_reason` "length") and one whose final answer is not marked (`verifier.marked`)."""
    if row.get("unscorable"):  # kept as the reference keeps it; prepare reported why gym cannot score it
        return _failed(Status.VERIFIER_ERROR, f"verifier: unscorable task ({row['unscorable']})", {})
    if verifier.strict:
        refused = "truncated" if finish_reason == "length" else (
            None if tool_calls or verifier.marked(row, text or "") else "unmarked")
        if refused is not None:  # a real 0: the reply is unfinished, or its answer is a guess at the last number
            return {"status": Status.OK.value, "reward": 0.0, "scores": None, "extracted_answer": None,
                    "verifier": {"strict": refused}, "error": None}
    try:
        if verifier.uses_tool_calls:
            verdict = verifier.verify(row, text, tool_calls)
        else:
            verdict = verifier.verify(row, text)
    except GymError:
        raise
    except JudgeUnavailable as exc:  # the judge failed, not the model: unscored, redone on resume
        return _failed(Status.INFRA_ERROR, f"judge: {exc}", exc.details)
    except VerifierError as exc:
        return _failed(Status.VERIFIER_ERROR, f"verifier: {exc}", exc.details)
    except Exception as exc:  # a verifier bug on one answer: unscored and counted, loudly
        return _failed(Status.VERIFIER_ERROR, f"verifier failed: {exc.__class__.__name__}: {exc}", {})
    details = verdict.details
    return {"status": Status.OK.value, "reward": float(verdict.reward), "scores": _scores(details),
            "extracted_answer": verdict.extracted_answer, "verifier": details, "error": None}


def _failed(status: Status, error: str, details: Any) -> dict[str, Any]:
    return {"status": status.value, "reward": None, "scores": None, "extracted_answer": None,
            "verifier": details if isinstance(details, dict) else {}, "error": error}


def make_rollout(benchmark: str, model: str, row: dict, messages: list[dict], task_index: int, rollout_index: int,
                 key: str, completion: "Completion", verifier: Verifier, data_sha256: str | None = None, *,
                 subsets: dict | None = None, cached: bool = False, adaptive: str | None = None) -> Rollout:
    """The row collect writes for one model call; the optional fields only where they say something
    (the task's subsets, a reply from the response cache, the adaptive-repeats rule)."""
    if completion.status == "ok":
        verdict = verify_answer(verifier, row, completion.text or "", completion.tool_calls, completion.finish_reason)
    else:
        verdict = {"status": completion.status, "reward": 0.0 if completion.status == "model_error" else None,
                   "scores": None, "extracted_answer": None, "verifier": {}, "error": completion.error}
    optional = {"subsets": subsets, "cached": cached, "adaptive": adaptive,
                "tool_call_problems": completion.tool_problems, "tokens": getattr(completion, "tokens", None)}
    rollout: Rollout = {
        "schema_version": SCHEMA_VERSION, "benchmark": benchmark, "model": model, "task_index": task_index,
        "rollout_index": rollout_index, "key": key, "status": verdict["status"], "reward": verdict["reward"],
        "scores": verdict["scores"], "extracted_answer": verdict["extracted_answer"],
        "expected_answer": row.get("expected_answer"), "prompt": messages, "response": completion.text,
        "reasoning": completion.reasoning, "verifier": verdict["verifier"], "error": verdict["error"],
        "attempts": completion.attempts, "latency_s": completion.latency_s, "finish_reason": completion.finish_reason,
        "usage": completion.usage, "time": now(), "data_sha256": data_sha256,
    }
    rollout.update({name: value for name, value in optional.items() if value})  # type: ignore[typeddict-item]
    if completion.tool_calls is not None:
        rollout["tool_calls"] = [call.to_row() for call in completion.tool_calls]
    return rollout


def make_episode_rollout(benchmark: str, model: str, row: dict, task_index: int, rollout_index: int, key: str,
                         played: Any, data_sha256: str | None = None, *, subsets: dict | None = None) -> Rollout:
    """The row collect writes for one episode (gym.rollouts.episodes.Played): its verdict, the whole
    trajectory and the episode's counters; `prompt` is what the episode started from."""
    episode, verdict = played.episode, played.verdict
    texts = [m.get("content") for m in episode.trajectory if m.get("role") == "assistant" and m.get("content")]
    rollout: Rollout = {
        "schema_version": SCHEMA_VERSION, "benchmark": benchmark, "model": model, "task_index": task_index,
        "rollout_index": rollout_index, "key": key, "status": verdict["status"], "reward": verdict["reward"],
        "scores": verdict["scores"], "extracted_answer": verdict["extracted_answer"],
        "expected_answer": row.get("expected_answer"), "prompt": played.prompt,
        "response": texts[-1] if texts else None, "reasoning": None, "verifier": verdict["verifier"],
        "error": verdict["error"], "attempts": episode.agent_turns, "latency_s": round(played.seconds, 3),
        "finish_reason": episode.finish_reason, "usage": episode.agent_usage or None, "time": now(),
        "data_sha256": data_sha256, "trajectory": episode.trajectory, "episode": played.summary,
    }
    if subsets:
        rollout["subsets"] = subsets
    if episode.cached_turns:
        rollout["cached"] = True
    return rollout


def _scores(details: Any) -> dict[str, float] | None:
    """The verifier's secondary scores (details["scores"]): numbers in [0, 1] by name, else None."""
    scores = details.get("scores") if isinstance(details, dict) else None
    if not isinstance(scores, dict):
        return None
    from gym.rollouts.scores import WEIGHTS  # a pooled score's weight (a count) is the one not in [0, 1]

    kept = {str(name): float(value) for name, value in scores.items()
            if not isinstance(value, bool) and isinstance(value, (int, float))
            and (0.0 <= value <= 1.0 or (name in WEIGHTS and value >= 0))}
    return kept or None


# ---------------------------------------------------------------------------------------------
# Reading rows back


def number(value: Any) -> float | None:
    """A JSON number as float; None for null, NaN, booleans and anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if math.isnan(value) else float(value)


def row_version(row: dict, where: str) -> int:
    version = row.get("schema_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise GymError(f"{where}: schema_version must be a positive integer, got {version!r}")
    if version not in STATUSES_BY_VERSION:
        raise GymError(f"{where}: rollout schema_version {version} is newer than this gym reads "
                       f"({', '.join(map(str, SUPPORTED_VERSIONS))}); upgrade gym")
    return version


def check_indices(task: Any, rollout: Any, where: str) -> None:
    for name, value in (("task_index", task), ("rollout_index", rollout)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise GymError(f"{where}: '{name}' must be an integer, got {value!r}")


def check_verdict(status: Any, raw_reward: Any, where: str, statuses: tuple[str, ...] = STATUSES) -> float | None:
    """The reward a reader uses for (status, reward), or GymError naming the row.

    ok needs a reward; model_error without one scores 0; infra_error/verifier_error keep null."""
    if status not in statuses:
        raise GymError(f"{where}: unknown status {status!r} (expected one of {', '.join(statuses)})")
    reward = number(raw_reward)
    if reward is None and raw_reward is not None and not isinstance(raw_reward, float):
        raise GymError(f"{where}: reward must be a number, got {raw_reward!r}")
    if reward is None and status == "ok":
        raise GymError(f"{where}: status 'ok' but the reward is missing, null or NaN; "
                       "fix or remove the row (only infra_error and verifier_error rows may lack a reward)")
    if reward is None and status == "model_error":
        reward = 0.0
    if reward is not None and not 0.0 <= reward <= 1.0:
        raise GymError(f"{where}: reward {reward} outside [0, 1]")
    return reward


def check_row(row: dict, where: str) -> tuple[int, float | None]:
    """Validate a gym row (any supported version): (version, the reward readers use)."""
    version = row_version(row, where)
    key = row.get("key")
    if not isinstance(key, str) or not key:
        raise GymError(f"{where}: rollout row has no 'key'")
    check_indices(row.get("task_index"), row.get("rollout_index"), where)
    return version, check_verdict(row.get("status"), row.get("reward"), where, STATUSES_BY_VERSION[version])


def upgrade(row: dict, where: str) -> Rollout:
    """A validated copy of a gym row in the current version (fields a version lacked are null)."""
    check_row(row, where)
    out: dict[str, Any] = {name: row.get(name) for name in FIELDS if name in row or name not in OPTIONAL}
    out.update({k: v for k, v in row.items() if k not in out})  # fields of a newer writer survive
    out["schema_version"] = SCHEMA_VERSION
    return out  # type: ignore[return-value]
