"""Aggregate at millions of rows works column by column and over ranges of tasks; these pin that the
memory-saving paths give the very numbers of the direct ones."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from gym.metrics import estimators
from gym.rollouts.frame import index_collisions


def synthetic_group(tasks: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for task in range(tasks):
        for rollout in range(rng.randint(1, 9)):
            status = rng.choice(["ok"] * 8 + ["model_error", "infra_error"])
            answer = rng.choice([None, "4", " 4", "5 ", "five", "\\frac{1}{2}"])
            rows.append({"task_index": task * 3, "rollout_index": rollout, "status": status,
                         "reward": None if status == "infra_error" else rng.choice([0.0, 0.5, 1.0]),
                         "extracted_answer": answer})
    frame = pd.DataFrame(rows)
    frame["status"] = frame["status"].astype("category")
    frame["extracted_answer"] = frame["extracted_answer"].astype("str")
    return frame


def test_estimators_over_ranges_of_tasks_equal_the_whole(monkeypatch):
    arrays = estimators.TaskArrays(synthetic_group())
    ks = [1, 2, 4, 8]
    whole = arrays.per_task(ks)
    monkeypatch.setattr(estimators, "_ROWS_AT_A_TIME", 17)  # many small ranges of tasks
    for name, table in arrays.per_task(ks).items():
        np.testing.assert_array_equal(table, whole[name], err_msg=name)


def test_answer_codes_rank_the_stripped_texts():
    answers = pd.Series([" b", "a", None, "b", "a ", "c", "\\frac{1}{2}"], dtype="str")
    stripped = pd.Series([None if a is None else a.strip() for a in answers.astype(object).where(answers.notna(), None)])
    expected, _ = pd.factorize(stripped, sort=True, use_na_sentinel=True)
    assert estimators.answer_codes(answers).tolist() == expected.tolist()


def test_index_collisions_counted_exactly():
    frame = pd.DataFrame({"benchmark": pd.Categorical(["a", "a", "a", "b"]), "model": pd.Categorical(["m"] * 4),
                          "task_index": [0, 0, 1, 0], "rollout_index": [0, 0, 0, 0]})
    assert index_collisions(frame) == 1
    wide = frame.assign(task_index=[0, 0, 1 << 40, 0])  # too wide to pack: counted column by column
    assert index_collisions(wide) == 1


def test_a_file_read_in_many_blocks_loads_the_same_frame(tmp_path, monkeypatch):
    import json

    from gym.rollouts import load

    rows = [{"schema_version": 2, "benchmark": "b" if t % 3 else "c", "model": "m", "task_index": t, "rollout_index": r,
             "key": f"k{t}-{r}", "status": "ok" if (t + r) % 5 else "model_error", "reward": float((t * r) % 2),
             "extracted_answer": None if r == 2 else str(t % 4), "latency_s": 0.1 * r,
             "usage": {"prompt_tokens": 3 + t, "completion_tokens": 5 + r}}
            for t in range(40) for r in range(4)]
    rows[130]["scores"] = {"prompt_loose": 0.5}  # a score name first seen late: the file is read again
    rows.append({**rows[7], "reward": 1.0 - rows[7]["reward"]})  # a later copy of a key wins
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    whole = load.load_rollouts(str(path))
    monkeypatch.setattr(load, "_READ_BLOCK", 700)  # a few lines per block
    blocks = load.load_rollouts(str(path))
    pd.testing.assert_frame_equal(blocks.frame, whole.frame)
    assert (blocks.duplicates_dropped, blocks.duplicates_reward_changed) == (1, 1) == (
        whole.duplicates_dropped, whole.duplicates_reward_changed)
    assert blocks.frame["scores.prompt_loose"].notna().sum() == 1


def test_pass_at_k_over_ranges_of_tasks_equals_the_whole(monkeypatch):
    arrays = estimators.TaskArrays(synthetic_group(seed=3))
    whole = estimators.pass_at_k_per_task(arrays.task_codes, arrays.reward, arrays.n_tasks, [1, 2, 4])
    monkeypatch.setattr(estimators, "_ROWS_AT_A_TIME", 11)
    ranged = estimators.pass_at_k_by_ranges(arrays.task_codes, arrays.reward, arrays.n_tasks, [1, 2, 4])
    np.testing.assert_array_equal(ranged, whole)


def test_task_and_rollout_indices_are_held_in_32_bits_and_larger_ones_are_refused(tmp_path):
    import json

    import pytest

    from gym.core.errors import GymError
    from gym.rollouts import load

    row = {"schema_version": 2, "benchmark": "b", "model": "m", "task_index": 2**31 - 1, "rollout_index": 0,
           "key": "k", "status": "ok", "reward": 1.0}
    path = tmp_path / "rollouts.jsonl"
    path.write_text(json.dumps(row) + "\n")
    frame = load.load_rollouts(str(path)).frame
    assert frame["task_index"].dtype == np.int32 and int(frame["task_index"].iloc[0]) == 2**31 - 1
    path.write_text(json.dumps({**row, "task_index": 2**31}) + "\n")
    with pytest.raises(GymError, match="task_index is beyond"):
        load.load_rollouts(str(path))
