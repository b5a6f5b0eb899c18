"""The pairwise, sql, long_context, label and translation verifier families: parity with the reference
rules (and the corrections gym makes to them), their aggregate metrics, and their benchmarks' prepare
scripts on the upstream-format fixtures."""

from __future__ import annotations

import json
import sqlite3
from difflib import SequenceMatcher

import pytest

from gym.model.client import Completion
from gym.core.config import compose
from gym.core.errors import GymError
from gym.metrics.family import STATS, bootstrap_ci
from gym.verifiers.label import LabelVerifier
from gym.verifiers.long_context import prompt_bucket
from gym.verifiers.translation import translation_metrics
from gym.tasks import aggregate, collect, prepare
from gym.verifiers import make_verifier
from gym.verifiers.base import VerifierError
from gym.verifiers.judge import JudgeUnavailable
from gym.verifiers.label import parse_grade, parse_judgement
from gym.verifiers.long_context import node_f1, parse_nodes
from gym.verifiers.pairwise import parse_label
from gym.verifiers.sql import extract_sql, run_query, QueryFailed
from tests.conftest import ROOT


# -- label ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("The proof is complete.\nJudgement: Yes", "Yes"),
    ("**Judgement**: no, step 3 fails", "No"),
    ("judgement:   ** YES **", "Yes"),
    ("Judgement: maybe", None),
    ("no verdict here", None),
    # the reference reads the first mark (here the echoed instruction); gym reads the model's own verdict
    ("I must end with Judgement: Yes or No.\nStep 2 is wrong.\nJudgement: No", "No"),
])
def test_judgement_labels(text, expected):
    assert parse_judgement(text) == expected


def test_first_mark_is_what_the_reference_reads():
    text = "I must end with Judgement: Yes or No.\nJudgement: No"
    assert parse_judgement(text, last=False) == "Yes" and parse_judgement(text) == "No"


@pytest.mark.parametrize("text, expected", [
    ("Overall the argument holds. **Correct**.", "correct"),
    ("Grade: (almost)!", "almost"),
    ("It makes progress but stops: partial", "partial"),
    ("The answer is Incorrect", "incorrect"),
    ("I would say correct, I think", None),
    ("", None),
])
def test_grade_is_the_last_word(text, expected):
    assert parse_grade(text) == expected


def test_label_verifier_modes():
    judge = make_verifier("label", {"mode": "judgement"})
    assert judge.verify({"expected_answer": "Yes"}, "<think>Judgement: No</think>All fine.\nJudgement: Yes").reward == 1.0
    assert judge.verify({"expected_answer": "No"}, "Judgement: Yes").reward == 0.0
    assert judge.verify({"expected_answer": "Yes"}, "<think>never closed Judgement: Yes").extracted_answer is None
    grade = make_verifier("label", {"mode": "grade"})
    verdict = grade.verify({"expected_answer": "correct"}, "Minor slip only. almost")
    assert verdict.reward == 0.0 and verdict.details["points_gap"] == 1
    assert verdict.details["scores"] == {"binarized_accuracy": 1.0}
    with pytest.raises(GymError, match="mode"):
        make_verifier("label", {"mode": "vibes"})


def test_label_metrics_mae_pearson_and_f1():
    rows = [{"status": "ok", "task_index": i, "reward": float(p == g), "verifier": {
        "mode": "grade", "points_gap": abs(p - g), "points": [p, g]}} for i, (p, g) in enumerate([(7, 7), (6, 7), (0, 1), (1, 0)])]
    out = LabelVerifier.family_metrics(rows, STATS)
    assert out["mae"] == 0.75 and out["mae_count"] == 4 and 0.8 < out["pearson_points"] < 1.0
    yes_no = [("Yes", "Yes"), ("Yes", "No"), ("No", "Yes"), ("No", "No"), (None, "Yes")]
    rows = [{"status": "ok", "task_index": i, "reward": float(p == g), "verifier": {"mode": "judgement",
             "predicted": p, "gold": g}} for i, (p, g) in enumerate(yes_no)]
    out = LabelVerifier.family_metrics(rows, STATS)
    assert out["confusion"] == {"tp": 1, "fp": 1, "fn": 2, "tn": 1}
    assert out["precision"] == 50.0 and out["recall"] == pytest.approx(100 / 3, abs=1e-3)


