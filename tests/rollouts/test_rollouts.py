"""gym.rollouts.load: which files a spec picks, row validation, de-duplication and NeMo Gym rows."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gym.core.errors import GymError
from gym.rollouts.load import _read_fast, find_rollout_files, load_rollouts, read_file


def row(task, rollout, reward=1.0, status="ok", benchmark="bench", model="m", key=None, answer="x", **extra):
    out = {"benchmark": benchmark, "model": model, "task_index": task, "rollout_index": rollout,
           "key": key or f"{benchmark}-{model}-{task}-{rollout}", "status": status, "reward": reward,
           "extracted_answer": answer, "expected_answer": "x", "prompt": [{"role": "user", "content": f"q{task}"}],
           "response": f"answer {answer}", "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
           "latency_s": 0.25, "verifier": {}, "error": None, "attempts": 1, "time": "t"}
    out.update(extra)
    return out


def write(path: Path, rows, tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail)
    return path


def grid(tasks=2, rollouts=2, **kw):
    return [row(t, r, **kw) for t in range(tasks) for r in range(rollouts)]


# --- finding files ----------------------------------------------------------------------------


def test_run_dir_sweep_dir_glob_and_side_files(tmp_path):
    sweep = tmp_path / "multirun"
    a = write(sweep / "0_gsm8k" / "rollouts.jsonl", grid())
    b = write(sweep / "1_aime" / "rollouts.jsonl", grid(benchmark="aime"))
    shard = write(sweep / "2_x" / "shard1_rollouts.jsonl", grid(benchmark="x"))
    for side in ("rollouts_failures.jsonl", "rollouts_materialized_inputs.jsonl", "reward_profile.jsonl",
                 "selected_tasks.jsonl", "rollouts_metrics.jsonl", "x_rollouts_reward_profiling.jsonl"):
        write(sweep / "0_gsm8k" / side, grid())
    write(sweep / "0_gsm8k" / "notes.jsonl", grid())

    files, skipped = find_rollout_files(str(sweep))
    assert files == sorted([a.resolve(), b.resolve(), shard.resolve()])
    assert {p.name for p in skipped} >= {"rollouts_failures.jsonl", "rollouts_materialized_inputs.jsonl"}

    assert find_rollout_files(str(sweep / "0_gsm8k"))[0] == [a.resolve()]  # a run dir
    globbed, _ = find_rollout_files(str(sweep / "*" / "*.jsonl"))  # a glob takes any .jsonl but side files
    assert {p.name for p in globbed} == {"rollouts.jsonl", "shard1_rollouts.jsonl", "notes.jsonl"}
    listed, _ = find_rollout_files([str(a), str(b), str(a)])
    assert listed == sorted([a.resolve(), b.resolve()])
    # A file named outright is read even if it looks like a side file.
    side = sweep / "0_gsm8k" / "rollouts_failures.jsonl"
    assert find_rollout_files(str(side))[0] == [side.resolve()]


def test_nothing_matched_names_the_pattern(tmp_path):
    with pytest.raises(GymError, match=r"no rollout files matched '.*nope\*\.jsonl'"):
        find_rollout_files(str(tmp_path / "nope*.jsonl"))
    write(tmp_path / "only" / "rollouts_failures.jsonl", grid())
    with pytest.raises(GymError, match="side file"):
        find_rollout_files(str(tmp_path / "only" / "*.jsonl"))
    with pytest.raises(GymError, match="no rollouts.jsonl"):
        find_rollout_files(str(tmp_path / "only"))
    with pytest.raises(GymError, match="no such file"):
        find_rollout_files(str(tmp_path / "missing.jsonl"))
    with pytest.raises(GymError, match="no path"):
        find_rollout_files([])


# --- reading ----------------------------------------------------------------------------------


def test_columns_and_values(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", [row(0, 0), row(0, 1, reward=0, answer=None),
                                               row(1, 0, status="model_error", reward=None),
                                               row(1, 1, status="infra_error", reward=None, usage=None)])
    frame = load_rollouts(str(path)).frame
    assert list(frame.columns) == ["benchmark", "model", "task_index", "rollout_index", "key", "status", "reward",
                                   "extracted_answer", "prompt_tokens", "completion_tokens", "latency_s",
                                   "source", "ordinal"]  # no adaptive-repeats rows: no `adaptive` column
    assert frame["reward"].tolist()[:3] == [1.0, 0.0, 0.0]  # model_error without reward scores 0
    assert pd.isna(frame["reward"].iloc[3])
    assert frame["extracted_answer"].isna().tolist() == [False, True, False, False]
    assert frame["prompt_tokens"].tolist()[:3] == [11.0, 11.0, 11.0] and pd.isna(frame["prompt_tokens"].iloc[3])
    assert frame["ordinal"].tolist() == [0, 1, 2, 3]


def test_fast_and_line_by_line_readers_agree(tmp_path):
    rows = grid(3, 3) + [row(9, 0, status="infra_error", reward=None), row(9, 1, status="model_error", reward=0)]
    fast = write(tmp_path / "a" / "rollouts.jsonl", rows)
    slow = tmp_path / "b" / "rollouts.jsonl"
    slow.parent.mkdir()
    # A blank line and an integer answer push this copy through the line-by-line reader.
    text = fast.read_text().splitlines()
    text.insert(2, "   ")
    odd = json.loads(text[0])
    odd["extracted_answer"] = 5
    text[0] = json.dumps(odd)
    slow.write_text("\n".join(text) + "\n")
    assert _read_fast(fast, fast.stat().st_size, nemo=False) is not None
    assert _read_fast(slow, slow.stat().st_size, nemo=False) is None
    a, _ = read_file(fast)
    b, _ = read_file(slow)
    fa, fb = a.to_pandas(), b.to_pandas()
    fb.loc[0, "extracted_answer"] = "x"
    pd.testing.assert_frame_equal(fa[fb.columns], fb, check_dtype=False)


def test_files_read_by_different_readers_merge(tmp_path):
    write(tmp_path / "a" / "rollouts.jsonl", grid(2, 2))  # fast reader
    slow = write(tmp_path / "b" / "rollouts.jsonl", grid(2, 2, benchmark="other"))
    slow.write_text("\n" + slow.read_text())  # a blank line: line-by-line reader
    write(tmp_path / "c" / "nemo_rollouts.jsonl", [nemo_row(0, 0, 1.0)])
    frame = load_rollouts(str(tmp_path)).frame
    assert len(frame) == 9 and frame["source"].tolist() == [0] * 4 + [1] * 4 + [2]
    assert frame["ordinal"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0]


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    path.write_text(json.dumps(row(0, 0)) + "\n{not json\n" + json.dumps(row(0, 1)) + "\n")
    with pytest.raises(GymError, match=rf"{path}:2: malformed JSON"):
        load_rollouts(str(path))


def test_torn_last_line_is_skipped_and_counted(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", grid(), tail='{"benchmark": "bench", "task_ind')
    loaded = load_rollouts(str(path))
    assert len(loaded.frame) == 4 and loaded.torn_lines == 1


def test_missing_or_nan_reward_on_ok_row_is_an_error(tmp_path):
    bad = row(1, 0)
    del bad["reward"]
    path = write(tmp_path / "rollouts.jsonl", [row(0, 0), bad])
    with pytest.raises(GymError, match=rf"{path}:2: status 'ok' but the reward is missing"):
        load_rollouts(str(path))
    nan_row = json.dumps(row(0, 1)).replace('"reward": 1.0', '"reward": NaN')
    path.write_text(json.dumps(row(0, 0)) + "\n" + nan_row + "\n")
    with pytest.raises(GymError, match=rf"{path}:2: status 'ok' but the reward is missing, null or NaN"):
        load_rollouts(str(path))


def test_nan_reward_on_infra_error_is_missing(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    text = json.dumps(row(0, 0, status="infra_error", reward=0.0)).replace('"reward": 0.0', '"reward": NaN')
    path.write_text(json.dumps(row(0, 1)) + "\n" + text + "\n")
    frame = load_rollouts(str(path)).frame
    assert pd.isna(frame["reward"].iloc[1])


@pytest.mark.parametrize("change, message", [
    ({"reward": 1.5}, "reward 1.5 outside"),
    ({"reward": "yes"}, "reward must be a number"),
    ({"status": "done"}, "unknown status 'done'"),
    ({"task_index": "3"}, "'task_index' must be an integer"),
    ({"key": None}, "has no 'key'"),
])
def test_invalid_rows(tmp_path, change, message):
    path = write(tmp_path / "rollouts.jsonl", [row(0, 0), {**row(0, 1), **change}])
    with pytest.raises(GymError, match=rf"{path}:2: .*{message}"):
        load_rollouts(str(path))


def test_empty_file_is_an_error(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    path.write_text("")
    with pytest.raises(GymError, match="no rollout rows"):
        load_rollouts(str(path))


# --- merging ----------------------------------------------------------------------------------


def test_last_row_per_key_wins_within_and_across_files(tmp_path):
    first = write(tmp_path / "a" / "rollouts.jsonl", [row(0, 0, reward=0.0), row(0, 1), row(0, 0, reward=1.0)])
    second = write(tmp_path / "b" / "rollouts.jsonl", [row(0, 1, reward=0.0), row(1, 0)])
    loaded = load_rollouts([str(second), str(first)])  # the order given does not matter: sorted paths
    frame = loaded.frame.set_index(["task_index", "rollout_index"])
    assert frame.loc[(0, 0), "reward"] == 1.0  # later line in a/ wins
    assert frame.loc[(0, 1), "reward"] == 0.0  # b/ sorts after a/ and wins
    assert loaded.rows_read == 5 and loaded.duplicates_dropped == 2 and loaded.duplicates_reward_changed == 2
    assert loaded.summary()["rows_kept"] == 3


def test_same_reward_duplicates_are_not_reported_as_changed(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", grid() + grid())
    loaded = load_rollouts(str(path))
    assert loaded.duplicates_dropped == 4 and loaded.duplicates_reward_changed == 0


def test_index_collisions_are_counted(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", [row(0, 0, key="k1"), row(0, 0, key="k2")])
    assert load_rollouts(str(path)).index_collisions == 1


def test_raw_rows_round_trip(tmp_path):
    write(tmp_path / "a" / "rollouts.jsonl", grid(2, 2))
    write(tmp_path / "b" / "rollouts.jsonl", grid(2, 2, benchmark="other"))
    loaded = load_rollouts(str(tmp_path))
    picks = loaded.frame.iloc[[5, 0, 3]]
    raws = loaded.raw_rows(picks)
    assert [r["key"] for r in raws] == picks["key"].tolist()
    assert raws[0]["prompt"] == [{"role": "user", "content": "q0"}]


# --- NeMo Gym rows ----------------------------------------------------------------------------


def nemo_row(task, rollout, reward, agent="math_with_judge_simple_agent", answer="4"):
    return {"_ng_task_index": task, "_ng_rollout_index": rollout, "reward": reward, "extracted_answer": answer,
            "agent_ref": {"name": agent},
            "response": {"model": "policy", "output": [], "usage": {"input_tokens": 30, "output_tokens": 12,
                                                                    "input_tokens_details": {"cached_tokens": 0}}}}


def test_nemo_gym_rows(tmp_path):
    path = write(tmp_path / "aime24_rollouts.jsonl", [nemo_row(0, 0, 1.0), nemo_row(0, 1, 0.0, answer=None),
                                                      nemo_row(1, 0, 1)])
    frame = load_rollouts(str(path)).frame
    assert set(frame["benchmark"].astype(str)) == {"math_with_judge_simple_agent"}
    assert set(frame["model"].astype(str)) == {"policy"}
    assert set(frame["status"].astype(str)) == {"ok"}
    assert frame["key"].tolist() == [f"{path.resolve()}:0:0", f"{path.resolve()}:0:1", f"{path.resolve()}:1:0"]
    assert frame["prompt_tokens"].tolist() == [30.0] * 3 and frame["completion_tokens"].tolist() == [12.0] * 3
    # Without agent_ref the file stem names the benchmark; without reward it is an error.
    bare = nemo_row(0, 0, 1.0)
    del bare["agent_ref"]
    other = write(tmp_path / "gsm8k_rollouts.jsonl", [bare])
    assert set(load_rollouts(str(other)).frame["benchmark"].astype(str)) == {"gsm8k_rollouts"}
    no_reward = nemo_row(0, 1, 1.0)
    del no_reward["reward"]
    write(other, [bare, no_reward])
    with pytest.raises(GymError, match=rf"{other}:2: status 'ok' but the reward is missing"):
        load_rollouts(str(other))
