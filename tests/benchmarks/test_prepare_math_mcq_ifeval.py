"""The first eight benchmarks' prepare scripts, run against upstream-format fixtures over loopback HTTP."""

from __future__ import annotations

import hashlib
import http.server
import inspect
import json
import random
import re
import shutil
import threading
from pathlib import Path

import pytest

from gym.data.prepare_context import PrepareContext, read_manifest
from gym.core.errors import GymError
from gym.core.paths import BENCHMARKS_DIR
from gym.core.prompts import build_messages
from tests.prepare_helpers import config, fixture_builder, local_mirror, make_ctx, script, upstream_file

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"
GSM8K_REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "gsm8k" / "test.jsonl"

EXPECTED = {  # name -> (rows in the fixture, num_repeats, verifier family)
    "aime24": (5, 32, "math"),
    "aime25": (4, 32, "math"),
    "gsm8k": (8, 1, "math"),
    "math-500": (4, 1, "math"),
    "gpqa": (5, 8, "mcq"),
    "mmlu_pro": (5, 1, "mcq"),
    "ifeval": (4, 1, "ifeval"),
    "human_eval": (3, 1, "code"),
}


def run(name: str, tmp_path: Path, mirror: str, **prepare_args) -> tuple[PrepareContext, list[dict]]:
    ctx = make_ctx(name, tmp_path, mirror, prepare_args=prepare_args)
    out = script(name).prepare(ctx, **prepare_args)
    assert Path(out) == ctx.output_path
    return ctx, [json.loads(line) for line in Path(out).read_text().splitlines()]


# -- every benchmark -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_config_composes_and_matches_script(name):
    bench = config(name)
    _, repeats, family = EXPECTED[name]
    assert bench.name == name and bench.dataset.num_repeats == repeats and bench.verifier.family == family
    assert bench.dataset.sources and all(s.startswith("https://") for s in bench.dataset.sources)
    assert (BENCHMARKS_DIR / name / "prepare.py").is_file()
    assert bench.dataset.prepare_script == f"benchmarks/{name}/prepare.py"
    # The config's prepare_args are exactly what prepare() accepts (gym validates this before running).
    inspect.signature(script(name).prepare).bind(None, **bench.dataset.prepare_args)
    assert (bench.dataset.token_env == "HF_TOKEN") == (name == "gpqa") == bench.gated
    assert bench.needs_sandbox == (name == "human_eval")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prepare_writes_contract_rows(name, tmp_path, mirror_url):
    bench = config(name)
    ctx, rows = run(name, tmp_path, mirror_url, **bench.dataset.prepare_args)
    assert len(rows) == EXPECTED[name][0]
    # Only the upstream files the config declares are fetched.
    assert ctx.sources and set(ctx.sources) <= set(bench.dataset.sources)
    for row in rows:
        assert isinstance(row["question"], str) and row["question"].strip()
        assert isinstance(row["expected_answer"], str)
        assert isinstance(row["metadata"], dict)
        if bench.verifier.family == "mcq":
            assert row["expected_answer"] in row["options"]
            assert list(row["options"]) == list("ABCDEFGHIJ"[: len(row["options"])])
        else:
            assert "options" not in row
        # The benchmark's own prompt renders from the row.
        messages = build_messages(bench.prompt.system, bench.prompt.user, row)
        assert row["question"] in messages[-1]["content"]
        for text in row.get("options", {}).values():
            assert text in messages[-1]["content"]
    manifest = read_manifest(ctx.output_path)
    assert manifest["rows"] == len(rows) and manifest["sources"] == ctx.sources


def test_offline_without_mirror_names_the_missing_file(tmp_path):
    ctx = PrepareContext(name="aime24", output_path=tmp_path / "aime24" / "aime24.jsonl", offline=True, progress=False)
    with pytest.raises(GymError, match="aime_2024"):
        script("aime24").prepare(ctx)


def test_truncated_parquet_is_a_clean_error(tmp_path):
    url = script("mmlu_pro").URL
    mirror = local_mirror(tmp_path, {url: upstream_file(url).read_bytes()[:500]})
    with pytest.raises(GymError, match="parquet"):
        script("mmlu_pro").prepare(make_ctx("mmlu_pro", tmp_path, mirror))


# -- math ------------------------------------------------------------------------------------------

