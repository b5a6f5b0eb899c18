"""SWE-bench instances in SWE-bench's own layout, as prepared rows.

Upstream's files (the Hugging Face datasets SWE-bench/SWE-bench_Verified and SWE-bench/SWE-bench_Lite,
split test, one parquet file each) have one instance a row: `instance_id`, `repo`, `base_commit`,
`problem_statement`, `hints_text`, `created_at`, `patch`, `test_patch`, `version`,
`environment_setup_commit`, and `FAIL_TO_PASS` / `PASS_TO_PASS` as JSON-encoded lists of test ids
(Verified adds `difficulty`). A prepared row keeps every one of these fields under its own name, the
two test lists decoded, plus gym's `question` (the problem statement: what the agent is given) and
`environment` (what gym builds for it and whether the stand-in is faithful: gym.swebench.specs) and
`task` (the gold play as an episode's actions, for the reference server).
"""

from __future__ import annotations

import json
import re
from typing import Any

FIELDS = ("instance_id", "repo", "base_commit", "problem_statement", "hints_text", "created_at", "patch",
          "test_patch", "version", "environment_setup_commit", "FAIL_TO_PASS", "PASS_TO_PASS")
REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "patch", "test_patch", "version",
            "FAIL_TO_PASS", "PASS_TO_PASS")
TEST_LISTS = ("FAIL_TO_PASS", "PASS_TO_PASS")
_DIFF_TARGET = re.compile(r"^diff --git a/.* b/(.*)$", re.M)


class InstanceError(ValueError):
    """An upstream row that is not a SWE-bench instance (a field missing or of the wrong kind)."""


def test_list(value: Any, name: str) -> list[str]:
    """A FAIL_TO_PASS / PASS_TO_PASS value: a JSON-encoded list (upstream's files) or a list."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InstanceError(f"{name} is not a JSON list") from None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InstanceError(f"{name} must be a list of test ids")
    return value


def instance_row(upstream: dict) -> dict:
    """A prepared row from one upstream instance; InstanceError names what is wrong."""
    missing = [name for name in REQUIRED if upstream.get(name) in (None, "") and name not in TEST_LISTS]
    missing += [name for name in TEST_LISTS if upstream.get(name) is None]
    if missing:
        raise InstanceError(f"no {', '.join(missing)}")
    row = {name: upstream.get(name) for name in FIELDS}
    for name in TEST_LISTS:
        row[name] = test_list(upstream[name], name)
    row["version"] = str(row["version"])
    row["hints_text"] = row["hints_text"] or ""
    row["environment_setup_commit"] = row["environment_setup_commit"] or row["base_commit"]
    if upstream.get("difficulty") is not None:
        row["difficulty"] = upstream["difficulty"]
    row["question"] = row["problem_statement"]
    # the episode's gold play: the gold patch applied through the shell tool (the reference server plays
    # it with gym's terminal agent, as agent=oracle does without a model)
    row["task"] = {"name": row["instance_id"], "evaluation_criteria": {"actions": [
        {"name": "shell", "arguments": {"command": gold_command(row["patch"])}}]}}
    return row


def gold_command(patch: str) -> str:
    """The shell command that applies a patch in the repository (a quoted here-document)."""
    return f"git apply -v - <<'GYM_GOLD_PATCH'\n{patch}\nGYM_GOLD_PATCH"


def modified_files(patch: str) -> list[str]:
    """The files a unified diff touches (its `b/` paths), in order, once each."""
    return list(dict.fromkeys(_DIFF_TARGET.findall(patch or "")))


def test_directives(row: dict, non_test_exts: list[str]) -> list[str]:
    """What the test command is given, as SWE-bench's get_test_directives: the test patch's files minus
    non-test files; for Django, dotted module names without `tests/`."""
    directives = [path for path in modified_files(row["test_patch"])
                  if not any(path.endswith(ext) for ext in non_test_exts)]
    if row["repo"] == "django/django":
        directives = [path.removesuffix(".py").removeprefix("tests/").replace("/", ".") for path in directives]
    return directives
