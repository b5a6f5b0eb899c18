"""Expected values for gym's ToolSandbox parity tests, from upstream's own execution environment and scorer.

For each scenario asked for, the scripted plays of gym.episodes.toolsandbox.gold.plays (the gold-ish play
and its perturbations: silent, reversed, parallel, mutated) are played through upstream's
ExecutionEnvironment (its console runs the tool calls) on upstream's own scenario objects, then scored by
upstream's Evaluation. Written per play: the messages from the first user message on (contents, the
exceptions and tool traces of the answers), a digest of every database's state at every message index,
and the evaluation result (similarity, milestone and minefield mappings, turn count).

Upstream draws ids with uuid4; here they come from gym's per-world sequence (World.new_id), kept on the
execution context so the copies made for parallel calls count alike. Run as tools/toolsandbox_scenarios.py:

    PYTHONPATH=/tmp/ts_up:. TZ=UTC /tmp/ts_venv/bin/python tools/toolsandbox_expected.py \
        benchmarks/toolsandbox/scenarios.json.gz OUT.json [names or @CATEGORY ...]

tests/fixtures/toolsandbox/expected.json.gz holds @NO_DISTRACTION_TOOLS and @TOOL_NAME_SCRAMBLED, the
minefield plays of `@NO_DISTRACTION_TOOLS+minefields @TOOL_NAME_SCRAMBLED+minefields`, and (`--similarities
OUT`) 300 random snapshot_similarity cases, merged.
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


def _code(call_id, name, arguments) -> str:
    """A tool call as upstream's agent role writes it for the console (message_conversion)."""
    return f"{call_id}_parameters = {arguments}\n{call_id}_response = {name}(**{call_id}_parameters)\nprint(repr({call_id}_response))"


def _played(scenario, steps: list[dict], tool_names: dict[str, str]):
    """The scenario's context after the steps, each written and answered as upstream's roles do."""
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
    for index in range(context.max_sandbox_message_index + 1):  # the console's imports, as Scenario.play
        if sandbox["recipient"][index] == RoleType.EXECUTION_ENVIRONMENT and sandbox["sender"][index] == RoleType.SYSTEM:
            environment.respond(ending_index=index)
    agent, user, console = RoleType.AGENT, RoleType.USER, RoleType.EXECUTION_ENVIRONMENT
    for step in steps:
        if isinstance(step.get("agent"), list):
            BaseRole.add_messages([Message(sender=agent, recipient=console, openai_tool_call_id=c["id"],
                                           content=_code(c["id"], tool_names[c["name"]], c["arguments"]),
                                           openai_function_name=c["name"]) for c in step["agent"]])
            environment.respond()
        elif "agent" in step:
            BaseRole.add_messages([Message(sender=agent, recipient=user, content=step["agent"])])
        elif "user" in step:
            BaseRole.add_messages([Message(sender=user, recipient=agent, content=step["user"])])
        else:
            BaseRole.add_messages([Message(sender=user, recipient=console, content=_code(None, "end_conversation", {}))])
            environment.respond()
    return get_current_context()


def _states(context, first: int, last: int) -> dict:
    """Per database, the indices at which its state changes, with a digest of the state from there on."""
    from tool_sandbox.common.execution_context import DatabaseNamespace

    states = {}
    for name in DATABASES:
        changes, previous = [], None
        for index in range(first, last + 1):
            now = digest(context.get_database(DatabaseNamespace[name], sandbox_message_index=index).to_dicts())
            if now != previous:
                changes.append([index, now])
                previous = now
        states[name] = changes
    return states


def _message(row: dict) -> dict:
    return {k: (str(v) if k in ("sender", "recipient") else [str(x) for x in v] if k == "visible_to" and v else v)
            for k, v in row.items() if k in MESSAGE_KEYS}


def play(scenario, steps: list[dict], tool_names: dict[str, str], keep_context: bool = False) -> dict:
    from tool_sandbox.common.execution_context import DatabaseNamespace

    context = _played(scenario, steps, tool_names)
    history = context.get_database(DatabaseNamespace.SANDBOX, get_all_history_snapshots=True,
                                   drop_sandbox_message_index=False).to_dicts()
    if keep_context:
        return {"messages": [{k: v for k, v in _message(row).items() if k != "visible_to"} for row in history],
                "context": context}
    result = scenario.evaluation.evaluate(execution_context=context, max_turn_count=scenario.max_messages)
    first, last = context.first_user_sandbox_message_index, context.max_sandbox_message_index
    return {"first_user_index": first, "max_index": last, "messages": [_message(row) for row in history[first:]],
            "states": _states(context, first, last),
            "evaluation": {"similarity": result.similarity, "milestone_similarity": result.milestone_similarity,
                           "minefield_similarity": result.minefield_similarity,
                           "milestone_mapping": {str(k): list(v) for k, v in result.milestone_mapping.items()},
                           "minefield_mapping": {str(k): list(v) for k, v in result.minefield_mapping.items()},
                           "turn_count": result.turn_count}}