def test_aime_golds_are_strings_with_metadata(tmp_path, mirror_url):
    _, aime24 = run("aime24", tmp_path, mirror_url)
    assert [r["expected_answer"] for r in aime24] == ["267", "24", "218", "4", "49"]
    assert aime24[0]["metadata"] == {"id": 60, "url": "https://example.invalid/aime_2024/problem_1",
                                     "year": "2024", "source_index": 0}
    assert "\\boxed{267}" in aime24[0]["reference_solution"]
    _, aime25 = run("aime25", tmp_path, mirror_url)  # int64 answers upstream
    assert [r["expected_answer"] for r in aime25] == ["7", "29", "55", "11"]
    assert aime25[3]["metadata"] == {"problem_idx": 4, "problem_type": ["Algebra", "Number Theory"], "source_index": 3}


def test_math500_keeps_latex_gold_and_upstream_fields(tmp_path, mirror_url):
    _, rows = run("math-500", tmp_path, mirror_url)
    assert rows[0]["expected_answer"] == "\\left( 3, \\frac{\\pi}{2} \\right)"
    assert rows[2]["expected_answer"] == "\\frac{3}{4}"
    assert rows[0]["metadata"] == {"subject": "Precalculus", "level": 2, "unique_id": "test/precalculus/807.json",
                                   "source_index": 0}
    assert rows[0]["reference_solution"].startswith("We have that")


def test_gsm8k_fixture_rows(tmp_path, mirror_url):
    _, rows = run("gsm8k", tmp_path, mirror_url)
    upstream = [json.loads(line) for line in upstream_file(script("gsm8k").URL_TEMPLATE.format(split="test")).read_text().splitlines()]
    assert [r["question"] for r in rows] == [u["question"] for u in upstream]
    assert [r["expected_answer"] for r in rows] == ["18", "3", "70000", "540", "20", "64", "260", "160"]
    assert all("<<" not in r["reference_solution"] and "####" not in r["reference_solution"] for r in rows)
    assert rows[0]["reference_solution"].startswith("Janet sells 16 - 3 - 4 = 9 duck eggs a day.")
    assert rows[7]["metadata"] == {"split": "test", "source_index": 7}


def test_gsm8k_full_real_test_file():
    module = script("gsm8k")
    items = [json.loads(line) for line in GSM8K_REAL.read_text().splitlines()]
    converted = module.convert_rows(items, "test")
    assert len(converted) == 1319 and not [p for _, _, p in converted if p]
    rows = [row for _, row, _ in converted]
    assert all(re.fullmatch(r"-?\d+", r["expected_answer"]) for r in rows)
    # Thousands separators removed (these upstream answers read "2,125" and "1,450,000").
    assert rows[146]["expected_answer"] == "2125" and rows[611]["expected_answer"] == "1450000"
    # The reference's fix table only names train-split questions: the test split is left as upstream has it.
    assert not set(module.ANSWER_FIXES) & {item["question"] for item in items}
    assert not any("upstream_answer" in r["metadata"] for r in rows)
    assert all("<<" not in r["reference_solution"] for r in rows)


def test_gsm8k_answer_fixes():
    module = script("gsm8k")
    assert len(module.ANSWER_FIXES) == 11  # the reference's list, entry for entry
    for index, (question, gold) in enumerate(module.ANSWER_FIXES.items()):
        row, problem = module.convert({"question": question, "answer": "Wrong work <<1+1=2>>2.\n#### 1,234"}, index, "train")
        assert problem is None
        assert row["expected_answer"] == gold and row["metadata"]["upstream_answer"] == "1,234"
    assert module.ANSWER_FIXES[next(q for q in module.ANSWER_FIXES if q.startswith("Pete"))] == "07:30"
    assert module.normalize_number(" 1,450,000 ") == "1450000" and module.normalize_number("2.50") == "2.5"
    assert module.normalize_number("3.0") == "3" and module.normalize_number("07:30") is None


def test_gsm8k_train_split_applies_fixes_end_to_end(tmp_path):
    module = script("gsm8k")
    fixed = [q for q in module.ANSWER_FIXES if q.startswith(("Mr. Finnegan", "Pete"))]
    lines = upstream_file(module.URL_TEMPLATE.format(split="test")).read_text().splitlines()[:2]
    lines += [json.dumps({"question": q, "answer": "Some work.\n#### 9999"}) for q in fixed]
    mirror = local_mirror(tmp_path, {module.URL_TEMPLATE.format(split="train"): ("\n".join(lines) + "\n").encode()})
    ctx = make_ctx("gsm8k", tmp_path, mirror)
    rows = [json.loads(line) for line in Path(module.prepare(ctx, split="train")).read_text().splitlines()]
    assert [r["expected_answer"] for r in rows] == ["18", "3", "10750", "07:30"]
    assert rows[3]["metadata"] == {"split": "train", "source_index": 3, "upstream_answer": "9999"}
    with pytest.raises(GymError, match="split must be one of"):
        module.prepare(ctx, split="validation")


