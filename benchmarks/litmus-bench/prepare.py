"""Litmus-Bench v0.1 (nvidia/Nemotron-RL-litmus-bench-v0.1, test.jsonl at a pinned revision): 482
molecular-property questions about ChEMBL molecules given as SMILES (counts of atoms, bonds and
functional groups; yes/no presence checks), answered directly, without tools.

Upstream keys used: responses_create_params.input (the chat messages; the prompt already says how to
write the answer), expected_answer (a number; integral for every v0.1 test row), property_type (count,
fragment, bool, presence), property, chembl_id, smiles, method ("direct"), use_box_format (true:
\\boxed{N}, false: ((N))), uuid. Prepared rows:

    {"question": <the messages' text>, "expected_answer": "13", "answer_kind": "count",
     "answer_wrapper": "boxed", "answer_template": "\\\\boxed{{answer}}",
     "metadata": {"property_type": "count", "property": ..., "chembl_id": ..., "smiles": ..., "uuid": ...,
                  "source_index": 0}}

System messages, if any, come first in the question, separated by a blank line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

REVISION = "dab852b1fd2085f60c49af85fcb7d58ead4bf1c1"
URL = f"https://huggingface.co/datasets/nvidia/Nemotron-RL-litmus-bench-v0.1/resolve/{REVISION}/test.jsonl"
KINDS = {"count": "count", "fragment": "count", "bool": "bool", "presence": "bool"}
TEMPLATES = {"boxed": "\\boxed{{answer}}", "double_paren": "(({answer}))"}


def _messages_text(params: Any) -> str | None:
    messages = params.get("input") if isinstance(params, dict) else None
    if not isinstance(messages, list) or not messages:
        return None
    parts = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            return None
        parts.append(content.strip())
    return "\n\n".join(part for part in parts if part) or None


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question = _messages_text(item.get("responses_create_params"))
    if question is None:
        return None, "responses_create_params.input must be a non-empty list of messages with string content"
    kind = KINDS.get(item.get("property_type"))
    if kind is None:
        return None, f"unsupported property_type {item.get('property_type')!r}"
    gold = item.get("expected_answer")
    if isinstance(gold, bool) or not isinstance(gold, (int, float)) or not math.isfinite(gold) or gold != int(gold):
        return None, f"expected_answer {gold!r} is not a whole number"
    if kind == "bool" and int(gold) not in (0, 1):
        return None, f"expected_answer {gold!r} is not 0 or 1 for a yes/no property"
    if item.get("method", "direct") != "direct":
        return None, f"method {item.get('method')!r}: only direct-answer rows are supported"
    wrapper = "boxed" if item.get("use_box_format") else "double_paren"
    return {
        "question": question, "expected_answer": str(int(gold)), "answer_kind": kind, "answer_wrapper": wrapper,
        "answer_template": TEMPLATES[wrapper],
        "metadata": {key: item.get(key) for key in ("property_type", "property", "chembl_id", "smiles", "uuid")}
        | {"source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, id_field="uuid"))


# -- the reference's other Litmus configs: ADME Tier-5 (three subsets) and the paired Tier 1/2 example -------
# Rows of these exports say themselves how to read the answer (output_regex, one capture group), its type
# (answer_type float | bool) and how to compare it (match: abs_window, rel_window, isclose, exact).
EXAMPLES = ("https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/df30df86b7d7a9c4fc35e9298ffbc7141b479b49/"
            "benchmarks/litmus-bench/data/examples/")
ADME_SUBSETS = {"direct": "adme_tier5_direct_sub10", "analogue": "adme_tier5_analogue_sub10",
                "comparison": "adme_tier5_comparison_sub10"}
# The reply shape each answer_format names (the reference's fmt_XX registry of answer wrappers): the answer
# as the prompt asks for it, kept as the row's answer_template.
FORMATS = {"fmt_00": "(({answer}))", "fmt_01": "(Answer: {answer})", "fmt_02": "Final answer: ({answer})",
           "fmt_03": "Answer is [{answer}]", "fmt_04": "[Answer: {answer}]", "fmt_05": "[[{answer}]]",
           "fmt_06": "Correct Answer: [{answer}]", "fmt_07": "\\boxed{{answer}}", "fmt_08": "\\boxed{{answer}}",
           "fmt_09": "{{{answer}}}", "fmt_10": "Answer Value: {{answer}}", "fmt_11": "<<{answer}>>",
           "fmt_12": "<<{answer}>>", "fmt_13": "<{answer}>", "fmt_14": "<Answer: {answer}>",
           "fmt_15": "<final_answer>{answer}</final_answer>", "fmt_16": "Final Answer: ||{answer}||",
           "fmt_17": "The answer is: |{answer}|", "fmt_18": "**Answer: {answer}**", "fmt_19": "**Final answer is: {answer}**",
           "fmt_20": "Answer: *{answer}*", "fmt_21": "## Answer: {answer} ##", "fmt_22": "ANSWER IS {answer}",
           "fmt_23": "Response: {answer}", "fmt_24": "Final Answer -> {answer}", "fmt_25": "Final value is: {answer}",
           "fmt_26": "Correct Answer >> {answer}", "fmt_27": "Answer Value: {answer}", "fmt_28": "Final Answer = {answer}",
           "fmt_29": "Correct answer is {answer}", "fmt_30": "Final Answer: {answer}"}
EXPORT_KEYS = ("property", "method", "uuid", "question_uuid", "pair_id", "tier", "smiles_1", "smiles_2",
               "source_id_1", "source_id_2")


def exported(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    """A row of the reference's Litmus exports (ADME Tier-5, Tier 1/2) as a typed row with a regex wrapper."""
    import re

    question = _messages_text(item.get("responses_create_params"))
    kind, gold, pattern = item.get("answer_type"), item.get("expected_answer"), item.get("output_regex")
    if question is None:
        return None, "responses_create_params.input must be a non-empty list of messages with string content"
    if kind not in ("float", "bool"):
        return None, f"unsupported answer_type {kind!r} (float or bool)"
    if isinstance(gold, bool) or not isinstance(gold, (int, float)) or not math.isfinite(gold):
        return None, f"expected_answer {gold!r} is not a number"
    if kind == "bool" and gold not in (0, 1):
        return None, f"expected_answer {gold!r} is not 0 or 1 for a bool answer"
    try:
        if not isinstance(pattern, str) or re.compile(pattern).groups != 1:
            return None, "output_regex must be a regex with exactly one capture group"
    except re.error as exc:
        return None, f"output_regex does not compile ({exc})"
    match = item.get("match")
    return {
        "question": question, "expected_answer": str(int(gold) if kind == "bool" else gold), "answer_kind": kind,
        "answer_wrapper": "regex", "answer_regex": pattern, "match": match,
        "answer_template": FORMATS.get(str(item.get("answer_format")), "{answer}"),
        "metadata": {key: item[key] for key in EXPORT_KEYS if key in item} | {"source_index": index},
    }, None


