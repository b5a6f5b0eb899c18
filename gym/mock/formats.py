"""Answer shapes of gym's reference server for the benchmarks whose prompt asks for a fixed format,
and its pairwise (Arena-Hard style) judge.

`FamilyAnswers` writes the chosen final answer (right or wrong) the way the family's prompt asks, through
the family's own `mock_answer` (the bare translation, a ```sql block, a "Final Answer: [...]" line, a
"Judgement: ..." line, a reply that opens with a given prefix, a program). `pairwise_verdict` plays the
judge of two answers: the one that gives the task's expected answer (in \\boxed{}) beats one without a
boxed answer (a baseline), which beats one that boxes something else (a wrong answer); equal ranks tie.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from gym.verifiers import FAMILIES, Verifier, family_class

if TYPE_CHECKING:  # pragma: no cover
    from gym.mock.tasks import TaskIndex

_SECTION = re.compile(r"<\|The Start of Assistant ([AB])'s Answer\|>\n(.*?)\n<\|The End of Assistant \1's Answer\|>",
                      re.DOTALL)


class FamilyAnswers:
    """Writes a chosen final answer the way a family's prompt asks (`Verifier.mock_answer`): the benchmark's
    own family when the server is told it, else every registered family with such a hook, in registry order
    (the first that answers wins). The families are imported on first use, so a server that answers no task
    (a judge-only or embeddings server) imports none."""

    def __init__(self, family: str | None = None):
        if family is not None and family not in FAMILIES:
            family_class(family)  # the one-line error naming the known families
        self.family = family
        self._writers: list[type[Verifier]] | None = None

    def writers(self) -> list[type[Verifier]]:
        if self._writers is None:
            names = [self.family] if self.family is not None else list(FAMILIES)
            classes = [family_class(name) for name in names]
            self._writers = [cls for cls in classes if cls.overrides("mock_answer")]
        return self._writers

    def write(self, row: Callable[[], dict], prompt: str, final: str, correct: bool, opener: str) -> str | None:
        """The reply for `final` in the format `prompt` asks for; None when no family shapes it. `row` gives
        the task's prepared row (read only when a family may need it)."""
        writers = self.writers()
        task = row() if writers else None
        for cls in writers:
            text = cls.mock_answer(task, prompt, final, correct, opener)
            if text is not None:
                return text
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
