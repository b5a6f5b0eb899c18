"""BigCodeBench (bigcode/bigcodebench-hard, or the full bigcode/bigcodebench; split v0.1.4), instruct prompts.

Upstream rows (parquet): task_id, complete_prompt, instruct_prompt, canonical_solution, code_prompt, test
(unittest TestCases), entry_point, doc_struct, libs. As the reference, the question is the instruction before
"You should write self-contained code starting with:", that sentence and the code prompt in a ```python
block, with every 4-space indent as a tab: 148 rows (hard), 1,140 (full). Prepared rows:

    {"question", "expected_answer": "", "task_id", "entry_point", "code_prompt", "prompt": <code_prompt>,
     "canonical_solution", "test", "test_runner": "unittest", "metadata": {"task_id", "libs", "split", "source_index"}}

The tests import some 70 libraries at upstream's pinned versions (Requirements/requirements-eval.txt).
`environment=build` makes a virtualenv of this Python at <data dir>/env once and installs them
(numpy 1.26.4 first and last, as the reference, whose other pins conflict with it); a requirement pip cannot
install for this Python is listed in env/gym-install.json and its tasks fail as they would without it.
`environment=skip` (the default: a dry run or a first look needs no PyPI) builds nothing: tasks whose libraries are
importable already (standard library) still run, the others fail at import; prepare says so.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, write_text_atomic

if TYPE_CHECKING:
    from gym.data import PrepareContext

VERSION = "v0.1.4"
DATASETS = {"hard": "bigcode/bigcodebench-hard", "full": "bigcode/bigcodebench"}
REQUIREMENTS_URL = "https://raw.githubusercontent.com/bigcode-project/bigcodebench/main/Requirements/requirements-eval.txt"
NUMPY_PIN = "numpy==1.26.4"
DELIMITER = "You should write self-contained code starting with:"
log = logging.getLogger("gym.data.download")


def data_url(split: str) -> str:
    return f"https://huggingface.co/datasets/{DATASETS[split]}/resolve/main/data/{VERSION}-00000-of-00001.parquet"


def question(instruct_prompt: str, code_prompt: str) -> str | None:
    index = instruct_prompt.find(DELIMITER)
    if index == -1:
        return None
    wrapped = code_prompt if "```python" in code_prompt else f"```python\n{code_prompt}\n```"
    return (instruct_prompt[:index].strip() + "\n\n" + DELIMITER + "\n" + wrapped).replace("    ", "\t")


def convert(item: dict[str, Any], index: int, split: str) -> tuple[dict[str, Any] | None, str | None]:
    fields = ("task_id", "instruct_prompt", "code_prompt", "test", "entry_point")
    if not all(isinstance(item.get(f), str) and item[f].strip() for f in fields):
        return None, f"needs non-empty {', '.join(fields)}"
    text = question(item["instruct_prompt"], item["code_prompt"])
    if text is None:
        return None, f"instruct_prompt has no {DELIMITER!r}"
    libs = item.get("libs")
    return {"question": text, "expected_answer": "", "task_id": item["task_id"], "entry_point": item["entry_point"],
            "code_prompt": item["code_prompt"], "prompt": item["code_prompt"],
            "canonical_solution": item.get("canonical_solution") or "", "test": item["test"], "test_runner": "unittest",
            "metadata": {"task_id": item["task_id"], "libs": libs if isinstance(libs, (list, str)) else None,
                         "split": split, "source_index": index}}, None


def build_environment(ctx: PrepareContext, folder: Path) -> None:
    """A virtualenv of this Python with upstream's evaluation requirements (once: env/gym-install.json marks it)."""
    marker = folder / "gym-install.json"
    if marker.is_file() and not ctx.force:
        return
    requirements = [line.strip() for line in ctx.fetch(REQUIREMENTS_URL).read_text(encoding="utf-8").splitlines()
                    if line.strip() and not line.lstrip().startswith("#")]
    python = folder / "bin" / "python"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
        subprocess.run([*pip, NUMPY_PIN], check=True)
        failed: list[str] = []
        if subprocess.run([*pip, *requirements, NUMPY_PIN]).returncode:  # conflicting pins: one at a time
            for requirement in requirements:
                if subprocess.run([*pip, requirement]).returncode:
                    failed.append(requirement)
            subprocess.run([*pip, NUMPY_PIN], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise GymError(f"bigcodebench: building the test environment in {folder} failed ({exc}); "
                       f"prepare_args.environment=skip runs the tasks whose libraries are importable") from None
    write_text_atomic(marker, json.dumps({"requirements": requirements, "failed": failed, "python": sys.version}))


def prepare(ctx: PrepareContext, split: str = "hard", environment: str = "skip") -> Path:
    if split not in DATASETS:
        raise GymError(f"bigcodebench: split must be one of {', '.join(DATASETS)}, got {split!r}")
    if environment not in ("build", "skip"):
        raise GymError(f"bigcodebench: environment must be build or skip, got {environment!r}")
    raw = ctx.fetch(data_url(split))
    items = ctx.read_parquet(raw, required=("task_id", "instruct_prompt", "code_prompt", "test", "entry_point"),
                             layout=DATASETS[split])
    rows = ctx.convert_rows(raw, items, lambda item, i: convert(item, i, split), label="task", id_field="task_id")
    folder = Path(ctx.output_path).parent / "env"
    if environment == "build":
        build_environment(ctx, folder)
    elif not (folder / "gym-install.json").is_file():
        log.warning("bigcodebench: no environment of the tasks' libraries; tasks that import more than the standard "
                    "library will fail (benchmark.dataset.prepare_args.environment=build installs upstream's pins)")
    return ctx.write_rows(rows)
