"""Expected τ² scores for gym's parity tests, computed by upstream's own evaluator.

Run with a checkout of sierra-research/tau2-bench at gym.episodes.tau2.prepare.COMMIT on the path
(its `src/` and its data dir) and its dependencies installed, e.g.
    PYTHONPATH=<checkout>/src python tools/tau2_expected.py mock > tests/fixtures/tau2_expected/mock.json
For every task it builds episodes in the shape gym records (the task's history or the opening message,
the user's request, the gold actions run on upstream's live environment, a closing message that says
the required strings, the user's stop) plus variants that must fail (a missing write, an extra write, a
closing message without the strings) and records upstream's reward, breakdown and database hashes.
"""

from __future__ import annotations

import json
import sys
from copy import deepcopy

from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry

FIRST = "Hi! How can I help you today?"
EXTRA_WRITES = {"mock": ("create_task", {"user_id": "user_1", "title": "Extra"})}


def chat(messages: list) -> list[dict]:
    out = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.id, "content": m.content})
            continue
        item = {"role": m.role, "content": m.content}
        if m.tool_calls:
            item["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                  for c in m.tool_calls]
        out.append(item)
    return out


def episode(domain: str, task, actions: list, closing: str, user_actions: list = ()) -> dict:
    env = registry.get_env_constructor(domain)()
    initial = task.initial_state
    history = deepcopy(initial.message_history) if initial and initial.message_history else []
    env.set_state(initial.initialization_data if initial else None,
                  initial.initialization_actions if initial else None, history)
    messages = history or [AssistantMessage(role="assistant", content=FIRST)]
    messages.append(UserMessage(role="user", content="I need help with my request."))
    for number, (name, arguments, requestor) in enumerate(list(actions) + list(user_actions)):
        call = ToolCall(id=f"gold-{number}", name=name, arguments=arguments, requestor=requestor)
        cls = AssistantMessage if requestor == "assistant" else UserMessage
        messages.append(cls(role=requestor, content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
    messages.append(AssistantMessage(role="assistant", content=closing))
    messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
    sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.USER_STOP, messages=messages)
    try:
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False, domain=domain)
    except Exception as exc:  # e.g. a check function that raises: upstream's evaluation stops (gym: 0)
        return {"trajectory": chat(messages), "upstream_error": f"{exc.__class__.__name__}: {exc}"}
    predicted = registry.get_env_constructor(domain)()
    predicted.set_state(initial.initialization_data if initial else None,
                        initial.initialization_actions if initial else None, messages)
    return {"trajectory": chat(messages), "reward": info.reward,
            "breakdown": {str(k.value): v for k, v in (info.reward_breakdown or {}).items()},
            "db_hash": predicted.get_db_hash(), "user_db_hash": predicted.get_user_db_hash(),
            "tool_outputs": [m.content for m in messages if m.role == "tool"]}


def cases(domain: str, task) -> dict[str, dict]:
    criteria = task.evaluation_criteria
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
    name, arguments = EXTRA_WRITES[domain]
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
