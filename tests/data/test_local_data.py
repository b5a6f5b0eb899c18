"""benchmark=local: your own JSONL or parquet file in one command line, columns found by their usual
names or named, the family's prompt or your template, checked before the first request."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from gym.core.config import compose
from gym.tasks import collect, e2e
from tests.conftest import assert_clean_failure, run_gym
from tests.model_time_data import read_rows


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def local(path, *extra):
    return ["benchmark=local", f"benchmark.dataset.path={path}", "model=mock", "progress=false", *extra]


def test_a_jsonl_of_problems_and_worked_solutions_runs_end_to_end(data_dir, tmp_path):
    rows = [{"problem": f"A crate holds {i} pears and {i + 4} plums. How many fruits are in the crate?",
             "solution": f"Add them: {i} + {i + 4} = \\boxed{{{2 * i + 4}}}.", "level": i % 3} for i in range(12)]
    source = write_jsonl(tmp_path / "train.jsonl", rows)
    summary = e2e.run(compose(["task=e2e", *local(source, "benchmark.verifier.family=math", "num_repeats=3",
                                                  "model.mock.accuracy=1.0", f"+run_dir={tmp_path / 'run'}")]))
    assert summary["headline"]["pass@1"] == 100.0
    got = read_rows(tmp_path / "run" / "rollouts.jsonl")
    assert len(got) == 36 and {r["expected_answer"] for r in got} == {str(2 * i + 4) for i in range(12)}
    # the family's own prompt (math: \boxed{}) around the row's problem
    first = next(r for r in got if r["task_index"] == 0)
    assert "\\boxed{}" in first["prompt"][-1]["content"] and rows[0]["problem"] in first["prompt"][-1]["content"]
    profile = [json.loads(line) for line in (tmp_path / "run" / "reward_profile.jsonl").read_text().splitlines()]
    assert len(profile) == 12


def test_parquet_with_named_columns_and_a_template(data_dir, tmp_path):
    table = pa.table({"q": [f"Which letter comes {n} places after A?" for n in range(1, 6)],
                      "gold": ["B", "C", "D", "E", "F"]})
    pq.write_table(table, tmp_path / "letters.parquet")
    summary = collect.run(compose(["task=collect", *local(tmp_path / "letters.parquet", "benchmark.verifier.family=exact",
                                   "benchmark.dataset.columns.question=q", "benchmark.dataset.columns.answer=gold",
                                   "benchmark.prompt.user='Answer with one letter. {question}'",
                                   "model.mock.accuracy=1.0", f"+run_dir={tmp_path}")]))
    assert summary["counts"] == {"ok": 5} and summary["accuracy_percent_this_run"] == 100.0
    got = sorted(read_rows(tmp_path / "rollouts.jsonl"), key=lambda r: r["task_index"])
    assert got[0]["prompt"] == [{"role": "user", "content": "Answer with one letter. Which letter comes 1 places after A?"}]


def test_chat_conversations_are_sent_as_they_are(data_dir, tmp_path):
    rows = [{"messages": [{"role": "system", "content": "Answer with a number in \\boxed{}."},
                          {"role": "user", "content": f"How many sides do {n} squares have in total?"}],
             "answer": str(4 * n)} for n in range(1, 5)]
    source = write_jsonl(tmp_path / "chats.jsonl", rows)
    summary = collect.run(compose(["task=collect", *local(source, "benchmark.verifier.family=math",
                                                          "model.mock.accuracy=1.0", f"+run_dir={tmp_path}")]))
    assert summary["counts"] == {"ok": 4} and summary["accuracy_percent_this_run"] == 100.0
    got = sorted(read_rows(tmp_path / "rollouts.jsonl"), key=lambda r: r["task_index"])
    assert [r["prompt"] for r in got] == [row["messages"] for row in rows]


def test_an_edited_file_is_checked_again(data_dir, tmp_path):
    source = write_jsonl(tmp_path / "train.jsonl", [{"question": "What is 2 + 2?", "answer": "4"}])
    cfg = compose(["task=collect", *local(source, "benchmark.verifier.family=math", f"+run_dir={tmp_path / 'a'}")])
    first = collect.run(cfg)
    write_jsonl(source, [{"question": "What is 2 + 2?", "answer": "4"}, {"question": "What is 3 + 3?", "answer": "6"}])
    second = collect.run(compose(["task=collect", *local(source, "benchmark.verifier.family=math",
                                                         f"+run_dir={tmp_path / 'b'}")]))
    assert (first["tasks"], second["tasks"]) == (1, 2)


def test_a_bad_row_stops_before_the_first_request_naming_file_and_line(tmp_path):
    source = write_jsonl(tmp_path / "train.jsonl", [{"question": "What is 2 + 2?", "answer": "4"},
                                                    {"question": "What is 3 + 3?", "answer": "6"},
                                                    {"question": "What is 4 + 4?"}])
    env = {"GYM_DATA_DIR": str(tmp_path / "data")}
    result = run_gym("task=collect", *local(source, "benchmark.verifier.family=math"), f"hydra.run.dir={tmp_path / 'run'}",
                     env=env)
    assert_clean_failure(result, f"{source}:3: missing or empty answer in column 'answer'")
    assert not (tmp_path / "run" / "rollouts.jsonl").exists()
    result = run_gym("task=collect", *local(source), f"hydra.run.dir={tmp_path / 'run2'}", env=env)
    assert_clean_failure(result, "benchmark.verifier.family=math")
    write_jsonl(source, [{"text": "What is 2 + 2?", "answer": "4"}])
    result = run_gym("task=prepare", "benchmark=local", f"benchmark.dataset.path={source}",
                     "benchmark.verifier.family=math", f"hydra.run.dir={tmp_path / 'run3'}", env=env)
    assert_clean_failure(result, f"{source}:1: no question column", "benchmark.dataset.columns.question")
