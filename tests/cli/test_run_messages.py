"""What a run prints, as a user reads it: counts as integers, the NeMo Gym hint naming that other program,
an option compare does not know as one line."""

from __future__ import annotations

import re

from tests.conftest import assert_clean_failure, run_gym


def test_concurrency_auto_settles_at_a_whole_count(tmp_path):
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=40", "num_repeats=2",
                     "concurrency=auto", "progress=false", f"hydra.run.dir={tmp_path}/run",
                     env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in (result.stdout + result.stderr).splitlines() if "concurrency=auto settled" in line]
    assert re.search(r"settled at \d+ in flight \(peak \d+", line), line


def test_the_nemo_gym_hint_names_the_other_program(tmp_path):
    run = tmp_path / "run"
    collected = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=4", "progress=false",
                        f"hydra.run.dir={run}", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert collected.returncode == 0, collected.stderr
    result = run_gym("task=export", f"rollouts={run}", "format=nemo_gym", f"hydra.run.dir={tmp_path}/exp")
    assert result.returncode == 0, result.stderr
    (hint,) = [line for line in result.stdout.splitlines() if "gym eval profile" in line]
    assert "nemo-gym package" in hint and "not this program" in hint
    assert hint.index("not this program") < hint.index("gym eval profile")  # said before the command


def test_compare_with_an_option_it_does_not_know_is_one_line(tmp_path):
    for extra in ("compare.test=wilcoxon", "+compare.test=wilcoxon"):
        result = run_gym("task=aggregate", "compare=[runs/a,runs/b]", extra, f"hydra.run.dir={tmp_path}")
        assert_clean_failure(result, "unknown key 'compare.test' for task=aggregate", "'compare' takes a value")
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not list(tmp_path.iterdir())  # refused before anything is written
