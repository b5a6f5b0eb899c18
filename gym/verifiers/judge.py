"""judge: an LLM judge grades the answer against the gold one (SimpleQA, HLE, IMO AnswerBench, ...).

Options (the benchmark's verifier.options):
  prompt          built-in judge prompt (gym/core/judge_prompts/<name>.txt) or a template file; placeholders
                  are the row's fields plus {generation} (what is judged) and {expected_answer}
  parse           how the reply is read: letter_abc | judgement_yes_no | boxed_correct | last_judgement_yes_no
  system          optional system message template for the judge (built-in name or file)
  judge_input     what {generation} holds: "response" (the whole answer) or "last_boxed" (the raw
                  content of its last \\boxed{}, else the whole answer)
  strip_thinking  drop <think>/<thinking> blocks first; a block opened and never closed leaves no answer
  math_first      check with math-verify first; only a symbolic miss is sent to the judge
  math_options    options of that math check (timeout, workers)

The endpoint comes from the `judge` config group (judge=vllm|openai|nvidia|mock); gym.model.endpoints starts
or connects it and hands the verifier a ready client through `attach_judge`. When the judge cannot give
a verdict (transport errors or 5xx after its retries, a refused request, an empty reply, a reply cut before its verdict) `verify` raises JudgeUnavailable, which
collect records as an infra_error rollout: kept out of every score and redone by a resume, never scored 0.
A reply that holds no verdict the parser can read is a judge_error: a verifier_error whose error starts
with `judge_error:` (unscored; a resume or task=reverify asks the judge again), never a 0.

Several judges (`judges=[a, b, c]`, model names on judge.base_url or mappings of judge keys): each is asked,
each verdict is kept under details.judges, and the reward follows `judges_rule` (majority | unanimous | any |
mean; see panel_reward); aggregate reports their agreement (gym.metrics.agreement).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

from gym.core.errors import GymError
from gym.core.judge_prompts import CORRECT, FORMATS, INCORRECT, NOT_ATTEMPTED, literal_text, load_template
from gym.core.prompts import render
from gym.verifiers.base import JudgeUnavailable, Verdict, Verifier, VerifierError, expected_answer, last_boxed
from gym.core.answer_text import final_answer

log = logging.getLogger("gym.judge")

JUDGE_INPUTS = ("response", "last_boxed")
PANEL_RULES = ("majority", "unanimous", "any", "mean")


def panel_reward(correct_share: float, rule: str) -> float:
    """The reward from the share of judges that said correct: majority (a tie scores 0.5, what a random
    pick between the tied verdicts gives on average), unanimous, any, or the mean share itself."""
    if rule == "majority":
        return 1.0 if correct_share > 0.5 else 0.0 if correct_share < 0.5 else 0.5
    if rule == "unanimous":
        return float(correct_share == 1.0)
    if rule == "any":
        return float(correct_share > 0.0)
    return correct_share
_THINK_BLOCK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL)
_GENERATION_FIELD = re.compile(r"(?<!\{)\{generation\}(?!\})")


def strip_thinking(text: str) -> str:
    """The answer without <think>/<thinking> blocks; "" when a block was opened and never closed."""
    text = _THINK_BLOCK.sub("", text)
    for tag in ("think", "thinking"):
        if f"</{tag}>" in text:  # the opening tag was dropped upstream: everything before the close is thought
            text = text.rpartition(f"</{tag}>")[2]
        if f"<{tag}>" in text:  # cut mid-thought: there is no final answer
            return ""
    return text.strip()


class JudgeVerifier(Verifier):
    family = "judge"
    takes_panel = True  # judges=[...]: several judges per item, combined by judges_rule
    needs_judge = True  # collect attaches a judge endpoint to verifiers that say so
    OPTIONS = {"prompt": None, "parse": None, "system": None, "judge_input": "response", "strip_thinking": False,
               "math_first": False, "math_options": {}}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.options["parse"] is None:
            raise GymError(f"verifier 'judge': set option parse to one of {', '.join(FORMATS)}")
        self.format = FORMATS[self.choice_option("parse", FORMATS)]
        self.template, self.template_source = load_template(self.options["prompt"])
        self.system_template = load_template(self.options["system"])[0] if self.options["system"] else None
        shown = literal_text(self.template + "\n" + (self.system_template or ""))
        if self.format.marker not in shown:
            raise GymError(f"verifier 'judge': judge prompt {self.template_source} never mentions "
                           f"'{self.format.marker}', which parse={self.format.name} relies on")
        if not _GENERATION_FIELD.search(self.template + (self.system_template or "")):
            raise GymError(f"verifier 'judge': judge prompt {self.template_source} has no {{generation}} "
                           "placeholder, so the judge would never see the answer")
        self.judge_input = self.choice_option("judge_input", JUDGE_INPUTS)
        self.strip = self._flag("strip_thinking")
        self._math = None
        if self._flag("math_first"):
            math_options = self.options["math_options"] or {}
            if not isinstance(math_options, dict):
                raise GymError("verifier 'judge': option math_options must be a mapping")
            from gym.verifiers.math import MathVerifier

            self._math = MathVerifier(**math_options)
        self._client: Any = None  # a gym.model.client.ModelClient, handed in ready (verifiers sit below the model layer)
        self._seed: int | None = None
        self._panel: list[tuple[Any, int | None]] = []  # judges=[...]: (client, seed) per judge
        self._rule = "majority"

    def _flag(self, name: str) -> bool:
        value = self.options[name]
        if not isinstance(value, bool):
            raise GymError(f"verifier 'judge': option {name}={value!r} must be true or false")
        return value

    def attach_judge(self, client: Any, seed: int | None = None) -> None:
        self._client, self._seed = client, seed

    def messages(self, row: dict, gold: str, generation: str) -> list[dict[str, str]]:
        values = {**row, "expected_answer": gold, "generation": generation}
        where = "the task row (for the judge prompt)"
        messages = []
        if self.system_template:
            messages.append({"role": "system", "content": render(self.system_template, values, where)})
        messages.append({"role": "user", "content": render(self.template, values, where)})
        return messages

    def verify(self, row: dict, response: str) -> Verdict:
        gold = expected_answer(row)
        text = strip_thinking(response or "") if self.strip else (response or "").strip()
        details: dict[str, Any] = {"parse": self.format.name}
        symbolic = None
        if self._math is not None:
            symbolic = self._math.verify(row, text)
            details["math"] = symbolic.details
            if symbolic.reward >= 0.5:  # math-verify settles it: no judge call
                details.update(verdict=CORRECT, judged=False)
                return Verdict(1.0, symbolic.extracted_answer, details)
        if not text:
            silent = NOT_ATTEMPTED if self.format.name == "letter_abc" else INCORRECT
            details.update(verdict=silent, judged=False, judge_skipped="empty response")
            return Verdict(0.0, None, details)
        generation = text
        if self.judge_input == "last_boxed":
            boxed = last_boxed(text)
            generation = boxed if boxed is not None else text
        messages = self.messages(row, gold, generation)
        if self._panel:
            verdict, reward, panel_details = self._ask_panel(messages)
            details.update(panel_details, verdict=verdict, judged=True)
        else:
            reading, judge_details = self._ask(messages, self._client, self._seed)
            details.update(judge_details)
            details.update(verdict=reading.verdict, grade=reading.grade, verdict_found=reading.found, judged=True)
            verdict, reward = reading.verdict, 1.0 if reading.verdict == CORRECT else 0.0
        answer = final_answer(text)[0]
        if symbolic is not None and symbolic.extracted_answer:
            answer = symbolic.extracted_answer
        # "Not attempted" means no answer: it counts under no_answer and never wins a majority vote.
        extracted = None if verdict == NOT_ATTEMPTED else answer
        return Verdict(reward, extracted, details)

    def attach_panel(self, clients: list[tuple[Any, int | None]], rule: str) -> None:
        """Several judges (judges=[...]): each is asked, their verdicts combine by `rule` (PANEL_RULES)."""
        if rule not in PANEL_RULES:
            raise GymError(f"judges_rule={rule!r} is not one of {', '.join(PANEL_RULES)}")
        self._panel, self._rule = clients, rule

    def _ask_panel(self, messages: list[dict[str, str]]) -> tuple[str, float, dict[str, Any]]:
        """(verdict, reward, details) of the panel; details["judges"] lists each judge's verdict."""
        votes = []
        for client, seed in self._panel:
            reading, info = self._ask(messages, client, seed)
            votes.append({"model": info["judge_model"], "verdict": reading.verdict, "grade": reading.grade,
                          "output": info["judge_output"], "usage": info["judge_usage"]})
        correct = sum(vote["verdict"] == CORRECT for vote in votes) / len(votes)
        reward = panel_reward(correct, self._rule)
        counts = Counter(vote["verdict"] for vote in votes).most_common()
        verdict = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else "split"
        usage = {key: sum(int((v["usage"] or {}).get(key) or 0) for v in votes)
                 for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
        return verdict, reward, {"family": "judge_panel", "judges": votes, "judges_rule": self._rule,
                                 "judge_usage": usage, "judges_agree": len(counts) == 1}

    def _ask(self, messages: list[dict[str, str]], client: Any, seed: int | None):
        if client is None:
            raise GymError("verifier 'judge' has no judge endpoint; choose one with judge=vllm|openai|nvidia|mock")
        completion = client.complete(messages, seed=seed)
        details: dict[str, Any] = {
            "judge_model": client.model, "judge_output": completion.text,
            "judge_finish_reason": completion.finish_reason, "judge_attempts": completion.attempts,
            "judge_latency_s": completion.latency_s, "judge_usage": completion.usage,
        }
        if completion.reasoning:
            details["judge_reasoning"] = completion.reasoning
        if completion.from_cache:
            details["judge_cached"] = True
        if completion.status != "ok":
            what = "refused the request" if completion.status == "model_error" else "call failed"
            raise JudgeUnavailable(f"judge {what}: {completion.error}", details)
        text = completion.text or ""
        cut = completion.finish_reason == "length"
        if not text.strip():
            hint = " (cut at max_tokens; raise judge.sampling.max_tokens)" if cut else ""
            raise JudgeUnavailable(f"judge returned an empty reply{hint}", details)
        reading = self.format.read(text)
        if not reading.found and cut:
            raise JudgeUnavailable("judge reply was cut at max_tokens before its verdict; raise "
                                   "judge.sampling.max_tokens", details)
        if not reading.found:  # never a 0: unscored, and a resume or reverify asks the judge again
            raise VerifierError(f"judge_error: the reply of judge {client.model} holds no verdict "
                                f"(parse={self.format.name})", {**details, "judge_error": True})
        return reading, details

    def close(self) -> None:
        if self._math is not None:
            self._math.close()
