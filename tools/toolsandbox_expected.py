"""Expected values for gym's ToolSandbox parity tests, from upstream's own execution environment and scorer.

For each scenario asked for, the scripted plays of gym.episodes.toolsandbox.gold.plays (the gold-ish play
and its perturbations: silent, reversed, parallel, mutated) are played through upstream's
ExecutionEnvironment (its console runs the tool calls) on upstream's own scenario objects, then scored by
upstream's Evaluation. Written per play: the messages from the first user message on (contents, the
exceptions and tool traces of the answers), a digest of every database's state at every message index,
and the evaluation result (similarity, milestone and minefield mappings, turn count).

Upstream draws ids with uuid4; here they come from gym's per-world sequence (World.new_id), kept on the
execution context so the copies made for parallel calls count alike. Run as tools/toolsandbox_scenarios.py:

    PYTHONPATH=/tmp/ts_up:. TZ=UTC /tmp/ts_venv/bin/python tools/toolsandbox_expected.py SCENARIOS.json.gz OUT.json [names...]
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.toolsandbox_scenarios import FROZEN_NOW, SEED  # noqa: E402

DATABASES = ("SETTING", "CONTACT", "MESSAGING", "REMINDER")
MESSAGE_KEYS = ("sender", "recipient", "content", "openai_tool_call_id", "openai_function_name",
                "conversation_active", "tool_call_exception", "tool_trace", "visible_to")


def digest(rows: list[dict]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _patch_ids() -> None:
    from tool_sandbox.common.execution_context import get_current_context
    from tool_sandbox.tools import contact, messaging, reminder

    def new_id():
        context = get_current_context()
        context._gym_ids = getattr(context, "_gym_ids", 0) + 1
        return uuid.uuid5(uuid.NAMESPACE_URL, f"toolsandbox-id-{context._gym_ids}")

    for module in (contact, messaging, reminder):
        module.uuid4 = new_id


def play(scenario, steps: list[dict], tool_names: dict[str, str]) -> dict:
    import copy

    from tool_sandbox.common.execution_context import DatabaseNamespace, RoleType, get_current_context
    from tool_sandbox.common.execution_context import set_current_context
    from tool_sandbox.common.message_conversion import Message
    from tool_sandbox.roles.base_role import BaseRole
    from tool_sandbox.roles.execution_environment import ExecutionEnvironment

    context = copy.deepcopy(scenario.starting_context)
    set_current_context(context)
    environment = ExecutionEnvironment()
    sandbox = context.get_database(DatabaseNamespace.SANDBOX, get_all_history_snapshots=True,
                                   drop_sandbox_message_index=False)
    for index in range(context.max_sandbox_message_index + 1):
        if sandbox["recipient"][index] == RoleType.EXECUTION_ENVIRONMENT and sandbox["sender"][index] == RoleType.SYSTEM:
            environment.respond(ending_index=index)

    def code(call_id, name, arguments):
        return f"{call_id}_parameters = {arguments}\n{call_id}_response = {name}(**{call_id}_parameters)\nprint(repr({call_id}_response))"

    for step in steps:
        if isinstance(step.get("agent"), list):
            BaseRole.add_messages([Message(sender=RoleType.AGENT, recipient=RoleType.EXECUTION_ENVIRONMENT,
                                           content=code(c["id"], tool_names[c["name"]], c["arguments"]),
                                           openai_tool_call_id=c["id"], openai_function_name=c["name"])
                                   for c in step["agent"]])
            environment.respond()
        elif "agent" in step:
            BaseRole.add_messages([Message(sender=RoleType.AGENT, recipient=RoleType.USER, content=step["agent"])])
        elif "user" in step:
            BaseRole.add_messages([Message(sender=RoleType.USER, recipient=RoleType.AGENT, content=step["user"])])
        else:
            BaseRole.add_messages([Message(sender=RoleType.USER, recipient=RoleType.EXECUTION_ENVIRONMENT,
                                           content=code(None, "end_conversation", {}))])
            environment.respond()
    context = get_current_context()
    result = scenario.evaluation.evaluate(execution_context=context, max_turn_count=scenario.max_messages)
    first, last = context.first_user_sandbox_message_index, context.max_sandbox_message_index
    history = context.get_database(DatabaseNamespace.SANDBOX, get_all_history_snapshots=True,
                                   drop_sandbox_message_index=False).to_dicts()
    messages = [{k: (str(v) if k in ("sender", "recipient") else [str(x) for x in v] if k == "visible_to" and v else v)
                 for k, v in row.items() if k in MESSAGE_KEYS} for row in history[first:]]
    states = {}
    for name in DATABASES:
        changes, previous = [], None
        for index in range(first, last + 1):
            now = digest(context.get_database(DatabaseNamespace[name], sandbox_message_index=index).to_dicts())
            if now != previous:
                changes.append([index, now])
                previous = now
        states[name] = changes
    return {"first_user_index": first, "max_index": last, "messages": messages, "states": states,
            "evaluation": {"similarity": result.similarity, "milestone_similarity": result.milestone_similarity,
                           "minefield_similarity": result.minefield_similarity,
                           "milestone_mapping": {str(k): list(v) for k, v in result.milestone_mapping.items()},
                           "minefield_mapping": {str(k): list(v) for k, v in result.minefield_mapping.items()},
                           "turn_count": result.turn_count}}


def main(scenario_file: Path, out: Path, names: list[str]) -> None:
    import random

    from freezegun import freeze_time

    import tool_sandbox.common.tool_conversion  # noqa: F401
    import tool_sandbox.scenarios
    from tool_sandbox.common.tool_discovery import ToolBackend

    from gym.episodes.toolsandbox.gold import plays

    document = json.loads(gzip.decompress(scenario_file.read_bytes()))
    _patch_ids()
    expected = {}
    with freeze_time(FROZEN_NOW):
        random.seed(SEED)
        scenarios = tool_sandbox.scenarios.named_scenarios(preferred_tool_backend=ToolBackend.DEFAULT)
        for name in names or sorted(n for n, s in document["scenarios"].items() if not s["rapid_api_tools"]):
            spec = document["scenarios"][name]
            world = document["worlds"][spec["world"]]
            expected[name] = {}
            for play_name, steps in plays(world["milestones"], spec["tool_names"]).items():
                try:
                    expected[name][play_name] = dict(play(scenarios[name], steps, spec["tool_names"]), steps=steps)
                except Exception as error:  # upstream itself fails on this play: recorded, not compared
                    expected[name][play_name] = {"steps": steps, "upstream_error": f"{type(error).__name__}: {error}"}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"commit": document["commit"], "plays": expected}, ensure_ascii=False, indent=0),
                   encoding="utf-8")
    tmp.replace(out)
    print(f"{sum(len(v) for v in expected.values())} plays over {len(expected)} scenarios", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
