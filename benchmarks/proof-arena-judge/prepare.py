"""Proof-Arena-Judge: the model judges whether an olympiad proof (IMO, USAMO and IMC 2025, written by models)
is correct and ends with "Judgement: Yes" or "Judgement: No"; the gold verdict comes from MathArena's human
graders.

Upstream files (the reference's pins):
  - MathArena/imo_2025 (parquet: problem_idx, problem, grading_scheme [{desc, points, ...}]);
  - MathArena/{imo,usamo,imc}_2025_outputs at pinned revisions (parquet: problem_idx, problem, answer,
    model_name, points_judge_1, points_judge_2, grading_details_judge_1 [{grading_scheme_desc, ...}], ...);
  - OpenAI's five IMO 2025 proofs (aw31/openai-imo-2025-proofs, problem_<i>.txt) and Gemini's five (the
    reference's benchmarks/proof-arena-judge/gemini_imo_2025/<i>.txt), all gold Yes.
A graded output is Yes when both judges gave 7/7 (IMC: 10/10), No when both gave under 6 (IMC: judge 1
under 8), and left out in between, as the reference does. The answer's reasoning before </think> is cut;
rows are shuffled with Python's random.seed(42), in the reference's order (OpenAI, Gemini, USAMO, IMO,
IMC). Then, as the reference, proofs over 10,000 tokens of Qwen/Qwen3-0.6B's tokenizer are left out
(prepare_args.tokenizer / max_proof_tokens; its tokenizer.json is fetched like any upstream file and read
with the tokenizers library; the tokenizer adds no special tokens, so the count is the reference's
len(tokenizer.encode(proof))); tokenizer=null keeps every proof. Prepared rows:

    {"question": "### Problem Statement:\\n...\\n\\n### Model Solution:\\n...", "problem", "proof", "rubric",
     "expected_answer": "Yes" | "No", "metadata": {"source", "problem_idx", "model_id", "subset": <gold>}}
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

HF = "https://huggingface.co/datasets/MathArena"
PARQUET = "data/train-00000-of-00001.parquet"
IMO_PROBLEMS = f"{HF}/imo_2025/resolve/main/{PARQUET}"
OUTPUTS = {"usamo": f"{HF}/usamo_2025_outputs/resolve/0fafbf629a32/{PARQUET}",
           "imo": f"{HF}/imo_2025_outputs/resolve/d995fc906b58/{PARQUET}",
           "imc": f"{HF}/imc_2025_outputs/resolve/d4f93c209272/{PARQUET}"}
OPENAI_PROOF = "https://raw.githubusercontent.com/aw31/openai-imo-2025-proofs/main/problem_{}.txt"
GEMINI_PROOF = ("https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/a2fbe87435a92ec604cec6e6bf9c3d4223577a04/"
                "benchmarks/proof-arena-judge/gemini_imo_2025/{}.txt")
TOKENIZER = "Qwen/Qwen3-0.6B"  # the reference's length filter: proofs of at most 10,000 of its tokens
MAX_PROOF_TOKENS = 10_000
QUESTION = "### Problem Statement:\n{problem}\n\n### Model Solution:\n{proof}"
OUTPUT_COLUMNS = ["problem_idx", "problem", "answer", "model_name", "points_judge_1", "points_judge_2",
                  "grading_details_judge_1"]


def rubric(scheme: Any, key: str) -> str | None:
    if not isinstance(scheme, list) or not all(isinstance(part, dict) and isinstance(part.get(key), str)
                                               for part in scheme):
        return None
    return "\n".join(f"- {part[key]}" for part in scheme)


def row(problem: str, proof: str, scheme: str, verdict: str, source: str, index: Any, model: Any) -> dict:
    problem, proof = problem.strip(), proof.strip()
    return {"question": QUESTION.format(problem=problem, proof=proof), "problem": problem, "proof": proof,
            "rubric": scheme, "expected_answer": verdict,
            "metadata": {"source": source, "problem_idx": index, "model_id": model, "subset": verdict}}


def verdict(source: str, item: dict) -> str | None:
    """The gold verdict of a graded output, or None when its points fall between the two cuts."""
    first, second = item["points_judge_1"], item.get("points_judge_2")
    if source == "imc":
        return "No" if first < 8 else "Yes" if first == 10 else None
    second = first if second is None else second
    return "No" if first < 6 and second < 6 else "Yes" if first == 7 and second == 7 else None


def graded_rows(ctx: PrepareContext, source: str) -> list[dict]:
    raw = ctx.fetch(OUTPUTS[source])
    rows = []
    for index, item in enumerate(ctx.read_parquet(raw, OUTPUT_COLUMNS, required=OUTPUT_COLUMNS[:6],
                                                  layout=f"MathArena {source}_2025_outputs")):
        where = f"{raw}: row {index}"
        scheme = rubric(item.get("grading_details_judge_1"), "grading_scheme_desc")
        points = [item.get("points_judge_1"), item.get("points_judge_2")]
        if (scheme is None or not isinstance(item.get("problem"), str) or not isinstance(item.get("answer"), str)
                or not isinstance(points[0], (int, float)) or not isinstance(points[1], (int, float, type(None)))):
            ctx.bad_row(where, "needs problem, answer, numeric points_judge_1 and grading_details_judge_1")
            continue
        gold = verdict(source, item)
        if gold is None:
            ctx.leave_out_row("points between the Yes and No cuts (neither clearly right nor wrong)")
            continue
        ctx.keep(rows, (row(item["problem"], item["answer"].split("</think>")[-1], scheme, gold, source,
                            item["problem_idx"], item["model_name"]), None), where)
    return rows


def vendor_rows(ctx: PrepareContext) -> list[dict]:
    """The ten IMO 2025 proofs of OpenAI's and Gemini's models, gold Yes, with the problems' rubrics."""
    raw = ctx.fetch(IMO_PROBLEMS)
    problems = {int(item["problem_idx"]): item for item in ctx.read_parquet(
        raw, ["problem_idx", "problem", "grading_scheme"], required=["problem_idx", "problem", "grading_scheme"],
        layout="MathArena imo_2025")}
    rows = []
    for source, url in (("openai_imo", OPENAI_PROOF), ("gemini_imo", GEMINI_PROOF)):
        for number in range(1, 6):
            problem = problems.get(number)
            scheme = rubric(problem.get("grading_scheme"), "desc") if problem else None
            if scheme is None:
                raise GymError(f"{raw}: problem {number} is missing or has no grading_scheme descriptions")
            proof = ctx.fetch(url.format(number)).read_text(encoding="utf-8")
            ctx.keep(rows, (row(problem["problem"], proof, scheme, "Yes", source, number, source), None), url)
    return rows


def prepare(ctx: PrepareContext, tokenizer: str | None = TOKENIZER,
            max_proof_tokens: int | None = MAX_PROOF_TOKENS) -> Path:
    rows = vendor_rows(ctx)
    for source in OUTPUTS:
        rows += graded_rows(ctx, source)
    random.Random(42).shuffle(rows)  # the reference's order (random.seed(42); random.shuffle)
    keep = token_cap(ctx, tokenizer, max_proof_tokens, lambda item: [item["proof"]]) if tokenizer else None
    return ctx.write_rows([item for item in rows if keep(item)] if keep else rows)
