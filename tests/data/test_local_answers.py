"""benchmark=local reads the gold answer out of a worked solution as the benchmarks that ship one do:
GSM8K's final `#### N` (the real test split, tests/fixtures/real/gsm8k, against benchmark=gsm8k's own golds),
a MATH-style solution's last \\boxed{} (real MATH-500 rows against their `answer` column); the layout file
beside the checked copy counts the rows each rule read; `answer_format=bare` takes the column as it is."""

from __future__ import annotations

import json

from gym.tasks.prepare import load_script
from gym.verifiers import make_verifier

from conftest import REAL_DATA, ROOT, UPSTREAM, assert_clean_failure, run_gym

GSM8K = REAL_DATA / "gsm8k" / "test.jsonl"
MATH500 = UPSTREAM / "github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl"


def prepare_local(tmp_path, source, *extra):
    data = tmp_path / "data"
    result = run_gym("task=prepare", "benchmark=local", f"benchmark.dataset.path={source}",
                     "benchmark.verifier.family=math", *extra, f"hydra.run.dir={tmp_path / 'run'}",
                     env={"GYM_DATA_DIR": str(data)})
    layouts = sorted((data / "local").glob("*.layout.json")) if result.returncode == 0 else []
    layout = json.loads(layouts[-1].read_text()) if layouts else None
    rows = [json.loads(line) for line in (data / "local" / layouts[-1].name[:-len(".layout.json")]).read_text().splitlines()] if layouts else []
    return result, layout, rows


def test_gsm8k_layout_gets_gsm8ks_golds(tmp_path):
    source = tmp_path / "train.jsonl"
    source.write_bytes(GSM8K.read_bytes())
    result, layout, rows = prepare_local(tmp_path, source)
    assert result.returncode == 0, result.stderr[-2000:]
    assert layout["answer_rules"] == {"gsm8k": 1319} and layout["answer_format"] == "auto"
    assert "1319 by the final '#### <answer>' (GSM8K)" in result.stderr
    upstream = [json.loads(line) for line in GSM8K.read_text().splitlines()]
    gsm8k = load_script(ROOT / "benchmarks" / "gsm8k" / "prepare.py")
    golds = [row["expected_answer"] for _, row, _ in gsm8k.convert_rows(upstream)]
    assert [row["expected_answer"] for row in rows] == golds  # benchmark=gsm8k's rule, row for row
    assert rows[0]["expected_answer"] == "18" and rows[0]["answer"] == upstream[0]["answer"]  # the column is kept

    # a reply boxing the solution's final number is right against the extracted gold, wrong against the text
    verifier = make_verifier("math")
    replies = [f"{item['answer'].split('####')[0]}So the answer is \\boxed{{{item['answer'].split('####')[1].strip()}}}."
               for item in upstream[:30]]
    extracted = [verifier.verify(row, reply).reward for row, reply in zip(rows, replies)]
    whole_text = [verifier.verify({**row, "expected_answer": item["answer"]}, reply).reward
                  for row, item, reply in zip(rows, upstream, replies)]
    assert extracted == [1.0] * 30 and sum(whole_text) < 15


def test_math_style_solutions_give_their_last_box(tmp_path):
    upstream = [json.loads(line) for line in MATH500.read_text().splitlines()]
    source = tmp_path / "math.jsonl"
    source.write_text("".join(json.dumps({"problem": i["problem"], "solution": i["solution"]}) + "\n" for i in upstream))
    result, layout, rows = prepare_local(tmp_path, source)
    assert result.returncode == 0, result.stderr[-2000:]
    assert layout["answer_rules"] == {"boxed": len(upstream)}
    assert [row["expected_answer"] for row in rows] == [item["answer"] for item in upstream]


def test_bare_knob_and_a_strict_format(tmp_path):
    source = tmp_path / "bare.jsonl"
    source.write_text("".join(json.dumps({"prompt": f"Say {i} #### {i + 1}", "answer": f"{i} #### {i + 1}"}) + "\n"
                              for i in range(3)))
    result, layout, rows = prepare_local(tmp_path, source, "benchmark.dataset.answer_format=bare")
    assert result.returncode == 0, result.stderr[-2000:]
    assert layout["answer_rules"] == {"bare": 3} and [r["expected_answer"] for r in rows][0] == "0 #### 1"
    result, _, _ = prepare_local(tmp_path, source, "benchmark.dataset.answer_format=boxed")
    assert_clean_failure(result, f"{source}:1: column 'answer' has no last \\boxed{{}}")
    result, _, _ = prepare_local(tmp_path, source, "benchmark.dataset.answer_format=hashes")
    assert_clean_failure(result, "benchmark.dataset.answer_format=hashes must be one of auto, gsm8k, boxed, bare")
