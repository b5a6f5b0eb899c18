"""Code verifier helpers on the gym side: the program in an answer, and whether outputs match."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)


def extract_code(text: str) -> tuple[str | None, str | None]:
    """(code, None) from the last fenced block (```python preferred), or (None, why there is none)."""
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return None, "reasoning never finished (<think> without </think>)"
    fences = list(_FENCE.finditer(text))
    blocks, open_fence = [], None
    for fence in fences:
        if open_fence is None:
            open_fence = fence
        else:
            blocks.append((open_fence.group(1).lower(), text[open_fence.end() + 1:fence.start()]))
            open_fence = None
    if open_fence is not None:
        return None, "the last code block is not closed (answer cut off?)"
    if not blocks:
        return None, "no fenced code block in the answer"
    python = [code for language, code in blocks if language in ("python", "py", "python3")]
    return (python or [code for _, code in blocks])[-1], None


# -- output comparison -----------------------------------------------------------------------------
def stdout_matches(got: str, expected: str) -> bool:
    """Line by line after stripping; a differing line may still match as whitespace-split Decimals."""
    got_lines = [line.strip() for line in got.strip().split("\n")]
    expected_lines = [line.strip() for line in expected.strip().split("\n")]
    if len(got_lines) != len(expected_lines):
        return False
    for mine, theirs in zip(got_lines, expected_lines):
        if mine != theirs:
            try:
                if [Decimal(x) for x in mine.split()] != [Decimal(x) for x in theirs.split()]:
                    return False
            except InvalidOperation:
                return False
    return True


def close(got: Any, expected: Any, atol: float, rtol: float = 0.0) -> bool:
    """Equal, with numbers (not bools) within atol + rtol*|expected|, through lists, tuples and dicts."""
    if isinstance(got, bool) or isinstance(expected, bool):
        return got == expected
    if isinstance(got, (int, float)) and isinstance(expected, (int, float)):
        if got == expected:
            return True
        return abs(got - expected) <= atol + rtol * abs(expected)  # nan never matches, as in numpy
    if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(close(a, b, atol, rtol) for a, b in zip(got, expected))
    if isinstance(got, dict) and isinstance(expected, dict):
        return got.keys() == expected.keys() and all(close(got[k], expected[k], atol, rtol) for k in got)
    return got == expected
