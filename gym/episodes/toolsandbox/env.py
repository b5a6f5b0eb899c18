"""The ToolSandbox environment behind benchmark=toolsandbox (gym.episodes registry name `toolsandbox`).

A prepared benchmark is a JSONL of scenario rows plus the scenario file beside it (`env_file`, written by
tools/toolsandbox_scenarios.py from upstream's registry; format in docs/benchmarks/toolsandbox.md). An
episode starts from the scenario's messages: the agent gets upstream's system prompt and the user's first
message; the simulated user gets upstream's user prompt and few-shot examples (upstream's user view) and
the tool `end_conversation`, which ends the episode. Tools act on a World (gym.episodes.toolsandbox.world).

Scoring replays the trajectory on a fresh World as upstream's roles write it (agent calls as console code,
answers with tool traces, parallel calls run in every order), then matches the milestones and minefields
(gym.episodes.toolsandbox.matcher): reward = milestone similarity in [0, 1], 0 if a minefield matched.
Scenarios that offer a RapidAPI search tool (a paid web API) are not sent: TaskNotSent, counted by reason.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym.core.errors import GymError, TaskNotSent
from gym.core.io import cached_parse
from gym.episodes.base import Environment, Score, ToolOutput
from gym.episodes.messages import is_stop
from gym.episodes.toolsandbox.calls import agent_calls, answer, ask, execute, user_call
from gym.episodes.toolsandbox.matcher import evaluate
from gym.episodes.toolsandbox.world import AGENT, SYSTEM, USER, World

# Endings that are graded: upstream scores every conversation that stopped (its message cap included).
GRADED = ("user_stop", "agent_stop", "max_steps", "timeout")
END_TOOL = "end_conversation"
TOOL_MODULES = ("phonenumbers", "pint", "geopy", "holidays")  # the toolsandbox extra

def load_scenarios(path: Path) -> dict:
    if not path.is_file():
        raise GymError(f"{path} is missing: prepare the benchmark again (python -m gym task=prepare ...)")
    return cached_parse(path, _read_scenarios)


def _read_scenarios(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def _schema(tool: dict) -> dict:
    function = tool.get("function", tool)
    return {"name": function["name"], "description": function.get("description", ""),
            "parameters": function.get("parameters") or {"type": "object", "properties": {}}}


@dataclass
class Scenario:
    name: str
    spec: dict
    world: dict
    tools: list[dict]
    user_tools: list[dict]
    now: float


@dataclass
class SandboxState:
    scenario: Scenario
    world: World
    ended: bool = False
    offered: set = field(default_factory=set)


class ToolSandboxEnvironment(Environment):
    name = "toolsandbox"
    supports_solo = False
    errors_end_episode = False  # upstream has no error limit

    def __init__(self, data_path: str | Path, **options: Any):
        self.data_dir = Path(data_path).parent
        missing = [name for name in TOOL_MODULES if importlib.util.find_spec(name) is None]
        if missing:
            raise GymError(f"toolsandbox: its tools need {', '.join(missing)}: "
                           "pip install 'gym-eval-harness[toolsandbox]'")

    def scenario(self, row: dict) -> Scenario:
        if not row.get("env_file") or not row.get("scenario"):
            raise GymError("a toolsandbox row needs 'scenario' and 'env_file' (prepare writes both)")
        document = load_scenarios(self.data_dir / row["env_file"])
        spec = document["scenarios"].get(row["scenario"])
        if spec is None:
            raise GymError(f"scenario {row['scenario']!r} is not in {row['env_file']}: prepare again")
        if row.get("not_sent"):  # prepare's verdict: a scenario gym cannot pose (RapidAPI)
            raise TaskNotSent(row["not_sent"])
        tools = [_schema(document["tools"][i]) for i in spec["tools"]]
        user_tools = [_schema(document["tools"][i]) for i in spec["user_tools"]]
        return Scenario(row["scenario"], spec, document["worlds"][spec["world"]], tools, user_tools,
                        float(document["now"]))

    def _world(self, scenario: Scenario) -> World:
        return World.start(scenario.now, scenario.world["messages"], scenario.world["databases"])

    def reset(self, row: dict, seed: int | None = None, solo: bool = False) -> SandboxState:
        scenario = self.scenario(row)
        return SandboxState(scenario, self._world(scenario), offered={t["name"] for t in scenario.tools})

    def tools(self, state: SandboxState, requestor: str = "assistant") -> list[dict]:
        return list(state.scenario.tools if requestor == "assistant" else state.scenario.user_tools)

    def call(self, state: SandboxState, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        if requestor == "user":
            if name != END_TOOL:
                return ToolOutput(f"Error: unknown tool {name!r}", error=True)
            state.ended = True
            return ToolOutput("None")
        if name not in state.offered:
            return ToolOutput(f"Error: unknown tool {name!r}", error=True)
        content, exception, _ = execute(state.world, state.scenario.spec["tool_names"][name], arguments)
        return ToolOutput(content, error=exception is not None)

    def call_batch(self, state: SandboxState, jobs: list[tuple[dict, Any]],
                   requestor: str = "assistant") -> list[tuple[dict, ToolOutput]]:
        """One agent message's calls as upstream runs them: in every order on copies of the world; the
        order that failed, if any, gives the answers (in its order) and the world, else the order asked."""
        if requestor != "assistant":
            return [(call, self.call(state, call["function"]["name"], arguments, requestor)) for call, arguments in jobs]
        names = state.scenario.spec["tool_names"]
        planned = [{"id": call.get("id"), "name": call["function"]["name"], "arguments": arguments,
                    "execution_name": names.get(call["function"]["name"])} for call, arguments in jobs]
        by_id = {call.get("id"): call for call, _ in jobs}
        start = len(state.world.messages)
        state.world = agent_calls(state.world, planned)
        answers = [m for m in state.world.messages[start:] if m["sender"] == "EXECUTION_ENVIRONMENT"]
        return [(by_id[m["openai_tool_call_id"]], ToolOutput(m["content"], error=m["tool_call_exception"] is not None))
                for m in answers]

    def over_cap(self, state: SandboxState, trajectory: list[dict]) -> bool:
        """Upstream's max_messages new messages played (an agent call and its answer are two each): the
        loop ends the episode as max_steps, as upstream stops its conversation there."""
        played = 0
        for m in trajectory[len(self._opening(state.scenario)):]:
            calls = m.get("tool_calls") or []
            if m.get("role") in ("assistant", "user") and calls:
                played += 2 * len(calls)
            elif m.get("role") == "user" and is_stop(m.get("content")):
                played += 2
            elif m.get("role") in ("assistant", "user"):
                played += 1
        return played >= int(state.scenario.spec.get("max_messages") or 30)

    def conversation_over(self, state: SandboxState) -> bool:
        """The user called end_conversation (the loop ends the episode as user_stop)."""
        return state.ended

    def initial_messages(self, row: dict) -> list[dict]:
        scenario = self.scenario(row)
        out = []
        for m in self._opening(scenario):
            role = "system" if m["sender"] == SYSTEM else "user" if m["sender"] == USER else "assistant"
            out.append({"role": role, "content": m["content"]})
        return out

    @staticmethod
    def _opening(scenario: Scenario) -> list[dict]:
        """The scenario's messages the agent is shown (not few-shot examples, not code for the console)."""
        return [m for m in scenario.world["messages"] if m.get("visible_to") is None and AGENT in
                (m["sender"], m["recipient"]) and "EXECUTION_ENVIRONMENT" not in (m["sender"], m["recipient"])]

    def user_view(self, trajectory: list[dict], row: dict) -> list[dict]:
        """Upstream's user simulator view: its prompts and few-shot examples, then the dialogue with roles
        flipped (the agent's text as `user`, the user's own as `assistant`); tool traffic left out."""
        scenario = self.scenario(row)
        view = []
        for m in scenario.world["messages"]:
            shown = m.get("visible_to") or [m["sender"], m["recipient"]]
            if USER not in shown or "EXECUTION_ENVIRONMENT" in (m["sender"], m["recipient"]):
                continue
            if m.get("visible_to") is None and m["sender"] == USER:
                continue  # the opening user message comes with the trajectory below
            role = "system" if m["sender"] == SYSTEM else "user" if m["sender"] == AGENT else "assistant"
            view.append({"role": role, "content": m["content"]})
        for m in trajectory[len(self._opening(scenario)) - 1:]:
            if m.get("role") == "assistant" and not m.get("tool_calls") and m.get("content"):
                view.append({"role": "user", "content": m["content"]})
            elif m.get("role") == "user" and not m.get("tool_calls") and m.get("content"):
                view.append({"role": "assistant", "content": m["content"]})
        return view

    def replay(self, row: dict, trajectory: list[dict], names: dict[str, str] | None = None,
               capped: bool = True) -> World:
        """The World upstream's roles would have written for this trajectory (`names`: agent-facing to
        execution tool names, the scenario's own by default; `capped`: stop at upstream's message cap)."""
        scenario = self.scenario(row)
        world = self._world(scenario)
        names = scenario.spec["tool_names"] if names is None else names
        cap = world.max_index + int(scenario.spec.get("max_messages") or 30) if capped else float("inf")

        def room() -> bool:
            """Upstream plays on while the conversation is active and under max_messages new messages;
            what the trajectory holds beyond that, upstream would not have seen."""
            return bool(world.messages[-1]["conversation_active"]) and world.max_index < cap

        for m in trajectory[len(self._opening(scenario)):]:
            if not room():
                break
            role, calls = m.get("role"), m.get("tool_calls") or []
            if role == "assistant" and calls:
                planned = [_call(c, names) for c in calls]
                ask(world, planned)
                if room():
                    world = answer(world, planned)
            elif role == "assistant":
                world.add_message(sender=AGENT, recipient=USER, content=m.get("content") or "")
            elif role == "user" and (calls or is_stop(m.get("content"))):
                for c in calls or [{"id": None, "function": {"name": END_TOOL, "arguments": "{}"}}]:
                    call = _call(c, {END_TOOL: END_TOOL})
                    if room():
                        user_call(world, c.get("id"), call["execution_name"], call["arguments"], room)
            elif role == "user":
                world.add_message(sender=USER, recipient=AGENT, content=m.get("content") or "")
        return world

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        if termination not in GRADED:
            return Score(0.0, {"similarity": 0.0, "graded": False, "termination": termination})
        scenario = self.scenario(row)
        result = evaluate(self.replay(row, trajectory), scenario.world["milestones"], scenario.world["minefields"])
        return Score(float(result["similarity"]), result)


def _call(call: dict, names: dict[str, str]) -> dict:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = None
    name = str(function.get("name") or "")
    # a tool the scenario does not offer runs as no tool (an error answer; upstream's agent role raises)
    return {"id": call.get("id"), "name": name, "execution_name": names.get(name), "arguments": arguments}
