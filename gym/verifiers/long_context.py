"""long_context: deterministic scoring of long-context tasks (graphwalks, mrcr, ruler, ruler2, longbench_v2).

Option `match`:
  node_f1         graphwalks: the reply's last non-empty line must hold "Final Answer: [n1, n2, ...]";
                  reward is the F1 between that node set and the gold list (JSON list in
                  expected_answer). Both empty scores 1, no such line scores 0. Unlike the reference,
                  quotes around node names ("['a', 'b']") are dropped before comparing: the reference keeps
                  them, so a correctly quoted list scores 0.
  prefix_ratio    mrcr: the reply must start with the row's `random_string_to_prepend`, else 0; otherwise
                  difflib's SequenceMatcher ratio between reply and gold with that prefix removed from both.
  substring_all   ruler: fraction of the gold strings (expected_answer: JSON list or one string) found in
                  the reply, case-insensitive.
  substring_any   ruler qa tasks: 1 when any gold string is found.
  row_match       ruler: per row, substring_all when its match_type is "all", substring_any when "part"
                  (RULER's own choice per task: "part" for qa_1 and qa_2).
  choice_boxed    longbench_v2: the letter inside the reply's last \\boxed{} must equal the gold letter.
  ruler2          ruler2: per row by its eval_type and match_type, RULER v2's soft match (substring or
                  1 - WER) or its answer letter (gym.verifiers.ruler2_match).

Per-length results (prompt size buckets, with the context-length refusals that the endpoint turns into
`model_error` rollouts) are added by aggregate (`family_metrics`, below).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from difflib import SequenceMatcher
from typing import Any

from gym.core.errors import GymError
from gym.core.images import content_text
from gym.verifiers.base import (FamilyStats, Verdict, Verifier, ci_text, expected_answer, last_boxed, nfkc,
                               peel_wrappers)

MATCHES = ("node_f1", "prefix_ratio", "substring_all", "substring_any", "row_match", "choice_boxed", "ruler2")
ROW_MATCH = {"all": "substring_all", "part": "substring_any"}
_FINAL_ANSWER = re.compile(r"Final Answer:\s*\[(.*)\]")
_PREPEND = re.compile(r"\bPrepend (\S+) to\b")  # MRCR: the reply must open with a random prefix
_QUOTES = "\"'`"


def parse_nodes(response: str) -> list[str] | None:
    """Node names from "Final Answer: [...]" on the last non-empty line; None when the line is missing."""
    lines = [line for line in (response or "").strip().split("\n") if line.strip()]
    if not lines:
        return None
    match = _FINAL_ANSWER.search(lines[-1])
    if not match:
        return None
    items = (item.strip().strip(_QUOTES).strip() for item in match.group(1).split(","))
    return [item for item in items if item]


def node_f1(predicted: set[str], gold: set[str]) -> float:
    if not predicted and not gold:
        return 1.0
    common = len(predicted & gold)
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def prefix_ratio(response: str, gold: str, prefix: str) -> float:
    if not response.startswith(prefix):
        return 0.0
    return float(SequenceMatcher(None, response.removeprefix(prefix), gold.removeprefix(prefix)).ratio())


def gold_strings(row: dict) -> list[str]:
    value = row.get("expected_answer")
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    values = value if isinstance(value, list) else [value]
    golds = [str(v) for v in values if v is not None and str(v).strip()]
    if not golds:
        expected_answer({"expected_answer": None})  # raises the standard missing-answer error
    return golds


class LongContextVerifier(Verifier):
    family = "long_context"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    OPTIONS = {"match": None}

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        """MRCR's reply must open with the prefix its prompt names; graphwalks asks for a node list."""
        prepend = _PREPEND.search(prompt)
        if prepend and final.startswith(prepend.group(1)):
            return final
        if "Final Answer: [" not in prompt:
            return None
        try:
            nodes = json.loads(final)
            shown = "[" + ", ".join(map(str, nodes)) + "]" if isinstance(nodes, list) else final
        except json.JSONDecodeError:
            shown = final
        return f"{opener}\n\nFinal Answer: {shown}"

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        """pass@1 per prompt-size bucket (estimated tokens = characters / 4, buckets up to 4k, 8k, ..., 1M),
        each with its 95% CI, task count and the number of `model_error` rollouts (context refusals);
        buckets come from the rollout's own prompt, so refusals are placed too."""
        order = {name: i for i, (_, name) in enumerate(BUCKETS)}
        by_bucket = stats.per_task(rows, prompt_bucket)
        refusals = Counter(prompt_bucket(r) for r in rows if r["status"] == "model_error")
        buckets = {}
        for name in sorted(by_bucket, key=lambda n: order.get(n, len(order))):
            buckets[name] = {**stats.mean_ci(by_bucket[name]), "tasks": len(by_bucket[name]),
                             "model_error": refusals.get(name, 0)}
        return {"by_prompt_size": buckets, "bucket_rule": "estimated tokens = prompt characters / 4"}

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        return "by prompt size: " + ", ".join(f"{name} {ci_text(b)} (n={b['tasks']}, model_error {b['model_error']})"
                                              for name, b in entry["family_metrics"]["by_prompt_size"].items())

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.options["match"] is None:
            raise GymError(f"verifier 'long_context': set option match to one of {', '.join(MATCHES)}")
        self.match = self.choice_option("match", MATCHES)

    def verify(self, row: dict, response: str) -> Verdict:
        text = response or ""
        details: dict[str, Any] = {"family": "long_context", "match": self.match}
        if self.match == "node_f1":
            try:
                gold = {str(node) for node in json.loads(expected_answer(row))}
            except (json.JSONDecodeError, TypeError):
                raise GymError(f"graphwalks row has an expected_answer that is not a JSON list: "
                               f"{row.get('expected_answer')!r}; re-run task=prepare") from None
            nodes = parse_nodes(text)
            details["parse_failed"] = nodes is None
            if nodes is None:
                return Verdict(0.0, None, details)
            reward = node_f1(set(nodes), gold)
            return Verdict(reward, json.dumps(sorted(set(nodes))), details)
        if self.match == "prefix_ratio":
            prefix = str(row.get("random_string_to_prepend") or "")
            reply = text.strip()
            details["prefix_matched"] = reply.startswith(prefix)
            reward = prefix_ratio(reply, expected_answer(row), prefix)
            return Verdict(reward, reply[:200] if reply else None, details)
        if self.match == "ruler2":
            from gym.verifiers.ruler2_match import ruler2_verdict

            return ruler2_verdict(row, text)
        if self.match == "choice_boxed":
            boxed = last_boxed(text)
            letter = peel_wrappers(nfkc(boxed)).strip().strip("()").upper() if boxed is not None else None
            letter = letter if letter and len(letter) == 1 and letter.isalpha() else None
            return Verdict(1.0 if letter == expected_answer(row).strip().upper() else 0.0, letter, details)
        match = self.match
        if match == "row_match":
            match = ROW_MATCH.get(row.get("match_type"))
            if match is None:
                raise GymError(f"row {row.get('id')!r}: match_type {row.get('match_type')!r} is not all or part; "
                               f"re-run task=prepare")
        golds = gold_strings(row)
        lowered = text.strip().lower()
        found = [gold.lower() in lowered for gold in golds]
        details["found"] = sum(found)
        reward = sum(found) / len(found) if match == "substring_all" else float(any(found))
        return Verdict(reward, text.strip()[:200] or None, details)


BUCKETS = ((4_000, "<=4k"), (8_000, "<=8k"), (16_000, "<=16k"), (32_000, "<=32k"), (64_000, "<=64k"),
           (128_000, "<=128k"), (256_000, "<=256k"), (512_000, "<=512k"), (1_000_000, "<=1M"))


def prompt_bucket(row: dict) -> str:
    """The prompt-size bucket of a rollout (estimated tokens = characters / 4)."""
    prompt = row.get("prompt")
    messages = prompt if isinstance(prompt, list) else [{"content": prompt}]
    chars = sum(len(content_text(m.get("content"))) if isinstance(m, dict) else len(str(m)) for m in messages)
    tokens = chars / 4
    return next((name for edge, name in BUCKETS if tokens <= edge), ">1M")
