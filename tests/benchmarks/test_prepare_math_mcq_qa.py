"""Prepare scripts of aime26, hmmt_feb25, hmmt_nov25, apex_shortlist, hendrycks_math, mmlu, mmlu-redux,
supergpqa, mmmlu and hotpotqa_closedbook, run against their upstream-format fixtures over loopback HTTP."""

from __future__ import annotations

import csv
import inspect
import io
import json
import random
import tarfile
from pathlib import Path

import pytest
from urllib.parse import urlsplit

from gym.data.prepare_context import PrepareContext, read_manifest
from gym.core.errors import GymError
from gym.core.prompts import build_messages
from tests.prepare_helpers import config, fixture_builder, local_mirror, make_ctx, script, upstream_file
from gym.verifiers import make_verifier

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"

EXPECTED = {  # name -> (rows prepared from the fixture, num_repeats, verifier family, mcq mode)
    "aime26": (4, 1, "math", None),
    "hmmt_feb25": (5, 4, "math", None),
    "hmmt_nov25": (4, 1, "math", None),
    "apex_shortlist": (4, 1, "math", None),
    "hendrycks_math": (5, 1, "math", None),
    "mmlu": (5, 1, "mcq", "boxed"),
    "mmlu-redux": (60, 1, "mcq", "boxed"),  # 8 + 55 stand-in rows, of which 3 flagged rows are dropped
    "supergpqa": (5, 1, "mcq", "answer_colon"),
    "mmmlu": (28, 1, "mcq", "auto"),
    "hotpotqa_closedbook": (5, 1, "qa", None),
}


def run(name: str, tmp_path: Path, mirror: str, **prepare_args) -> tuple[PrepareContext, list[dict]]:
    ctx = make_ctx(name, tmp_path, mirror, prepare_args=prepare_args)
    out = script(name).prepare(ctx, **prepare_args)
    return ctx, [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]


# -- every benchmark -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_config_matches_script(name):
    bench = config(name)
    _, repeats, family, mode = EXPECTED[name]
    assert bench.name == name and bench.dataset.num_repeats == repeats and bench.verifier.family == family
    assert bench.verifier.options.get("mode") == mode
    assert bench.description and bench.license and bench.size and bench.tags
    assert not (bench.gated or bench.needs_judge or bench.needs_sandbox) and bench.dataset.token_env is None
    assert bench.dataset.sources and all(s.startswith("https://") for s in bench.dataset.sources)
    inspect.signature(script(name).prepare).bind(None, **bench.dataset.prepare_args)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prepare_writes_contract_rows(name, tmp_path, mirror_url):
    bench = config(name)
    ctx, rows = run(name, tmp_path, mirror_url, **bench.dataset.prepare_args)
    assert len(rows) == EXPECTED[name][0]
    assert ctx.sources and set(ctx.sources) <= set(bench.dataset.sources)  # only declared files are fetched
    questions = [row["question"] for row in rows]
    assert len(set(questions)) == len(questions)
    for row in rows:
        assert isinstance(row["question"], str) and row["question"].strip()
        assert isinstance(row["expected_answer"], str) and row["expected_answer"].strip()
        assert isinstance(row["metadata"], dict)
        if bench.verifier.family == "mcq":
            assert list(row["options"]) == list("ABCDEFGHIJ"[: len(row["options"])])
            assert row["expected_answer"] in row["options"]
        else:
            assert "options" not in row
        content = build_messages(bench.prompt.system, bench.prompt.user, row)[-1]["content"]
        assert row["question"] in content and all(text in content for text in row.get("options", {}).values())
    assert read_manifest(ctx.output_path)["rows"] == len(rows)


