"""τ²'s `calculate` tool without eval: the same accepted characters and the same result text.

Upstream checks that the expression holds only digits, + - * / ( ) . and spaces, evaluates it as Python
and answers str(round(float(value), 2)). gym parses it with `ast` and computes the few node kinds those
characters can form (numbers, unary and binary + - * / // **), so the answers agree without running code.
"""

from __future__ import annotations

import ast
import operator

ALLOWED = set("0123456789+-*/(). ")
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(node.left), _value(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    raise ValueError("invalid syntax")


def calculate(expression: str) -> str:
    if not all(char in ALLOWED for char in expression):
        raise ValueError("Invalid characters in expression")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"invalid syntax ({exc.msg})") from None
    return str(round(float(_value(tree.body)), 2))
