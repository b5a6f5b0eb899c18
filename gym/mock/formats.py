"""Answer shapes of gym's reference server for the benchmarks whose prompt asks for a fixed format,
and its pairwise (Arena-Hard style) judge.

`shape_answer` writes the chosen final answer (right or wrong) the way the prompt asks: the bare
translation, a ```sql block, a "Final Answer: [...]" line, a "Judgement: ..." line, or the reply that
must open with a given prefix. `pairwise_verdict` plays the judge of two answers: the one that gives
the task's expected answer (in \\boxed{}) beats one without a boxed answer (a baseline), which beats
one that boxes something else (a wrong answer); equal ranks tie.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gym.mock.tasks import TaskIndex

_PREPEND = re.compile(r"\bPrepend (\S+) to\b")
_SECTION = re.compile(r"<\|The Start of Assistant ([AB])'s Answer\|>\n(.*?)\n<\|The End of Assistant \1's Answer\|>",
                      re.DOTALL)
TRANSLATE_MARK = "Reply with the translation only"
JUDGEMENT_MARK = "Judgement: Yes"


def shape_answer(prompt: str, final: str, opener: str) -> str | None:
    """The reply for `final` in the format `prompt` asks for; None when it asks for none of these."""
    if TRANSLATE_MARK in prompt:
        return final
    prepend = _PREPEND.search(prompt)
    if prepend and final.startswith(prepend.group(1)):
        return final
    if "```sql" in prompt:
        return f"{opener}\n\n```sql\n{final}\n```"
    if "Final Answer: [" in prompt:  # graphwalks asks for a node list
        try:
            nodes = json.loads(final)
            shown = "[" + ", ".join(map(str, nodes)) + "]" if isinstance(nodes, list) else final
        except json.JSONDecodeError:
            shown = final
        return f"{opener}\n\nFinal Answer: {shown}"
    if JUDGEMENT_MARK in prompt:
        return f"{opener}\n\nJudgement: {final}"
    return None


def pairwise_verdict(prompt: str, index: "TaskIndex") -> str | None:
    """A judge reply with a [[A>B]]-style label, or None when `prompt` is not a pairwise judge prompt."""
    if "[[A>>B]]" not in prompt:
        return None
    answers = dict((side, text) for side, text in _SECTION.findall(prompt))
    if set(answers) != {"A", "B"}:
        return None
    number = index.find(prompt)
    gold = index.tasks[number].expected_answer if number is not None else None
    rank = {side: _rank(text, gold) for side, text in answers.items()}
    label = "A>B" if rank["A"] > rank["B"] else "B>A" if rank["B"] > rank["A"] else "A=B"
    return f"Assistant {label[0] if label != 'A=B' else 'A and B'} compared on the task.\n\nMy final verdict: [[{label}]]"


def _rank(text: str, gold: str | None) -> int:
    if gold is not None and f"\\boxed{{{gold}}}" in text:
        return 2
    return 0 if "\\boxed{" in text else 1