CALLS_SCENARIO = "wifi_off"  # any scenario: every tool is importable in its console (the base world)
NOW = 1722859200.0  # FROZEN_NOW as a timestamp
CALLS = [  # one world, in order: every tool of the five modules, right and wrong
    ("get_current_timestamp", {}), ("get_wifi_status", {}), ("set_wifi_status", {"on": True}),
    ("set_wifi_status", {"on": "yes"}), ("set_cellular_service_status", {"on": False}),
    ("get_cellular_service_status", {}), ("set_low_battery_mode_status", {"on": True}),
    ("set_location_service_status", {"on": True}), ("get_location_service_status", {}),
    ("get_current_location", {}), ("set_low_battery_mode_status", {"on": False}),
    ("set_location_service_status", {"on": True}), ("get_current_location", {}),
    ("get_low_battery_mode_status", {}), ("search_contacts", {}), ("search_contacts", {"name": "Fredrik"}),
    ("search_contacts", {"relationship": "friend"}), ("search_contacts", {"phone_number": "12345"}),
    ("search_contacts", {"is_self": True}), ("search_contacts", {"nmae": "x"}),
    ("add_contact", {"name": "Ada Lovelace", "phone_number": "+447700900123", "relationship": "colleague"}),
    ("add_contact", {"name": "Ada", "phone_number": 447700900123}), ("add_contact", {"name": "Ada"}),
    ("add_contact", {"name": "Me Again", "phone_number": "+11233344455", "is_self": True}),
    ("modify_contact", {"person_id": "nope", "name": "X"}), ("modify_contact", {"person_id": "nope"}),
    ("modify_contact", {"person_id": "9e137f06-916a-5310-8174-cf0b7e9f7054", "relationship": "bandmate"}),
    ("remove_contact", {"person_id": "a22e1984-6c6c-530c-8831-c3ea3b5138e7"}),
    ("remove_contact", {"person_id": "a22e1984-6c6c-530c-8831-c3ea3b5138e7"}),
    ("send_message_with_phone_number", {"phone_number": "+12453344098", "content": "Hi Fredrik"}),
    ("set_cellular_service_status", {"on": True}),
    ("send_message_with_phone_number", {"phone_number": "+12453344098", "content": "Hi Fredrik"}),
    ("send_message_with_phone_number", {"phone_number": "+19998887777", "content": "Who is this?"}),
    ("search_messages", {"content": "GPU"}), ("search_messages", {"sender_phone_number": "+10000000000"}),
    ("search_messages", {"creation_timestamp_lowerbound": NOW - 7200}),
    ("search_messages", {"creation_timestamp_lowerbound": 12.0}), ("search_messages", {}),
    ("add_reminder", {"content": "Call mom", "reminder_timestamp": NOW + 86400}),
    ("add_reminder", {"content": "Buy milk", "reminder_timestamp": NOW + 3600, "latitude": 37.33,
                      "longitude": -122.0}),
    ("add_reminder", {"content": "Bad", "reminder_timestamp": NOW, "latitude": 120.0}),
    ("search_reminder", {"content": "tickets"}), ("search_reminder", {"reminder_timestamp_lowerbound": NOW}),
    ("modify_reminder", {"reminder_id": "8f5b6fc6-1c25-5467-91ba-d4d1e17c7129", "content": "Find SF tickets"}),
    ("modify_reminder", {"reminder_id": "none"}),
    ("remove_reminder", {"reminder_id": "da2b856e-9390-511f-bcbe-7005f72cbf5e"}),
    ("remove_reminder", {"reminder_id": "da2b856e-9390-511f-bcbe-7005f72cbf5e"}),
    ("timestamp_to_datetime_info", {"timestamp": NOW}), ("timestamp_to_datetime_info", {"timestamp": 5}),
    ("datetime_info_to_timestamp", {"year": 2024, "month": 12, "day": 25, "hour": 9, "minute": 30, "second": 0}),
    ("shift_timestamp", {"timestamp": NOW, "weeks": 1, "hours": -3}),
    ("timestamp_diff", {"timestamp_0": NOW, "timestamp_1": NOW + 200000.5}),
    ("seconds_to_hours_minutes_seconds", {"seconds": 45296.0}),
    ("unit_conversion", {"amount": 100.0, "from_unit": "fahrenheit", "to_unit": "celsius"}),
    ("unit_conversion", {"amount": 3, "from_unit": "Miles", "to_unit": "Kilometers"}),
    ("unit_conversion", {"amount": 1.0, "from_unit": "meter", "to_unit": "second"}),
    ("calculate_lat_lon_distance", {"latitude_0": 37.334606, "longitude_0": -122.009102, "latitude_1": 40.7128,
                                    "longitude_1": -74.006}),
    ("set_wifi_status", {"on": True}), ("search_holiday", {"holiday_name": "Thanksgiving"}),
    ("search_holiday", {"holiday_name": "christmas", "year": 2025}),
    ("search_holiday", {"holiday_name": "Festivus"}), ("set_wifi_status", {"on": False}),
    ("search_holiday", {"holiday_name": "Thanksgiving"}),
]


