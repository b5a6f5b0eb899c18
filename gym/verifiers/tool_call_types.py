"""Java and JavaScript argument values as BFCL's AST checker reads them.

For Java and JavaScript rows a model passes every argument as a string of source text (`"5"`, `"3.0f"`,
`"new ArrayList<>(Arrays.asList(1, 2))"`, `"[1, 2]"`, `"{'a': 1}"`); the checker converts that text to a
Python value by the parameter's declared type and then checks it as it checks Python values. Text that
does not fit the type is kept as the string itself (so it fails the type check unless the expected answer
is itself a string, i.e. a variable name). These rules follow the upstream converters' documented
behaviour and their own test cases (tests/verifiers/test_tool_call_verifier.py pins them), quirks included:
a Java `char` is never converted (its pattern cannot match), a JavaScript array splits its elements at
every comma, a Java collection of another kind (Set, Queue, Stack, Hashtable) cannot be checked.
"""

from __future__ import annotations

import re
from typing import Any, Callable

JAVA_TYPES: dict[str, type] = {"byte": int, "short": int, "integer": int, "float": float, "double": float, "long": int,
                               "boolean": bool, "char": str, "Array": list, "ArrayList": list, "Set": set,
                               "HashMap": dict, "Hashtable": dict, "Queue": list, "Stack": list, "String": str,
                               "any": str}
JS_TYPES: dict[str, type] = {"String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool,
                             "dict": dict, "array": list, "any": str}
COLLECTIONS = ("Array", "ArrayList", "array")  # types whose element type is converted too


class Unconvertible(Exception):
    """A declared type the upstream converter has no rule for: the checker cannot grade the row."""


_INT = re.compile(r"-?\d+$")
_JAVA_FLOAT = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"-?\d+[lL]$")


def java_value(text: str, declared: str, item_type: str | None = None) -> Any:
    if declared not in JAVA_TYPES:
        raise Unconvertible(f"Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(re.sub(r"[fF]$", "", text)) if _JAVA_FLOAT.match(text) else text
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if declared == "long":
        return int(re.sub(r"[lL]$", "", text)) if _JAVA_LONG.match(text) else text
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "ArrayList":
        return _java_arraylist(text, item_type)
    if declared == "Array":
        return _java_array(text, item_type)
    if declared == "HashMap":
        return _java_hashmap(text)
    if declared in ("Set", "Hashtable", "Queue", "Stack"):
        raise Unconvertible(f"Java type {declared!r}")
    return str(text)  # String, any, and char (whose upstream pattern never matches)


def _java_element(text: str, item_type: str | None) -> Any:
    if item_type in ("char", "String"):
        return text[1:-1]  # drop the quotes
    return java_value(text, item_type) if item_type else java_literal(text)


def _java_arraylist(text: str, item_type: str | None) -> Any:
    found = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if found:
        return [_java_element(part.strip(), item_type) for part in found.group(1).split(",")]
    found = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.S)
    if found:
        return [_java_element(added.strip(), item_type) for added in re.findall(r"add\((.+?)\)", found.group(1))]
    return [] if re.search(r"new\s+ArrayList<\w*>\(\)", text) else text


def _java_array(text: str, item_type: str | None) -> Any:
    found = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not found:
        return text
    convert: Callable[[str], Any] = (lambda part: java_value(part, item_type)) if item_type else java_literal
    return [convert(part.strip()) for part in found.group(1).split(",") if part.strip()]


def _java_hashmap(text: str) -> Any:
    found = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.S)
    if found:
        return {key: java_literal(value.strip()) for key, value in re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", found.group(1))}
    return {} if re.search(r"new\s+HashMap<.*?>\s*\(\)", text) else text


def java_literal(text: str) -> Any:
    """A Java literal whose type is not declared: boolean, quoted string, long, float, int or double."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(re.sub(r"[fF]$", "", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


_JS_FLOAT = re.compile(r"-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"-?\d+n$")


def js_value(text: str, declared: str, item_type: str | None = None) -> Any:
    if declared not in JS_TYPES:
        raise Unconvertible(f"JavaScript type {declared!r}")
    if declared == "String":
        quoted = len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'"
        return text[1:-1] if quoted else str(text)
    if declared == "integer":
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if declared == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else text
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "dict":
        return _js_object(text)
    if declared == "array":
        return _js_array(text, item_type)
    return str(text)  # any


_JS_2D = re.compile(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)")
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")


def _js_array(text: str, item_type: str | None) -> Any:
    code = text.strip()
    try:
        nested = _JS_2D.match(code)
        if nested:
            rows = []
            for index, inner in enumerate(re.findall(r"\[(.*?)\]", nested.group(0))):
                inner = inner.strip()
                if index == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([js_literal(part.strip()) for part in inner.split(",")])
            return rows
        flat = _JS_1D.match(code)
        if not flat:
            return code
        body = flat.group(1) if flat.group(1) is not None else flat.group(2)
        parts = body.strip().split(",") if body is not None and body.strip() else []
        if not item_type:
            return [js_literal(part.strip()) for part in parts]
        return [js_value(part.strip(), item_type, "String") if part.strip()[:1] in ("'", '"')
                else js_value(part.strip(), item_type) for part in parts]
    except Exception:  # noqa: BLE001 - upstream keeps the text when its conversion fails for any reason
        return code


def _js_object(text: str) -> Any:
    code = text.strip()
    if code == "{}":
        return {}
    found = re.match(r"\{(.*?)\}", code)
    if not found:
        return code
    out: dict[str, Any] = {}
    for key, value in re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", found.group(1)):
        key, value = key.strip().strip("'\""), value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key] = _js_array(value, None)
        elif value.startswith("{") and value.endswith("}"):
            out[key] = _js_object(value)
        else:
            out[key] = js_literal(value.strip("'\""))
    return out


def js_literal(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text[:1] in ("'", '"') and text.endswith(text[0]):
        return text[1:-1]
    return _number_or_text(text)