# -- long context ---------------------------------------------------------------------------------------
def test_graphwalks_parsing_and_f1():
    assert parse_nodes("reasoning...\nFinal Answer: [a1, b2 , c3]") == ["a1", "b2", "c3"]
    assert parse_nodes("Final Answer: [a1]\nthanks") is None  # must be on the last non-empty line
    assert parse_nodes("Final Answer: []") == []
    assert parse_nodes("Final Answer: ['a1', \"b2\"]") == ["a1", "b2"]  # correction: quotes dropped
    assert node_f1(set(), set()) == 1.0 and node_f1({"a"}, set()) == 0.0
    assert node_f1({"a", "b"}, {"b", "c"}) == pytest.approx(0.5)
    verifier = make_verifier("long_context", {"match": "node_f1"})
    row = {"expected_answer": json.dumps(["a1", "b2"])}
    assert verifier.verify(row, "Final Answer: [a1, b2]").reward == 1.0
    assert verifier.verify(row, "Final Answer: [a1, zz]").reward == pytest.approx(0.5)
    assert verifier.verify(row, "a1, b2").details["parse_failed"] is True


def test_mrcr_prefix_ratio_matches_sequence_matcher():
    verifier = make_verifier("long_context", {"match": "prefix_ratio"})
    row = {"expected_answer": "xK9q The tapir poem, second verse", "random_string_to_prepend": "xK9q"}
    reply = "xK9q The tapir poem, 2nd verse"
    expected = SequenceMatcher(None, " The tapir poem, 2nd verse", " The tapir poem, second verse").ratio()
    assert verifier.verify(row, reply).reward == pytest.approx(expected)
    assert verifier.verify(row, "The tapir poem, second verse").reward == 0.0  # no prefix, no score


def test_ruler_substring_and_boxed_choice():
    row = {"expected_answer": json.dumps(["7412", "Tango"])}
    assert make_verifier("long_context", {"match": "substring_all"}).verify(row, "numbers: 7412 and tango").reward == 1.0
    assert make_verifier("long_context", {"match": "substring_all"}).verify(row, "just 7412").reward == 0.5
    assert make_verifier("long_context", {"match": "substring_any"}).verify(row, "just 7412").reward == 1.0
    boxed = make_verifier("long_context", {"match": "choice_boxed"})
    assert boxed.verify({"expected_answer": "C"}, "It is (C). Answer: \\boxed{C}").reward == 1.0
    assert boxed.verify({"expected_answer": "C"}, "Answer: C").extracted_answer is None
    with pytest.raises(GymError, match="match"):
        make_verifier("long_context", {})


def test_prompt_buckets():
    assert prompt_bucket({"prompt": [{"content": "x" * 100}]}) == "<=4k"
    assert prompt_bucket({"prompt": [{"content": "x" * 40_000}]}) == "<=16k"
    assert prompt_bucket({"prompt": [{"content": "x" * 5_000_000}]}) == ">1M"


def test_context_refusals_are_model_errors_counted_per_bucket(tmp_path, data_dir, mirror_url):
    base = ["benchmark=graphwalks", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    # prompts are ~60 words: a 40-word context window refuses every one with HTTP 400
    collect.run(compose(["task=collect", *base, "model=mock", "model.mock.max_context_tokens=40", "num_repeats=2",
                         "progress=false", f"+run_dir={run_dir}"]))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert {r["status"] for r in rollouts} == {"model_error"} and all(r["reward"] == 0.0 for r in rollouts)
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["graphwalks"]
    assert entry["pass@1"]["value"] == 0.0 and entry["counts"]["model_error"] == len(rollouts)


def test_long_context_buckets_in_aggregate(tmp_path, data_dir, mirror_url, capsys):
    base = ["benchmark=graphwalks", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "num_repeats=2", "progress=false", f"+run_dir={run_dir}"]))
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["graphwalks"]
    buckets = entry["family_metrics"]["by_prompt_size"]
    assert entry["family_metrics"]["family"] == "long_context" and list(buckets) == ["<=4k"]
    assert buckets["<=4k"]["tasks"] == 7 and buckets["<=4k"]["value"] == entry["pass@1"]["value"]
    assert "graphwalks: by prompt size: <=4k" in capsys.readouterr().out