def run_calls(scenario) -> list[dict]:
    """CALLS run one by one in a copy of the scenario's world, each as an agent message answered by the
    execution environment: the answer's content, exception and trace, and a digest of every database."""
    steps = [{"agent": [{"id": f"call_t{n}", "name": name, "arguments": arguments}]}
             for n, (name, arguments) in enumerate(CALLS)]
    names = {name: name for name, _ in CALLS}
    played = play(scenario, steps, names, keep_context=True)
    context = played.pop("context")
    from tool_sandbox.common.execution_context import DatabaseNamespace

    answers = [m for m in played["messages"] if m["sender"] == "EXECUTION_ENVIRONMENT"]
    states = {name: digest(context.get_database(DatabaseNamespace[name]).to_dicts()) for name in DATABASES}
    return {"calls": [[n, a] for n, a in CALLS], "answers": answers, "final_states": states}


def chosen(document: dict, names: list[str]) -> list[str]:
    """The scenarios asked for: names, or @<category> for every scenario without RapidAPI tools in that
    category (@NO_DISTRACTION_TOOLS: the 95 base scenarios; @TOOL_NAME_SCRAMBLED: their scrambled-name
    variants); a trailing "+minefields" keeps those with minefields only."""
    out = []
    for name in names or ["@NO_DISTRACTION_TOOLS"]:
        mined = name.endswith("+minefields")
        name = name.removesuffix("+minefields")
        if name.startswith("@"):
            out += sorted(n for n, s in document["scenarios"].items()
                          if name[1:] in s["categories"] and not s["rapid_api_tools"]
                          and (not mined or document["worlds"][s["world"]]["minefields"]["nodes"]))
        else:
            out.append(name)
    return out


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
        for name in chosen(document, names):
            print(name, file=sys.stderr, flush=True)
            spec = document["scenarios"][name]
            world = document["worlds"][spec["world"]]
            expected[name] = {}
            for play_name, steps in plays(world["milestones"], spec["tool_names"], world["minefields"]).items():
                try:
                    expected[name][play_name] = dict(play(scenarios[name], steps, spec["tool_names"]), steps=steps)
                except Exception as error:  # upstream itself fails on this play: recorded, not compared
                    expected[name][play_name] = {"steps": steps, "upstream_error": f"{type(error).__name__}: {error}"}
        tools = run_calls(scenarios[CALLS_SCENARIO])
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"commit": document["commit"], "tools": dict(tools, scenario=CALLS_SCENARIO),
                               "plays": expected}, ensure_ascii=False, indent=0),
                   encoding="utf-8")
    tmp.replace(out)
    print(f"{sum(len(v) for v in expected.values())} plays over {len(expected)} scenarios", file=sys.stderr)


WORDS = "the cat sat on a mat and then it ran off to find some more food for dinner tonight".split()


def similarity_cases(count: int = 300, seed: int = 5) -> list[dict]:
    """Random SANDBOX-like snapshots and targets (1-3 rows; exact-match, ROUGE-L, contains and always-one
    columns) scored by upstream's snapshot_similarity: its polars Float32 arithmetic, case by case."""
    import random

    import polars as pl
    from tool_sandbox.common import evaluation as ev

    measures = {"sender": ev.column_exact_match_similarity, "recipient": ev.column_exact_match_similarity,
                "content": ev.column_rouge_l_similarity, "openai_function_name": ev.column_one_similarity}
    draw = random.Random(seed)

    def sentence() -> str:
        return " ".join(draw.choice(WORDS) for _ in range(draw.randint(1, 8)))

    cases = []
    for _ in range(count):
        rows = draw.randint(1, 3)
        columns = draw.choice([["content"], ["sender", "content"], ["content", "sender", "recipient"],
                               ["sender", "openai_function_name", "content"], ["openai_function_name"]])
        contains = draw.random() < 0.2
        snapshot = [{"sender": draw.choice(["AGENT", "USER"]), "recipient": draw.choice(["USER", "AGENT"]),
                     "content": sentence(), "openai_function_name": "f"} for _ in range(rows)]
        target = [{c: sentence() if c == "content" else "f" if c == "openai_function_name" else
                   draw.choice(["AGENT", "USER"]) for c in columns} for _ in range(rows)]
        if contains:
            for row in target:
                if "content" in row:
                    row["content"] = draw.choice(WORDS)
        chosen = dict(measures, content=ev.column_contains_similarity) if contains else measures
        value = ev.snapshot_similarity(pl.DataFrame(snapshot), target_dataframe=pl.DataFrame(target),
                                       column_similarities=chosen)
        cases.append({"snapshot": snapshot, "target": target, "contains": contains, "similarity": value})
    return cases


if __name__ == "__main__":
    if sys.argv[1] == "--similarities":  # the random snapshot_similarity cases alone (merged into the fixture)
        Path(sys.argv[2]).write_text(json.dumps(similarity_cases()), encoding="utf-8")
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
