"""A row's ground truth as the calls a perfect model would make (the reference server answers with them).

BFCL's ground truth lists, per call and parameter, the allowed values ("" = the parameter may be left
out). The gold call gives a parameter its first allowed value that is not "", and leaves it out when ""
is allowed and there is no other value or the function's docs do not know the parameter (or when nothing
at all is allowed). Python rows pass values as they are; Java and JavaScript rows pass every value as source text
of its declared type (`5L`, `3.0f`, `new int[]{1, 2}`, `new ArrayList<>(Arrays.asList("a"))`,
`new HashMap<String, Object>() {{ put("k", 1); }}`, `[1, "a"]`, `{"k": 1}`), which is what the checker
converts back. Native calls use the names as sent (dots replaced by underscores).
"""

from __future__ import annotations

import json
from typing import Any

from gym.toolcalls.calls import ToolCall
from gym.toolcalls.codecs import render_calls
from gym.toolcalls.python_calls import render_python_calls
from gym.toolcalls.specs import openai_name


def language_of(category: str) -> str:
    """The language of a BFCL category's values: java, javascript or python."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def first_choice(allowed: list, documented: bool = True) -> tuple[bool, Any]:
    """(present, value): the first allowed value that is not "", or (False, None) when it is left out."""
    values = [option for option in allowed if option != ""]
    if not values or ("" in allowed and not documented):
        return False, None
    return True, values[0]


def gold_calls(functions: list[dict], ground_truth: list[dict], language: str, native: bool) -> list[ToolCall]:
    """The calls a perfect model makes for a BFCL row's ground truth (module docstring: which allowed value each
    parameter gets)."""
    docs = {function["name"]: function for function in functions}
    calls = []
    for expected in ground_truth:
        for name, params in expected.items():
            properties = docs.get(name, {}).get("parameters", {}).get("properties", {})
            arguments = {}
            for param, allowed in params.items():
                present, value = first_choice(allowed, param in properties)
                if present:
                    arguments[param] = _as_sent(_plain(value, properties.get(param, {})), properties.get(param, {}),
                                                language)
            calls.append(ToolCall(openai_name(name) if native else name, arguments))
    return calls


def _plain(value: Any, spec: dict) -> Any:
    """An allowed value as a model writes it: a dict's entries (and a list of dicts' entries) are themselves
    lists of allowed values."""
    if isinstance(value, dict) and spec.get("type") in ("dict", "HashMap", "object"):
        return _pick(value)
    if isinstance(value, list) and spec.get("items", {}).get("type") == "dict":
        return [_pick(item) if isinstance(item, dict) else item for item in value]
    return value


def _pick(entries: dict) -> dict:
    out = {}
    for key, allowed in entries.items():
        present, value = first_choice(allowed) if isinstance(allowed, list) else (True, allowed)
        if present:
            out[key] = value
    return out


def _as_sent(value: Any, spec: dict, language: str) -> Any:
    if language == "python":
        return value
    declared = spec.get("type", "any")
    item = spec.get("items", {}).get("type")
    return java_text(value, declared, item) if language == "java" else js_text(value, declared)


def java_text(value: Any, declared: str, item: str | None = None) -> str:
    if isinstance(value, str):
        return value  # text as it is (a String, an `any`, or a variable name standing for an object)
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "long":
        return f"{value}L"
    if declared == "float":
        return f"{value}f"
    if declared == "Array" and isinstance(value, list):
        kind = {"integer": "int", "String": "String", "long": "long", "double": "double", "float": "float",
                "boolean": "boolean", "char": "char"}.get(item or "", "Object")
        return f"new {kind}[]{{{', '.join(_java_element(v, item, quote=False) for v in value)}}}"
    if declared == "ArrayList" and isinstance(value, list):
        return f"new ArrayList<>(Arrays.asList({', '.join(_java_element(v, item, quote=True) for v in value)}))"
    if declared == "HashMap" and isinstance(value, dict):
        puts = " ".join(f'put("{k}", {_java_element(v, None, quote=True)});' for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return str(value)


def _java_element(value: Any, item: str | None, quote: bool) -> str:
    if isinstance(value, str):
        return f'"{value}"' if quote or item is None else value
    return java_text(value, item or "any")


def js_text(value: Any, declared: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "Bigint":
        return f"{value}n"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return repr(value) if isinstance(value, float) else str(value)


def calls_as_text(calls: list[ToolCall], fmt: str, language: str) -> str:
    """Calls written as a model answers in prompt mode: Java and JavaScript rows in BFCL's format write each
    value as its source text (quoted as a string when it holds no double quote), Python rows and Hermes
    blocks as gym.toolcalls.codecs renders them."""
    if fmt != "python_list" or language == "python":
        return render_calls(calls, fmt)
    return render_python_calls(calls, _source)


def _source(value: Any) -> str:
    text = str(value)
    return text if '"' in text else f'"{text}"'
