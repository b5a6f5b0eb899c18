"""Rebuild the BFCL fixtures: real rows of BFCL v4 (Apache-2.0, ShishirPatil/gorilla at COMMIT), a few per
category, in the upstream layout and file names, under tests/fixtures/upstream/raw.githubusercontent.com/...

    .venv/bin/python tools/make_fixtures_bfcl.py <gorilla git dir>

The rows are copied unchanged (one JSON object per line, as upstream) and the repository's LICENSE goes
beside them. Which rows: the first few of each category, one per parameter type the checker treats apart
(tuple, dict, list of dicts, Java Array/ArrayList/HashMap/long/double, JavaScript array/dict/float), and
every row whose ground truth BFCL's own checker rejects (listed in the README). Reproducible byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

COMMIT = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
DATA = "berkeley-function-call-leaderboard/bfcl_eval/data"
HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
ROOT = HERE / "upstream" / "raw.githubusercontent.com" / "ShishirPatil" / "gorilla" / COMMIT

FIRST = 5  # leading rows of every category
EXTRA = {
    "simple_python": ["simple_python_13", "simple_python_83", "simple_python_89", "simple_python_96",
                      "simple_python_122", "simple_python_200"],
    "simple_java": ["simple_java_22", "simple_java_24", "simple_java_25", "simple_java_27", "simple_java_35",
                    "simple_java_36", "simple_java_61", "simple_java_64", "simple_java_65", "simple_java_69",
                    "simple_java_72", "simple_java_81"],
    "simple_javascript": ["simple_javascript_5", "simple_javascript_6", "simple_javascript_24"],
    "multiple": ["multiple_5", "multiple_8", "multiple_119"],
    "parallel": ["parallel_29", "parallel_129", "parallel_133"],
    "parallel_multiple": ["parallel_multiple_12", "parallel_multiple_26", "parallel_multiple_63",
                          "parallel_multiple_65"],
    "irrelevance": [],
    "live_simple": ["live_simple_40-17-0", "live_simple_85-46-0", "live_simple_106-63-0", "live_simple_112-68-0",
                    "live_simple_165-98-0"],
    "live_multiple": ["live_multiple_44-17-0", "live_multiple_507-149-4", "live_multiple_862-181-3",
                      "live_multiple_964-207-0"],
    "live_parallel": ["live_parallel_11-7-0"],
    "live_parallel_multiple": ["live_parallel_multiple_9-8-0"],
    "live_irrelevance": [],
    "live_relevance": [],
}
WITHOUT_ANSWERS = ("irrelevance", "live_irrelevance", "live_relevance")


def show(git_dir: str, path: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def pick(text: str, ids: list[str]) -> tuple[list[str], set[str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    wanted = {json.loads(line)["id"] for line in lines[:FIRST]} | set(ids)
    return [line for line in lines if json.loads(line)["id"] in wanted], wanted


def main(git_dir: str) -> None:
    (ROOT / "LICENSE").parent.mkdir(parents=True, exist_ok=True)
    (ROOT / "LICENSE").write_text(show(git_dir, "LICENSE"), encoding="utf-8")
    for category, ids in EXTRA.items():
        name = f"BFCL_v4_{category}.json"
        rows, wanted = pick(show(git_dir, f"{DATA}/{name}"), ids)
        missing = wanted - {json.loads(line)["id"] for line in rows}
        assert not missing, missing
        target = ROOT / DATA / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(rows) + "\n", encoding="utf-8")
        if category not in WITHOUT_ANSWERS:
            answers = [line for line in show(git_dir, f"{DATA}/possible_answer/{name}").splitlines()
                       if line.strip() and json.loads(line)["id"] in wanted]
            assert len(answers) == len(rows), category
            (ROOT / DATA / "possible_answer").mkdir(exist_ok=True)
            (ROOT / DATA / "possible_answer" / name).write_text("\n".join(answers) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/ShishirPatil+gorilla/repo")