# -- pairwise -------------------------------------------------------------------------------------------
def test_pairwise_labels_follow_the_reference_rule():
    assert parse_label("Thinking... My final verdict is [[A>>B]]") == "A>>B"
    assert parse_label("[[B>A]] and again [[B>A]]") == "B>A"
    assert parse_label("[[A>B]] ... no wait [[B>A]]") is None  # differing labels: invalid
    assert parse_label("[[A=]]") is None and parse_label("no label") is None and parse_label(None) is None


class ScriptedJudge:
    """A judge client that answers from a list and records the prompts (unit level, no endpoint)."""

    model = "scripted-judge"

    def __init__(self, replies):
        self.replies, self.prompts = list(replies), []

    def complete(self, messages, seed=None):
        self.prompts.append(messages[-1]["content"])
        reply = self.replies.pop(0)
        if isinstance(reply, Completion):
            return reply
        return Completion(status="ok", text=reply, finish_reason="stop", attempts=1)


ROW = {"question": "Name a prime.", "baseline_answer": "BASELINE 9", "expected_answer": "u1"}


@pytest.mark.parametrize("replies, reward", [
    (["[[A>>B]]", "[[B>A]]"], 1.0),   # better in both orders
    (["[[A>B]]", "[[A>B]]"], 0.5),    # position bias: wins as A, loses as B
    (["[[A=B]]", "[[A=B]]"], 0.5),    # a tie counts half (the reference counts it as a loss)
    (["[[B>>A]]", "[[A>>B]]"], 0.0),
    (["garbled", "[[B>A]]"], 1.0),    # an invalid game is left out
])
def test_pairwise_scores_both_orders(replies, reward):
    verifier = make_verifier("pairwise", {})
    judge = ScriptedJudge(replies)
    verifier.attach_judge(judge)
    verdict = verifier.verify(ROW, "MODEL 7")
    assert verdict.reward == reward
    first, second = judge.prompts
    assert first.index("MODEL 7") < first.index("BASELINE 9") and second.index("BASELINE 9") < second.index("MODEL 7")


def test_pairwise_failures():
    verifier = make_verifier("pairwise", {})
    verifier.attach_judge(ScriptedJudge(["nothing", "still nothing"]))
    with pytest.raises(VerifierError, match="no valid"):
        verifier.verify(ROW, "MODEL 7")
    verifier.attach_judge(ScriptedJudge([Completion(status="infra_error", error="HTTP 503")]))
    with pytest.raises(JudgeUnavailable):
        verifier.verify(ROW, "MODEL 7")
    verifier.attach_judge(ScriptedJudge([]))
    assert verifier.verify(ROW, "<think>unfinished").details["judge_skipped"] == "empty answer"
    with pytest.raises(GymError, match="baseline_answer"):
        verifier.verify({"question": "q"}, "x")
    with pytest.raises(GymError, match="default_category"):
        make_verifier("pairwise", {"default_category": "poetry"})


def test_creative_rows_get_the_creative_prompt():
    verifier = make_verifier("pairwise", {})
    judge = ScriptedJudge(["[[A>B]]", "[[B>A]]"])
    verifier.attach_judge(judge)
    verifier.verify({**ROW, "category": "creative_writing"}, "MODEL 7")
    assert "creative writing prompt" in judge.prompts[0]


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    values = [1, 0.5, 0, 1, 1, 0.5, 1, 0]
    first, second = bootstrap_ci(values), bootstrap_ci(values)
    assert first == second and first["ci_low"] < first["value"] == 62.5 < first["ci_high"]
    assert bootstrap_ci([1.0]) == {"value": 100.0, "ci_low": None, "ci_high": None}


def test_win_rate_in_aggregate(tmp_path, data_dir, mirror_url, capsys):
    base = ["benchmark=arena_hard_v2", f"data.mirror={mirror_url}", "judge=mock"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "num_repeats=4", "progress=false", f"+run_dir={run_dir}"]))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert {r["reward"] for r in rollouts} <= {0.0, 1.0} and {r["extracted_answer"] for r in rollouts} <= {"win", "loss"}
    aggregate.run(compose(["task=aggregate", f"rollouts={run_dir}", f"+run_dir={tmp_path / 'agg'}"]))
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["arena_hard_v2"]
    fm = entry["family_metrics"]
    assert fm["win_rate"]["value"] == entry["pass@1"]["value"]
    assert fm["win_rate"]["ci_low"] <= fm["win_rate"]["value"] <= fm["win_rate"]["ci_high"]
    assert set(fm["win_rate_by_category"]) == {"hard_prompt", "creative_writing"}
    assert sum(fm["outcomes"].values()) == len(rollouts) and fm["invalid_games"] == 0
    assert "arena_hard_v2: win rate vs baseline" in capsys.readouterr().out


