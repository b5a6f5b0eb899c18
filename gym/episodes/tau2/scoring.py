"""τ²-bench's grade of a finished episode, re-stated over gym's chat trajectory.

reward = the product of the checks named in the task's `reward_basis` (default [DB, COMMUNICATE]):
* DB: the agent's and the user's database hashes after replaying the trajectory's state-changing calls
  on a fresh state equal those after replaying the task's gold `actions` on a fresh state;
* ENV_ASSERTION: each named check function, run on the replayed state, returns its `assert_value`;
* COMMUNICATE: each `communicate_info` string is a case-insensitive substring of some assistant text
  with commas removed;
* ACTION: each gold action is matched by some call (same name; the `compare_args`, or every argument
  of the call, equal);
* NL_ASSERTION: `nl_assertions: skip` drops it from the basis (the reference CLI's and NeMo Gym's choice);
  `judge` asks the judge endpoint whether each assertion holds.
An episode that did not end by itself (user or agent stop) scores 0. A live episode hands over the state it
left (`final`, the same as replaying its writes: the tools are deterministic, which the parity tests and
task=reverify's replay check); a stored one is replayed. A check function that raises counts
as a failed assertion (upstream lets the exception end its evaluation).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

from gym.episodes.base import GRADED_ENDINGS, Score
from gym.episodes.tau2.state import Tau2State, replay, run_function, run_tool, tool_exchanges

DEFAULT_BASIS = ("DB", "COMMUNICATE")
BASES = ("DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION")


def score_episode(task: dict, trajectory: list[dict], termination: str, fresh: Callable[[], Tau2State],
                  nl_assertions: str = "skip", judge: Callable[[list[str], list[dict]], list[bool]] | None = None,
                  strict: bool = True, memo: dict | None = None, final: Tau2State | None = None) -> Score:
    criteria = task.get("evaluation_criteria")
    if termination not in GRADED_ENDINGS:
        return Score(0.0, {"note": f"episode ended by {termination}: scored 0"})
    if criteria is None:
        return Score(1.0, {"note": "no evaluation criteria"})
    basis = list(criteria.get("reward_basis") or DEFAULT_BASIS)
    unknown = sorted(set(basis) - set(BASES))
    if unknown:
        raise ValueError(f"task {task.get('id')}: unknown reward_basis entries {unknown}")
    details: dict[str, Any] = {"reward_basis": basis}
    breakdown: dict[str, float] = {}
    env = _env_checks(task, trajectory, fresh, strict, details, memo, final)
    for name in ("DB", "ENV_ASSERTION"):
        if name in basis and env is not None:  # None: nothing to compare (the check passes, unlisted)
            breakdown[name] = env[name]
    if "ACTION" in basis:
        breakdown["ACTION"] = _action_check(criteria.get("actions") or [], trajectory, details)
    else:
        _action_check(criteria.get("actions") or [], trajectory, details)
    communicate = _communicate_check(criteria.get("communicate_info") or [], trajectory, details)
    if "COMMUNICATE" in basis:
        breakdown["COMMUNICATE"] = communicate
    if "NL_ASSERTION" in basis:
        if nl_assertions == "skip":
            details["nl_assertions"] = "skipped"
        else:
            breakdown["NL_ASSERTION"] = _nl_check(criteria.get("nl_assertions") or [], trajectory, judge, details)
    reward = 1.0
    for value in breakdown.values():
        reward *= value
    details["breakdown"] = breakdown
    return Score(reward, details)


def _env_checks(task: dict, trajectory: list[dict], fresh: Callable[[], Tau2State], strict: bool,
                details: dict, memo: dict | None, final: Tau2State | None) -> dict[str, float] | None:
    criteria = task["evaluation_criteria"]
    actions, assertions = criteria.get("actions"), criteria.get("env_assertions")
    if actions is None and assertions is None:
        details["db_match"] = True  # upstream: nothing to compare, the environment check passes
        return None
    if final is None:  # grading a stored trajectory: rebuild the world it left by replaying its writes
        final = fresh()
        details["replayed_writes"] = replay(final, trajectory, strict=strict)
    predicted = final
    gold_hashes, gold_errors = gold_outcome(task, initial_history(trajectory, task), fresh, memo)
    if gold_errors:
        details["gold_action_errors"] = gold_errors
    match = predicted.hashes() == gold_hashes
    details["db_match"] = match
    checks, met_all = [], True
    for assertion in assertions or []:
        met, error = _assertion(predicted, assertion)
        checks.append({"func_name": assertion["func_name"], "env_type": assertion.get("env_type", "assistant"),
                       "met": met, **({"error": error} if error else {})})
        met_all = met_all and met
    if checks:
        details["env_assertions"] = checks
    return {"DB": 1.0 if match else 0.0, "ENV_ASSERTION": 1.0 if met_all else 0.0}


def gold_outcome(task: dict, history: list[dict], fresh: Callable[[], Tau2State], memo: dict | None) -> tuple:
    """(database hashes, gold-action errors) after the task's history and gold actions on a fresh state.
    The same for every try of a task, so it is kept in `memo` (keyed by the task and history themselves)."""
    key = hashlib.sha256(json.dumps([task, history], sort_keys=True, default=str).encode()).hexdigest()
    if memo is not None and key in memo:
        return memo[key]
    gold = fresh()
    replay(gold, history, strict=False)
    errors = []
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        output = run_tool(gold, action["name"], action.get("arguments") or {}, action.get("requestor", "assistant"),
                          synced=False)  # upstream's evaluator runs the gold actions without syncing
        if output.error:
            errors.append(f"{action['name']}: {output.content}")
    outcome = (gold.hashes(), errors)
    if memo is not None:
        memo[key] = outcome
    return outcome


def initial_history(trajectory: list[dict], task: dict) -> list[dict]:
    """The messages the task supplied (after the system prompt, one chat message per upstream message):
    the gold state replays them before the gold actions, as upstream's evaluator does."""
    history = ((task.get("initial_state") or {}).get("message_history")) or []
    start = 1 if trajectory and trajectory[0].get("role") == "system" else 0
    return trajectory[start:start + len(history)]


