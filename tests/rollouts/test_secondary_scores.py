"""Secondary scores: verifiers report them, collect copies them to the row, the loader reads them
(fast and line-by-line paths agree) and task=aggregate reports them with CIs over tasks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from gym.model.client import Completion
from gym.core.config import compose
from gym.core.errors import GymError
from gym.metrics.estimators import mean_ci
from gym.rollouts.load import _read_fast, _read_slow, load_rollouts, read_file
from gym.tasks import aggregate
from gym.rollouts.row import make_rollout
from gym.verifiers import make_verifier

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"
IFEVAL_ROW = {"question": "Write about tea.", "expected_answer": "",
              "instruction_id_list": ["punctuation:no_comma", "detectable_format:title", "startend:quotation"],
              "kwargs": [{}, {}, {}]}


def real_ifeval_row() -> dict:
    row = json.loads((UPSTREAM / "raw.githubusercontent.com/google-research/google-research/master/"
                                 "instruction_following_eval/data/input_data.jsonl").read_text().splitlines()[0])
    row["question"] = row.pop("prompt")
    return row


def essay(last_line: str) -> str:
    body = " ".join(["Raymond ruled Tripoli for many years and fought in the crusades"] * 30)
    return f"*The early years*\n{body}\n*The regency*\n{body}\n*The end of his life*\n{last_line}"


# --- verifiers --------------------------------------------------------------------------------


def test_ifeval_scores_on_a_real_row():
    verifier = make_verifier("ifeval")
    followed = verifier.verify(real_ifeval_row(), essay("That is the story."))
    assert followed.reward == 1.0
    assert followed.details["scores"] == {"prompt_loose": 1.0, "instruction_strict": 1.0, "instruction_loose": 1.0,
                                          "instructions": 3}
    # a comma in the closing line: strict misses no_comma, loose (which may drop that line) does not
    signed = verifier.verify(real_ifeval_row(), essay("Thanks, that is all."))
    assert signed.reward == 0.0 and signed.details["strict"] == [False, True, True]
    assert signed.details["scores"] == pytest.approx(
        {"prompt_loose": 1.0, "instruction_strict": 2 / 3, "instruction_loose": 1.0, "instructions": 3})
    empty = verifier.verify(real_ifeval_row(), "")
    assert empty.details["scores"] == {"prompt_loose": 0.0, "instruction_strict": 0.0, "instruction_loose": 0.0,
                                       "instructions": 3}


def test_ifeval_and_ifbench_leave_out_what_the_reward_already_is():
    response = "<<Tea>>\nTea is calm, warm and good."  # strict [F, T, F], loose [T, T, F]
    assert make_verifier("ifeval").verify(IFEVAL_ROW, response).details["scores"] == pytest.approx(
        {"prompt_loose": 0.0, "instruction_strict": 1 / 3, "instruction_loose": 2 / 3, "instructions": 3})
    quoted = 'Sure, here it is:\n"<<Tea>> is warm."'  # strict [F, T, F], loose [T, T, T]
    ifbench = make_verifier("ifbench").verify(IFEVAL_ROW, quoted)
    assert ifbench.reward == pytest.approx(1 / 3)
    # the instruction shares stay: aggregate pools them over instructions, unlike the per-response reward
    assert ifbench.details["scores"] == pytest.approx({"prompt_strict": 0.0, "prompt_loose": 1.0, "instruction_strict": 1 / 3,
                                                       "instruction_loose": 1.0, "instructions": 3})
    loose = make_verifier("ifeval", {"mode": "loose"}).verify(IFEVAL_ROW, quoted)
    assert loose.reward == 1.0 and set(loose.details["scores"]) == {"prompt_strict", "instruction_strict",
                                                                     "instruction_loose", "instructions"}
    json.dumps(ifbench.details)


HUMAN_EVAL = {
    "question": "Complete sum_list", "expected_answer": "", "entry_point": "sum_list",
    "prompt": "from typing import List\n\n\ndef sum_list(numbers: List[int]) -> int:\n    \"\"\"Sum them.\"\"\"\n",
    "canonical_solution": "    return sum(numbers)\n",
    "base_input": [[[1, 2, 3]], [[]]], "plus_input": [[[10 ** 30, -1]], [[5] * 1000]], "atol": 0,
    "metadata": {"task_id": "HumanEval/900"},
}


def fenced(code: str) -> str:
    return f"Here is my solution.\n\n```python\n{code}\n```\nDone."


def test_code_base_tests_score():
    with make_verifier("code", {"timeout": 2, "allow_unsandboxed": True}) as verifier:
        full = verifier.verify(HUMAN_EVAL, fenced("    return sum(numbers)"))
        assert full.reward == 1.0 and full.details["scores"] == {"base_tests": 1.0}
        base_only = verifier.verify(HUMAN_EVAL, fenced(
            "def sum_list(numbers):\n"
            "    return sum(numbers) if len(numbers) < 4 and all(abs(n) < 100 for n in numbers) else 0"))
        assert base_only.reward == 0.0 and base_only.details["scores"] == {"base_tests": 1.0}
        wrong = verifier.verify(HUMAN_EVAL, fenced("def sum_list(numbers):\n    return 0"))
        assert wrong.details["scores"] == {"base_tests": 0.0}
        assert verifier.verify(HUMAN_EVAL, "no code at all").details["scores"] == {"base_tests": 0.0}
        stdio = {"question": "add", "expected_answer": "",
                 "unit_tests": {"inputs": ["1 2\n"], "outputs": ["3\n"], "fn_name": None}}
        stdio_verdict = verifier.verify(stdio, fenced("a, b = map(int, input().split())\nprint(a + b)"))
        assert stdio_verdict.reward == 1.0 and "scores" not in stdio_verdict.details  # no base/plus split


# --- collect ----------------------------------------------------------------------------------


def test_collect_rows_carry_scores():
    verifier = make_verifier("ifeval")
    messages = [{"role": "user", "content": IFEVAL_ROW["question"]}]

    def rollout(completion):
        return make_rollout("ifeval", "m", IFEVAL_ROW, messages, 0, 0, "k", completion, verifier)

    ok = rollout(Completion("ok", text="<<Tea>>\nTea is calm, warm and good."))
    assert ok["scores"] == pytest.approx({"prompt_loose": 0.0, "instruction_strict": 1 / 3, "instruction_loose": 2 / 3,
                                          "instructions": 3})
    assert ok["verifier"]["scores"] == ok["scores"] and ok["reward"] == 0.0
    assert rollout(Completion("infra_error", error="timeout"))["scores"] is None
    assert rollout(Completion("model_error", error="400"))["scores"] is None
    plain = make_rollout("gsm8k", "m", {"question": "1+1", "expected_answer": "2"}, messages, 0, 0, "k",
                         Completion("ok", text="\\boxed{2}"), make_verifier("math"))
    assert plain["scores"] is None and plain["reward"] == 1.0
    json.dumps(ok)


# --- the loader -------------------------------------------------------------------------------


def row(task, rollout, reward=1.0, status="ok", benchmark="ifeval", scores=None, key=None):
    out = {"benchmark": benchmark, "model": "m", "task_index": task, "rollout_index": rollout,
           "key": key or f"{benchmark}-{task}-{rollout}", "status": status,
           "reward": None if status == "infra_error" else reward, "scores": scores, "extracted_answer": "1",
           "prompt": [{"role": "user", "content": "q"}], "response": "r",
           "verifier": {"scores": scores} if scores else {}, "latency_s": 1.0,
           "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    if scores is None and status != "ok":
        del out["scores"]  # older rows have no field at all
    return out


def write(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def same(fast, slow) -> None:
    assert fast is not None
    assert fast.column_names == slow.column_names
    assert fast.to_pylist() == slow.to_pylist()


def test_files_without_scores_have_no_score_columns(tmp_path):
    path = write(tmp_path / "a.jsonl", [row(t, r) for t in range(2) for r in range(2)])
    table, _ = read_file(path)
    assert not [c for c in table.column_names if c.startswith("scores.")]
    same(_read_fast(path, path.stat().st_size, nemo=False), _read_slow(path))


def test_fast_and_slow_paths_agree(tmp_path):
    rows = [row(0, 0, status="infra_error"),  # the first row has no scores: found by the second pass
            row(0, 1, scores={"prompt_loose": 1.0, "instruction_strict": 0.5}),
            row(1, 0, status="model_error", reward=0.0),
            row(1, 1, scores={"instruction_strict": 0.25, "instruction_loose": float("nan")}),
            row(2, 0, scores={"base_tests": 1}), row(2, 1, scores=None)]
    path = write(tmp_path / "a.jsonl", rows)
    slow = _read_slow(path)
    assert [c for c in slow.column_names if c.startswith("scores.")] == [
        "scores.base_tests", "scores.instruction_strict", "scores.prompt_loose"]  # all-NaN names are dropped
    assert slow.column("scores.instruction_strict").to_pylist() == [None, 0.5, None, 0.25, None, None]
    same(_read_fast(path, path.stat().st_size, nemo=False), slow)
    # the names of the first row are declared up front; later rows add one (a second read)
    rows[0] = row(0, 0, scores={"prompt_loose": 0.0})
    path = write(tmp_path / "b.jsonl", rows)
    same(_read_fast(path, path.stat().st_size, nemo=False, score_names=["prompt_loose"]), _read_slow(path))
    same(read_file(path)[0], _read_slow(path))


@pytest.mark.parametrize("scores, needle", [({"x": 1.5}, "outside"), ({"x": "high"}, "must be a number"),
                                            ([0.5], "must be an object")])
def test_bad_scores_name_the_line(tmp_path, scores, needle):
    path = write(tmp_path / "a.jsonl", [row(0, 0, scores={"x": 0.5}), row(0, 1, scores=scores)])
    assert _read_fast(path, path.stat().st_size, nemo=False, score_names=["x"]) is None
    with pytest.raises(GymError, match=f"a.jsonl:2: .*{needle}"):
        load_rollouts(path)


def test_files_with_and_without_scores_merge_and_the_last_row_wins(tmp_path):
    a = write(tmp_path / "run" / "a.jsonl", [row(0, 0, scores={"prompt_loose": 0.0}), row(0, 1)])
    write(tmp_path / "run" / "b.jsonl", [row(0, 0, scores={"prompt_loose": 1.0}), row(5, 0, benchmark="gsm8k")])
    frame = load_rollouts(str(a.parent / "*.jsonl")).frame.sort_values("key")
    assert list(frame["key"]) == ["gsm8k-5-0", "ifeval-0-0", "ifeval-0-1"]
    assert frame["scores.prompt_loose"].isna().tolist() == [True, False, True]
    assert frame["scores.prompt_loose"].iloc[1] == 1.0  # b.jsonl comes later: its row wins


# --- task=aggregate ---------------------------------------------------------------------------


def test_aggregate_reports_scores_with_cis(tmp_path, capsys):
    s = lambda strict, loose=None: {"instruction_strict": strict, **({} if loose is None else {"prompt_loose": loose})}  # noqa: E731
    rows = [row(0, 0, scores=s(1.0, 1.0)), row(0, 1, scores=s(0.5, 0.0)),
            row(1, 0, scores=s(0.5, 1.0)), row(1, 1, status="model_error", reward=0.0),  # scores 0
            row(2, 0, scores=s(1.0, 1.0)), row(2, 1, scores=s(1.0, 1.0)), row(2, 2, status="infra_error"),
            row(3, 0, scores=s(0.5, 0.0)), row(3, 1, scores=None),  # e.g. a verifier crash: left out
            row(0, 0, benchmark="gsm8k"), row(1, 0, benchmark="gsm8k", reward=0.0)]
    path = write(tmp_path / "run" / "rollouts.jsonl", rows)
    out = tmp_path / "out"
    aggregate.run(compose(["task=aggregate", f"+run_dir={out}", f"rollouts={path}"]))
    metrics = json.loads((out / "metrics.json").read_text())
    scores = metrics["benchmarks"]["ifeval"]["scores"]
    strict = scores["instruction_strict"]  # per task 0.75, 0.25, 1.0, 0.5
    assert strict == mean_ci([0.75, 0.25, 1.0, 0.5])
    assert strict["value"] == 62.5 and strict["ci_low"] == pytest.approx(11.1435, abs=1e-3)
    assert strict["ci_high"] == 100.0  # capped
    assert scores["prompt_loose"] == mean_ci([0.5, 0.5, 1.0, 0.0]) and scores["prompt_loose"]["value"] == 50.0
    assert metrics["benchmarks"]["gsm8k"]["scores"] == {}
    assert metrics["benchmarks"]["ifeval"]["pass@1"]["value"] == 87.5  # the reward is untouched
    with open(out / "metrics.csv", newline="") as handle:
        csv_rows = {(r["benchmark"], r["metric"]): r for r in csv.DictReader(handle)}
    assert float(csv_rows[("ifeval", "scores/instruction_strict")]["value"]) == 62.5
    assert csv_rows[("ifeval", "scores/instruction_strict")]["unit"] == "percent"
    assert not [key for key in csv_rows if key[0] == "gsm8k" and key[1].startswith("scores/")]
    table = capsys.readouterr().out
    assert "ifeval: instruction_strict 62.50 [11.14, 100.00], prompt_loose 50.00 [" in table
    assert not [line for line in table.splitlines() if line.startswith("gsm8k: ") and "tokens" not in line]  # no scores line
