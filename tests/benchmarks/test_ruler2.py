"""RULER v2 (ruler2) generated at prepare for a tokenizer and a length: the rows and the grading pinned against
the reference's own code (tools/make_ruler2_parity.py ran NVIDIA-NeMo/Gym's benchmarks/ruler2
generators and resources_servers/ruler2/app.py on the upstream-layout fixtures), through `python -m gym`."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from gym.data.prepare_context import PrepareContext
from gym.data.ruler2 import ROUTING, TASKS, Sources, generate
from gym.data.ruler2.generators import ordinal
from gym.data.ruler2.sources import SOURCES
from gym.data.tokens import token_counter
from gym.verifiers import make_verifier
from tests.conftest import FIXTURES, UPSTREAM, assert_clean_failure, run_gym

TOKENIZER = UPSTREAM / "huggingface.co" / "gym-fixtures" / "tiny-bpe" / "resolve" / "main" / "tokenizer.json"
MIRROR = "data.mirror=tests/fixtures/upstream"
PARITY = json.loads((FIXTURES / "ruler2_parity.json").read_text())


def expected(max_length: int) -> list[dict]:
    return [row for row in PARITY["rows"] if row["max_length"] == max_length]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def cli_prepared(tmp_path_factory):
    """All 12 tasks at 2000 tokens of a real BPE tokenizer.json, 3 samples each, prepared by the CLI offline; the
    tokenizer named as a Hugging Face model (its tokenizer.json comes through the mirror like the sources)."""
    data = tmp_path_factory.mktemp("ruler2")
    result = run_gym("task=prepare", "benchmark=ruler2", MIRROR, "data.offline=true", f"data.root={data}",
                     "+prepare_args.tokenizer=gym-fixtures/tiny-bpe", "+prepare_args.max_length=2000",
                     "+prepare_args.num_samples=3", f"hydra.run.dir={data}-prepare")
    assert result.returncode == 0, result.stderr[-2000:]
    return data / "ruler2"


@pytest.fixture(scope="module")
def cli_rows(cli_prepared):
    return [json.loads(line) for line in (cli_prepared / "ruler2.jsonl").read_text().splitlines()]


def test_prepared_rows_are_the_references(cli_rows, cli_prepared):
    manifest = json.loads((cli_prepared / "manifest.json").read_text())
    assert set(manifest["sources"]) == {*SOURCES, "https://huggingface.co/gym-fixtures/tiny-bpe/resolve/main/tokenizer.json"}
    assert manifest["upstream_rows"]["kept"] == manifest["rows"] == 36
    want = expected(2000)
    assert len(cli_rows) == len(want) == 36
    for row, ref in zip(cli_rows, want):
        task = row["metadata"]["task"]
        assert (task, row["metadata"]["index"], row["metadata"]["length"]) == (ref["task"], ref["index"], ref["length"])
        assert digest(row["question"]) == ref["question_sha256"], (task, row["question"][:160], ref["question_head"])
        gold = row["expected_answer"] if ref["eval_type"] == "multichoice" else json.loads(row["expected_answer"])
        assert gold == ref["expected_answer"], task
        assert (row["eval_type"], row["match_type"]) == (ref["eval_type"], ref["match_type"]) == ROUTING[task]
        assert row["id"] == f"{task}_{ref['index']}" and row["metadata"]["subset"] == task


def test_rows_at_a_second_length_are_the_references(tmp_path):
    """4000 tokens: the MMLU and HotpotQA haystacks outgrow the fixtures and are drawn with repeats."""
    ctx = PrepareContext(name="ruler2", output_path=tmp_path / "ruler2" / "ruler2.jsonl", mirror=str(UPSTREAM),
                         offline=True, progress=False)
    count, sources = token_counter(ctx, str(TOKENIZER)), Sources(ctx)
    want = expected(4000)
    got = [(task, s) for task in TASKS for s in generate(task, sources, count, 4000, 2)]
    assert len(got) == len(want) == 24
    for (task, sample), ref in zip(got, want):
        assert (task, sample["index"], sample["length"], digest(sample["question"])) == (
            ref["task"], ref["index"], ref["length"], ref["question_sha256"]), (task, sample["question"][:160])
        assert sample["length"] <= 4000 and sample["length"] == count(sample["question"])


def test_prompts_read_as_upstream(cli_rows):
    by_task: dict[str, dict] = {}
    for row in cli_rows:
        by_task.setdefault(row["metadata"]["task"], row)
    assert by_task["mk_niah_basic"]["question"].startswith("A special magic number is hidden within the following text.")
    medium = by_task["mv_niah_medium"]["question"]
    ask = re.search(r"Please first copy all the Question (\d{7}) from the context and then copy the (\d+)(?:st|nd|rd|th) "
                    r"\(1 indexed\) Question \1 at the end\.$", medium)
    label, kth = ask.group(1), int(ask.group(2))
    listed = re.findall(rf"^Question {label}: (.*)$", medium, re.MULTILINE)
    assert len(listed) >= kth and json.loads(by_task["mv_niah_medium"]["expected_answer"]) == [listed[kth - 1]]
    assert "Here are some examples to help you understand the task:" in by_task["mk_niah_hard"]["question"]
    assert "inside \\boxed\\{\\}." in by_task["mk_niah_hard"]["question"]
    assert by_task["qa_basic"]["question"].endswith("\nMost relevant document index:")
    assert by_task["qa_hard"]["expected_answer"] == json.dumps(["radium"])  # HotpotQA dev's first answer
    assert by_task["mk_niah_medium"]["expected_answer"] in "ABCD"


def test_ordinals_are_inflects():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112, 1000)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th", "1000th"]


@pytest.mark.parametrize("case", PARITY["scores"], ids=lambda c: f"{c['eval_type']}-{c['match_type']}")
def test_grading_is_the_references(case):
    verifier = make_verifier("long_context", {"match": "ruler2"})
    row = {"eval_type": case["eval_type"], "match_type": case["match_type"], "expected_answer": case["expected_answer"]}
    verdict = verifier.verify(row, case["reply"])
    assert verdict.reward == case["reward"], case
    if case["eval_type"] == "multichoice":
        assert verdict.extracted_answer == case["extracted_answer"]
    else:  # the answer shown is the reference's predicted_answer (its default_parse of the reply)
        assert verdict.extracted_answer == (case["predicted_answer"] or None)
    if isinstance(case["expected_answer"], list):  # gym's prepared rows hold the list as JSON: the same grade
        assert verifier.verify({**row, "expected_answer": json.dumps(case["expected_answer"])}, case["reply"]).reward \
            == case["reward"]


def test_reference_example_rollouts_get_their_recorded_reward():
    verifier = make_verifier("long_context", {"match": "ruler2"})
    rows = [json.loads(line) for line in (FIXTURES / "nemo_gym" / "ruler2.example_rollouts.jsonl").read_text().splitlines()]
    got = [verifier.verify(row, row["response"]["output_text"]) for row in rows]
    assert [v.reward for v in got] == [row["reward"] for row in rows] == [1.0] * 5
    assert got[2].extracted_answer == rows[2]["extracted_answer"] == "C"


def test_ruler2_e2e_through_the_cli(tmp_path):
    result = run_gym("task=e2e", "benchmark=ruler2", "model=mock", "model.mock.accuracy=1.0", MIRROR,
                     "data.offline=true", f"data.root={tmp_path / 'data'}", "+prepare_args.max_length=1500",
                     "+prepare_args.num_samples=2", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"]["ruler2"]
    # every gold read back, quotes and backslashes of the MMLU questions included
    assert metrics["rollouts"] == 24 and metrics["pass@1"]["value"] == 100.0
    rows = [json.loads(line) for line in (tmp_path / "data" / "ruler2" / "ruler2.jsonl").read_text().splitlines()]
    assert all(row["metadata"]["length"] <= 1500 for row in rows)  # words: whitespace-separated


def test_ruler2_bad_arguments_fail_in_one_line(tmp_path):
    common = ("task=prepare", "benchmark=ruler2", MIRROR, "data.offline=true", f"data.root={tmp_path}",
              f"hydra.run.dir={tmp_path / 'run'}")
    assert_clean_failure(run_gym(*common, "+prepare_args.tasks=[qa_9]"), "unknown ruler2 task qa_9")
    assert_clean_failure(run_gym(*common, "+prepare_args.tasks=[qa_hard]", "+prepare_args.num_samples=6"),
                         "qa_hard: HotpotQA dev has 5 questions, fewer than num_samples=6")
    assert_clean_failure(run_gym(*common, "+prepare_args.tasks=[mk_niah_medium]", "+prepare_args.max_length=300"),
                         "mk_niah_medium: its smallest haystack (10 units)", "prepare a longer max_length")
    assert_clean_failure(run_gym(*common, "+prepare_args.max_length=0"), "max_length must be a positive whole number")


def test_reference_example_rollouts_posted_to_serve_get_their_reward(tmp_path):
    """NeMo Gym's verify requests for its ruler2 server, as they are, to gym's /verify (task=serve)."""
    from tests.serve_helpers import post, rows_of, served

    data = tmp_path / "data"
    result = run_gym("task=prepare", "benchmark=ruler2", MIRROR, "data.offline=true", f"data.root={data}",
                     "+prepare_args.tasks=[mk_niah_basic]", "+prepare_args.num_samples=1", "+prepare_args.max_length=200",
                     f"hydra.run.dir={tmp_path / 'prepare'}")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = rows_of(FIXTURES / "nemo_gym" / "ruler2.example_rollouts.jsonl")
    with served(tmp_path / "run", data, "benchmark=ruler2", "model=mock") as url:
        got = [post(url, "/ruler2/verify", {k: v for k, v in row.items() if k != "reward"}).json() for row in rows]
    assert [out["reward"] for out in got] == [row["reward"] for row in rows]
    assert [out["extracted_answer"] for out in got][2] == "C"
    assert all(out["response"] == row["response"] for out, row in zip(got, rows))


def test_fixture_builder_reproduces_committed_files(tmp_path, monkeypatch):
    import importlib.util

    import pyarrow.parquet as pq

    spec = importlib.util.spec_from_file_location("make_fixtures_ruler2", FIXTURES.parents[1] / "tools" / "make_fixtures_ruler2.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    monkeypatch.setattr(builder, "UPSTREAM", tmp_path)
    builder.mmlu()
    builder.hotpot_train()
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.parquet"))
    assert len(built) == 4
    for relative in built:  # bytes carry the writer's version; compare schema and rows
        assert pq.read_table(tmp_path / relative).equals(pq.read_table(UPSTREAM / relative), check_metadata=True)


def test_sources_not_in_the_upstream_layout_fail_in_one_line(tmp_path):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from gym.core.errors import GymError

    mirror = tmp_path / "mirror"
    shutil.copytree(UPSTREAM / "huggingface.co" / "datasets" / "cais", mirror / "huggingface.co" / "datasets" / "cais")
    test = mirror / "huggingface.co/datasets/cais/mmlu/resolve/main/all/test-00000-of-00001.parquet"

    def prepare_mmlu(name: str) -> str:
        ctx = PrepareContext(name="ruler2", output_path=tmp_path / name / "ruler2.jsonl", mirror=str(mirror),
                             offline=True, progress=False)
        with pytest.raises(GymError) as failure:
            generate("mk_niah_easy", Sources(ctx), len, 2000, 1)
        return str(failure.value)

    test.write_bytes(test.read_bytes()[:100])
    assert "corrupt or truncated parquet file" in prepare_mmlu("truncated")
    pq.write_table(pa.table({"question": ["q"], "choices": [["a", "b"]], "answer": [3]}), test)
    assert "not an MMLU row with 4 choices and an answer index" in prepare_mmlu("three_choices")
    pq.write_table(pa.table({"prompt": ["q"]}), test)
    assert "not the cais/mmlu layout (no column question, choices, answer)" in prepare_mmlu("other_columns")


def test_reference_server_answers_a_gold_list_with_its_strings():
    """gym's reference server (model=mock) gives the gold strings of a list-graded row, not their JSON, so a
    question holding quotes or backslashes is still answered right."""
    from gym.mock.tasks import _gold_text

    golds = ['The word "laconic" means: A. talkative', "What is $\\frac{1}{2}$?"]
    assert _gold_text({"expected_answer": json.dumps(golds), "match_type": "all"}) == "\n".join(golds)
    assert _gold_text({"expected_answer": "C", "match_type": "all"}) == "C"  # the multichoice rows: the letter
    assert _gold_text({"expected_answer": json.dumps(golds)}) == json.dumps(golds)  # other benchmarks: as they are
