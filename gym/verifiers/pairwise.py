"""pairwise: an LLM judge compares the answer with a baseline answer, in both orders (Arena-Hard).

Rows carry `question`, `baseline_answer` and optionally `category` (arena-hard v2: hard_prompt /
creative_writing, each with its own judge prompt). The judge sees the two answers twice, once with the
model's answer as assistant A and once as assistant B, and ends each reply with one label
[[A>>B]] / [[A>B]] / [[A=B]] / [[B>A]] / [[B>>A]]. A reply is read as the reference does: the labels in
it must all be the same one (else the game is invalid).

Each valid game gives the model 1 (it is better, slightly or significantly), 0.5 (tie) or 0 (worse);
the reward is the mean over the valid games, so `pass@1` is the win rate against the baseline with ties
counted as half. The reference rewards only the first order (model as A) and counts a tie as a loss,
which leaves the judge's position bias in the score; gym uses both orders as arena-hard-auto does.
When neither game has a valid label the rollout is a verifier_error (VerifierError); a judge that does
not answer at all is an infra_error (JudgeUnavailable), as for the judge family.

Options: prompts (category -> built-in name under gym/core/judge_prompts/pairwise/ or a template file with
{question}, {answer_a}, {answer_b}), default_category, strip_thinking.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.judge_prompts import TEMPLATE_DIR
from gym.core.prompts import render
from gym.verifiers.base import FamilyStats, Verdict, Verifier, VerifierError, ci_text, details_of
from gym.verifiers.judge import JudgeUnavailable, strip_thinking

PROMPT_DIR = TEMPLATE_DIR / "pairwise"
LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
_LABEL = re.compile(r"\[\[([AB<>=]+)\]\]")
# score of the model's answer for a label, by the side the model's answer is on
SCORE_AS_A = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}
SCORE_AS_B = {"A>>B": 0.0, "A>B": 0.0, "A=B": 0.5, "B>A": 1.0, "B>>A": 1.0}


def parse_label(text: str | None) -> str | None:
    """The one verdict label of a judge reply; None when there is none, several differ, or it is unknown."""
    found = {match for match in _LABEL.findall(text or "") if match}
    if len(found) != 1:
        return None
    label = next(iter(found))
    return label if label in LABELS else None


def outcome(reward: float) -> str:
    return "win" if reward > 0.5 else "tie" if reward == 0.5 else "loss"


def load_prompt(spec: str) -> str:
    path = PROMPT_DIR / f"{spec}.txt"
    if not (re.fullmatch(r"[A-Za-z0-9_\-]+", spec) and path.is_file()):
        path = Path(spec).expanduser()
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PROMPT_DIR.glob("*.txt")))
        raise GymError(f"verifier 'pairwise': prompt '{spec}' is neither a built-in pairwise prompt ({known}) nor a file")
    text = path.read_text(encoding="utf-8")
    for field in ("{question}", "{answer_a}", "{answer_b}"):
        if field not in text:
            raise GymError(f"verifier 'pairwise': prompt {path} lacks the {field} placeholder")
    return text


class PairwiseVerifier(Verifier):
    family = "pairwise"
    needs_judge = True
    OPTIONS = {"prompts": {"hard_prompt": "arena", "creative_writing": "arena_creative"},
               "default_category": "hard_prompt", "strip_thinking": True}

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        return pairwise_metrics(rows, stats)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        return f"win rate vs baseline {ci_text(entry['family_metrics']['win_rate'])} (ties half, bootstrap CI)"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        prompts = self.options["prompts"]
        if not isinstance(prompts, dict) or not prompts:
            raise GymError("verifier 'pairwise': option prompts must map a category to a judge prompt")
        self.templates = {str(category): load_prompt(str(spec)) for category, spec in prompts.items()}
        self.default = str(self.options["default_category"])
        if self.default not in self.templates:
            raise GymError(f"verifier 'pairwise': default_category '{self.default}' is not one of "
                           f"{', '.join(self.templates)}")
        self._client = None
        self._seed: int | None = None

    def attach_judge(self, client: Any, seed: int | None = None) -> None:
        self._client, self._seed = client, seed

    def _game(self, template: str, question: str, answer_a: str, answer_b: str) -> tuple[str | None, dict]:
        if self._client is None:
            raise GymError("verifier 'pairwise' has no judge endpoint; choose one with judge=vllm|openai|nvidia|mock")
        values = {"question": question, "answer_a": answer_a, "answer_b": answer_b}
        content = render(template, values, "the pairwise judge prompt")
        completion = self._client.complete([{"role": "user", "content": content}], seed=self._seed)
        info = {"judge_output": completion.text, "finish_reason": completion.finish_reason,
                "attempts": completion.attempts, **({"cached": True} if completion.from_cache else {})}
        if completion.status != "ok":
            what = "refused the request" if completion.status == "model_error" else "call failed"
            raise JudgeUnavailable(f"judge {what}: {completion.error}", info)
        return parse_label(completion.text), info

    def verify(self, row: dict, response: str) -> Verdict:
        baseline = row.get("baseline_answer")
        if not isinstance(baseline, str) or not baseline.strip():
            raise GymError("task row has no baseline_answer; re-run task=prepare for this benchmark")
        category = str(row.get("category") or self.default)
        template = self.templates.get(category, self.templates[self.default])
        answer = strip_thinking(response or "") if self.options["strip_thinking"] else (response or "").strip()
        details: dict[str, Any] = {"family": "pairwise", "category": category}
        if not answer:
            details.update(judge_skipped="empty answer", games=[], outcome="loss")
            return Verdict(0.0, "loss", details)
        question = str(row.get("question") or "")
        first, first_info = self._game(template, question, answer, baseline)
        second, second_info = self._game(template, question, baseline, answer)
        details.update(label_model_first=first, label_model_second=second, games=[first_info, second_info],
                       judge_model=getattr(self._client, "model", None))
        scores = ([SCORE_AS_A[first]] if first else []) + ([SCORE_AS_B[second]] if second else [])
        if not scores:
            raise VerifierError("the judge gave no valid [[A>B]]-style label in either order", details)
        reward = sum(scores) / len(scores)
        consistent = len(scores) == 2 and scores[0] == scores[1]
        details.update(outcome=outcome(reward), valid_games=len(scores),
                       scores={"consistent_win": 1.0 if consistent and reward == 1.0 else 0.0})
        return Verdict(reward, outcome(reward), details)


def pairwise_metrics(rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
    """`win_rate` (percent; ties count half, both judge orders) with a 95% bootstrap CI over tasks (2,000
    resamples, seed 0), the same per `category`, the share of wins / ties / losses, the label distribution of
    each order and the number of games without a valid label. The reference reports no style- or
    length-controlled win rate, so none is computed here."""
    ok = [r for r in rows if r["status"] == "ok"]
    outcomes = Counter(details_of(r).get("outcome") for r in ok)
    first = Counter(details_of(r).get("label_model_first") or "invalid" for r in ok if details_of(r).get("games"))
    second = Counter(details_of(r).get("label_model_second") or "invalid" for r in ok if details_of(r).get("games"))
    by_category = stats.per_task(rows, lambda r: details_of(r).get("category") or "-")
    return {
        "win_rate": stats.bootstrap_ci(stats.per_task(rows)[None]),
        "win_rate_by_category": {str(c): {**stats.bootstrap_ci(v), "tasks": len(v)}
                                 for c, v in sorted(by_category.items())},
        "outcomes": {name: outcomes.get(name, 0) for name in ("win", "tie", "loss")},
        "labels_model_as_a": dict(first), "labels_model_as_b": dict(second),
        "invalid_games": sum(2 - int(details_of(r).get("valid_games", 2)) for r in ok if details_of(r).get("games")),
        "method": "ties count half; both judge orders; 95% percentile bootstrap over tasks",
    }
