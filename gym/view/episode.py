"""What an episode page shows: the trajectory as turns (each tool call with its arguments and its output),
the reward basis's checks from the verifier's details, and for τ² the agent's database against the gold
final state: both rebuilt as the scorer rebuilds them (gym.episodes.tau2), then compared field by field."""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

from gym.core.errors import GymError
from gym.episodes.tau2.state import parse_arguments

log = logging.getLogger("gym.view")
MAX_DIFFS = 200


def turns(trajectory: list[dict]) -> list[dict[str, Any]]:
    """One entry per message but tool results, which are folded into the call that asked for them."""
    answers = {m.get("tool_call_id"): m.get("content") for m in trajectory if m.get("role") == "tool"}
    out = []
    for message in trajectory:
        role = message.get("role")
        if role == "tool":
            continue
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = parse_arguments(function.get("arguments"))
            calls.append({"id": call.get("id"), "name": function.get("name", ""),
                          "arguments": pretty(arguments if arguments is not None else function.get("arguments")),
                          "output": pretty_text(answers.get(call.get("id"))),
                          "error": str(answers.get(call.get("id")) or "").startswith("Error")})
        out.append({"role": role, "content": content_text(message.get("content")), "calls": calls,
                    "reasoning": message.get("reasoning_content") or message.get("reasoning")})
    return out


def content_text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "\n".join(str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content)
    return "" if content is None else str(content)


def pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def pretty_text(text: Any) -> str:
    """A tool output: indented when it is JSON."""
    if not isinstance(text, str):
        return "" if text is None else pretty(text)
    try:
        return pretty(json.loads(text))
    except ValueError:
        return text


CALLS_FINGERPRINT = "calls:"  # an episode's extracted_answer: a hash of its calls (gym.verifiers.episode)


def shown_answer(row: dict) -> str | None:
    """The extracted answer as a person reads it: an episode's is a hash of its calls (what majority@k
    compares), so its calls are shown instead, `name(arguments)` in order, or nothing when it made none."""
    answer = row.get("extracted_answer")
    if not (isinstance(answer, str) and answer.startswith(CALLS_FINGERPRINT)):
        return answer
    calls = [call.get("function") or {} for m in row.get("trajectory") or [] if isinstance(m, dict)
             and m.get("role") == "assistant" for call in m.get("tool_calls") or [] if isinstance(call, dict)]
    return "; ".join(f"{c.get('name')}({_arguments(c.get('arguments'))})" for c in calls) or None


def _arguments(arguments: Any) -> str:
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return str(arguments)
    if isinstance(value, dict):
        return ", ".join(f"{key}={json.dumps(item, ensure_ascii=False)}" for key, item in value.items())
    return json.dumps(value, ensure_ascii=False)


# What each reward-basis entry checks, for an entry that lists nothing to check in a task (it counts as met).
BASIS_KINDS = {"DB": "database", "ENV_ASSERTION": "assertion", "ACTION": "action", "COMMUNICATE": "required string",
               "NL_ASSERTION": "nl assertion"}


def checks(verifier: dict) -> list[dict[str, Any]]:
    """Each check of the reward basis: [{kind, name, met, detail}] from an episode verifier's details."""
    out: list[dict[str, Any]] = []
    breakdown = verifier.get("breakdown") or {}
    basis = verifier.get("reward_basis") or list(breakdown)
    if "db_match" in verifier:
        out.append({"kind": "database", "name": "final database = gold final database",
                    "met": bool(verifier["db_match"]), "in_basis": "DB" in basis, "detail": ""})
    for item in verifier.get("env_assertions") or []:
        out.append({"kind": "assertion", "name": item.get("func_name"), "met": bool(item.get("met")),
                    "in_basis": "ENV_ASSERTION" in basis, "detail": item.get("error") or item.get("env_type", "")})
    for item in verifier.get("actions") or []:
        out.append({"kind": "action", "name": item.get("name"), "met": bool(item.get("met")),
                    "in_basis": "ACTION" in basis, "detail": item.get("action_id") or ""})
    for item in verifier.get("communicate") or []:
        out.append({"kind": "required string", "name": item.get("info"), "met": bool(item.get("met")),
                    "in_basis": "COMMUNICATE" in basis, "detail": ""})
    nl = verifier.get("nl_assertions")
    if isinstance(nl, list):
        out.extend({"kind": "nl assertion", "name": item.get("assertion"), "met": bool(item.get("met")),
                    "in_basis": "NL_ASSERTION" in basis, "detail": ""} for item in nl)
    elif nl == "skipped":
        out.append({"kind": "nl assertion", "name": "skipped (nl_assertions: skip)", "met": None,
                    "in_basis": False, "detail": ""})
    shown = {check["kind"] for check in out}
    for name in basis:  # an entry of the basis with nothing listed to check (COMMUNICATE without strings)
        kind = BASIS_KINDS.get(name, name.lower())
        if kind not in shown and name in breakdown:
            out.append({"kind": kind, "name": f"{name}: nothing listed to check in this task",
                        "met": float(breakdown[name]) >= 1.0, "in_basis": True, "detail": "counts as met"})
    return out


