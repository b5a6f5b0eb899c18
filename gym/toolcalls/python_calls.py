"""BFCL's prompting format: a Python-style list of calls, `[f(a=1, b="x"), pkg.g(c=[1, 2])]`.

Read with `ast` (never evaluated), following the upstream decoder's documented behaviour:
* the reply is trimmed of backticks, newlines and spaces at both ends, wrapped in `[...]` when it is not
  already, and stripped of wrapping single quotes; a bare call `f(a=1)` is one call;
* every element must be a call; its name is the dotted attribute path (`a.b.c`); only keyword arguments
  count (positional ones are dropped);
* values: literals; a unary operator on a number literal (negated, whatever the operator, as upstream); lists, dicts and tuples (kept as tuples: the checker turns them into
  lists where a tuple is expected); a bare name as its text (`x` -> "x"); a call without keywords as its
  source text, a call with keywords as a nested {name: {arguments}}; a subscript as its source text; an
  arithmetic expression of numbers is computed (upstream evaluates it; gym folds + - * / // % ** over
  number literals only and fails on anything else, which is what evaluating such text can do).
Anything else (a lambda, a comprehension, a syntax error, a non-call element) is a decode failure.
"""

from __future__ import annotations

import ast
import json
import operator
from typing import Any, Callable

from gym.toolcalls.calls import ToolCall


class DecodeError(ValueError):
    """The text is not a list of calls in this format."""


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_MAX_POWER = 1_000  # a 10**10**9 in a reply must not hang the grader
_MAX_REPEAT = 100_000  # nor may "a" * 10**12 exhaust its memory


def decode_python_calls(text: str) -> list[dict[str, dict]]:
    """The calls as BFCL's decoder returns them: [{name: {param: value}}]; DecodeError otherwise."""
    cleaned = text.strip("`\n ")
    if not cleaned.startswith("["):
        cleaned = "[" + cleaned
    if not cleaned.endswith("]"):
        cleaned = cleaned + "]"
    cleaned = cleaned.strip().strip("'")
    try:
        body = ast.parse(cleaned, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise DecodeError(f"not Python call syntax: {exc.__class__.__name__}") from None
    if isinstance(body, ast.Call):
        return [_call(body)]
    elements = getattr(body, "elts", None)
    if elements is None:
        raise DecodeError(f"a {type(body).__name__}, not a list of calls")
    out = []
    for element in elements:
        if not isinstance(element, ast.Call):
            raise DecodeError(f"a list element is a {type(element).__name__}, not a call")
        out.append(_call(element))
    return out


def parse_python_calls(text: str) -> list[ToolCall]:
    return [ToolCall(name, dict(arguments)) for call in decode_python_calls(text) for name, arguments in call.items()]


def _name(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _call(node: ast.Call) -> dict[str, dict]:
    return {_name(node.func): {keyword.arg: _value(keyword.value) for keyword in node.keywords}}


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):  # upstream negates the literal whatever the operator (+5 reads as -5)
        operand = getattr(node.operand, "value", None)
        if not isinstance(node.operand, ast.Constant) or not isinstance(operand, (int, float, complex)):
            raise DecodeError("a unary operator on something that is not a number")
        return -operand
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise DecodeError("a ** expansion inside a dict")
        return {_value(key): _value(value) for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else _call(node)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"unsupported value of type {type(node).__name__}")


def _arithmetic(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex, str)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > _MAX_POWER:
            raise DecodeError("an exponent too large to compute")
        if isinstance(node.op, ast.Mult) and any(isinstance(side, str) for side in (left, right)) \
                and any(isinstance(side, int) and side > _MAX_REPEAT for side in (left, right)):
            raise DecodeError("a string repeated too often to compute")
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
            raise DecodeError(f"arithmetic failed: {exc.__class__.__name__}") from None
    raise DecodeError(f"an expression gym does not compute ({type(node).__name__})")


def render_python_calls(calls: list[ToolCall], write: Callable[[Any], str] | None = None) -> str:
    """Calls in BFCL's prompting format, readable back by decode_python_calls; `write` turns a value into
    its text (Python literals by default)."""
    write = write or _literal
    parts = []
    for call in calls:
        arguments = ", ".join(f"{key}={write(value)}" for key, value in (call.arguments or {}).items())
        parts.append(f"{call.name}({arguments})")
    return "[" + ", ".join(parts) + "]"


def _literal(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, str):  # double quotes, as Java and JavaScript source text wants them too
        return json.dumps(value, ensure_ascii=False)
    return repr(value)
