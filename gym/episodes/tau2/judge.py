"""τ²'s natural-language assertions, judged by an LLM (verifier.options.nl_assertions=judge).

The judge gets upstream's own prompts (read from its evaluator at prepare time, kept in the domain file):
the system prompt, and the conversation as `role: content` lines with the expected outcomes as a list.
Its JSON reply holds one result per outcome with `metExpectation`; the check passes when every result is
met, as upstream's evaluator decides. A judge endpoint that fails raises JudgeFailed(transport=True);
a reply without that JSON raises JudgeFailed(transport=False).
"""

from __future__ import annotations

import json
import re
from typing import Any

from gym.core.errors import GymError
from gym.episodes.base import JudgeFailed

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def judge_messages(prompts: dict, assertions: list[str], trajectory: list[dict]) -> list[dict]:
    lines = "\n".join(f"{m.get('role')}: {m.get('content')}" for m in trajectory if m.get("role") != "system")
    values = {"trajectory_str": lines, "nl_assertions": repr(list(assertions))}
    user = "".join(part["text"] if "text" in part else values[part["field"]] for part in prompts["user"])
    return [{"role": "system", "content": prompts["system"]}, {"role": "user", "content": user}]


def read_verdicts(text: str | None) -> list[bool]:
    match = _OBJECT.search(text or "")
    try:
        results = json.loads(match.group(0))["results"] if match else None
    except (ValueError, KeyError, TypeError):
        results = None
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise JudgeFailed(f"judge reply holds no results JSON: {(text or '')[:200]!r}", transport=False)
    return [r.get("metExpectation") is True for r in results]


def judge_assertions(client: Any, seed: int | None, domain_file: dict, assertions: list[str],
                     trajectory: list[dict]) -> list[bool]:
    if client is None:
        raise GymError("verifier.options.nl_assertions=judge needs a judge endpoint: judge=vllm|openai "
                       "(judge=mock with model=mock for a dry run)")
    prompts = domain_file.get("nl_judge")
    if not prompts:
        raise GymError("the domain file has no NL-assertion judge prompts: prepare the benchmark again")
    completion = client.complete(judge_messages(prompts, assertions, trajectory), seed=seed)
    if completion.status != "ok":
        raise JudgeFailed(f"judge endpoint: {completion.error or completion.status}", transport=True)
    return read_verdicts(completion.text)