def test_fixture_builder_reproduces_committed_files(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    builder = fixture_builder()
    monkeypatch.setattr(builder, "UPSTREAM", tmp_path)
    builder.more_benchmarks()
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(built) == 8 + 57 + 15
    for relative in built:
        new, committed = tmp_path / relative, UPSTREAM / relative
        if relative.suffix == ".parquet":  # bytes carry the writer's version; compare schema and rows
            assert pq.read_table(new).equals(pq.read_table(committed), check_metadata=True), relative
        elif relative.suffix == ".arrow":
            read = lambda path: pa.ipc.open_stream(path.read_bytes()).read_all()  # noqa: E731
            assert read(new).equals(read(committed)), relative
        else:
            assert new.read_bytes() == committed.read_bytes(), relative


# -- math ------------------------------------------------------------------------------------------

def test_matharena_golds_are_strings_and_metadata_follows_the_columns(tmp_path, mirror_url):
    _, aime = run("aime26", tmp_path, mirror_url)  # int64 answers upstream
    assert [r["expected_answer"] for r in aime] == ["15", "91", "1", "33"]
    assert aime[1]["metadata"] == {"problem_idx": 2, "source_index": 1}
    _, feb = run("hmmt_feb25", tmp_path, mirror_url)
    assert feb[0]["expected_answer"] == "\\frac{1}{4}" and feb[1]["expected_answer"] == "6\\sqrt{3}"
    assert feb[2]["metadata"] == {"problem_idx": 3, "problem_type": ["Combinatorics"], "source_index": 2}
    _, apex = run("apex_shortlist", tmp_path, mirror_url)
    assert apex[1]["expected_answer"] == "-2, 4"
    assert apex[0]["metadata"] == {"problem_idx": 1, "source": "Stand-in A 2025", "source_index": 0}


def test_matharena_row_without_answer_is_kept_and_named(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    url = script("hmmt_nov25").URL
    table = pq.read_table(upstream_file(url)).to_pylist()
    table[2]["answer"] = "  "
    broken = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(upstream_file(url))), broken)
    mirror = local_mirror(tmp_path, {url: broken.getvalue()})
    ctx = make_ctx("hmmt_nov25", tmp_path, mirror)  # kept as the reference keeps it, and reported
    assert len(Path(script("hmmt_nov25").prepare(ctx)).read_text().splitlines()) == 4 and not ctx.skipped_rows
    assert ctx.unscorable_rows == [f"{ctx.raw_dir / urlsplit(url).netloc / urlsplit(url).path.lstrip('/')}: "
                                   "row 2 (problem_idx 3): missing 'answer'"]


def test_hendrycks_math_keeps_latex_and_upstream_keys(tmp_path, mirror_url):
    _, rows = run("hendrycks_math", tmp_path, mirror_url)
    assert [r["expected_answer"] for r in rows] == ["36", "\\dfrac{1}{6}", "6", "108^\\circ", "5\\sqrt{2}"]
    assert rows[1]["metadata"] == {"level": "Level 2", "subject": "Counting & Probability",
                                   "unique_id": "test/counting_and_probability/9002.json", "source_index": 1}
    assert rows[0]["reference_solution"].endswith("\\boxed{36}$.")
    # Copies that call the problem "question" (and carry extra keys) are read the same way.
    row, problem = script("hendrycks_math").convert({"question": "Q?", "answer": 3, "idx": 7}, 0)
    assert problem is None and row["question"] == "Q?" and row["expected_answer"] == "3"
    assert row["metadata"] == {"idx": 7, "source_index": 0}


# -- multiple choice -------------------------------------------------------------------------------

def test_mmlu_reads_test_csvs_in_subject_order(tmp_path, mirror_url):
    _, rows = run("mmlu", tmp_path, mirror_url)
    assert [r["metadata"]["subject"] for r in rows] == ["abstract_algebra"] * 2 + ["high_school_geography"] * 2 + [
        "world_religions"]
    assert [r["expected_answer"] for r in rows] == ["C", "B", "A", "B", "C"]
    assert rows[4]["question"] == "In which city is the Kaaba located?\nChoose one."  # quoted newline kept
    assert rows[4]["options"]["D"] == "Cairo, Egypt"
    assert {k: rows[2]["metadata"][k] for k in ("subcategory", "category", "row_in_subject")} == {
        "subcategory": "geography", "category": "social_sciences", "row_in_subject": 0}
    assert rows[0]["metadata"]["category"] == "stem" and rows[4]["metadata"]["category"] == "humanities"
    _, dev = run("mmlu", tmp_path / "dev", mirror_url, split="dev")
    assert [r["expected_answer"] for r in dev] == ["B"]
    assert dev[0]["question"].startswith("Which of these is the identity")
    with pytest.raises(GymError, match="split must be one of test, val, dev"):
        script("mmlu").prepare(make_ctx("mmlu", tmp_path, mirror_url), split="train")