def test_gsm8k_malformed_row_names_the_record(tmp_path):
    module = script("gsm8k")
    good = upstream_file(module.URL_TEMPLATE.format(split="test")).read_text().splitlines()[0]
    bad = json.dumps({"question": "No marker here?", "answer": "The answer is 5."})
    mirror = local_mirror(tmp_path, {module.URL_TEMPLATE.format(split="test"): f"{good}\n{bad}\n".encode()})
    with pytest.raises(GymError, match=r"test\.jsonl: record 2: 'answer' must contain exactly one '####'"):
        module.prepare(make_ctx("gsm8k", tmp_path, mirror))
    ctx = make_ctx("gsm8k", tmp_path, mirror, skip_bad_rows=True)
    assert len(Path(module.prepare(ctx)).read_text().splitlines()) == 1 and len(ctx.skipped_rows) == 1


# -- multiple choice -------------------------------------------------------------------------------

def test_gpqa_shuffle_is_the_reference_order(tmp_path, mirror_url):
    import csv

    _, rows = run("gpqa", tmp_path, mirror_url)
    with upstream_file(script("gpqa").URL).open(newline="", encoding="utf-8") as handle:
        upstream = list(csv.DictReader(handle))
    for row, item in zip(rows, upstream):
        # The reference: shuffle [correct, wrong 1..3] with Random(int(md5(question))) and take the letter.
        choices = [item["Correct Answer"], item["Incorrect Answer 1"], item["Incorrect Answer 2"], item["Incorrect Answer 3"]]
        random.Random(int(hashlib.md5(item["Question"].encode()).hexdigest(), 16)).shuffle(choices)
        assert row["expected_answer"] == "ABCD"[choices.index(item["Correct Answer"])]
        assert list(row["options"].values()) == [c.strip() for c in choices]
        assert row["options"][row["expected_answer"]] == item["Correct Answer"].strip()
        assert row["question"] == item["Question"].strip()
        assert row["metadata"]["record_id"] == item["Record ID"]
    assert len({r["expected_answer"] for r in rows}) > 1  # the shuffle really moved the correct choice


def test_gpqa_is_reproducible_and_seed_reshuffles(tmp_path, mirror_url):
    ctx, _ = run("gpqa", tmp_path / "a", mirror_url)
    again, _ = run("gpqa", tmp_path / "b", mirror_url)
    assert ctx.output_path.read_bytes() == again.output_path.read_bytes()
    _, reference = run("gpqa", tmp_path / "c", mirror_url)
    _, reseeded = run("gpqa", tmp_path / "d", mirror_url, seed=7)
    assert [r["options"] for r in reseeded] != [r["options"] for r in reference]
    for row in reseeded:  # still the same correct text behind the gold letter
        original = next(r for r in reference if r["question"] == row["question"])
        assert row["options"][row["expected_answer"]] == original["options"][original["expected_answer"]]


class _Refuse(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server API)
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_gpqa_gated_refusal_is_a_clean_error(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ctx = make_ctx("gpqa", tmp_path, f"http://127.0.0.1:{server.server_address[1]}")
        with pytest.raises(GymError, match="HTTP 401"):
            script("gpqa").prepare(ctx)
    finally:
        server.shutdown()
    assert not ctx.output_path.exists()


def test_mmlu_pro_letters_follow_the_options(tmp_path, mirror_url):
    _, rows = run("mmlu_pro", tmp_path, mirror_url)
    assert [len(r["options"]) for r in rows] == [10, 10, 4, 7, 10]  # trailing "N/A" padding dropped
    assert list(rows[0]["options"]) == list("ABCDEFGHIJ") and list(rows[2]["options"]) == list("ABCD")
    assert [(r["expected_answer"], r["options"][r["expected_answer"]]) for r in rows] == [
        ("C", "12"), ("D", "37"), ("B", "Mercury"), ("C", "normal good"), ("D", "Na")]
    assert rows[0]["metadata"]["question_id"] == 70 and rows[0]["metadata"]["category"] == "math"


def test_mmlu_pro_inconsistent_answer_is_reported(tmp_path):
    import pyarrow.parquet as pq

    url = script("mmlu_pro").URL
    table = pq.read_table(upstream_file(url)).to_pylist()
    table[1]["answer_index"] = 0  # letter D but index 0
    table[2]["answer"] = "F"  # only four options
    broken = tmp_path / "broken.parquet"
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(upstream_file(url))), broken)
    mirror = local_mirror(tmp_path, {url: broken.read_bytes()})
    with pytest.raises(GymError, match=r"row 1 \(question_id 71\): answer 'D' disagrees with answer_index 0"):
        script("mmlu_pro").prepare(make_ctx("mmlu_pro", tmp_path, mirror))
    ctx = make_ctx("mmlu_pro", tmp_path, mirror, skip_bad_rows=True)
    script("mmlu_pro").prepare(ctx)
    assert len(ctx.skipped_rows) == 2 and "not one of the option letters A-D" in ctx.skipped_rows[1]