# -- sql ------------------------------------------------------------------------------------------------
def test_sql_extraction():
    text = "First try:\n```sql\nSELECT 1\n```\nBetter:\n```sql\nSELECT name -- the name\nFROM t /* all */ WHERE x = 1\n```"
    assert extract_sql(text) == "SELECT name FROM t WHERE x = 1"  # the reference would keep only "SELECT name"
    assert extract_sql("no block, SELECT 1") is None and extract_sql("```sql\n  \n```") is None


@pytest.fixture
def db_root(tmp_path):
    (tmp_path / "demo").mkdir()
    connection = sqlite3.connect(tmp_path / "demo" / "demo.sqlite")
    connection.executescript("CREATE TABLE t (id INTEGER, name TEXT); "
                             "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (2, 'b'), (3, NULL);")
    connection.commit()
    connection.close()
    return tmp_path


def test_sql_execution_match(db_root):
    verifier = make_verifier("sql", {"db_root": str(db_root)})
    row = {"db_id": "demo", "gold_sql": "SELECT id, name FROM t WHERE id >= 2"}
    assert verifier.verify(row, "```sql\nSELECT id, name FROM t WHERE id > 1 ORDER BY id DESC\n```").reward == 1.0
    assert verifier.verify(row, "```sql\nSELECT DISTINCT id, name FROM t WHERE id > 1\n```").reward == 1.0  # as sets
    wrong = verifier.verify(row, "```sql\nSELECT id, name FROM t\n```")
    assert wrong.reward == 0.0 and wrong.details["failure"] == "mismatch"
    broken = verifier.verify(row, "```sql\nSELEC id FROM t\n```")
    assert broken.reward == 0.0 and broken.details["failure"] == "error"
    assert verifier.verify(row, "I cannot").details["failure"] == "no_sql"
    with pytest.raises(VerifierError, match="gold SQL failed"):
        verifier.verify({"db_id": "demo", "gold_sql": "SELECT nope FROM t"}, "```sql\nSELECT 1\n```")
    with pytest.raises(GymError, match="no SQLite database"):
        verifier.verify({"db_id": "other", "gold_sql": "SELECT 1"}, "```sql\nSELECT 1\n```")


def test_sql_is_read_only_and_bounded(db_root):
    path = db_root / "demo" / "demo.sqlite"
    for statement in ("DELETE FROM t", "INSERT INTO t VALUES (9, 'z')", "DROP TABLE t",
                      f"ATTACH DATABASE '{db_root / 'x.sqlite'}' AS x", "PRAGMA query_only = OFF",
                      "CREATE TABLE u (x)"):
        with pytest.raises(QueryFailed):
            run_query(path, statement, timeout=5, max_rows=10)
    assert run_query(path, "SELECT COUNT(*) FROM t", timeout=5, max_rows=10) == [(4,)]  # nothing changed
    assert not (db_root / "x.sqlite").exists()
    forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT MAX(x) FROM c"
    with pytest.raises(QueryFailed) as caught:
        run_query(path, forever, timeout=0.2, max_rows=10)
    assert caught.value.kind == "timeout"
    many = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT x FROM c"
    with pytest.raises(QueryFailed) as caught:
        run_query(path, many, timeout=5, max_rows=10)
    assert caught.value.kind == "row_cap"


# -- translation ----------------------------------------------------------------------------------------
def test_translation_scores_match_sacrebleu():
    import sacrebleu

    verifier = make_verifier("translation", {})
    row = {"expected_answer": "Das Museum öffnet werktags um neun.", "source_language": "en",
           "target_language": "de_DE"}
    hypothesis = "Das Museum öffnet an Werktagen um neun."
    verdict = verifier.verify(row, f"<think>hmm</think>\n{hypothesis}")
    assert verdict.reward == pytest.approx(sacrebleu.sentence_bleu(hypothesis, [row["expected_answer"]]).score / 100)
    assert verdict.details["scores"]["chrf"] == pytest.approx(
        sacrebleu.sentence_chrf(hypothesis, [row["expected_answer"]]).score / 100)
    assert verifier.verify(row, row["expected_answer"]).reward == pytest.approx(1.0)
    assert verifier.verify(row, "<think>unfinished").extracted_answer is None
    assert verifier.verify({**row, "target_language": "zh_CN"}, "x").details["tokenize"] == "zh"


