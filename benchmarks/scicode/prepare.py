"""SciCode (SciCode1/SciCode on Hugging Face): scientific problems split into sub-steps, one function each.

Upstream rows (problems_test.jsonl / problems_dev.jsonl at a pinned revision): problem_id, problem_name,
problem_description_main, problem_background_main, problem_io, required_dependencies, sub_steps (each:
step_number, step_description_prompt, step_background, function_header, return_line, test_cases; dev rows add
ground_truth_code), general_solution, general_tests. As the reference, the test split: 65 problems, 288 scored
sub-steps. Three steps, 13.6, 62.1 and 76.3, have no test cases: upstream gives their gold code
(eval/data/<step>.txt of scicode-bench/SciCode, fetched here), shown to the model and not scored. Prepared rows:

    {"question": <problem description>, "expected_answer": "", "problem_id", "problem_name",
     "required_dependencies", "sub_steps", "prefilled": {"<step index>": code}, "metadata": {...}}

Grading needs upstream's test_data.h5 (1,049,345,865 bytes, a Google Drive file). `test_data=place` (the
default) leaves it to the user: <data dir>/test_data.h5 (benchmark.verifier.options.test_data), or a data
mirror that holds it under the Drive folder's address; `test_data=download` fetches it from Drive and checks
its sha256.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

SPLITS = ("test", "dev")
REVISION = "4510f6a6aa27c43fad7b43da2c59602a86e88480"
DATA_URL = f"https://huggingface.co/datasets/SciCode1/SciCode/resolve/{REVISION}/problems_{{split}}.jsonl"
CODE_REVISION = "588b4069d73d211434790bdf4f5a3b80c7830912"
PREFILLED_URL = f"https://raw.githubusercontent.com/scicode-bench/SciCode/{CODE_REVISION}/eval/data/{{step}}.txt"
PREFILLED = {"13": 5, "62": 0, "76": 2}  # problem -> 0-based index of the step upstream fills with gold code
TEST_DATA_FOLDER = "https://drive.google.com/drive/folders/1W5GZW6_bdiDAiipuFMqdUhvUaHIj6-pR"
TEST_DATA_URL = "https://drive.usercontent.google.com/download?id=17G_k65N_6yFFZ2O-jQH00Lh6iaw3z-AW&export=download&confirm=t"
TEST_DATA_SHA256 = "48b0272a88b17dbd29777c217e1b4fb2b019b92e11cc2add847409db9541b890"
STEP_FIELDS = ("step_number", "step_description_prompt", "function_header")
log = logging.getLogger("gym.data.download")


def _step(step: dict) -> dict | None:
    if not all(step.get(f) for f in STEP_FIELDS) or not isinstance(step.get("test_cases"), list):
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
        return None, f"every sub-step needs {', '.join(STEP_FIELDS)} and a test_cases list"
    prefilled = {}
    for number, step in enumerate(steps):
        if step["test_cases"]:
            continue
        if PREFILLED.get(problem) != number:
            return None, f"sub-step {step['step_number']} has no test cases and upstream gives no code for it"
        url = PREFILLED_URL.format(step=step["step_number"])
        prefilled[str(number)] = ctx.fetch(url).read_text(encoding="utf-8").strip()
    return {"question": str(item.get("problem_description_main") or ""), "expected_answer": "",
            "problem_id": problem, "problem_name": item.get("problem_name") or "",
            "required_dependencies": item.get("required_dependencies") or "", "sub_steps": steps,
            "prefilled": prefilled,
            "metadata": {"problem_id": problem, "split": split, "source_index": index,
                         "scored_steps": len(steps) - len(prefilled)}}, None


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def place_test_data(ctx: PrepareContext, target: Path, how: str) -> None:
    """test_data.h5 into the data dir: downloaded (checked), from a mirror that holds it, or left to the user."""
    if target.is_file() and not ctx.force:
        return
    if how == "download":
        raw = ctx.fetch(TEST_DATA_URL)
        if _sha256(raw) != TEST_DATA_SHA256:
            raise GymError(f"scicode: {raw} is not SciCode's test_data.h5 (sha256 differs from {TEST_DATA_SHA256})")
        raw.replace(target)
        return
    if ctx.mirror:
        try:
            shutil.copyfile(ctx.fetch(f"{TEST_DATA_FOLDER}/test_data.h5"), target)
            return
        except GymError:
            ctx.sources.pop()
    log.warning("scicode: grading needs SciCode's test_data.h5 at %s (benchmark.dataset.prepare_args.test_data="
                "download fetches it, 1 GB; or download it from %s)", target, TEST_DATA_FOLDER)


def prepare(ctx: PrepareContext, split: str = "test", test_data: str = "place") -> Path:
    if split not in SPLITS:
        raise GymError(f"scicode: split must be one of {', '.join(SPLITS)}, got {split!r}")
    if test_data not in ("place", "download"):
        raise GymError(f"scicode: test_data must be place or download, got {test_data!r}")
    raw = ctx.fetch(DATA_URL.format(split=split))
    items = ctx.read_jsonl(raw)
    rows = ctx.convert_rows(raw, items, lambda item, i: convert(ctx, item, i, split), label="problem",
                            id_field="problem_id")
    place_test_data(ctx, Path(ctx.output_path).parent / "test_data.h5", test_data)
    return ctx.write_rows(rows)
