"""BFCL v4 single-turn AST categories (ShishirPatil/gorilla, berkeley-function-call-leaderboard, Apache-2.0),
pinned to one commit.

Upstream files `bfcl_eval/data/BFCL_v4_<category>.json` (JSON lines: `id`, `question` = a list of turns,
each a list of {role, content} messages, here always one turn; `function` = the function docs) and
`bfcl_eval/data/possible_answer/BFCL_v4_<category>.json` (`id`, `ground_truth`: [{name: {param: [allowed
values]}}]; none for irrelevance and relevance). Prepared rows:

    {"question": <last user message>, "messages": [...], "functions": <docs as upstream wrote them>,
     "prompt_functions": <docs as the model reads them>, "tools": <chat-shape tools for native calls>,
     "ground_truth": [...] | null, "expected_answer": <the gold calls as text, or what is expected>,
     "metadata": {"id": <BFCL id>, "category": <category>}}

The checker reads `functions`; the model sees `tools` (native mode) or `prompt_functions` in BFCL's system
prompt (prompt mode). How the two differ from `functions` (the facts of bfcl_eval's model_handler/utils.py and
utils.py, written for gym):

* every function's description gains the language note (" Note that the provided function is in Python 3
  syntax." / Java 8 SDK / JavaScript); for Java and JavaScript every parameter becomes a `string` whose
  description says which type its text stands for (collection element types and dict entry schemas are
  moved into the description), because such values are passed as source text;
* native calls (`tools`): names with "." get "_" (OpenAI-style endpoints allow no dots), the parameters
  object is typed `object`, and BFCL's type names become JSON Schema ones (float -> number with
  `format: float` and " This is a float type value." in the description, dict -> object, tuple -> array,
  any -> string, unknown -> string), nested properties and item types included.
gym sends no `response` key inside a function (it is not part of a function schema; OpenAI's handler in
BFCL leaves it in).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from gym.data import GymError, ROLES
from gym.toolcalls import chat_tool, gold_calls, language_of, openai_name, render_calls

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
BASE = f"https://raw.githubusercontent.com/ShishirPatil/gorilla/{COMMIT}/berkeley-function-call-leaderboard/bfcl_eval/data"
CATEGORIES = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
              "irrelevance", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
              "live_irrelevance", "live_relevance")
WITHOUT_ANSWERS = ("irrelevance", "live_irrelevance", "live_relevance")

NOTES = {"python": " Note that the provided function is in Python 3 syntax.",
         "java": " Note that the provided function is in Java 8 SDK syntax.",
         "javascript": " Note that the provided function is in JavaScript syntax."}
LANGUAGE_NAMES = {"java": "Java", "javascript": "JavaScript"}
TO_JSON_SCHEMA = {"integer": "integer", "number": "number", "float": "number", "string": "string",
                  "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array", "dict": "object",
                  "object": "object", "tuple": "array", "any": "string", "byte": "integer", "short": "integer",
                  "long": "integer", "double": "number", "char": "string", "ArrayList": "array", "Array": "array",
                  "HashMap": "object", "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
                  "String": "string", "Bigint": "integer"}


def with_language_notes(functions: list[dict], language: str) -> list[dict]:
    """The docs the model reads (both modes): the language note, and Java/JS parameters as strings."""
    out = copy.deepcopy(functions)
    for function in out:
        function["description"] = function.get("description", "") + NOTES[language]
        if language in LANGUAGE_NAMES:
            for spec in function.get("parameters", {}).get("properties", {}).values():
                _as_source_text(spec, language)
    return out


def _as_source_text(spec: dict, language: str) -> None:
    kind, name = spec.get("type"), LANGUAGE_NAMES[language]
    spec["description"] = spec.get("description", "") + (
        f" This parameter can be of any type of {name} object in string representation." if kind == "any"
        else f" This is {name} {kind} type parameter in string representation.")
    if kind in (("ArrayList", "Array") if language == "java" else ("array",)):
        spec["description"] += (f" The list elements are of type {spec.get('items', {}).get('type')}; they are not "
                                "in string representation.")
        spec.pop("items", None)
    if language == "javascript" and kind == "dict" and "properties" in spec:
        spec["description"] += (" The dictionary entries have the following schema; they are not in string "
                                 f"representation. {json.dumps(spec.pop('properties'))}")
    spec["type"] = "string"


def native_tools(functions: list[dict]) -> list[dict]:
    """Chat-shape tools from docs that already carry the language notes."""
    tools = []
    for function in copy.deepcopy(functions):
        function.pop("response", None)
        function["name"] = openai_name(function["name"])
        parameters = function.setdefault("parameters", {})
        parameters["type"] = "object"
        parameters["properties"] = _json_schema_properties(parameters.get("properties", {}))
        tools.append(chat_tool(function))
    return tools


def _json_schema_properties(properties: dict[str, Any]) -> dict[str, Any]:
    for spec in properties.values():
        kind = spec.get("type")
        if kind == "float":
            spec["format"] = "float"
            spec["description"] = spec.get("description", "") + " This is a float type value."
        spec["type"] = TO_JSON_SCHEMA.get(kind, "string") if kind is not None else "string"
        if spec["type"] in ("array", "object"):
            if "properties" in spec:
                spec["properties"] = _json_schema_properties(spec["properties"])
            elif "items" in spec:
                items = spec["items"]
                items["type"] = TO_JSON_SCHEMA.get(items.get("type"), "string")
                if items["type"] == "array" and "items" in items:
                    items["items"]["type"] = TO_JSON_SCHEMA.get(items["items"].get("type"), "string")
                elif items["type"] == "object" and "properties" in items:
                    items["properties"] = _json_schema_properties(items["properties"])
    return properties


def convert(item: dict[str, Any], truth: list | None, category: str) -> tuple[dict | None, str | None]:
    turns = item.get("question")
    if not isinstance(turns, list) or len(turns) != 1 or not isinstance(turns[0], list) or not turns[0]:
        return None, "'question' must hold exactly one turn of messages"
    messages = turns[0]
    if not all(isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str) for m in messages) \
            or messages[-1]["role"] != "user":
        return None, "the turn must be {role, content} messages ending with a user message"
    functions = item.get("function")
    if not isinstance(functions, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                                  for f in functions):
        return None, "'function' must be a list of function docs with names"
    language = language_of(category)
    if category in WITHOUT_ANSWERS:
        expected = "no function call" if "irrelevance" in category else "any function call"
    elif not isinstance(truth, list) or not truth:
        return None, "no ground truth"
    else:
        expected = render_calls(gold_calls(functions, truth, language, native=False), "python_list")
    shown = with_language_notes(functions, language)
    return {"question": messages[-1]["content"], "messages": [{"role": m["role"], "content": m["content"]}
                                                               for m in messages],
            "functions": functions, "prompt_functions": shown, "tools": native_tools(shown),
            "ground_truth": truth, "expected_answer": expected,
            "metadata": {"id": item.get("id"), "category": category}}, None


def read_category(ctx: PrepareContext, category: str) -> list[dict]:
    name = f"BFCL_v4_{category}.json"
    source = ctx.fetch(f"{BASE}/{name}")
    items = [item for _, item in ctx.iter_jsonl(source)]
    answers: dict[str, list] = {}
    if category not in WITHOUT_ANSWERS:
        answers = {entry.get("id"): entry.get("ground_truth")
                   for _, entry in ctx.iter_jsonl(ctx.fetch(f"{BASE}/possible_answer/{name}"))}
    return ctx.convert_rows(source, items, lambda item, _: convert(item, answers.get(item.get("id")), category),
                            id_field="id")


def chosen_categories(categories: str | Iterable[str], known: Iterable[str], benchmark: str = "bfcl") -> list[str]:
    """prepare_args.categories as a list, each one checked against `known`."""
    categories, known = ([categories] if isinstance(categories, str) else list(categories)), list(known)
    unknown = [c for c in categories if c not in known]
    if unknown or not categories:
        raise GymError(f"{benchmark}: unknown category {unknown[0] if unknown else '(none given)'}; "
                       f"categories: {', '.join(known)}")
    return categories


def prepare(ctx: PrepareContext, categories: Iterable[str] = CATEGORIES) -> Path:
    categories = chosen_categories(categories, CATEGORIES)
    rows = [row for category in categories for row in read_category(ctx, category)]
    return ctx.write_rows(rows)