def adme_rows(ctx: PrepareContext, subset: str, source_dir: str | None, split: str) -> list[dict[str, Any]]:
    """One ADME Tier-5 subset: the reference's committed 10-row example, or a local export's
    <source_dir>/<subset dir>/nemo_gym_data/<split>.jsonl. A float row without a match rule can only score 0
    (no regression lands within 1e-6), so it is left out, as the reference does."""
    from gym.data import GymError

    if source_dir is None:
        raw = ctx.fetch(f"{EXAMPLES}adme-tier5-{subset}_example.jsonl")
    else:
        raw = Path(source_dir).expanduser() / ADME_SUBSETS[subset] / "nemo_gym_data" / f"{split}.jsonl"
        if not raw.is_file():
            raise GymError(f"litmus ADME {subset}: no export at {raw} (prepare_args.source_dir=<dir holding "
                           f"{ADME_SUBSETS[subset]}/nemo_gym_data/{split}.jsonl>)")
        ctx.sources.append(str(raw))
    items = ctx.read_jsonl(raw)
    scorable = ctx.leave_out(items, lambda item: item.get("answer_type") != "float" or bool(item.get("match")),
                             "float answer without a match rule (scores 0 whatever the model says)")
    return ctx.convert_rows(raw, scorable, exported, id_field="uuid")


def tier12_rows(ctx: PrepareContext, methods: list[str]) -> list[dict[str, Any]]:
    """The paired Tier 1/2 example: each question once answered directly and once with a Python tool
    (method mcp-python). gym runs the direct arm; the tool arm's rows are left out unless asked for."""
    from gym.data import GymError

    unknown = sorted(set(methods) - {"direct"})
    if unknown:
        raise GymError(f"litmus tier12: methods {unknown} need the reference's sandboxed Python tool with RDKit, "
                       "which gym does not run yet; use methods=[direct]")
    raw = ctx.fetch(f"{EXAMPLES}litmus-tier12-paired_example.jsonl")
    items = ctx.leave_out(ctx.read_jsonl(raw), lambda item: item.get("method") in methods,
                          "tool arm (mcp-python): needs a sandboxed Python tool with RDKit")
    return ctx.convert_rows(raw, items, exported, id_field="uuid")
