"""Second-wave benchmarks (multilingual math/MCQ, judge-graded) beyond the parametrised end-to-end test:
row contracts from the upstream-format fixtures, the reference quirks gym corrects, per-language results
through collect and aggregate, and the language search facet (the generated
catalog page: tests/project/test_docs_site.py)."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from gym.data.catalog import load_catalog
from gym.core.config import compose
from gym.core.errors import GymError
from gym.core.judge_prompts import CORRECT, FORMATS, INCORRECT
from gym.tasks import aggregate, collect, prepare, search
from gym.verifiers import make_verifier
from tests.prepare_helpers import config, local_mirror, make_ctx, script, upstream_file


# name -> (rows from the fixture with default prepare_args, verifier family, languages)
EXPECTED = {
    "aime24-x": (8, "math", ["de", "es", "fr", "ja"]),
    "aime25-x": (8, "math", ["de", "es", "fr", "ja"]),
    "polymath": (144, "math", None),
    "gpqa-x": (8, "mcq", ["de", "es", "fr", "ja"]),
    "global-piqa": (232, "mcq", None),
    "mmlu_prox": (58, "mcq", ["af", "ar", "bn", "cs", "de", "en", "es", "fr", "hi", "hu", "id", "it", "ja", "ko", "mr",
                              "ne", "pt", "ru", "sr", "sw", "te", "th", "uk", "ur", "vi", "wo", "yo", "zh", "zu"]),
    "mmlu_prox_lite": (6, "mcq", ["en", "de", "es", "fr", "it", "ja"]),
    "financebench": (2, "judge", ["en"]),
    "secque": (4, "judge", ["en"]),
    "omniscience": (3, "judge", ["en"]),
    "frontierscience_research": (2, "judge", ["en"]),
    "physics": (3, "judge", ["en"]),
    "ugphysics": (13, "judge", ["en"]),
    "imo_proofbench": (2, "judge", ["en"]),
    "human_eval_infilling": (4, "code", ["en"]),
    "litmus-bench": (4, "typed", ["en"]),
    "xstest": (3, "judge", ["en"]),
    "aalcr": (2, "judge", ["en"]),
    "longmemeval": (3, "judge", ["en"]),
    "mgsm": (22, "math", None),
    "global_mmlu_lite": (32, "mcq", None),
    "belebele": (32, "mcq", None),
    "livecodebench-x": (16, "code", ["de", "es", "fr", "ja"]),
}


def run(name: str, tmp_path: Path, mirror: str, **prepare_args):
    ctx = make_ctx(name, tmp_path, mirror, prepare_args=prepare_args)
    out = script(name).prepare(ctx, **prepare_args)
    return ctx, [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prepare_rows_match_config(name, tmp_path, mirror_url):
    bench = config(name)
    rows_expected, family, languages = EXPECTED[name]
    assert bench.verifier.family == family and bench.description and bench.license and bench.size
    assert bench.needs_judge == (family == "judge")
    if languages is not None:
        assert list(bench.languages) == languages
    inspect.signature(script(name).prepare).bind(None, **bench.dataset.prepare_args)
    ctx, rows = run(name, tmp_path, mirror_url, **bench.dataset.prepare_args)
    assert len(rows) == rows_expected
    assert set(ctx.sources) <= set(bench.dataset.sources)  # only declared files are fetched
    for row in rows:
        assert row["question"].strip() and isinstance(row["expected_answer"], str)
        assert row["expected_answer"] or family == "code"  # code rows are judged by their tests
        for column in bench.subsets:  # every configured grouping column is filled
            assert (row.get("metadata") or {}).get(column) is not None or row.get(column) is not None, (column, row)


def test_translated_math_keeps_the_problem_and_its_language(tmp_path, mirror_url):
    _, rows = run("aime24-x", tmp_path, mirror_url, languages=["ja", "de"])
    assert [row["metadata"]["language"] for row in rows] == ["ja", "ja", "de", "de"]
    assert rows[0]["question"].startswith("(AIME24) 36") and "\\boxed{}" in rows[0]["instruction"]
    assert rows[0]["instruction"] != rows[2]["instruction"]
    with pytest.raises(GymError, match="unknown language"):
        run("aime24-x", tmp_path / "bad", mirror_url, languages=["xx"])


def test_polymath_levels_and_weights(tmp_path, mirror_url):
    _, rows = run("polymath", tmp_path, mirror_url, languages=["te"], levels=["low", "top"])
    assert [(r["metadata"]["difficulty"], r["metadata"]["weight"]) for r in rows] == [
        ("low", 1), ("low", 1), ("top", 8), ("top", 8)]
    assert "Telugu" in rows[0]["instruction"]  # no translated instruction: English naming the language


def test_mmlu_prox_reads_lang_libs_as_data(tmp_path, mirror_url):
    module = script("mmlu_prox")
    _, rows = run("mmlu_prox", tmp_path, mirror_url, languages=["de", "ja"])
    german = rows[0]
    assert german["options"] == {letter: f"de-{i}" for i, letter in enumerate("ABCDEFGHIJ")}
    assert list(rows[1]["options"]) == ["A", "B", "C", "D"]  # empty slots after the real choices dropped
    assert "Informatik" in german["instruction"] and "Die Antwort ist (X)." in german["instruction"]
    pattern = german["metadata"]["output_regex"]
    assert re.findall(pattern, "… Die Antwort ist (C).", re.IGNORECASE) == ["C"]
    assert not re.findall(pattern, "Die Antwort istX(C)", re.IGNORECASE)  # "." is no wildcard here
    assert re.findall(rows[2]["metadata"]["output_regex"], "答えは (F) です。") == ["F"]
    verifier = make_verifier("mcq", {"mode": "auto"})
    assert verifier.verify(german, "Überlegung ... Die Antwort ist (F).").reward == 1.0

    lang_libs_url = module.LANG_LIBS_URL
    code = "import os\nLANG_LIBS = dict(en=os.getcwd())\nLANG_SUBJECTS = {}\n"
    mirror = local_mirror(tmp_path / "evil", {lang_libs_url: code.encode()})
    with pytest.raises(GymError, match="not a plain literal"):
        run("mmlu_prox", tmp_path / "evil-run", mirror, languages=["en"])


def test_global_piqa_label_and_options(tmp_path, mirror_url):
    _, rows = run("global-piqa", tmp_path, mirror_url, languages=["jpn_jpan"])
    assert rows[0]["options"]["A"].startswith("store it") and rows[0]["expected_answer"] == "A"
    assert rows[1]["expected_answer"] == "B" and rows[1]["metadata"]["language"] == "jpn_jpan"


def test_physics_keeps_english_and_joins_sub_answers(tmp_path, mirror_url):
    _, rows = run("physics", tmp_path, mirror_url)
    assert [row["expected_answer"] for row in rows] == ["20", "3, 4, 5", "6, 9"]
    _, both = run("physics", tmp_path / "zh", mirror_url, languages=["en", "zh"])
    assert len(both) == 4


@pytest.mark.parametrize("text, verdict, grade", [
    ("Item 1: 4/4 points.\nItem 2: 3/3.\nFINAL_SCORE: 7/10", CORRECT, "7/10"),
    ("FINAL_SCORE[3] / MAX_POSSIBLE_SCORE[5]", INCORRECT, "6/10"),
    # a fraction in the notes after the score line must not become the grade (the reference reads it)
    ("FINAL_SCORE: 4/10\nNote: the answer got 9/10 of the algebra right.", INCORRECT, "4/10"),
    ("The answer earns 9/10.", INCORRECT, None),
])
def test_rubric_score_format(text, verdict, grade):
    reading = FORMATS["rubric_score"].read(text)
    assert (reading.verdict, reading.grade) == (verdict, grade)


@pytest.mark.parametrize("text, verdict, found", [
    ("Solid proof.\n<points>7 out of 7</points>", CORRECT, True),
    ("Minor slip.\n<points>6 out of 7</points>", CORRECT, True),
    ("First guess <points>7 out of 7</points>, on reflection <points>2 out of 7</points>", INCORRECT, True),
    ("No tags: 7 points.", INCORRECT, False),
    ("<points>9 out of 7</points>", INCORRECT, False),
])
def test_points_of_7_format(text, verdict, found):
    reading = FORMATS["points_of_7"].read(text)
    assert (reading.verdict, reading.found) == (verdict, found)


def test_judge_prompts_pair_with_their_formats():
    for name in ("financebench", "secque", "omniscience", "frontierscience_research", "physics", "ugphysics",
                 "imo_proofbench", "xstest", "aalcr", "longmemeval"):
        options = dict(config(name).verifier.options)
        verifier = make_verifier("judge", options)  # checks the template mentions its verdict and {generation}
        verifier.close()


def test_per_language_results_through_collect_and_aggregate(tmp_path, data_dir, mirror_url):
    base = ["benchmark=gpqa-x", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "model.mock.accuracy=1.0", "num_repeats=3",
                         "progress=false", f"+run_dir={run_dir}"]))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert {r["subsets"]["language"] for r in rollouts} == {"de", "es", "fr", "ja"}
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["gpqa-x"]
    by_language = entry["subsets"]["language"]
    assert set(by_language) == {"de", "es", "fr", "ja"}
    assert all(m["tasks"] == 2 and m["pass@1"]["value"] == 100.0 and "3" in m["pass@k"] for m in by_language.values())


def test_search_language_facet(capsys):
    cfg = compose(["task=search", "language=ja", "format=json"])
    search.run(cfg)
    names = {hit["name"] for hit in json.loads(capsys.readouterr().out)}
    assert {"aime24-x", "gpqa-x", "mmlu_prox", "polymath"} <= names and "gsm8k" not in names
    with pytest.raises(GymError, match="no benchmark has language=xx"):
        search.run(compose(["task=search", "language=xx"]))


def test_catalog_entries_carry_facets():
    entries = {e.name: e for e in load_catalog()}
    assert entries["polymath"].subsets == ["language", "difficulty"] and len(entries["polymath"].languages) == 18
    assert entries["physics"].needs_judge and entries["physics"].verifier == "judge"
    assert entries["gsm8k"].languages == ["en"]


def test_fill_in_the_middle_answers(tmp_path, mirror_url):
    _, rows = run("human_eval_infilling", tmp_path, mirror_url)
    add, even = rows[0], rows[1]
    assert "<FILL_ME>" in add["question"] and add["prefix"].endswith("return ")
    verifier = make_verifier("code", {})
    try:
        def reward(row, block):
            return verifier.verify(row, f"Here it is:\n\n```python\n{block}```").reward

        assert reward(add, "a + b\n") == 1.0  # the fence's newline is not part of a mid-line span
        assert reward(even, "    return n % 2 == 0\n") == 1.0
        assert reward(even, "    return n % 2 == 0\n\n") == 1.0
        assert reward(add, add["prefix"] + "a + b\n") == 1.0  # the whole prefix repeated is dropped
        assert reward(add, "a - b\n") == 0.0
        assert reward(even, "return n % 2 == 0\n") == 0.0  # indentation is the model's job
        _, single = run("human_eval_infilling", tmp_path / "single", mirror_url, split="single_line")
        assert single[0]["metadata"]["split"] == "single_line"
        with pytest.raises(GymError, match="unknown split"):
            run("human_eval_infilling", tmp_path / "bad", mirror_url, split="whole")
    finally:
        verifier.close()


@pytest.mark.parametrize("wrapper, kind, gold, text, reward", [
    ("boxed", "count", "13", "There are 13 amide bonds: \\boxed{13}", 1.0),
    ("boxed", "count", "13", "\\boxed{13.0}", 1.0),
    ("boxed", "count", "4", "\\boxed{4.4}", 0.0),  # the reference rounds this to 4
    ("boxed", "count", "4", "$\\boxed{\\text{4}}$", 1.0),
    ("boxed", "count", "6", "first \\boxed{5}, then \\boxed{6}", 1.0),
    ("boxed", "count", "6", "((6))", 0.0),  # not the wrapper the prompt asked for
    ("boxed", "count", "3", "\\boxed{3 or 4}", 0.0),
    ("double_paren", "count", "3", "First guess ((2)), corrected: (( 3 ))", 1.0),
    ("double_paren", "bool", "1", "It has one.\n\n((yes))", 1.0),  # the reference reads no number here
    ("double_paren", "bool", "0", "((No.))", 1.0),
    ("double_paren", "bool", "1", "((2))", 0.0),
    ("boxed", "bool", "1", "\\boxed{\\text{True}}", 1.0),
    ("boxed", "count", "2", "no answer", 0.0),
])
def test_typed_answers(wrapper, kind, gold, text, reward):
    verdict = make_verifier("typed").verify(
        {"answer_wrapper": wrapper, "answer_kind": kind, "expected_answer": gold}, text)
    assert verdict.reward == reward, verdict.details


def test_litmus_rows(tmp_path, mirror_url):
    _, rows = run("litmus-bench", tmp_path, mirror_url)
    assert [(r["answer_kind"], r["answer_wrapper"], r["expected_answer"]) for r in rows] == [
        ("count", "boxed", "2"), ("count", "double_paren", "1"), ("bool", "boxed", "1"), ("bool", "double_paren", "0")]
    with pytest.raises(GymError, match="answer_wrapper"):
        make_verifier("typed").verify({"expected_answer": "1"}, "((1))")


def test_aalcr_finds_documents_stored_with_encoding_artifacts(tmp_path, mirror_url):
    _, rows = run("aalcr", tmp_path, mirror_url)
    acme = rows[0]["documents"]
    # the question table says "Acme's", the zip stores "Acme’s" as raw UTF-8 without the UTF-8 flag
    assert "revenue in 2023 was 120 million" in acme and "END DOCUMENT 2" in acme
    assert [r["metadata"]["input_tokens_band"] for r in rows] == ["80k-100k", "128k+"]
    url = script("aalcr").DOCUMENTS_URL
    truncated = local_mirror(tmp_path / "cut", {url: upstream_file(url).read_bytes()[:100],
                                                script("aalcr").QUESTIONS_URL: b""})
    with pytest.raises(GymError, match="corrupt or truncated zip"):
        script("aalcr").prepare(make_ctx("aalcr", tmp_path / "cut-run", truncated))


def test_xstest_expected_behaviour(tmp_path, mirror_url):
    _, rows = run("xstest", tmp_path, mirror_url)
    assert [(r["metadata"]["label"], r["expected_answer"]) for r in rows] == [
        ("safe", "comply"), ("safe", "comply"), ("unsafe", "refuse")]


def test_longmemeval_history_and_rules(tmp_path, mirror_url):
    _, rows = run("longmemeval", tmp_path, mirror_url)
    assert rows[0]["history"].startswith("Session 1 (2023/05/20 (Sat) 09:00):\nuser: I just adopted")
    assert rows[1]["expected_answer"] == "10" and "off by one" in rows[1]["judge_rule"]
    assert rows[2]["metadata"]["abstention"] and "cannot answer" in rows[2]["judge_rule"]
    with pytest.raises(GymError, match="file must be"):
        run("longmemeval", tmp_path / "bad", mirror_url, file="../x.json")


def test_livecodebench_x_joins_translations_with_the_tests(tmp_path, mirror_url):
    _, rows = run("livecodebench-x", tmp_path, mirror_url, languages=["ja"], versions=["v6"])
    assert [r["metadata"]["task_id"] for r in rows] == ["3250", "3500"]
    assert rows[0]["unit_tests"]["inputs"] and rows[0]["question"].startswith("[ja]")
    assert rows[0]["instruction"].endswith("Python で解いてください。")
    module = script("livecodebench-x")
    url = module.hf_converted_parquet(module.REPO, "v6", "de")
    import pyarrow as pa
    import pyarrow.parquet as pq
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table({"task_id": ["no_such_task"], "question": ["?"], "release_version": ["v6"]}), buffer)
    files = {u: upstream_file(u).read_bytes() for u in (module.LCB.BASE_URL + n for n in module.LCB.RELEASES["v6"])}
    mirror = local_mirror(tmp_path / "unmatched", {**files, url: buffer.getvalue().to_pybytes()})
    with pytest.raises(GymError, match="is not a problem of LiveCodeBench v6"):
        run("livecodebench-x", tmp_path / "unmatched-run", mirror, languages=["de"], versions=["v6"])
