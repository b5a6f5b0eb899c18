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

from gym.data import chosen_languages, hf_converted_parquet, joined_answers, stripped_text, text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "UGPhysics/ugphysics"
SUBJECTS = ("AtomicPhysics", "ClassicalElectromagnetism", "ClassicalMechanics", "Electrodynamics", "GeometricalOptics",
            "QuantumMechanics", "Relativity", "SemiconductorPhysics", "Solid-StatePhysics", "StatisticalMechanics",
            "TheoreticalMechanics", "Thermodynamics", "WaveOptics")


def gold_answer(answers: Any) -> str:
    return joined_answers(answers if isinstance(answers, (list, tuple)) else [answers])


def convert(item: dict[str, Any], index: int, subject: str) -> tuple[dict[str, Any] | None, str | None]:
    return text_row({**item, "answers": gold_answer(item.get("answers"))}, index, ("problem", "answers"),
                    reference_solution=stripped_text(item, "solution"),
                    metadata={"subject": item.get("subject") or subject,
                              **{key: item.get(key) for key in ("topic", "level", "answer_type",
                                                                "is_multiple_answer", "index")}})


def prepare(ctx: PrepareContext, subjects: list[str] | None = None) -> Path:
    rows = []
    for subject in chosen_languages(subjects, SUBJECTS, "ugphysics (subjects)"):
        raw = ctx.fetch(hf_converted_parquet(REPO, subject, "en"))
        items = ctx.read_parquet(raw, required=("problem", "answers"), layout=f"{REPO} ({subject})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, subject), id_field="index"))
    return ctx.write_rows(rows)
