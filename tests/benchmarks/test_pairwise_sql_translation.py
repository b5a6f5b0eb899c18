"""The prepare scripts of the pairwise, sql, long_context, label and translation benchmarks on their
upstream-format fixtures (served over loopback HTTP), and the runs that exercise their special paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import aggregate, collect, prepare
from tests.conftest import FIXTURES
from tests.prepare_helpers import make_ctx, script


def _prepared(name, tmp_path, mirror, **args):
    out = script(name).prepare(make_ctx(name, tmp_path, mirror, prepare_args=args), **args)
    return [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]


def test_wmt24pp_drops_bad_sources(tmp_path, mirror_url):
    rows = _prepared("wmt24pp", tmp_path, mirror_url)
    assert len(rows) == 55 * 3 and not any("CANARY" in r["text"] for r in rows)  # all 55 pairs, as the reference
    german = next(r for r in rows if r["target_language"] == "de_DE")
    assert "into German." in german["question"]
    assert "into French (Canada)." in next(r for r in rows if r["target_language"] == "fr_CA")["question"]
    assert len({r["question"] for r in rows}) == len(rows)  # distinct per target language and variety
    assert len(_prepared("wmt24pp", tmp_path / "k", mirror_url, keep_bad_source=True, targets=["ja_JP"])) == 4


def test_graphwalks_bfs_wording_is_fixed(tmp_path, mirror_url):
    rows = _prepared("graphwalks", tmp_path, mirror_url)
    bfs = [r for r in rows if r["metadata"]["problem_type"] == "bfs"]
    assert bfs and all("nodes at exactly depth" in r["question"] for r in bfs)
    assert json.loads(rows[0]["expected_answer"]) == ["b2e4", "c3d5"]
    assert json.loads(rows[5]["expected_answer"]) == ["c3d5"]  # f6a8 is not its own parent (as the reference)
    assert [row["metadata"]["file"] for row in rows].count("graphwalks_256k_to_1mil.parquet") == 1  # both files


def test_birdbench_unpacks_nested_databases(tmp_path, mirror_url):
    rows = _prepared("birdbench", tmp_path, mirror_url)
    databases = tmp_path / "birdbench" / "databases"
    assert sorted(p.name for p in databases.iterdir()) == ["schools", "shop"]
    assert rows[0]["question"].startswith("Fresno refers to") and "CREATE TABLE schools" in rows[0]["sql_context"]
    assert "INSERT INTO" in rows[0]["sql_context"] and rows[0]["metadata"]["subset"] == "simple"


def test_birdbench_corrupt_archive(tmp_path):
    mirror = tmp_path / "mirror" / "bird-bench.oss-cn-beijing.aliyuncs.com"
    mirror.mkdir(parents=True)
    (mirror / "dev.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(GymError, match="corrupt or truncated archive"):
        _prepared("birdbench", tmp_path, str(tmp_path / "mirror"))


def test_arena_prepare(tmp_path, mirror_url):
    v1 = _prepared("arena_hard", tmp_path, mirror_url)
    assert {r["category"] for r in v1} == {"hard_prompt"} and v1[0]["baseline_answer"].startswith("A short baseline")
    v2 = _prepared("arena_hard_v2", tmp_path / "v2", mirror_url)
    assert {r["category"] for r in v2} == {"hard_prompt", "creative_writing"}
    assert all(r["expected_answer"] == r["id"] for r in v2)


def test_imo_gradingbench_prepare(tmp_path, mirror_url):
    rows = _prepared("imo_gradingbench", tmp_path, mirror_url)
    assert [r["expected_answer"] for r in rows] == ["correct", "almost", "partial", "incorrect", "correct"]
    assert len({r["question"] for r in rows}) == len(rows) and rows[0]["metadata"]["points"] == 7


def test_m_arena_hard_baselines(tmp_path, mirror_url):
    rows = _prepared("m_arena_hard", tmp_path, mirror_url, languages=["de", "ja"])
    assert [r["metadata"]["language"] for r in rows] == ["de", "de", "ja", "ja"]
    assert rows[0]["baseline_answer"].startswith("A short baseline") and rows[0]["id"].endswith("-de")
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps({"uid": "0000a1b2c3d4e5f6", "language": "de", "messages": [
        {"role": "assistant", "content": "Eine eigene Antwort."}]}) + "\n")
    with pytest.raises(GymError, match="no baseline answer for uid 0001a1b2c3d4e5f6"):
        _prepared("m_arena_hard", tmp_path / "own", mirror_url, languages=["de"], baseline_file=str(own))
    v2 = _prepared("m_arena_hard_v2", tmp_path / "v2", mirror_url, languages=["fr"])
    assert [r["category"] for r in v2] == ["hard_prompt", "creative_writing", "hard_prompt"]
    with pytest.raises(GymError, match="languages"):
        _prepared("m_arena_hard", tmp_path / "bad", mirror_url, languages=["xx"])


def test_mrcr_sends_the_conversation(tmp_path, data_dir, mirror_url):
    base = ["benchmark=mrcr", f"data.mirror={mirror_url}", "+prepare_args.files=[2needle/2needle_0.parquet]"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", "benchmark=mrcr", "model=mock", "model.mock.accuracy=1.0", "progress=false",
                         f"+run_dir={run_dir}"]))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 and all(r["reward"] == 1.0 for r in rollouts)
    prompt = rollouts[0]["prompt"]
    assert [m["role"] for m in prompt[:2]] == ["user", "assistant"] and prompt[-1]["content"].startswith("Prepend")


def test_messages_template_checks_the_conversation():
    from gym.core.prompts import build_messages

    with pytest.raises(GymError, match="end with a user message"):
        build_messages(None, "{messages}", {"messages": [{"role": "user", "content": "a"},
                                                         {"role": "assistant", "content": "b"}]})
    with pytest.raises(GymError, match="non-empty 'messages'"):
        build_messages(None, "{messages}", {"question": "q"})


def test_proof_bench_judge_prepare(tmp_path, mirror_url):
    rows = _prepared("proof_bench_judge", tmp_path, mirror_url)
    ratings = {r["metadata"]["expert_rating"]: r["expected_answer"] for r in rows}
    assert ratings == {7: "Yes", 6: "Yes", 1: "No", 0: "No"} and len(rows) == 5
    order = [r["metadata"]["source_index"] for r in rows]
    assert sorted(order) == list(range(5)) and order != list(range(5))  # the reference's seeded shuffle
    cut = _prepared("proof_bench_judge", tmp_path / "cut", mirror_url, max_proof_tokens=40)
    assert len(cut) == 2  # 28 and 32 tokens of the fixture's stand-in tokenizer
    # the reference's own prepare on the same file and tokenizer (tools/make_proof_judge_parity.py)
    reference = json.loads((FIXTURES / "proof_judge_parity.json").read_text(encoding="utf-8"))["proof_bench_judge"]
    for ours, theirs in ((rows, reference["10000"]), (cut, reference["40"])):
        assert [(r["problem"], r["proof"], f"Judgement: {r['expected_answer']}") for r in ours] == [
            (r["problem"], r["proof"], r["verdict"]) for r in theirs]


def test_judgement_metrics_in_aggregate(tmp_path, data_dir, mirror_url):
    base = ["benchmark=proof_bench_judge", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "num_repeats=4", "progress=false", f"+run_dir={run_dir}"]))
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    fm = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["proof_bench_judge"]["family_metrics"]
    assert fm["family"] == "label" and sum(fm["confusion"].values()) == 20
    assert 0 < fm["accuracy"]["value"] < 100 and fm["f1"] is not None


def test_flores200_pairs_by_id(tmp_path, mirror_url):
    rows = _prepared("flores200", tmp_path, mirror_url, targets=["fra_Latn", "jpn_Jpan"])
    assert len(rows) == 6 and rows[0]["text"] == "The bridge was closed for repairs last week."
    assert rows[0]["expected_answer"].startswith("[fra_Latn]") and "into French" in rows[0]["question"]
    with pytest.raises(GymError, match="targets"):
        _prepared("flores200", tmp_path / "bad", mirror_url, targets=["eng_Latn"])


def test_spider2_prepare(tmp_path, mirror_url):
    rows = _prepared("spider2_lite", tmp_path, mirror_url)
    assert [r["id"] for r in rows] == ["local001", "local002", "local003", "local004"]  # bq001 left out
    assert rows[0]["db_id"] == "Soccer-League" and rows[0]["gold_result"] == [[["4"]]]
    assert len(rows[2]["gold_result"]) == 2 and rows[1]["condition_cols"] == [0, 1]
    assert (tmp_path / "spider2_lite" / "databases" / "Soccer-League" / "Soccer-League.sqlite").is_file()
    page = tmp_path / "page.html"
    page.write_text("<html>Google Drive can't scan this file for viruses</html>")
    with pytest.raises(GymError, match="in a browser"):
        _prepared("spider2_lite", tmp_path / "html", mirror_url, sqlite_zip=str(page))