def _assertion(state: Tau2State, assertion: dict) -> tuple[bool, str | None]:
    try:
        value = run_function(state, assertion.get("env_type", "assistant"), assertion["func_name"],
                             assertion.get("arguments") or {})
    except Exception as exc:
        return False, f"{exc.__class__.__name__}: {exc}"
    if not isinstance(value, bool):
        return False, f"{assertion['func_name']} returned {type(value).__name__}, not bool"
    return value == bool(assertion.get("assert_value", True)), None


def _action_check(actions: list[dict], trajectory: list[dict], details: dict) -> float:
    if not actions:
        return 1.0
    calls = [(name, arguments) for _, name, arguments, _, _ in tool_exchanges(trajectory)
             if isinstance(arguments, dict)]
    checks = []
    for action in actions:
        met = any(_matches(action, name, arguments) for name, arguments in calls)
        checks.append({"action_id": action.get("action_id"), "name": action["name"], "met": met})
    details["actions"] = checks
    return 1.0 if all(c["met"] for c in checks) else 0.0


def _matches(action: dict, name: str, arguments: dict) -> bool:
    if action["name"] != name:
        return False
    keys = action.get("compare_args")
    keys = list(arguments) if keys is None else keys
    if not keys:
        return True
    gold = action.get("arguments") or {}
    return ({k: v for k, v in arguments.items() if k in keys} == {k: v for k, v in gold.items() if k in keys})


def assistant_texts(trajectory: list[dict]) -> list[str]:
    return [m["content"] for m in trajectory
            if m.get("role") == "assistant" and isinstance(m.get("content"), str) and m["content"].strip()]


def _communicate_check(infos: list[str], trajectory: list[dict], details: dict) -> float:
    if not infos:
        return 1.0
    texts = [text.lower().replace(",", "") for text in assistant_texts(trajectory)]
    checks = [{"info": info, "met": any(info.lower() in text for text in texts)} for info in infos]
    details["communicate"] = checks
    return 1.0 if all(c["met"] for c in checks) else 0.0


def _nl_check(assertions: list[str], trajectory: list[dict], judge: Any, details: dict) -> float:
    if not assertions:
        return 1.0
    if judge is None:
        raise ValueError("nl_assertions=judge needs a judge endpoint (judge=vllm|openai|mock)")
    verdicts = judge(assertions, trajectory)
    details["nl_assertions"] = [{"assertion": a, "met": bool(v)} for a, v in zip(assertions, verdicts)]
    return 1.0 if all(verdicts) else 0.0
