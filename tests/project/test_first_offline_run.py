"""The README's first τ² run, offline, as a new user types it and reads it in a piped log: one line for the
bundled files, `read N row(s)` once, no plotting-library housekeeping, no carriage-return progress; and the
score the README says to expect, for the reasons it gives."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import NO_NETWORK, ROOT, run_gym

README = (ROOT / "README.md").read_text()


def readme_command(needle: str) -> list[str]:
    line = next(line for line in README.splitlines() if line.startswith("python -m gym") and needle in line)
    return shlex.split(line, comments=True)[3:]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    home = tmp_path_factory.mktemp("first")
    env = {**NO_NETWORK, "GYM_DATA_DIR": str(home / "data"), "MPLCONFIGDIR": str(home / "mpl")}  # a fresh font cache
    result = run_gym(*readme_command("benchmark=tau2_mock model=mock user=mock"), cwd=home, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = (home / "outputs" / "e2e").iterdir()
    return result, run


def test_the_log_says_each_thing_once_in_plain_lines(first_run):
    result, _ = first_run
    log = result.stdout + result.stderr
    bundled = [line for line in log.splitlines() if "bundled with gym" in line]
    assert len(bundled) == 1 and "no network" in bundled[0] and "15 file(s)" in bundled[0], bundled
    assert "cannot download" not in log
    assert len(re.findall(r"read \d+ row\(s\)", log)) == 1
    assert "font" not in log.lower() and "matplotlib" not in log.lower()
    assert "\r" not in log  # piped: no bar redrawn in place
    steps = re.findall(r"^rollouts: (\d+)% \(\d+/40 rollouts", result.stderr, flags=re.M)
    assert steps == [str(p) for p in range(10, 101, 10)], steps


def test_the_readme_says_what_to_expect_and_why(first_run, tmp_path):
    _, run = first_run
    entry = json.loads((run / "metrics.json").read_text())["benchmarks"]["tau2_mock"]
    said = re.search(r"Expect pass@1 (\d+\.\d\d) \(pass\^4 (\d+\.\d\d)\)", README)
    assert said, "the README gives the number to expect"
    assert f"{entry['pass@1']['value']:.2f}" == said.group(1)
    rows = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    assert f"{100 * _pass_hat_4(rows):.2f}" == said.group(2)
    # the two tasks the README names fail even when the gold agent never goes wrong on purpose
    perfect = run_gym("task=e2e", "benchmark=tau2_mock", "model=mock", "user=mock", "model.mock.accuracy=1.0",
                      "progress=false", f"hydra.run.dir={tmp_path}/run",
                      env={**NO_NETWORK, "GYM_DATA_DIR": str(run.parents[2] / "data")})
    assert perfect.returncode == 0, perfect.stderr
    scored = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"]["tau2_mock"]
    assert "With `model.mock.accuracy=1.0` it is 80.00." in README and f"{scored['pass@1']['value']:.2f}" == "80.00"
    prepared = [json.loads(line) for line in (run.parents[2] / "data" / "tau2_mock" / "tau2_mock.jsonl").read_text().splitlines()]
    failed = {prepared[r["task_index"]]["task"]["id"] for r in _rows(tmp_path / "run") if r["reward"] < 1}
    assert failed == {"update_task_with_history_and_env_assertions", "update_task_with_user_tools"}
    assert all(f"`{task}`" in README for task in failed)


def _rows(run) -> list[dict]:
    return [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]


def _pass_hat_4(rows: list[dict]) -> float:
    by_task: dict[int, list[float]] = {}
    for row in rows:
        by_task.setdefault(row["task_index"], []).append(row["reward"])
    return sum(all(r == 1 for r in rewards) for rewards in by_task.values()) / len(by_task)
