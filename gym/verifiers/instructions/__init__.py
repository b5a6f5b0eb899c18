"""Verifiable-instruction checkers: the 25 IFEval ids and the 58 IFBench ids.

    results = follow(["punctuation:no_comma"], [{}], response, prompt)
    results[0].strict, results[0].loose, results[0].status

Strict mode checks the response as written. Loose mode passes an instruction when any of eight
variants passes: the response, with asterisks removed, without its first line, without its last
line, without both, and those three with asterisks removed (markdown emphasis and a chatty opening or
closing line no longer fail an instruction). An empty response follows nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gym.verifiers.instructions import ifbench_custom, ifbench_format, ifbench_words, ifeval_checks  # noqa: F401
from gym.verifiers.instructions.registry import CHECKS, COMPAT, Args, BadArgs

_IFBENCH_GROUPS = {"count", "ratio", "words", "sentence", "format", "custom", "repeat"}
IFBENCH_IDS = tuple(sorted(i for i in CHECKS if i.split(":")[0] in _IFBENCH_GROUPS))
IFEVAL_IDS = tuple(sorted(set(CHECKS) - set(IFBENCH_IDS)))

# status of one instruction's verdict
FOLLOWED_OR_NOT, UNSUPPORTED, BAD_ARGS, CHECKER_ERROR = "checked", "unsupported", "bad_args", "checker_error"


@dataclass(frozen=True)
class InstructionResult:
    instruction_id: str
    strict: bool
    loose: bool
    status: str = FOLLOWED_OR_NOT
    message: str | None = None  # why the instruction could not be checked


def loose_variants(response: str) -> list[str]:
    """The response and its seven loosened forms, non-empty and without repeats, the response first."""
    lines = response.split("\n")
    first_dropped = "\n".join(lines[1:]).strip()
    last_dropped = "\n".join(lines[:-1]).strip()
    both_dropped = "\n".join(lines[1:-1]).strip()
    variants = [response, response.replace("*", ""), first_dropped, last_dropped, both_dropped,
                first_dropped.replace("*", ""), last_dropped.replace("*", ""), both_dropped.replace("*", "")]
    return [v for i, v in enumerate(variants) if v.strip() and v not in variants[:i]]


def follow(instruction_ids: Sequence[str], kwargs_list: Sequence[Mapping[str, Any] | None], response: str,
           prompt: str = "", compat: str = "fixed") -> list[InstructionResult]:
    """One result per instruction id; unknown ids, bad kwargs and checker failures count as not followed.
    compat="reference" applies the published checkers' rules where gym deliberately differs."""
    variants = loose_variants(response) if response.strip() else []
    results = []
    for index, instruction_id in enumerate(instruction_ids):
        checker = CHECKS.get(instruction_id)
        if checker is None:
            results.append(InstructionResult(instruction_id, False, False, UNSUPPORTED,
                                             "instruction id not supported by gym"))
            continue
        kwargs = kwargs_list[index] if index < len(kwargs_list) else None
        args = Args(kwargs, prompt, compat)
        try:
            strict = bool(variants) and checker(response, args)
            loose = strict or any(checker(variant, args) for variant in variants[1:])
        except BadArgs as exc:
            results.append(InstructionResult(instruction_id, False, False, BAD_ARGS, str(exc)))
            continue
        except Exception as exc:  # a checker tripping over odd text: not followed, reported
            results.append(InstructionResult(instruction_id, False, False, CHECKER_ERROR,
                                             f"{exc.__class__.__name__}: {exc}"))
            continue
        results.append(InstructionResult(instruction_id, strict, loose))
    return results


__all__ = ["CHECKS", "COMPAT", "IFBENCH_IDS", "IFEVAL_IDS", "InstructionResult", "follow", "loose_variants"]
