"""The reference server's answers to tool-calling tasks (rows with `functions`, e.g. BFCL).

A right answer is the row's gold calls (gym.toolcalls.gold); on an irrelevance row it is a sentence
saying no function fits, on a relevance row a call to the first function. A wrong answer breaks what
the row checks: a call with a parameter no function has, a call on an irrelevance row, a plain sentence
where a call was due. How the calls are written follows the request: native `tool_calls` when the
request carried `tools`, else the text format its system prompt asks for (BFCL's Python list, or
Hermes `<tool_call>` blocks when the prompt documents the tools inside <tools>).
"""

from __future__ import annotations

import json
from typing import Sequence

from gym.toolcalls import ToolCall, function_of, tool_names
from gym.toolcalls.gold import calls_as_text, gold_calls, language_of
from gym.toolcalls.specs import openai_name

NO_FIT = "None of the given functions fits this request, so I will not call any."


def is_tool_row(row: dict) -> bool:
    return isinstance(row.get("functions"), list) and isinstance(row.get("metadata"), dict) \
        and isinstance(row["metadata"].get("category"), str)


def offered_functions(row: dict | None, tools: Sequence[dict], prompt: str) -> tuple[bool, bool, int]:
    """How well a request matches this tool row's functions: (the very docs it sends or documents in its
    prompt, all its functions offered by name, how many), so among rows asking the same question (BFCL
    asks one question of different function sets) the best match wins."""
    if row is None:
        return False, False, 0
    offered = tool_names(tools)
    same_docs = (_canonical(tools) == _canonical(row.get("tools") or []) if tools
                 else json.dumps(row.get("prompt_functions"), indent=4) in prompt)
    found = [name in offered or openai_name(name) in offered or f'"{name}"' in prompt or f'"{openai_name(name)}"' in prompt
             for name in (f.get("name", "") for f in row.get("functions") or [])]
    return same_docs, all(found), sum(found)


def _canonical(tools: Sequence[dict]) -> list[str]:
    return sorted(json.dumps(function_of(tool), sort_keys=True) for tool in tools)


def text_format(prompt: str) -> str:
    return "hermes" if "<tools>" in prompt and "<tool_call>" in prompt else "python_list"


def underscored_names(row: dict, prompt: str, native: bool) -> bool:
    """Whether the request knows the functions by their sent names (dots replaced): native tools, or a
    prompt that documents them so (gym writes a row's `tools` into the prompt on completions)."""
    dotted = [f["name"] for f in row["functions"] if "." in f.get("name", "")]
    return native or bool(dotted) and not any(f'"{name}"' in prompt for name in dotted)


def tool_answer(row: dict, correct: bool, native: bool) -> list[ToolCall] | str:
    """The calls to send (a list) or the sentence to say instead (a str); `native`: name them as sent."""
    category = row["metadata"]["category"]
    functions = row["functions"]
    first = functions[0]["name"] if functions else "function"
    first = openai_name(first) if native else first
    if "irrelevance" in category:
        return NO_FIT if correct else [ToolCall(first, {})]
    if "relevance" in category:
        return [ToolCall(first, {})] if correct else NO_FIT
    calls = gold_calls(functions, row.get("ground_truth") or [], language_of(category), native)
    if correct or not calls:
        return calls
    broken = [ToolCall(call.name, dict(call.arguments or {}), call.raw_arguments, call.id) for call in calls]
    broken[0].arguments["unexpected_parameter"] = 1  # BFCL rejects a parameter outside the docs
    return broken


def as_text(calls: list[ToolCall], prompt: str, row: dict) -> str:
    return calls_as_text(calls, text_format(prompt), language_of(row["metadata"]["category"]))
