"""Sub-step tasks the reference server answers with their gold code (SciCode rows: each of `sub_steps`
carries `function_header`, `step_description_prompt` and, where upstream gives it, `ground_truth_code`).

A sub-step's prompt does not hold the row's question; it ends with the step asked for (its description and
function header) after the earlier steps' code, which defines the earlier functions again. So the step
asked is the one whose description is in the prompt and whose header ends last in it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SubStep:
    header: str
    description: str
    gold_code: str

    def wrong_code(self) -> str:
        """A definition of the same function that returns nothing useful."""
        return f"{self.header.rstrip()}\n    return None\n"


class SubStepIndex:
    """The gold-coded sub-steps of the prepared rows (none for other benchmarks: lookups then cost nothing)."""

    def __init__(self) -> None:
        self.steps: list[SubStep] = []

    def add(self, row: dict) -> None:
        steps = row.get("sub_steps")
        for step in steps if isinstance(steps, list) else ():
            fields = [step.get(k) for k in ("function_header", "step_description_prompt", "ground_truth_code")] \
                if isinstance(step, dict) else []
            if fields and all(isinstance(value, str) and value.strip() for value in fields):
                self.steps.append(SubStep(fields[0].strip(), fields[1].strip(), fields[2]))

    def find(self, prompt: str) -> SubStep | None:
        best, best_key = None, (-1, -1)
        for step in self.steps:
            at = prompt.rfind(step.header)
            key = (at + len(step.header), len(step.description))
            if at >= 0 and key > best_key and step.description in prompt:
                best, best_key = step, key
        return best
