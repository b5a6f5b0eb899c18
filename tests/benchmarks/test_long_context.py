"""RULER generated at prepare for a tokenizer and a length, LongCodeBench, and the token caps of the
long-context variants: through `python -m gym` on the upstream-format fixtures, with the generator's output
and the grading pinned against upstream's definitions (NVIDIA/RULER scripts/data/synthetic/*.py, the
reference's ruler resources server)."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter

import pytest

from gym.data.ruler.tasks import TASK_TEMPLATES, AdjectiveNouns
from gym.verifiers import make_verifier
from tests.conftest import FIXTURES, UPSTREAM, assert_clean_failure, run_gym

TOKENIZER = UPSTREAM / "huggingface.co" / "gym-fixtures" / "tiny-bpe" / "resolve" / "main" / "tokenizer.json"
MIRROR = "data.mirror=tests/fixtures/upstream"


def prepared(data_dir, name: str) -> list[dict]:
    return [json.loads(line) for line in (data_dir / name / f"{name}.jsonl").read_text().splitlines()]


def count_tokens(text: str) -> int:
    from tokenizers import Tokenizer

    return len(Tokenizer.from_file(str(TOKENIZER)).encode(text, add_special_tokens=False).ids)


@pytest.fixture(scope="module")
def ruler_rows(tmp_path_factory):
    """Every task at 2500 tokens of a real BPE tokenizer.json, 2 samples each, prepared by the CLI offline."""
    data = tmp_path_factory.mktemp("ruler")
    result = run_gym("task=prepare", "benchmark=ruler", MIRROR, "data.offline=true", f"data.root={data}",
                     f"+prepare_args.tokenizer={TOKENIZER}", "+prepare_args.max_length=2500",
                     "+prepare_args.num_samples=2", f"hydra.run.dir={data}-prepare", timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = prepared(data, "ruler")
    return {task: [row for row in rows if row["metadata"]["task"] == task] for task in {r["metadata"]["task"] for r in rows}}


def test_every_task_fits_the_length_with_the_answer_budget(ruler_rows):
    assert len(ruler_rows) == 13 and all(len(rows) == 2 for rows in ruler_rows.values())
    budgets = {"niah": 128, "vt": 30, "cwe": 120, "fwe": 50, "qa": 32}  # upstream's tokens_to_generate
    for task, rows in ruler_rows.items():
        for row in rows:
            answer = budgets[task.split("_")[0]]
            # upstream: length = tokens of (prompt + answer prefix) + tokens to generate, within max - 50 - model template
            assert row["metadata"]["length"] == count_tokens(row["question"] + row["answer_prefix"]) + answer
            assert row["metadata"]["length"] <= 2500 - 50 - count_tokens("{task_template}"), task
            # the haystack filled the room (a draw over the length drops one upstream step, 500 essay words)
            assert row["metadata"]["length"] > 2500 // 2, (task, row["metadata"]["length"])
            assert row["match_type"] == ("part" if task.startswith("qa") else "all")


def test_needles_and_wording_follow_upstream(ruler_rows):
    single = ruler_rows["niah_single_1"][0]
    value = json.loads(single["expected_answer"])[0]
    assert single["question"].startswith("A special magic number is hidden within the following text.")
    key = re.search(r"for (\S+) mentioned in the provided text\?$", single["question"]).group(1)
    assert f"One of the special magic numbers for {key} is: {value}." in single["question"]
    assert re.fullmatch(r"[a-z]+(-[a-z]+)+", key) and re.fullmatch(r"\d{7}", value)  # adjective-noun, 7 digits
    assert single["answer_prefix"] == f" The special magic number for {key} mentioned in the provided text is"
    multi = ruler_rows["niah_multivalue"][0]
    assert multi["question"].startswith("Some special magic numbers are hidden")
    assert len(json.loads(multi["expected_answer"])) == 4
    uuids = json.loads(ruler_rows["niah_single_3"][0]["expected_answer"])
    assert uuid.UUID(uuids[0]).version == 4
    vt = ruler_rows["vt"][0]
    chain = json.loads(vt["expected_answer"])
    assert len(chain) == 5 and all(re.fullmatch(r"[A-Z]{5}", name) for name in chain)
    start = re.search(rf"VAR {chain[0]} = (\d{{5}})", vt["question"]).group(1)
    assert vt["question"].endswith(f"Question: Find all variables that are assigned the value {start} in the text above.")
    assert all(f"VAR {b} = VAR {a}" in vt["question"] for a, b in zip(chain, chain[1:]))
    assert vt["question"].count("Memorize and track the chain(s)") == 2  # upstream's one-shot example first


def test_word_tasks_gold_is_what_the_list_says(ruler_rows):
    cwe = ruler_rows["cwe"][0]
    listed = cwe["question"].split("\n")[-2]  # the asked list (after the one-shot example)
    counts = Counter(re.findall(r"\d+\. (\S+)", listed))
    gold = json.loads(cwe["expected_answer"])
    assert len(gold) == 10 and {word for word, _ in counts.most_common(10)} == set(gold)
    fwe = ruler_rows["fwe"][0]
    coded = Counter(fwe["question"].split("coded words. ")[1].split("\nQuestion:")[0].split())
    ranked = [word for word, _ in coded.most_common() if word != "..."]
    assert json.loads(fwe["expected_answer"]) == ranked[:3]
    qa = ruler_rows["qa_1"][0]
    assert qa["question"].endswith("Question: When was the Cape Verin lighthouse built?")  # SQuAD's first answerable
    assert "Document 1:\n" in qa["question"] and json.loads(qa["expected_answer"]) == ["1841"]
    assert json.loads(ruler_rows["qa_2"][0]["expected_answer"]) == ["the Lenn"]


@pytest.mark.parametrize("reply, golds, match, reward", [
    # the reference's string_match_all_single / string_match_part_single on the stripped, lowered reply
    ("The numbers are 1234567 and 7654321.", ["1234567", "7654321", "1111111"], "all", 2 / 3),
    ("  KEY-ONE  ", ["key-one"], "all", 1.0),
    ("Paris, I think", ["London", "paris"], "part", 1.0),
    ("nothing here", ["London", "Paris"], "part", 0.0),
])
def test_grading_is_the_references_string_match(reply, golds, match, reward):
    verifier = make_verifier("long_context", {"match": "row_match"})
    verdict = verifier.verify({"expected_answer": json.dumps(golds), "match_type": match}, reply)
    assert verdict.reward == pytest.approx(reward)


def test_niah_keys_are_upstreams_sorted_set():
    adjectives = ("high", "high-pitched", "ad hoc", "big", "x-rated", "x", "big")
    nouns = ("pitched-cat", "apple", "zebra", "cat")
    brute = sorted({f"{adj}-{noun}" for adj in adjectives for noun in nouns})
    view = AdjectiveNouns(adjectives, nouns)
    assert len(view) == len(brute) and [view[i] for i in range(len(view))] == brute


def test_templates_are_upstreams():
    assert TASK_TEMPLATES["qa"][1].startswith("Answer the question based on the given documents.")
    assert {task: budget for task, (budget, _, _) in TASK_TEMPLATES.items()} == {
        "niah": 128, "variable_tracking": 30, "common_words_extraction": 120, "freq_words_extraction": 50, "qa": 32}


def test_ruler_bad_arguments_fail_in_one_line(data_dir, tmp_path):
    assert_clean_failure(run_gym("task=prepare", "benchmark=ruler", MIRROR, "+prepare_args.tasks=[niah_single_9]",
                                 f"hydra.run.dir={tmp_path / 'a'}"), "unknown RULER task niah_single_9")
    assert_clean_failure(run_gym("task=prepare", "benchmark=ruler", MIRROR, "+prepare_args.tokenizer=/nowhere/tokenizer.json",
                                 f"hydra.run.dir={tmp_path / 'b'}"), "no such tokenizer.json")


def test_ruler_e2e_through_the_cli(tmp_path):
    result = run_gym("task=e2e", "benchmark=ruler", "model=mock", "model.mock.accuracy=1.0", MIRROR,
                     f"data.root={tmp_path / 'data'}", "+prepare_args.max_length=600", "+prepare_args.num_samples=1",
                     "+prepare_args.tasks=[niah_multikey_2,qa_2]", "limit=2", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"]["ruler"]
    assert metrics["rollouts"] == 2 and metrics["pass@1"]["value"] == 100.0


def test_token_cap_leaves_out_long_conversations(data_dir, tmp_path):
    result = run_gym("task=prepare", "benchmark=mrcr_n3_128k", MIRROR, "data.offline=true",
                     "+prepare_args.max_context_tokens=400", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = prepared(data_dir, "mrcr_n3_128k")
    manifest = json.loads((data_dir / "mrcr_n3_128k" / "manifest.json").read_text())
    counts = manifest["upstream_rows"]
    assert rows and counts["left_out"] > 0 and counts["seen"] == counts["kept"] + counts["left_out"]
    for row in rows:  # the reference's count: every message's content alone, summed
        assert row["metadata"]["n_tokens"] == sum(count_tokens(m["content"]) for m in row["messages"]) <= 400


def test_longcodebench_rows(data_dir, tmp_path):
    result = run_gym("task=prepare", "benchmark=longcodebench", MIRROR, "data.offline=true",
                     f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = prepared(data_dir, "longcodebench")
    assert [row["metadata"]["bucket"] for row in rows] == ["128K", "32K", "32K", "64K"]  # names sorted as text
    assert all(row["question"].endswith("'Answer: \\boxed{A/B/C/D}' (e.g. 'Answer: \\boxed{A}').") for row in rows)
    assert rows[0]["id"] == str(uuid.uuid5(uuid.NAMESPACE_URL, rows[0]["question"]))  # the reference's uuid
    assert [row["expected_answer"] for row in rows] == ["D", "C", "B", "A"]
    # the reference's own prepare on the same zip (tools/make_longcodebench_parity.py)
    reference = json.loads((FIXTURES / "longcodebench_parity.json").read_text())["rows"]
    assert [(r["question"], r["id"], r["expected_answer"], r["metadata"]["repo"], r["metadata"]["is_hard"])
            for r in rows] == [(r["question"], r["uuid"], r["expected_answer"], r["repo"], r["is_hard"])
                               for r in reference]
