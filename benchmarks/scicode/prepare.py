"""SciCode (SciCode1/SciCode on Hugging Face): scientific problems split into sub-steps, one function each.

Upstream rows: problem_id, problem_name, problem_description_main, problem_io, required_dependencies, sub_steps
(each: step_number, step_description_prompt, step_background, function_header, return_line, test_cases;
validation rows add ground_truth_code), general_solution, general_tests. As the reference, the test split: 65
problems, 288 scored sub-steps (three steps, 13.6, 62.1 and 76.3, come with upstream's gold code, fetched from
the SciCode repository's eval/data, shown to the model and not scored). Prepared rows:

    {"question": <problem description>, "expected_answer": "", "problem_id", "problem_name",
     "required_dependencies", "sub_steps", "prefilled": {"<step index>": code}, "metadata": {...}}

Grading needs upstream's test_data.h5 (about 1 GB, a Google Drive download): prepare does not fetch it. The
user places it at <data dir>/test_data.h5 (benchmark.verifier.options.test_data); a data mirror that holds it
under the Drive folder's address gives it too (offline tests).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

SPLITS = ("test", "validation")
DATA_URL = "https://huggingface.co/datasets/SciCode1/SciCode/resolve/main/data/{split}-00000-of-00001.parquet"
PREFILLED_URL = "https://raw.githubusercontent.com/scicode-bench/SciCode/main/eval/data/{step}.txt"
PREFILLED = {"13": 5, "62": 0, "76": 2}  # problem -> 0-based index of the step upstream fills with gold code
TEST_DATA_FOLDER = "https://drive.google.com/drive/folders/1W5GZW6_bdiDAiipuFMqdUhvUaHIj6-pR"
STEP_FIELDS = ("step_number", "step_description_prompt", "function_header", "test_cases")
log = logging.getLogger("gym.data.download")


def _step(step: dict) -> dict | None:
    if not all(step.get(f) for f in STEP_FIELDS) or not isinstance(step["test_cases"], list):
        return None
    return {"step_number": str(step["step_number"]), "step_description_prompt": step["step_description_prompt"],
            "step_background": step.get("step_background") or "", "function_header": step["function_header"],
            "return_line": step.get("return_line") or "", "test_cases": [str(t) for t in step["test_cases"]],
            "ground_truth_code": step.get("ground_truth_code") or None}


def convert(ctx: PrepareContext, item: dict[str, Any], index: int, split: str) -> tuple[dict | None, str | None]:
    problem, raw_steps = str(item.get("problem_id") or ""), item.get("sub_steps")
    if not problem or not isinstance(raw_steps, list) or not raw_steps:
        return None, "needs problem_id and a non-empty sub_steps list"
    steps = [_step(s) for s in raw_steps if isinstance(s, dict)]
    if len(steps) != len(raw_steps) or None in steps:
        return None, f"every sub-step needs {', '.join(STEP_FIELDS)}"
    prefilled = {}
    if problem in PREFILLED and PREFILLED[problem] < len(steps):
        number = PREFILLED[problem]
        url = PREFILLED_URL.format(step=f"{problem}.{number + 1}")
        prefilled[str(number)] = ctx.fetch(url).read_text(encoding="utf-8").strip()
    return {"question": str(item.get("problem_description_main") or ""), "expected_answer": "",
            "problem_id": problem, "problem_name": item.get("problem_name") or "",
            "required_dependencies": item.get("required_dependencies") or "", "sub_steps": steps,
            "prefilled": prefilled,
            "metadata": {"problem_id": problem, "split": split, "source_index": index,
                         "scored_steps": len(steps) - len(prefilled)}}, None


def place_test_data(ctx: PrepareContext, target: Path) -> None:
    """test_data.h5 from a data mirror that holds it; otherwise say where the user puts it."""
    if target.is_file():
        return
    if ctx.mirror:
        try:
            shutil.copyfile(ctx.fetch(f"{TEST_DATA_FOLDER}/test_data.h5"), target)
            return
        except GymError:
            pass
    log.warning("scicode: grading needs SciCode's test_data.h5 at %s (download it from %s; see "
                "docs/benchmarks/scicode.md)", target, TEST_DATA_FOLDER)


def prepare(ctx: PrepareContext, split: str = "test") -> Path:
    if split not in SPLITS:
        raise GymError(f"scicode: split must be one of {', '.join(SPLITS)}, got {split!r}")
    raw = ctx.fetch(DATA_URL.format(split=split))
    items = ctx.read_parquet(raw, required=("problem_id", "sub_steps", "required_dependencies"),
                             layout="SciCode1/SciCode")
    rows = ctx.convert_rows(raw, items, lambda item, i: convert(ctx, item, i, split), label="problem",
                            id_field="problem_id")
    place_test_data(ctx, Path(ctx.output_path).parent / "test_data.h5")
    return ctx.write_rows(rows)
