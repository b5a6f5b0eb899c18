"""In-process answer verifiers, one module per family.

    verifier = make_verifier("math", {"timeout": 5})
    verdict = verifier.verify(row, response_text)   # thread-safe
    verifier.close()

Adding a family = one module with a `Verifier` subclass that declares the family's facts (gym.verifiers.base)
plus one line in FAMILIES, the only table of family names: the layers above ask `family_class` for a family's
facts. Modules are imported only when their family is asked for, so importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from gym.core.errors import GymError, did_you_mean
from gym.core.faces import lazy_getattr
from gym.verifiers.base import Verdict, Verifier

# family -> "module:Class"
FAMILIES: dict[str, str] = {
    "math": "gym.verifiers.math:MathVerifier",
    "mcq": "gym.verifiers.mcq:MCQVerifier",
    "exact": "gym.verifiers.exact:ExactVerifier",
    "ifeval": "gym.verifiers.ifeval:IFEvalVerifier", "ifbench": "gym.verifiers.ifeval:IFBenchVerifier",
    "judge": "gym.verifiers.judge:JudgeVerifier",
    "qa": "gym.verifiers.qa:QAVerifier",
    "code": "gym.verifiers.code:CodeVerifier", "ioi": "gym.verifiers.ioi:IOIVerifier",
    "pairwise": "gym.verifiers.pairwise:PairwiseVerifier", "sql": "gym.verifiers.sql:SQLVerifier",
    "long_context": "gym.verifiers.long_context:LongContextVerifier", "label": "gym.verifiers.label:LabelVerifier",
    "translation": "gym.verifiers.translation:TranslationVerifier",
    "typed": "gym.verifiers.typed:TypedVerifier",
    "tool_call": "gym.verifiers.tool_call:ToolCallVerifier",
    "episode": "gym.verifiers.episode:EpisodeVerifier",
    "iheval": "gym.verifiers.iheval:IHEvalVerifier",
}


def family_class(family: str) -> type[Verifier]:
    """The Verifier subclass of a registered family (its module imported on first use)."""
    if family not in FAMILIES:
        raise GymError(f"unknown verifier family '{family}'{did_you_mean(str(family), FAMILIES)}; "
                       f"known families: {', '.join(FAMILIES)}")
    module_name, _, class_name = FAMILIES[family].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def make_verifier(family: str, options: Mapping[str, Any] | None = None) -> Verifier:
    """A ready verifier of `family` built with the benchmark's `verifier.options`."""
    cls = family_class(family)
    if options is not None and not isinstance(options, Mapping):
        raise GymError(f"verifier '{family}': options must be a mapping, got {type(options).__name__}")
    return cls(**{str(key): value for key, value in (options or {}).items()})


def judged(family: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether `family`'s verifier, built with these options, is graded by an LLM judge: the family's own fact,
    or an option that asks for one (τ²'s nl_assertions=judge)."""
    return family_class(family).needs_judge or (options or {}).get("nl_assertions") == "judge"


def strict_rewards(cfg: Any) -> bool:
    """The config's `reward.strict` (training-safe rewards: a marked final answer, no cut-off reply)."""
    value = (cfg.get("reward") or {}).get("strict", False) if cfg is not None else False
    if not isinstance(value, bool):
        raise GymError(f"reward.strict={value!r} must be true or false")
    return value


# What prepare scripts share with the verifiers (loaded on first use): the points imo_gradingbench's grade
# labels stand for, and the sentence splitter RULER's haystacks use as IFEval does.
FACE = {"GRADE_POINTS": "gym.verifiers.label", "punkt_sentences": "gym.verifiers.instructions.text"}
__getattr__ = lazy_getattr(__name__, FACE)

__all__ = ["FAMILIES", "Verdict", "Verifier", "family_class", "judged", "make_verifier", "strict_rewards",
           *sorted(FACE)]
