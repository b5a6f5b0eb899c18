"""A gold-ish play read off a scenario's milestones (ToolSandbox ships no gold trajectories).

Milestones describe what must be seen, not how: a SANDBOX target with a tool trace names a call and its
arguments; a database target (a setting's value, a contact, message or reminder added, changed or
removed) implies the one tool that makes it; an agent-to-user target gives what the agent should say.
Walking the milestones in a topological order yields calls and the sentences to say. Calls whose
arguments come from an earlier call's result (tool_trace_dependant milestones) are given with the
target's own, incomplete arguments, and a state reached by several calls is not derived, so the play
is gold-ish: it scores what it scores (docs/benchmarks/toolsandbox.md has the figures).
"""

from __future__ import annotations

import json

from gym.episodes.toolsandbox.world import AGENT, USER

_SETTERS = {"cellular": "set_cellular_service_status", "wifi": "set_wifi_status",
            "location_service": "set_location_service_status", "low_battery_mode": "set_low_battery_mode_status"}
_ADDERS = {"CONTACT": ("add_contact", ["name", "phone_number", "relationship", "is_self"]),
           "REMINDER": ("add_reminder", ["content", "reminder_timestamp", "latitude", "longitude"]),
           "MESSAGING": ("send_message_with_phone_number", [("recipient_phone_number", "phone_number"), "content"])}


def topological(milestones: dict) -> list[int]:
    nodes = list(range(len(milestones["nodes"])))
    edges = [tuple(e) for e in milestones["edges"]]
    order, done = [], set()
    while len(order) < len(nodes):
        ready = [n for n in nodes if n not in done and all(a in done for a, b in edges if b == n)]
        if not ready:
            break
        order.append(ready[0])
        done.add(ready[0])
    return order


def _database_call(constraint: dict) -> tuple[str, dict] | None:
    name, rows = constraint["similarity"]["name"], (constraint.get("target") or {}).get("rows") or []
    if len(rows) != 1:
        return None
    row, database = rows[0], constraint["database"]
    if database == "SETTING" and name == "snapshot_similarity" and len(row) == 1:
        column, value = next(iter(row.items()))
        return (_SETTERS[column], {"on": bool(value)}) if column in _SETTERS else None
    if name == "addition_similarity" and database in _ADDERS:
        tool, columns = _ADDERS[database]
        arguments = {}
        for column in columns:
            source, target = column if isinstance(column, tuple) else (column, column)
            if row.get(source) is not None:
                arguments[target] = row[source]
        return tool, arguments
    if name == "removal_similarity" and database in ("CONTACT", "REMINDER"):
        key = "person_id" if database == "CONTACT" else "reminder_id"
        if row.get(key):
            return ("remove_contact" if database == "CONTACT" else "remove_reminder"), {key: row[key]}
    if name == "update_similarity" and database == "CONTACT" and row.get("person_id"):
        return "modify_contact", dict(row)
    return None


def _trace_call(row: dict) -> tuple[str, dict] | None:
    raw = row.get("tool_trace")
    if not raw:
        return None
    trace = json.loads(raw)
    trace = trace[0] if isinstance(trace, list) else trace
    return trace["tool_name"], dict(trace.get("arguments") or {})


def gold_play(milestones: dict, tool_names: dict[str, str]) -> dict:
    """{"calls": [{name (agent-facing), arguments}], "say": [texts]} for the scenario's milestones."""
    facing = {execution: agent for agent, execution in tool_names.items()}
    calls: list[dict] = []
    say: list[str] = []
    for node in topological(milestones):
        for constraint in milestones["nodes"][node]["constraints"]:
            if constraint["similarity"]["name"] == "guardrail_similarity":
                continue
            rows = (constraint.get("target") or {}).get("rows") or []
            if constraint["database"] == "SANDBOX" and rows:
                row = rows[0]
                if row.get("sender") == AGENT and row.get("recipient") == USER and row.get("content"):
                    say.append(str(row["content"]))
                    continue
                found = _trace_call(row)
            else:
                found = _database_call(constraint)
            if found and found[0] in facing:
                call = {"name": facing[found[0]], "arguments": found[1]}
                if call not in calls:
                    calls.append(call)
    return {"calls": calls, "say": say}


def _mutated(arguments: dict) -> dict:
    """The first string or number argument changed (a wrong call for the parity plays)."""
    out = dict(arguments)
    for key, value in out.items():
        if isinstance(value, bool):
            out[key] = not value
            return out
        if isinstance(value, str):
            out[key] = value + " (changed)"
            return out
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value + 3600
            return out
    return out


def minefield_calls(minefields: dict, tool_names: dict[str, str]) -> list[dict]:
    """Calls a minefield forbids: its traced calls, and a call of each tool whose name the agent's code
    must not contain (insufficient-information scenarios forbid a tool that way), with no arguments."""
    facing = {execution: agent for agent, execution in tool_names.items()}
    calls = gold_play(minefields, tool_names)["calls"]
    for node in minefields["nodes"]:
        for constraint in node["constraints"]:
            for row in (constraint.get("target") or {}).get("rows") or []:
                named = row.get("content")
                if row.get("recipient") == "EXECUTION_ENVIRONMENT" and named in facing and not row.get("tool_trace"):
                    calls.append({"name": facing[named], "arguments": {}})
    return calls


def plays(milestones: dict, tool_names: dict[str, str], minefields: dict | None = None) -> dict[str, list[dict]]:
    """Scripted plays for the parity fixtures: the gold-ish play (calls one per message, then one message
    saying everything, as gym's reference agent does), perturbations of it, and (given the minefields)
    the calls a minefield forbids. A step is
    {"agent": [calls]} | {"agent": text} | {"user": text} | {"user_end": true}."""
    gold = gold_play(milestones, tool_names)
    closing = {"agent": " ".join(gold["say"]) or "Done."}
    end = {"user_end": True}

    def numbered(calls: list[dict], prefix: str) -> list[dict]:
        return [dict(call, id=f"call_{prefix}{n}") for n, call in enumerate(calls)]

    calls = numbered(gold["calls"], "g")
    out = {"gold": [{"agent": [c]} for c in calls] + [closing, end],
           "silent": [closing, end],
           "reversed": [{"agent": [c]} for c in reversed(calls)] + [closing, end]}
    if len(calls) > 1:
        out["parallel"] = [{"agent": calls}, closing, end]
    if calls:
        wrong = [dict(calls[0], arguments=_mutated(calls[0]["arguments"]))] + calls[1:]
        out["mutated"] = [{"agent": [c]} for c in wrong] + [{"user": "Are you sure?"}, closing, end]
    forbidden = numbered(minefield_calls(minefields, tool_names), "m") if minefields and minefields["nodes"] else []
    if forbidden:
        out["minefield"] = [{"agent": [c]} for c in forbidden] + [closing, end]
    return out


def chat(opening: list[dict], steps: list[dict]) -> list[dict]:
    """A play's steps as the chat trajectory gym's episode loop writes (tool answers left empty: the
    scorer runs the calls again); the user's end is its stop message (end_conversation on replay)."""
    out = list(opening)
    for step in steps:
        if isinstance(step.get("agent"), list):
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in step["agent"]]})
            out += [{"role": "tool", "tool_call_id": c["id"], "content": ""} for c in step["agent"]]
        elif "agent" in step:
            out.append({"role": "assistant", "content": step["agent"]})
        elif "user" in step:
            out.append({"role": "user", "content": step["user"]})
        else:
            out.append({"role": "user", "content": "###STOP###"})
    return out
