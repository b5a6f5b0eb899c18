"""Grading a test log exactly as SWE-bench does: the `swebench` package's own parsers and rules.

`grade(row, log_text)` writes the log to a file and calls swebench's `get_eval_report` with a TestSpec
naming the repository's log parser (SWE-bench v4.1.0's repo → parser table): the markers and failure
codes it checks, the per-repo parser, FAIL_TO_PASS / PASS_TO_PASS with its pass, fail and skip rules,
resolved only when every FAIL_TO_PASS test passes and every PASS_TO_PASS test still does. The verdict
keeps swebench's report (per-test success and failure lists) and the parsed status of each test.

`import swebench.harness` imports docker, datasets and modal as it loads (they come with the package's
own dependencies: the `swebench` extra); it is imported on first use, not with gym.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from gym.core.errors import GymError
from gym.swebench.specs import facts


def _swebench():
    try:
        from swebench.harness import grading
        from swebench.harness.log_parsers import PARSER_REGISTRY
        from swebench.types import TestSpec
    except ImportError as exc:
        raise GymError(f"SWE-bench grading needs the swebench package ({exc.name} is missing): "
                       "pip install 'gym[swebench]'") from None
    return grading, PARSER_REGISTRY, TestSpec


def log_parser(repo: str) -> str:
    name = facts()["parsers"].get(repo)
    if name is None:
        raise GymError(f"SWE-bench names no log parser for {repo}")
    return name


def grade(row: dict, log_text: str, patch: str | None = "") -> dict:
    """SWE-bench's report for one instance's test log: `resolved`, `patch_successfully_applied`, the
    per-test `tests_status`, and `status_map` (each test's parsed status)."""
    grading, parsers, TestSpec = _swebench()
    spec = TestSpec(instance_id=row["instance_id"], image="", eval_script_list=[], repo=row["repo"],
                    version=str(row["version"]), FAIL_TO_PASS=list(row["FAIL_TO_PASS"]),
                    PASS_TO_PASS=list(row["PASS_TO_PASS"]), log_parser=log_parser(row["repo"]),
                    eval_type="pass_and_fail")
    with tempfile.TemporaryDirectory(prefix="gym-swebench-") as folder:
        path = Path(folder) / "test_output.txt"
        path.write_text(log_text, encoding="utf-8")
        report = grading.get_eval_report(spec, {"instance_id": row["instance_id"], "model_patch": patch},
                                         str(path), include_tests_status=True)[row["instance_id"]]
        status_map, found = grading.get_logs_eval(spec, str(path))
    report["status_map"] = status_map if found else {}
    return report


def summary(report: dict) -> dict:
    """Counts of the report's per-test lists: {"FAIL_TO_PASS": {"success": n, "failure": m}, ...}."""
    tests = report.get("tests_status") or {}
    return {kind: {outcome: len(names) for outcome, names in (tests.get(kind) or {}).items()}
            for kind in ("FAIL_TO_PASS", "PASS_TO_PASS")}
