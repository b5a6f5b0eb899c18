"""Java and JavaScript rows in BFCL's prompting format: one call whose argument values are source text.

BFCL reads such replies with tree-sitter's Java/JavaScript grammars and keeps every argument value as its
source text (a whole string literal loses its quotes), which its checker then converts by the declared
type (gym.verifiers.tool_call_types). gym reads them with a small scanner that follows the same rules:
* the reply is trimmed of backticks, newlines and spaces, wrapped in `[...]` when it is not, and that
  outer pair of characters is dropped (as upstream does);
* the first call `name(...)` or `obj.method(...)` is the answer (later calls are ignored, as upstream);
* arguments are `name=value` split at top-level commas (not inside Java type arguments such as
  `HashMap<String, Object>`); a value is its source text, a whole string
  literal without its quotes ("..." in Java and JavaScript, '...' in JavaScript and for a Java char);
  an argument without a name is kept under the key None (upstream's reading: the checker rejects it);
* unbalanced quotes or brackets are a decode failure; text without a call decodes to no call.
"""

from __future__ import annotations

import re

from gym.toolcalls.python_calls import DecodeError

_CALL = re.compile(r"([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(")
_NAMED = re.compile(r"([A-Za-z_$][\w$]*)\s*=(?!=)\s*(.*)", re.S)
_CLOSE = {")": "(", "]": "[", "}": "{"}


def decode_source_call(text: str, language: str) -> list[dict[str, dict]]:
    """[{name: {param: source text}}] (at most one call); DecodeError when the text cannot be scanned."""
    cleaned = text.strip("`\n ")
    if not cleaned.startswith("["):
        cleaned = "[" + cleaned
    if not cleaned.endswith("]"):
        cleaned = cleaned + "]"
    body = cleaned[1:-1]
    _check_balanced(body)
    found = _CALL.search(body)
    if found is None:
        return []
    start = found.end()
    end = _matching(body, start - 1)
    name = re.sub(r"\s+", "", found.group(1))
    arguments: dict = {}
    for part in _split_top_level(body[start:end], generics=language == "java"):
        named = _NAMED.fullmatch(part)
        key, value = (named.group(1), named.group(2).strip()) if named else (None, part)
        if key in arguments:
            raise DecodeError(f"argument {key!r} given twice")
        arguments[key] = _unquoted(value, language)
    return [{name: arguments}]


def _unquoted(value: str, language: str) -> str:
    quotes = "\"'"
    if len(value) >= 2 and value[0] in quotes and value[-1] == value[0] and _one_literal(value):
        return value[1:-1]
    return value


def _one_literal(value: str) -> bool:
    """Whether the whole value is a single string literal (not "a" + "b")."""
    quote, index = value[0], 1
    while index < len(value):
        if value[index] == "\\":
            index += 2
            continue
        if value[index] == quote:
            return index == len(value) - 1
        index += 1
    return False


def _scan(text: str):
    """(index, character) outside string literals."""
    index, quote = 0, None
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        else:
            yield index, char
        index += 1
    if quote is not None:
        raise DecodeError("an unterminated string literal")


def _check_balanced(text: str) -> None:
    stack: list[str] = []
    for _, char in _scan(text):
        if char in "([{":
            stack.append(char)
        elif char in _CLOSE:
            if not stack or stack.pop() != _CLOSE[char]:
                raise DecodeError("unbalanced brackets")
    if stack:
        raise DecodeError("unbalanced brackets")


def _matching(text: str, open_at: int) -> int:
    depth = 0
    for index, char in _scan(text):
        if index < open_at:
            continue
        if char in "([{":
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return index
    raise DecodeError("unbalanced brackets")


def _split_top_level(text: str, generics: bool = False) -> list[str]:
    """Parts between top-level commas; with `generics` (Java), a `<` right after a name opens type
    arguments (`HashMap<String, Object>`) whose commas do not split."""
    parts, depth, angles, last = [], 0, 0, 0
    for index, char in _scan(text):
        if char in "([{":
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif generics and char == "<" and index and (text[index - 1].isalnum() or text[index - 1] in "_$>"):
            angles += 1
        elif generics and char == ">" and angles:
            angles -= 1
        elif char == "," and depth == 0 and not angles:
            parts.append(text[last:index])
            last = index + 1
    parts.append(text[last:])
    return [part.strip() for part in parts if part.strip()]