def plain(value: Any) -> Any:
    """A database as plain JSON values."""
    return json.loads(json.dumps(value, default=lambda o: getattr(o, "__dict__", str(o)), sort_keys=True))


def differences(gold: Any, agent: Any, path: str = "") -> list[dict[str, str]]:
    """[{path, gold, agent}] where two JSON values differ (a missing side shows as "(absent)")."""
    if isinstance(gold, dict) and isinstance(agent, dict):
        out = []
        for key in sorted(set(gold) | set(agent), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in gold:
                out.append({"path": where, "gold": "(absent)", "agent": _short(agent[key])})
            elif key not in agent:
                out.append({"path": where, "gold": _short(gold[key]), "agent": "(absent)"})
            else:
                out.extend(differences(gold[key], agent[key], where))
            if len(out) >= MAX_DIFFS:
                break
        return out
    if isinstance(gold, list) and isinstance(agent, list) and len(gold) == len(agent):
        out = []
        for number, (a, b) in enumerate(zip(gold, agent)):
            out.extend(differences(a, b, f"{path}[{number}]"))
        return out
    return [] if gold == agent else [{"path": path or "(root)", "gold": _short(gold), "agent": _short(agent)}]


def _short(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def tau2_database_diff(task_row: dict, data_path: str, trajectory: list[dict]) -> dict[str, Any]:
    """{"agent": [...], "user": [...]} differences of the final databases from the gold ones, or {"error"}."""
    from gym.episodes import make_environment
    from gym.episodes.tau2.env import is_solo
    from gym.episodes.tau2.scoring import initial_history
    from gym.episodes.tau2.state import replay, run_tool

    env = make_environment("tau2", data_path)
    solo = is_solo(task_row, trajectory)
    history = initial_history(trajectory, task_row["task"])
    start = (1 if trajectory and trajectory[0].get("role") == "system" else 0) + len(history)
    agent = env.reset(task_row, solo=solo)  # the task's own history already replayed, as for the gold run
    replay(agent, trajectory[start:], strict=False)
    gold = env.reset(task_row, solo=solo)
    for action in ((task_row["task"].get("evaluation_criteria") or {}).get("actions")) or []:
        run_tool(gold, action["name"], action.get("arguments") or {}, action.get("requestor", "assistant"),
                 synced=False)
    return {"agent": differences(plain(gold.db), plain(agent.db)),
            "user": differences(plain(gold.user_db), plain(agent.user_db)) if gold.user_db is not None else []}


def database_diff(row: dict, task_row_of: Callable[[dict], tuple[dict, str, str]] | None) -> dict[str, Any] | None:
    """The database comparison of an episode row (τ² only), None when there is nothing to compare."""
    verifier = row.get("verifier") or {}
    if verifier.get("environment") != "tau2" or "db_match" not in verifier or task_row_of is None:
        return None
    try:
        task_row, data_path, environment = task_row_of(row)
        if environment != "tau2":
            return None
        return tau2_database_diff(task_row, data_path, row.get("trajectory") or [])
    except GymError as exc:  # e.g. the benchmark is not prepared here: the page still shows everything else
        return {"error": f"no database comparison: {exc}"}
    except Exception as exc:
        log.info("database diff of %s task %s: %s", row.get("benchmark"), row.get("task_index"), exc)
        return {"error": f"no database comparison: {exc.__class__.__name__}: {exc}"}


TRIAL_FACTS = ("trial_status", "build_seconds", "base_seconds", "build_cached", "start_seconds", "agent_seconds",
               "verifier_seconds", "trial_seconds", "cpu_seconds", "agent_cpu_seconds", "peak_memory_mb", "image",
               "test_exit_code")


def trial(row: dict) -> dict[str, Any] | None:
    """A container task's trial (gym.episodes.harbor): its status, times, image, the stand-ins and tools it was
    given, and the tests' output; None for other episodes."""
    details = row.get("verifier") or {}
    if "trial_status" not in details:
        return None
    return {"facts": {name: details[name] for name in TRIAL_FACTS if details.get(name) is not None},
            "substitutions": details.get("substitutions") or [], "support": details.get("test_support") or [],
            "tests": details.get("test_output") or details.get("log_tail") or details.get("output") or "",
            "reward": row.get("reward"), "error": row.get("error")}
