"""MMLU (Hendrycks et al.): 14,042 four-choice test questions over 57 subjects, from the original
Berkeley release https://people.eecs.berkeley.edu/~hendrycks/data.tar.

The tar holds `data/{dev,val,test}/<subject>_<split>.csv` (plus auxiliary_train/). The CSVs have no
header; each record is: question, A, B, C, D, answer letter. Subjects are read in alphabetical order,
records in file order. Prepared rows:

    {"question": ..., "options": {"A": ..., "B": ..., "C": ..., "D": ...}, "expected_answer": "B",
     "metadata": {"subject": "abstract_algebra", "subcategory": "math", "category": "stem",
                  "uuid": ..., "row_in_subject": 0}}

SUBJECTS (subject -> subcategory) and CATEGORIES (subcategory -> category) are Hendrycks' own grouping
from the MMLU repository; mmlu-redux and mmmlu read them from this file.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tarfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://people.eecs.berkeley.edu/~hendrycks/data.tar"
SPLITS = ("test", "val", "dev")
LETTERS = ("A", "B", "C", "D")

_GROUPS = {  # subcategory -> its subjects
    "math": "abstract_algebra college_mathematics elementary_mathematics high_school_mathematics "
            "high_school_statistics",
    "health": "anatomy clinical_knowledge college_medicine human_aging medical_genetics nutrition "
              "professional_medicine virology",
    "physics": "astronomy college_physics conceptual_physics high_school_physics",
    "business": "business_ethics management marketing",
    "biology": "college_biology high_school_biology",
    "chemistry": "college_chemistry high_school_chemistry",
    "computer science": "college_computer_science computer_security high_school_computer_science machine_learning",
    "economics": "econometrics high_school_macroeconomics high_school_microeconomics",
    "engineering": "electrical_engineering",
    "philosophy": "formal_logic logical_fallacies moral_disputes moral_scenarios philosophy world_religions",
    "other": "global_facts miscellaneous professional_accounting",
    "history": "high_school_european_history high_school_us_history high_school_world_history prehistory",
    "geography": "high_school_geography",
    "politics": "high_school_government_and_politics public_relations security_studies us_foreign_policy",
    "psychology": "high_school_psychology professional_psychology",
    "culture": "human_sexuality sociology",
    "law": "international_law jurisprudence professional_law",
}
SUBJECTS: dict[str, str] = dict(sorted((s, group) for group, names in _GROUPS.items() for s in names.split()))
CATEGORIES: dict[str, str] = {
    **dict.fromkeys(["physics", "chemistry", "biology", "computer science", "math", "engineering"], "stem"),
    **dict.fromkeys(["history", "philosophy", "law"], "humanities"),
    **dict.fromkeys(["politics", "culture", "economics", "geography", "psychology"], "social_sciences"),
    **dict.fromkeys(["other", "business", "health"], "other"),
}


def subject_metadata(subject: str) -> dict[str, str | None]:
    subcategory = SUBJECTS.get(subject)
    return {"subject": subject, "subcategory": subcategory, "category": CATEGORIES.get(subcategory or "", "other")}


def row_uuid(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, json.dumps(parts, ensure_ascii=False)))


def convert(record: list[str], subject: str, index: int) -> tuple[dict[str, Any] | None, str | None]:
    if len(record) != 6:
        return None, f"expected 6 fields (question, A, B, C, D, answer), got {len(record)}"
    question, *choices, answer = record
    if not question.strip():
        return None, "empty question"
    gold = answer.strip().upper()
    if gold not in LETTERS:
        return None, f"answer {answer!r} is not one of A-D"
    return {
        "question": question.strip(),
        "options": dict(zip(LETTERS, (choice.strip() for choice in choices))),
        "expected_answer": gold,
        "metadata": {**subject_metadata(subject), "uuid": row_uuid(subject, question.strip(), gold),
                     "row_in_subject": index},
    }, None


def subject_files(archive: tarfile.TarFile, split: str) -> dict[str, tarfile.TarInfo]:
    """Subject -> member for data/<split>/<subject>_<split>.csv, whatever the tar's top folder is called."""
    pattern = re.compile(rf"(?:^|/){re.escape(split)}/([a-z_]+)_{re.escape(split)}\.csv$")
    found = {}
    for member in archive.getmembers():
        match = pattern.search(member.name)
        if member.isfile() and match:
            found[match.group(1)] = member
    return dict(sorted(found.items()))


def prepare(ctx: PrepareContext, split: str = "test") -> Path:
    """`split`: test (the benchmark), val or dev (the five few-shot examples per subject)."""
    if split not in SPLITS:
        raise GymError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    raw = ctx.fetch(URL)
    rows = []
    try:
        with tarfile.open(raw) as archive:
            members = subject_files(archive, split)
            if not members:
                raise GymError(f"{raw}: no data/{split}/<subject>_{split}.csv files in the archive")
            for subject, member in members.items():
                handle = archive.extractfile(member)
                text = handle.read().decode("utf-8-sig") if handle else ""
                for index, record in enumerate(csv.reader(io.StringIO(text, newline=""))):
                    if record:
                        ctx.keep(rows, convert(record, subject, index), f"{raw}: {member.name} record {index + 1}")
    except (tarfile.TarError, EOFError, UnicodeDecodeError, csv.Error) as exc:
        raise GymError(f"{raw}: corrupt or truncated MMLU archive ({exc})") from None
    return ctx.write_rows(rows)