def _tar(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue()


def test_mmlu_bad_records_and_broken_archives_are_clean_errors(tmp_path):
    url = script("mmlu").URL
    bad = _tar({"data/test/anatomy_test.csv": "Q1?,a,b,c,d,B\nQ2?,a,b,c,d,E\nQ3?,a,b,c\n"})
    mirror = local_mirror(tmp_path / "bad", {url: bad})
    with pytest.raises(GymError, match=r"anatomy_test\.csv record 2: answer 'E' is not one of A-D"):
        script("mmlu").prepare(make_ctx("mmlu", tmp_path, mirror))
    ctx = make_ctx("mmlu", tmp_path, mirror, skip_bad_rows=True)
    assert len(Path(script("mmlu").prepare(ctx)).read_text().splitlines()) == 1
    assert "expected 6 fields" in ctx.skipped_rows[1]
    truncated = local_mirror(tmp_path / "cut", {url: upstream_file(url).read_bytes()[:700]})
    with pytest.raises(GymError, match="corrupt or truncated MMLU archive|no data/test"):
        script("mmlu").prepare(make_ctx("mmlu", tmp_path / "cut", truncated))  # own dir: a file in place is reused
    empty = local_mirror(tmp_path / "empty", {url: _tar({"README": "nothing"})})
    with pytest.raises(GymError, match="no data/test/<subject>_test.csv files"):
        script("mmlu").prepare(make_ctx("mmlu", tmp_path / "empty", empty))


def test_mmlu_redux_drops_flagged_rows_and_applies_corrections(tmp_path, mirror_url):
    ctx, rows = run("mmlu-redux", tmp_path, mirror_url)
    assert len(ctx.sources) == 57 and ctx.sources[0].endswith("/abstract_algebra/data-00000-of-00001.arrow")
    algebra = [r for r in rows if r["metadata"]["subject"] == "abstract_algebra"]
    assert [(r["expected_answer"], r["metadata"]["error_type"]) for r in algebra] == [
        ("B", "ok"), ("B", "wrong_groundtruth"), ("A", "ok")]
    assert algebra[1]["metadata"]["upstream_answer"] == "A"  # published index 0, annotators say B
    assert "upstream_answer" not in algebra[0]["metadata"] and algebra[0]["metadata"]["row_in_subject"] == 0
    assert algebra[2]["metadata"]["row_in_subject"] == 3
    assert algebra[0]["options"] == {"A": "2", "B": "4", "C": "8", "D": "16"}
    assert rows[3]["metadata"]["subject"] == "anatomy" and rows[3]["expected_answer"] == "C"
    _, strict = run("mmlu-redux", tmp_path / "strict", mirror_url, apply_corrections=False)
    assert len(strict) == len(rows) - 1 and all(r["metadata"]["error_type"] == "ok" for r in strict)


def test_mmlu_redux_truncated_arrow_is_a_clean_error(tmp_path):
    url = script("mmlu-redux").URL_TEMPLATE.format(subject="abstract_algebra")
    mirror = local_mirror(tmp_path, {url: upstream_file(url).read_bytes()[:300]})
    with pytest.raises(GymError, match="corrupt or truncated Arrow file"):
        script("mmlu-redux").prepare(make_ctx("mmlu-redux", tmp_path, mirror))


def _reference_supergpqa_order(items: list[dict], seed: int = 42) -> list[tuple[list[str], str]]:
    """The reference's transform written out: clean options, shuffle texts with one Random(seed)."""
    rng = random.Random(seed)
    out = []
    for item in items:
        choices = [o.strip().replace("  ", " ") for o in item["options"]]
        correct = choices["ABCDEFGHIJ".index(item["answer_letter"])]
        rng.shuffle(choices)
        out.append((choices, "ABCDEFGHIJ"[choices.index(correct)]))
    return out


def test_supergpqa_shuffle_is_the_reference_order(tmp_path, mirror_url):
    _, rows = run("supergpqa", tmp_path, mirror_url)
    items = [json.loads(line) for line in upstream_file(script("supergpqa").URL).read_text().splitlines()]
    expected = _reference_supergpqa_order(items)
    assert [(list(r["options"].values()), r["expected_answer"]) for r in rows] == expected
    assert len({r["expected_answer"] for r in rows}) > 1  # the shuffle really moved the correct choice
    for row, item in zip(rows, items):
        assert row["options"][row["expected_answer"]] == item["answer"].strip()
        assert row["metadata"]["uuid"] == item["uuid"] and row["metadata"]["difficulty"] == item["difficulty"]
    assert "1300" in rows[3]["options"].values()  # "1300  " cleaned
    _, reseeded = run("supergpqa", tmp_path / "seed", mirror_url, seed=7)
    assert [r["options"] for r in reseeded] != [r["options"] for r in rows]


def test_supergpqa_skipped_row_keeps_later_rows_in_reference_order(tmp_path):
    url = script("supergpqa").URL
    items = [json.loads(line) for line in upstream_file(url).read_text().splitlines()]
    items[1]["answer_letter"] = "Z"
    mirror = local_mirror(tmp_path, {url: "".join(json.dumps(i) + "\n" for i in items).encode()})
    with pytest.raises(GymError, match=r"record 2 \(uuid .*\): answer_letter 'Z' names no option"):
        script("supergpqa").prepare(make_ctx("supergpqa", tmp_path, mirror))
    ctx = make_ctx("supergpqa", tmp_path, mirror, skip_bad_rows=True)
    rows = [json.loads(line) for line in Path(script("supergpqa").prepare(ctx)).read_text().splitlines()]
    good = [json.loads(line) for line in upstream_file(url).read_text().splitlines()]
    expected = _reference_supergpqa_order(good)
    assert [(list(r["options"].values()), r["expected_answer"]) for r in rows] == expected[:1] + expected[2:]


def _mmmlu_csv(url: str) -> list[dict]:
    with upstream_file(url).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_mmmlu_rows_per_language_with_answer_patterns(tmp_path, mirror_url):
    module = script("mmmlu")
    ctx, rows = run("mmmlu", tmp_path, mirror_url)
    assert [r["metadata"]["language"] for r in rows[::2]] == list(module.LANGUAGES)
    assert len(ctx.sources) == 14 and module.ENGLISH_URL not in ctx.sources
    upstream = _mmmlu_csv(module.URL_TEMPLATE.format(language="JA-JP"))
    japanese = [r for r in rows if r["metadata"]["language"] == "JA-JP"]
    for row, item in zip(japanese, upstream):
        assert row["question"] == item["Question"] and row["expected_answer"] == item["Answer"]
        assert row["options"] == {letter: item[letter] for letter in "ABCD"}
    assert japanese[1]["metadata"]["subject"] == "elementary_mathematics"
    assert japanese[1]["metadata"]["category"] == "stem"
    verifier = make_verifier("mcq", dict(config("mmmlu").verifier.options))
    words = {"AR-XY": "الإجابة", "BN-BD": "উত্তর", "HI-IN": "उत्तर", "ZH-CN": "答案", "JA-JP": "答え", "KO-KR": "정답",
             "DE-DE": "Antwort", "YO-NG": "Ìdáhùn"}
    native = {"A": "أ", "B": "ب", "C": "ج", "D": "د"}
    for row in rows:
        language, gold = row["metadata"]["language"], row["expected_answer"]
        word = words.get(language, "Answer")
        letter = native[gold] if language == "AR-XY" else chr(ord(gold) + 0xFEE0) if language == "ZH-CN" else gold
        verdict = verifier.verify(row, f"Reasoning first.\n**{word}:** {letter}")
        assert verdict.reward == 1.0 and verdict.details["source"] == "output_regex", (language, verdict)
        wrong = "ABCD"[("ABCD".index(gold) + 1) % 4]
        assert verifier.verify(row, f"{word}: {gold}\n\nOn reflection, {word}: {wrong}").reward == 0.0  # last wins


def test_mmmlu_language_choice(tmp_path, mirror_url):
    module = script("mmmlu")
    _, rows = run("mmmlu", tmp_path, mirror_url, languages=["DE-DE", "SW-KE"], include_english=True)
    assert [r["metadata"]["language"] for r in rows] == ["DE-DE"] * 2 + ["SW-KE"] * 2 + ["EN-US"] * 2
    assert rows[4]["question"] == "What is the capital of France?"
    assert "Answer" in rows[4]["metadata"]["output_regex"] and "Antwort" not in rows[4]["metadata"]["output_regex"]
    with pytest.raises(GymError, match="unknown MMMLU language\\(s\\) XX-YY"):
        module.prepare(make_ctx("mmmlu", tmp_path, mirror_url), languages=["XX-YY"])


def test_mmmlu_pattern_rejects_prose_and_lowercase():
    verifier = make_verifier("mcq", {"mode": "auto"})
    row = {"expected_answer": "A", "options": dict(zip("ABCD", "1234")),
           "metadata": {"output_regex": script("mmmlu").answer_pattern("FR-FR")}}
    assert verifier.verify(row, "Réponse : c'est la bonne").extracted_answer is None
    assert verifier.verify(row, "Réponse : a priori oui").extracted_answer is None  # lowercase "a" is a word
    assert verifier.verify(row, "Réponse : A").reward == 1.0
    assert verifier.verify(row, "Ma réponse finale.\nRéponse: (A)").reward == 1.0


# -- short-answer QA -------------------------------------------------------------------------------

def test_hotpotqa_rows_leave_the_context_out(tmp_path, mirror_url):
    _, rows = run("hotpotqa_closedbook", tmp_path, mirror_url)
    assert [r["expected_answer"] for r in rows] == ["radium", "no", "two", "the Danube", "Indian Ocean"]
    assert rows[0]["metadata"] == {"id": "5f0000000000000000000001", "type": "bridge", "level": "medium",
                                   "source_index": 0}
    assert all(set(r) == {"question", "expected_answer", "metadata"} for r in rows)
    assert "Polonium was discovered" not in json.dumps(rows)
    bench = config("hotpotqa_closedbook")
    prompt = build_messages(bench.prompt.system, bench.prompt.user, rows[2])[-1]["content"]
    assert '{"answer": "<your answer>"}' in prompt and "Question: How many moons" in prompt
    with make_verifier("qa", dict(bench.verifier.options)) as verifier:
        assert verifier.verify(rows[2], '{"answer": "2"}').reward == 1.0  # number word gold, digit answer
        assert verifier.verify(rows[3], '```json\n{"answer": "Danube River"}\n```').reward == 1.0
        assert verifier.verify(rows[1], '{"answer": "Yes"}').reward == 0.0
