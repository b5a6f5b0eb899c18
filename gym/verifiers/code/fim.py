"""Fill-in-the-middle code answers (HumanEval-Infilling): the program is prefix + middle + suffix.

The middle is the last fenced block of the answer with its whitespace kept, minus one leading newline.
The newline in front of the closing fence belongs to the fence, so the middle is first tried without
it and, if that program fails, with it (spans that end a line need it, spans ending mid-line must not
have it; the fence cannot say which). A block that repeats the whole prefix or the whole suffix has the
repeat removed; shorter overlaps are kept as written (trimming a partial overlap could cut real code
such as an indent).
"""

from __future__ import annotations


def is_fim_row(row: dict) -> bool:
    return isinstance(row.get("prefix"), str) and isinstance(row.get("suffix"), str)


def middles(block: str, row: dict) -> list[str]:
    """Candidate middles from a code block, in the order they are tried."""
    prefix, suffix = row["prefix"], row["suffix"]
    text = block[1:] if block.startswith("\n") else block
    if prefix.strip() and text.startswith(prefix):
        text = text[len(prefix):]
    candidates = [text[:-1], text] if text.endswith("\n") else [text]
    out = []
    for middle in candidates:
        if suffix.strip() and middle.endswith(suffix):
            middle = middle[: -len(suffix)]
        if middle not in out:
            out.append(middle)
    return out


def program(row: dict, middle: str) -> str:
    """The completed source; the code verifier runs the task's tests against its entry point."""
    return f"{row['prefix']}{middle}{row['suffix']}"
