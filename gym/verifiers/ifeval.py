"""Instruction-following verifiers: families `ifeval` (IFEval) and `ifbench` (IFBench).

Rows carry `instruction_id_list` and `kwargs` (one dict per id) next to `question`, the prompt. Every
instruction is checked strictly and loosely (see gym.verifiers.instructions). Options:

* grading: "all" = reward 1 only if every instruction is followed (IFEval's prompt-level accuracy,
  the ifeval default); "fraction" = share of instructions followed (the ifbench default).
* mode: "strict" (default) or "loose": which check the reward uses. The other one is always reported
  as well: details carry both per-instruction lists and `reward_loose`.
* compat: "fixed" (default) or "reference". Where gym deliberately corrects the published checkers
  (listed in the benchmark descriptions and in gym.verifiers.instructions' checker modules),
  "reference" applies the original rule instead, to reproduce published numbers.

Secondary scores (details["scores"]): the standard IFEval numbers the reward is not, among
`prompt_strict` / `prompt_loose` (1 if every instruction is followed), and always `instruction_strict` /
`instruction_loose` (the share of instructions followed in this response) with `instructions`, the
number of instructions: IFEval's instruction-level accuracy pools instructions over all prompts, so
aggregate weighs each response's share by its instruction count (see gym.rollouts.scores.POOLED).
ifeval's default reward is prompt_strict, ifbench's the per-response instruction_strict.

The extracted answer is the strict pass pattern, one character per instruction ("101": first and
third followed), so majority@k votes for the most common behaviour; an empty response gives none.
Unknown instruction ids and unusable kwargs count as not followed, are named in the details and are
logged once per verifier.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, ClassVar

from gym.core.errors import GymError
from gym.verifiers.base import Verdict, Verifier
from gym.verifiers.instructions.registry import COMPAT

log = logging.getLogger("gym.verifiers.ifeval")

GRADINGS = ("all", "fraction")
MODES = ("strict", "loose")


def _score(followed: list[bool], grading: str) -> float:
    if not followed:
        return 0.0
    if grading == "all":
        return 1.0 if all(followed) else 0.0
    return sum(followed) / len(followed)


def _instructions(row: dict) -> tuple[list[str], list[Any]]:
    ids, kwargs = row.get("instruction_id_list"), row.get("kwargs")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise GymError(f"task row has no usable instruction_id_list (got {ids!r}); "
                       "re-run task=prepare for this benchmark")
    if kwargs is None:
        kwargs = [{} for _ in ids]
    well_formed = isinstance(kwargs, list) and all(k is None or isinstance(k, dict) for k in kwargs)
    if not well_formed or len(kwargs) != len(ids):
        raise GymError(f"task row's kwargs must be a list of {len(ids)} objects, one per instruction id; "
                       "re-run task=prepare for this benchmark")
    return ids, kwargs


class IFEvalVerifier(Verifier):
    family: ClassVar[str] = "ifeval"
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"grading": GRADINGS, "mode": MODES, "compat": COMPAT}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._warned: set[tuple[str, str]] = set()
        self._warn_lock = threading.Lock()
        from gym.verifiers import instructions  # imports every checker module once

        self._follow = instructions.follow

    def verify(self, row: dict, response: str) -> Verdict:
        ids, kwargs = _instructions(row)
        prompt = row.get("question") if isinstance(row.get("question"), str) else ""
        results = self._follow(ids, kwargs, response or "", prompt, self.compat)
        strict = [r.strict for r in results]
        loose = [r.loose for r in results]
        reward_strict, reward_loose = _score(strict, self.grading), _score(loose, self.grading)
        details: dict[str, Any] = {
            "grading": self.grading, "mode": self.mode, "compat": self.compat, "instruction_id_list": ids,
            "strict": strict, "loose": loose,
            "follow_all_strict": all(strict), "follow_all_loose": all(loose),
            "reward_strict": reward_strict, "reward_loose": reward_loose,
        }
        scores = {f"{level}_{mode}": _score(followed, grading)
                  for level, grading in (("prompt", "all"), ("instruction", "fraction"))
                  for mode, followed in (("strict", strict), ("loose", loose))
                  # not the reward again; the instruction shares always, as aggregate pools them
                  if level == "instruction" or (grading, mode) != (self.grading, self.mode)}
        scores["instructions"] = len(ids)  # the weight of this response's instruction shares
        details["scores"] = scores
        problems = [r for r in results if r.message]
        if problems:
            unsupported = sorted({r.instruction_id for r in problems if r.status == "unsupported"})
            errors = {r.instruction_id: f"{r.status}: {r.message}" for r in problems if r.status != "unsupported"}
            details.update({"unsupported": unsupported} if unsupported else {})
            details.update({"errors": errors} if errors else {})
            self._warn_once(problems)
        answer = "".join("1" if ok else "0" for ok in strict) if (response or "").strip() else None
        return Verdict(reward_strict if self.mode == "strict" else reward_loose, answer, details)

    def _warn_once(self, problems: list) -> None:
        fresh = []
        with self._warn_lock:
            for result in problems:
                # checker errors quote the text they tripped on: one warning per id is enough
                key = (result.instruction_id, result.status if result.status == "checker_error" else result.message)
                if key not in self._warned:
                    self._warned.add(key)
                    fresh.append(result)
        unsupported = [r.instruction_id for r in fresh if r.status == "unsupported"]
        if unsupported:
            log.warning("%s: instruction id(s) not supported, counted as not followed: %s", self.family,
                        ", ".join(sorted(set(unsupported))))
        for result in fresh:
            if result.status != "unsupported":
                log.warning("%s: instruction %s could not be checked (%s: %s); counted as not followed",
                            self.family, result.instruction_id, result.status, result.message)


class IFBenchVerifier(IFEvalVerifier):
    family: ClassVar[str] = "ifbench"
    OPTIONS: ClassVar[dict[str, Any]] = {"grading": "fraction"}