def test_corpus_metrics_per_pair():
    import sacrebleu

    refs = ["Das ist gut.", "Es regnet heute.", "Wir gehen nach Hause."]
    hyps = ["Das ist gut.", "Heute regnet es.", "Wir gehen heim."]
    rows = [{"status": "ok", "task_index": i, "rollout_index": 0, "reward": 0.0, "verifier": {
        "pair": "en->de_DE", "tokenize": "13a", "hypothesis": h, "reference": r}} for i, (h, r) in enumerate(zip(hyps, refs))]
    out = translation_metrics(rows)
    assert out["pairs"]["en->de_DE"]["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-3)
    assert out["xx->xx"]["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, abs=1e-3)


def test_corpus_scores_from_the_verifiers_statistics_equal_sacrebleus_corpus_scores():
    """aggregate sums per-segment statistics instead of re-tokenizing the corpus; the numbers must be
    sacrebleu's corpus_bleu / corpus_chrf over the same texts, for every tokenizer and an empty reply."""
    import sacrebleu

    wmt = ROOT / "tests/fixtures/upstream/huggingface.co/datasets/google/wmt24pp/resolve/main"
    verifier = make_verifier("translation", {})
    for path in sorted(wmt.glob("en-*.jsonl")):
        items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        target = path.stem.split("-", 1)[1]
        refs = [item["target"] for item in items]
        hyps = [refs[0], items[1]["source"], " ".join(reversed(refs[2].split())), ""][:len(refs)]
        rows = [{"status": "ok", "task_index": i, "rollout_index": 0, "reward": 0.0,
                 "verifier": verifier.verify({"expected_answer": r, "source_language": "en", "target_language": target},
                                             h).details} for i, (h, r) in enumerate(zip(hyps, refs))]
        assert all("stats" in row["verifier"] for row in rows)
        tokenize = rows[0]["verifier"]["tokenize"]
        out = translation_metrics(rows)["pairs"][f"en->{target}"]
        assert out["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize=tokenize).score, abs=1e-4)
        assert out["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, abs=1e-4)
        older = translation_metrics([{**row, "verifier": {k: v for k, v in row["verifier"].items() if k != "stats"}}
                                     for row in rows])["pairs"][f"en->{target}"]  # rollouts without statistics
        assert (older["bleu"], older["chrf"]) == (out["bleu"], out["chrf"])


# -- Spider 2.0-Lite ------------------------------------------------------------------------------------
def test_spider2_column_comparison():
    from gym.verifiers.sql import columns_match

    gold = [("Leeds", "3"), ("York", "1")]
    assert columns_match(gold, [(1, "York", 1.004), (2, "Leeds", 3)], None, ignore_order=True)  # extra column, 0.01
    assert not columns_match(gold, [("York", 1), ("Leeds", 3)], None, ignore_order=False)  # order matters here
    assert columns_match(gold, [("Leeds", 99), ("York", 98)], [0], ignore_order=True)  # only condition column 0
    assert not columns_match(gold, [("Leeds", 3)], None, ignore_order=True)  # a row missing
    assert columns_match([("0",)], [(None,)], None, ignore_order=True)  # NULL counts as 0, as the evaluator
    assert columns_match([], [], None, ignore_order=True) and not columns_match([("1",)], [], None, ignore_order=True)


def test_spider2_verifier_any_gold_set(db_root):
    verifier = make_verifier("sql", {"db_root": str(db_root), "compare": "columns"})
    row = {"db_id": "demo", "gold_result": [[["9"]], [["2"], ["2"]]], "ignore_order": True, "condition_cols": []}
    assert verifier.verify(row, "```sql\nSELECT id FROM t WHERE name = 'b'\n```").reward == 1.0  # second set
    assert verifier.verify(row, "```sql\nSELECT id FROM t WHERE id = 1\n```").reward == 0.0
    with pytest.raises(GymError, match="compare"):
        make_verifier("sql", {"db_root": str(db_root), "compare": "bag"})


def test_translation_tokenize_option():
    assert make_verifier("translation", {"tokenize": "char"}).verify(
        {"expected_answer": "abc", "target_language": "fr_FR"}, "abc").details["tokenize"] == "char"
    with pytest.raises(GymError, match="tokenize"):
        make_verifier("translation", {"tokenize": "words"})
