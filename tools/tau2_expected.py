"""Expected τ² scores for gym's parity tests, computed by upstream's own evaluator.

Run with a checkout of sierra-research/tau2-bench at gym.episodes.tau2.prepare.COMMIT on the path
(its `src/` and its data dir) and its dependencies installed, e.g.
    TAU2_DATA_DIR=tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \
    PYTHONPATH=<checkout>/src python tools/tau2_expected.py retail > tests/fixtures/tau2_expected/retail.json
For every task it builds episodes in the shape gym records (the task's history or the opening message,
the user's request, the gold actions run on upstream's live environment, a closing message that says
the required strings, the user's stop) plus variants that must fail (a missing write, an extra write, a
closing message without the strings) and records upstream's reward, breakdown and database hashes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from copy import deepcopy

from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry

FIRST = "Hi! How can I help you today?"
# A write each domain accepts on any task (so "an extra write" always changes the database).
EXTRA_WRITES = {
    "mock": lambda env: ("create_task", {"user_id": "user_1", "title": "Extra"}),
    "retail": lambda env: ("modify_user_address", {"user_id": next(iter(env.tools.db.users)), "address1": "1 Extra Road",
                                                   "address2": "", "city": "Austin", "state": "TX", "country": "USA",
                                                   "zip": "73301"}),
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def episode(domain: str, task, actions: list, closing: str, user_actions: list = ()) -> dict:
    """Upstream's grade of the episode that makes these calls and says `closing`: the calls, the closing
    text, the sha256 of each call's output, the reward, its breakdown and the final database hashes."""
    env = registry.get_env_constructor(domain)()
    initial = task.initial_state
    history = deepcopy(initial.message_history) if initial and initial.message_history else []
    env.set_state(initial.initialization_data if initial else None,
                  initial.initialization_actions if initial else None, history)
    messages = history or [AssistantMessage(role="assistant", content=FIRST)]
    messages.append(UserMessage(role="user", content="I need help with my request."))
    calls = list(actions) + list(user_actions)
    outputs = []
    for number, (name, arguments, requestor) in enumerate(calls):
        call = ToolCall(id=f"gold-{number}", name=name, arguments=arguments, requestor=requestor)
        cls = AssistantMessage if requestor == "assistant" else UserMessage
        messages.append(cls(role=requestor, content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
        outputs.append(sha(messages[-1].content))
    messages.append(AssistantMessage(role="assistant", content=closing))
    messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
    played = {"calls": [list(c) for c in calls], "closing": closing, "tool_output_sha256": outputs}
    sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.USER_STOP, messages=messages)
    try:
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False, domain=domain)
    except Exception as exc:  # e.g. a check function that raises: upstream's evaluation stops (gym: 0)
        return {**played, "upstream_error": f"{exc.__class__.__name__}: {exc}"}
    predicted = registry.get_env_constructor(domain)()
    predicted.set_state(initial.initialization_data if initial else None,
                        initial.initialization_actions if initial else None, messages)
    return {**played, "reward": info.reward,
            "breakdown": {str(k.value): v for k, v in (info.reward_breakdown or {}).items()},
            "db_hash": predicted.get_db_hash(), "user_db_hash": predicted.get_user_db_hash()}


def cases(domain: str, task) -> dict[str, dict]:
    criteria = task.evaluation_criteria
    # gym's default nl_assertions=skip drops NL_ASSERTION from the basis (as NeMo Gym's prepare does);
    # the judge it needs is not part of this comparison.
    criteria.reward_basis = [b for b in criteria.reward_basis if b.value != "NL_ASSERTION"]
    gold = [(a.name, a.arguments, a.requestor) for a in (criteria.actions or [])]
    agent_gold = [a for a in gold if a[2] == "assistant"]
    user_gold = [a for a in gold if a[2] == "user"]
    strings = " ".join(criteria.communicate_info or [])
    closing = f"All done. {strings}".strip()
    env = registry.get_env_constructor(domain)()
    writes = [i for i, a in enumerate(agent_gold) if env.tools.has_tool(a[0]) and env.tools.tool_mutates_state(a[0])]
    out = {"gold": episode(domain, task, agent_gold, closing, user_gold)}
    if writes:
        out["missing_write"] = episode(domain, task, agent_gold[:writes[-1]] + agent_gold[writes[-1] + 1:],
                                       closing, user_gold)
    name, arguments = EXTRA_WRITES[domain](env)
    out["extra_write"] = episode(domain, task, agent_gold + [(name, arguments, "assistant")], closing, user_gold)
    if criteria.communicate_info:
        out["no_strings"] = episode(domain, task, agent_gold, "All done.", user_gold)
    return out


def main(domain: str) -> None:
    tasks = registry.get_tasks_loader(domain)()
    result = {task.id: cases(domain, task) for task in tasks}
    json.dump({"domain": domain, "tasks": result}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
