"""ProofBench as a judging task (wenjiema02/ProofBench, train split): the model reads an olympiad problem
and a model-written proof and answers "Judgement: Yes" (correct) or "Judgement: No".

Upstream parquet (`data/train-00000-of-00001.parquet`) columns: problem_id, problem, model_solution,
marking_scheme, reference_solution, expert_rating (0-7), generator, ... The gold label is Yes when the
expert rating is at least 6, as the reference sets it; rows are shuffled with Python's random.seed(42)
as the reference does. Then, as the reference, proofs over 10,000 tokens of Qwen/Qwen3-0.6B's tokenizer are
left out (prepare_args.tokenizer / max_proof_tokens, counted by gym.data.tokens: the model's tokenizer.json,
no special tokens, which that tokenizer does not add); tokenizer=null keeps every proof. Prepared rows:

    {"question": "Problem: ...\\n\\nProof: ...", "problem", "proof", "rubric", "reference_solution",
     "expected_answer": "Yes" | "No", "id": <problem_id>-<index>,
     "metadata": {"problem_id", "generator", "expert_rating", "subset": <gold label>, "source_index"}}
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/wenjiema02/ProofBench/resolve/main/data/train-00000-of-00001.parquet"
QUESTION = "Problem:\n{problem}\n\nProof:\n{proof}"
PASS_RATING = 6
TOKENIZER = "Qwen/Qwen3-0.6B"  # the reference's length filter: proofs of at most 10,000 of its tokens
MAX_PROOF_TOKENS = 10_000


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, proof = str(item.get("problem") or "").strip(), str(item.get("model_solution") or "").strip()
    rating = item.get("expert_rating")
    if not problem or not proof:
        return None, "missing 'problem' or 'model_solution'"
    if isinstance(rating, bool) or not isinstance(rating, (int, float)):
        return None, f"'expert_rating' {rating!r} is not a number"
    label = "Yes" if rating >= PASS_RATING else "No"
    return {
        "question": QUESTION.format(problem=problem, proof=proof), "problem": problem, "proof": proof,
        "rubric": str(item.get("marking_scheme") or "").strip(),
        "reference_solution": str(item.get("reference_solution") or "").strip(),
        "expected_answer": label, "id": f"{item.get('problem_id')}-{index}",
        "metadata": {"problem_id": item.get("problem_id"), "generator": item.get("generator"), "expert_rating": rating,
                     "subset": label, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, tokenizer: str | None = TOKENIZER,
            max_proof_tokens: int | None = MAX_PROOF_TOKENS) -> Path:
    raw = ctx.fetch(URL)
    items = ctx.read_parquet(raw, required=["problem", "model_solution", "expert_rating"], layout="ProofBench")
    rows = ctx.convert_rows(raw, items, convert, label="row")
    random.Random(42).shuffle(rows)  # the reference's order (random.seed(42); random.shuffle)
    keep = token_cap(ctx, tokenizer, max_proof_tokens, lambda row: [row["proof"]]) if tokenizer else None
    return ctx.write_rows([row for row in rows if keep(row)] if keep else rows)
