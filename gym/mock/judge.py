"""The reference server as an LLM judge: verdicts for gym's built-in judge prompts.

A prompt is a judge prompt when it holds the gold answer in <reference_answer> tags and the judged
text in <response> tags (as every built-in template does) and mentions the verdict instructions of one
of gym's verdict formats. The judged text counts as right when the answer it gives (last \\boxed{},
else the last "Answer:" line, else the last line) equals the gold answer up to case, spacing,
surrounding $ signs and a final full stop. The reply is written in that format, the way a careful
judge would: a grade letter, a "Judgement:" line or a boxed verdict after its notes.
"""

from __future__ import annotations

import re

from gym.core.judge_prompts import FORMATS, GOLD_TAG, RESPONSE_TAG, VerdictFormat

_UNSURE = re.compile(r"\b(?:i don't know|i do not know|cannot answer|can't answer)\b", re.IGNORECASE)


def _section(prompt: str, tag: str, last_close: bool = False) -> str | None:
    """Text of the first <tag> block (up to the last closing tag when `last_close`), or None."""
    opening, closing = f"<{tag}>\n", f"\n</{tag}>"
    start = prompt.find(opening)
    if start < 0:
        return None
    start += len(opening)
    end = prompt.rfind(closing) if last_close else prompt.find(closing, start)
    return prompt[start:end] if end >= start else None


def _answer_of(text: str) -> str:
    from gym.core.answer_text import final_answer

    answer, _ = final_answer(text)
    return answer or ""


def _canonical(text: str) -> str:
    text = " ".join(text.strip().strip("$").split())
    return text.rstrip(".").strip().casefold()


def _detect(prompt: str) -> VerdictFormat | None:
    for verdict_format in FORMATS.values():  # most specific marker first
        if verdict_format.marker in prompt:
            return verdict_format
    return None


def judge_verdict(prompt: str) -> str | None:
    """The judge's reply to `prompt`, or None when `prompt` is not a judge prompt."""
    nl = nl_assertion_verdicts(prompt)
    if nl is not None:
        return nl
    gold = _section(prompt, GOLD_TAG)
    judged = _section(prompt, RESPONSE_TAG, last_close=True)
    verdict_format = _detect(prompt) if gold is not None and judged is not None else None
    if verdict_format is None:
        return None
    answer = _answer_of(judged)
    if not answer.strip() or _UNSURE.search(judged):
        outcome = "unsure"
    else:
        outcome = "right" if _canonical(answer) == _canonical(gold) else "wrong"
    return write_verdict(verdict_format, outcome, answer, gold)


NL_MARKERS = ("expectedOutcomes:", "metExpectation")  # τ²'s NL-assertion judge prompt (gym.episodes.tau2.judge)


def nl_assertion_verdicts(prompt: str) -> str | None:
    """τ²'s NL-assertion judge: an expected outcome is met when an assistant line of the conversation
    states it word for word (gym's gold agent says each one in its closing message)."""
    import ast
    import json

    if not all(marker in prompt for marker in NL_MARKERS):
        return None
    head, _, tail = prompt.rpartition("expectedOutcomes:")
    try:
        outcomes = ast.literal_eval(tail.strip())
    except (ValueError, SyntaxError):
        return None
    said = [line for line in head.splitlines() if line.strip().startswith("assistant:")]
    return json.dumps({"results": [{"expectedOutcome": outcome, "reasoning": "stated by the agent" if met
                                    else "not stated by the agent", "metExpectation": met}
                                   for outcome in outcomes
                                   for met in [any(str(outcome) in line for line in said)]]})


def write_verdict(verdict_format: VerdictFormat, outcome: str, answer: str, gold: str) -> str:
    """A judge-style reply in `verdict_format` for outcome "right" | "wrong" | "unsure"."""
    right = outcome == "right"
    name = verdict_format.name
    if name == "letter_abc":
        return {"right": "A", "wrong": "B", "unsure": "C"}[outcome]
    shown = answer.strip() or "None"
    comparison = (f"The response's final answer {shown} matches the reference answer {gold.strip()}." if right else
                  f"The response's final answer {shown} does not match the reference answer {gold.strip()}.")
    verdict = verdict_format.positive if right else verdict_format.negative
    if name == "judgement_yes_no":
        return (f"extracted_final_answer: {shown}\n\nreasoning: {comparison}\n\n"
                f"correct: {'yes' if right else 'no'}\n\nconfidence: 100%\n\n{verdict}")
    if name == "boxed_correct":
        conclusion = "Correct" if right else "Incorrect"
        return (f"<thinking>\n1. Golden Answer: {gold.strip()}\n2. Extracted Model Answer: {shown}\n"
                f"3. Equivalence Analysis: {comparison}\n4. Conclusion: {conclusion}\n</thinking>\n{verdict}")
    return f"{comparison}\n{verdict}"
