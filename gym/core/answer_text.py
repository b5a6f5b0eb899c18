"""Reading an answer out of free-form model text: the last \\boxed{}, "Answer:" lines, wrappers, spacing.

Shared by the verifiers and by gym's reference server (which reads the answer a judged response gives),
so it depends on nothing else in gym.
"""

from __future__ import annotations

import re
import unicodedata


_BOX_START = re.compile(r"\\(?:boxed|fbox)\s*\{")


def last_boxed(text: str) -> str | None:
    """Content of the last closed, non-empty \\boxed{...} (or \\fbox{...}), braces counted; None if none."""
    for match in reversed(list(_BOX_START.finditer(text))):
        end = closing_brace(text, match.end())
        if end is not None and text[match.end():end].strip():
            return text[match.end():end].strip()
    return None


def number_text(text: str) -> str | None:
    """'1,450,000' -> '1450000', '3.0' -> '3', '0.5' -> '0.5' (GSM8K's gold form); None when not a number."""
    cleaned = text.replace(",", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    if value == int(value):
        return str(int(value))
    return repr(value)


def final_marker(text: str) -> str | None:
    """GSM8K's final answer: what follows the one `####` of a worked solution, a number written as GSM8K's
    gold is (no thousands commas, no '.0'); None without exactly one marker or with nothing after it."""
    if text.count("####") != 1:
        return None
    final = text.split("####")[1].strip()
    return (number_text(final) or final) if final else None


def closing_brace(text: str, start: int) -> int | None:
    """Index of the brace closing the group opened just before `start` (escaped braces skipped)."""
    depth, pos = 1, start
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    return None


def unbox(text: str) -> str:
    """"\\boxed{X}" -> "X" when the box spans the whole string; anything else unchanged."""
    match = _BOX_START.match(text)
    if match:
        end = closing_brace(text, match.end())
        if end == len(text) - 1:
            return text[match.end():end].strip()
    return text


_WRAPPER = re.compile(r"^\\(?:text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|operatorname)\s*\{(.*)\}$", re.DOTALL)


def peel_wrappers(text: str) -> str:
    """Strip \\text{...}-style wrappers (and $...$) that enclose the whole string."""
    text = text.strip()
    while True:
        if len(text) >= 2 and text[0] == "$" and text[-1] == "$":
            text = text.strip("$").strip()
            continue
        match = _WRAPPER.match(text)
        if not match or not _balanced(match.group(1)):
            return text
        text = match.group(1).strip()


def _balanced(text: str) -> bool:
    depth = 0
    for char in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


# "Answer: X" with markdown tolerated: **Answer:** X, **Answer: X**, *Answer*: X, ### Final answer: X
_ANSWER_MARK = re.compile(r"(?<![A-Za-z])answer\s*(?:[*_]{1,3}\s*)?[:：]", re.IGNORECASE)
_MARKDOWN_EDGES = re.compile(r"^[\s*_`~>#]+|[\s*_`~]+$")


def answer_payloads(text: str) -> list[str]:
    """Payloads of every "Answer:" mark, first to last; an empty payload takes the next non-empty line."""
    payloads = []
    for match in _ANSWER_MARK.finditer(text):
        line_end = text.find("\n", match.end())
        rest = text[match.end(): len(text) if line_end < 0 else line_end]
        payload = _MARKDOWN_EDGES.sub("", rest)
        if not payload and line_end >= 0:
            following = next((line for line in text[line_end + 1:].splitlines() if line.strip()), "")
            payload = _MARKDOWN_EDGES.sub("", following)
        payloads.append(payload)
    return payloads


def last_nonempty_line(text: str) -> str | None:
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return None


def squash_spaces(text: str) -> str:
    return " ".join(text.split())


def nfkc(text: str) -> str:
    """Full-width letters, digits and punctuation to their ASCII forms (Ａ -> A, ： -> :)."""
    return unicodedata.normalize("NFKC", text)


def final_answer(text: str) -> tuple[str | None, str | None]:
    """(answer text, where it came from) from a free-form response: the last \\boxed{}, else the last
    non-empty "Answer:" payload, else the last non-empty line."""
    boxed = last_boxed(text)
    if boxed is not None:
        return peel_wrappers(boxed), "boxed"
    payloads = [p for p in answer_payloads(text) if p.strip()]
    if payloads:
        return payloads[-1], "answer_colon"
    line = last_nonempty_line(text)
    return (line, "last_line") if line is not None else (None, None)


def defines_function(code: str, name: str) -> bool:
    """Whether Python `code` defines a top-level function `name` (False when it does not parse)."""
    import ast

    try:
        return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
                   for node in ast.parse(code).body)
    except (SyntaxError, ValueError):
        return False
