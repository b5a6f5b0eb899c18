"""Tool calls as upstream's execution environment runs them, and the SANDBOX rows they leave.

Upstream turns a call into Python code (`<id>_parameters = {...}`, `<id>_response = tool(**...)`,
`print(repr(...))`), runs it in a console and answers with what it printed: the result's repr, or the
last line of the traceback (`ExceptionType: message`). A traced call also leaves {tool_name, arguments,
result} on the answer. The calls of one agent message (parallel calls) are run in every order on copies
of the world; if any order fails, that order's answers and world are kept, else the requested order's.
"""

from __future__ import annotations

import inspect
import itertools
import json
import traceback
from typing import Any

from gym.episodes.toolsandbox.checks import NOT_GIVEN
from gym.episodes.toolsandbox.tools_device import CURRENT, DEVICE_TOOLS
from gym.episodes.toolsandbox.tools_utilities import UTILITY_TOOLS
from gym.episodes.toolsandbox.world import AGENT, EXECUTION_ENVIRONMENT, USER, DuplicateError, NoDataError, World

TOOLS = {**DEVICE_TOOLS, **UTILITY_TOOLS}
# gym's own exception types stand for polars' (upstream's tools raise these from polars)
EXCEPTION_NAMES = {NoDataError: "polars.exceptions.NoDataError", DuplicateError: "polars.exceptions.DuplicateError"}
MAX_PERMUTED_CALLS = 5  # more parallel calls than this run in the requested order only (5! = 120 runs)


def _exception_line(error: BaseException) -> str:
    name = EXCEPTION_NAMES.get(type(error))
    if name is not None:
        return f"{name}: {error}"
    return traceback.format_exception_only(type(error), error)[-1].strip().split("\n")[-1]


def python_code(call_id: str | None, name: str, arguments: Any) -> str:
    return (f"{call_id}_parameters = {arguments}\n{call_id}_response = {name}(**{call_id}_parameters)\n"
            f"print(repr({call_id}_response))")


def traced_arguments(tool: Any, arguments: dict) -> dict:
    """What upstream's trace records: every parameter in signature order, defaults filled in (its decorator
    passes them all on), the NOT_GIVEN ones left out."""
    bound = inspect.signature(tool).bind(**arguments)
    bound.apply_defaults()
    return {k: v for k, v in bound.arguments.items() if v is not NOT_GIVEN}


def execute(world: World, name: str | None, arguments: Any) -> tuple[str, str | None, str | None]:
    """One call on `world`: (printed content, exception line or None, trace JSON or None)."""
    tool = TOOLS.get(name) if name else None
    if tool is None or not isinstance(arguments, dict):
        problem = f"unknown tool {name!r}" if tool is None else "arguments are not a JSON object"
        line = f"Error: {problem}"
        return line, line, None
    token = CURRENT.set(world)
    try:
        traced = traced_arguments(tool, arguments)  # upstream's decorator binds first: its TypeError messages
        result = tool(**arguments)
    except Exception as error:  # a tool's failure is its answer, as upstream's console prints it
        line = _exception_line(error)
        return line, line, None
    finally:
        CURRENT.reset(token)
    trace = json.dumps({"tool_name": name, "arguments": traced, "result": result}, ensure_ascii=False)
    return "\n".join(repr(result).rstrip().split("\n")), None, trace


def _answer(world: World, call: dict) -> dict:
    content, exception, trace = execute(world, call["execution_name"], call["arguments"])
    return {"content": content, "tool_call_exception": exception, "tool_trace": None if trace is None else [trace],
            "openai_tool_call_id": call.get("id"), "openai_function_name": call.get("name")}


def agent_calls(world: World, calls: list[dict]) -> World:
    """Record one agent message's calls and their answers; returns the world the answers leave (a copy
    when the calls were run in several orders). A call: {id, name (agent-facing), execution_name, arguments}."""
    ask(world, calls)
    return answer(world, calls)


def ask(world: World, calls: list[dict]) -> None:
    """The agent's side: one SANDBOX row of console code per call."""
    for call in calls:
        world.add_message(sender=AGENT, recipient=EXECUTION_ENVIRONMENT,
                          content=python_code(call.get("id"), call["execution_name"] or call.get("name"), call["arguments"]),
                          openai_tool_call_id=call.get("id"), openai_function_name=call.get("name"))


def answer(world: World, calls: list[dict]) -> World:
    """The execution environment's side: run the calls (every order when several) and write the answers."""
    if len(calls) <= 1 or len(calls) > MAX_PERMUTED_CALLS:
        answers = [(_answer(world, call)) for call in calls]
        chosen = world
    else:
        chosen, answers = None, []
        for number, order in enumerate(itertools.permutations(calls)):
            trial = world.copy()
            replies = [_answer(trial, call) for call in order]
            if number == 0:
                chosen, answers = trial, replies
            if any(r["tool_call_exception"] is not None for r in replies):
                chosen, answers = trial, replies
                break
    for reply in answers:
        chosen.add_message(sender=EXECUTION_ENVIRONMENT, recipient=AGENT, **reply)
    return chosen


def user_call(world: World, call_id: str | None, name: str, arguments: Any, room: Any = None) -> str:
    """The user's tool call (end_conversation) and the execution environment's answer to it (unless
    `room()` says the conversation's message cap was reached in between)."""
    world.add_message(sender=USER, recipient=EXECUTION_ENVIRONMENT, content=python_code(call_id, name, arguments))
    if room is not None and not room():
        return ""
    reply = _answer(world, {"execution_name": name, "arguments": arguments})
    reply["openai_function_name"] = None
    world.add_message(sender=EXECUTION_ENVIRONMENT, recipient=USER, **reply)
    return reply["content"]