# -- instruction following and code ----------------------------------------------------------------

def test_ifeval_rows_carry_instructions(tmp_path, mirror_url):
    _, rows = run("ifeval", tmp_path, mirror_url)
    upstream = [json.loads(line) for line in upstream_file(script("ifeval").URL).read_text().splitlines()]
    for row, item in zip(rows, upstream):
        assert row["question"] == item["prompt"] and row["expected_answer"] == ""
        assert row["instruction_id_list"] == item["instruction_id_list"] and row["kwargs"] == item["kwargs"]
        assert row["metadata"]["key"] == item["key"]
    assert rows[0]["kwargs"][2] == {"relation": "at least", "num_words": 300}


def test_ifeval_mismatched_kwargs_are_reported(tmp_path):
    url = script("ifeval").URL
    bad = json.dumps({"key": 7, "prompt": "Say hi.", "instruction_id_list": ["a:b", "c:d"], "kwargs": [{}]})
    mirror = local_mirror(tmp_path, {url: (bad + "\n").encode()})
    with pytest.raises(GymError, match=r"record 1 \(key 7\): 2 instruction ids but 1 kwargs"):
        script("ifeval").prepare(make_ctx("ifeval", tmp_path, mirror))


def test_human_eval_rows_are_runnable(tmp_path, mirror_url):
    import gzip

    _, rows = run("human_eval", tmp_path, mirror_url, indent_with_tabs=True)
    upstream = [json.loads(line) for line in gzip.decompress(upstream_file(script("human_eval").URL).read_bytes()).splitlines()]
    for row, item in zip(rows, upstream):
        for key in ("entry_point", "prompt", "canonical_solution", "base_input", "plus_input", "atol", "test", "contract"):
            assert row[key] == item[key], key
        assert row["metadata"]["task_id"] == item["task_id"] and row["expected_answer"] == ""
        assert item["prompt"].replace("    ", "\t").strip("\n") in row["question"] and "```python" in row["question"]
        scope: dict = {}  # prompt + canonical solution passes the row's own test
        exec(row["prompt"] + row["canonical_solution"] + row["test"], scope)
        scope["check"](scope[row["entry_point"]])
    assert rows[2]["atol"] == 1e-06
    _, plain = run("human_eval", tmp_path / "plain", mirror_url, indent_with_tabs=False)
    assert upstream[0]["prompt"].strip("\n") in plain[0]["question"] and "\t" not in plain[0]["question"]


def test_fixture_builder_reproduces_committed_files(tmp_path, monkeypatch):
    """tools/make_fixtures.py regenerates exactly the committed fixtures."""
    builder = fixture_builder()
    monkeypatch.setattr(builder, "UPSTREAM", tmp_path / "upstream")
    if not builder.GSM8K_REAL.is_file():  # keep the committed real-data copy
        target = tmp_path / "upstream" / builder.PATHS["gsm8k"]
        target.parent.mkdir(parents=True)
        shutil.copyfile(UPSTREAM / builder.PATHS["gsm8k"], target)
    for build in (builder.aime24, builder.aime25, builder.gsm8k, builder.math500, builder.gpqa, builder.mmlu_pro,
                  builder.ifeval, builder.human_eval):
        build()
    import pyarrow.parquet as pq

    for relative in builder.PATHS.values():
        built, committed = tmp_path / "upstream" / relative, UPSTREAM / relative
        if relative.endswith(".parquet"):  # bytes carry the writer's version; compare schema and rows
            assert pq.read_table(built).equals(pq.read_table(committed), check_metadata=True), relative
        else:
            assert built.read_bytes() == committed.read_bytes(), relative
