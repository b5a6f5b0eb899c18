"""UGPhysics (UGPhysics/ugphysics): 5,520 undergraduate physics problems in 13 subjects (split `en`;
`zh` holds the Chinese translations), with worked solutions and final answers.

One config per subject, read from Hugging Face's parquet conversion (<Subject>/en/0000.parquet);
columns index, domain, subject, topic, problem, solution, answers, answer_type, unit,
is_multiple_answer, language, level. Prepared rows:

    {"question": <problem>, "expected_answer": <answers, \\boxed{} removed, joined with ", ">,
     "reference_solution": <solution>,
     "metadata": {"subject": "Thermodynamics", "topic": ..., "level": ..., "answer_type": ...,
                  "is_multiple_answer": false, "index": 3, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.multilingual import chosen_languages, hf_converted_parquet
from gym.verifiers.base import last_boxed

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

REPO = "UGPhysics/ugphysics"
SUBJECTS = ("AtomicPhysics", "ClassicalElectromagnetism", "ClassicalMechanics", "Electrodynamics", "GeometricalOptics",
            "QuantumMechanics", "Relativity", "SemiconductorPhysics", "Solid-StatePhysics", "StatisticalMechanics",
            "TheoreticalMechanics", "Thermodynamics", "WaveOptics")


def _unbox(text: str) -> str:
    text = str(text).strip()
    inner = last_boxed(text) if text.startswith("\\boxed") else None
    return (inner if inner is not None else text).strip().strip("$").strip()


def gold_answer(answers: Any) -> str:
    values = answers if isinstance(answers, (list, tuple)) else [answers]
    return ", ".join(part for part in (_unbox(value) for value in values if value is not None) if part)


def convert(item: dict[str, Any], index: int, subject: str) -> tuple[dict[str, Any] | None, str | None]:
    problem = item.get("problem")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    gold = gold_answer(item.get("answers"))
    if not gold:
        return None, "missing 'answers'"
    solution = item.get("solution")
    return {
        "question": problem.strip(), "expected_answer": gold,
        "reference_solution": solution.strip() if isinstance(solution, str) else "",
        "metadata": {"subject": item.get("subject") or subject, "topic": item.get("topic"), "level": item.get("level"),
                     "answer_type": item.get("answer_type"), "is_multiple_answer": item.get("is_multiple_answer"),
                     "index": item.get("index"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext, subjects: list[str] | None = None) -> Path:
    rows = []
    for subject in chosen_languages(subjects, SUBJECTS, "ugphysics (subjects)"):
        raw = ctx.fetch(hf_converted_parquet(REPO, subject, "en"))
        items = ctx.read_parquet(raw, required=("problem", "answers"), layout=f"{REPO} ({subject})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, subject), id_field="index"))
    return ctx.write_rows(rows)
