"""Third-wave judged and rule-checked benchmarks (iheval, answer-judge, proof-arena-judge), the livecodebench
cascade options, and the reference benchmarks gym does not run yet (gym/data/not_run.yaml), through the CLI;
iheval's scorers, IFEval rules and task-macro aggregation against values recorded from IHEval's own code
(tools/make_iheval_parity.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gym.data.catalog import NEEDS, NOT_RUN_FILE, load_not_run
from gym.verifiers.iheval.metrics import iheval as iheval_metrics
from gym.verifiers import make_verifier
from gym.verifiers.iheval import _strict_loose
from gym.verifiers.instructions import follow
from tests.conftest import FIXTURES, UPSTREAM, assert_clean_failure, run_gym

TASKS = ("verb-extract", "translation", "lang-detect", "system-prompt-extract", "user-prompt-hijack", "slack-user",
         "get-webpage", "single-turn", "multi-turn")
PARITY = json.loads((FIXTURES / "iheval_parity.json").read_text(encoding="utf-8"))
NOT_RUN = {"audio": {"asr_leaderboard", "librispeech_pc", "musan", "numb3rs"},
           "gpu_metric": {"longmt_pg19", "longmt_wmt24pp", "speed-bench"},
           "web": {"browsecomp", "critpt", "finance_agent_v2", "finance_sec_search", "pinchbench", "gdpval"},
           "containers": {"swebench", "deepswe", "osworld", "legal_agent_bench"},
           "lean": {"minif2f", "mobench", "proofnet", "putnam_bench"}, "gated_vision": {"labbench2_vlm"}}


def e2e(name: str, root: Path, *extra: str):
    return run_gym("task=e2e", f"benchmark={name}", "model=mock", "judge=mock", f"data.mirror={UPSTREAM}",
                   f"data.root={root / 'data'}", f"hydra.run.dir={root / name}", *extra)


def prepared(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / "data" / name / f"{name}.jsonl").read_text().splitlines()]


# -- the reference benchmarks gym does not run ---------------------------------------------------------
def test_not_run_file_keeps_its_three_keys_and_the_reference_names():
    raw = yaml.safe_load(NOT_RUN_FILE.read_text(encoding="utf-8"))
    assert all(set(item) == {"name", "needs", "why"} for item in raw)
    by_need: dict[str, set] = {}
    for entry in load_not_run():
        assert entry.needs in NEEDS and "\n" not in entry.why
        by_need.setdefault(entry.needs, set()).add(entry.name)
    assert by_need == NOT_RUN


def test_search_names_what_gym_does_not_run(tmp_path):
    table = run_gym("task=search", "query=lean", f"hydra.run.dir={tmp_path}/a")
    assert table.returncode == 0, table.stderr
    assert "Reference benchmarks gym does not run yet (" in table.stdout and "No benchmarks match" not in table.stdout
    for name in NOT_RUN["lean"]:
        assert f"{name}: gym does not run it yet; it needs a Lean 4 + Mathlib sandbox" in table.stdout
    hits = json.loads(run_gym("task=search", "query=swebench", "format=json", f"hydra.run.dir={tmp_path}/b").stdout)
    swe = next(hit for hit in hits if hit["name"] == "swebench")
    assert swe["runs"] is False and swe["needs"] == "containers" and swe["score"] == 100


@pytest.mark.parametrize("args", [["task=search", "benchmark=swebench"],
                                  ["task=e2e", "benchmark=musan", "model=mock"],
                                  ["task=prepare", "benchmarks=[gsm8k,proofnet]"]])
def test_choosing_a_benchmark_gym_does_not_run_gets_its_line(args, tmp_path):
    result = run_gym(*args, f"hydra.run.dir={tmp_path}")
    assert result.returncode == 2 and not result.stdout
    assert_clean_failure(result, "gym does not run it yet; it needs")
    assert len(result.stderr.strip().splitlines()) == 1


# -- the new benchmarks end to end -----------------------------------------------------------------------
def test_iheval_e2e_offline_with_its_hierarchy_scores(tmp_path):
    """(Every benchmark's prepare -> collect -> aggregate runs in test_benchmarks_e2e; this one through the CLI.)"""
    result = e2e("iheval", tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(prepared(tmp_path, "iheval")) == 92  # every setting folder of the fixture archive
    metrics = json.loads((tmp_path / "iheval" / "metrics.json").read_text())["benchmarks"]["iheval"]
    assert metrics["rollouts"] == 92
    family = metrics["family_metrics"]
    assert family["accuracy_mode"] == "hierarchy" and family["result_score"] == family["conflict_score"]
    assert set(family["tasks"]) == {f"{c}/{t}" for c in ("aligned", "conflict", "reference") for t in TASKS}
    assert "iheval: result " in result.stdout + result.stderr
    slack = next(json.loads(line) for line in (tmp_path / "iheval" / "rollouts.jsonl").read_text().splitlines()
                 if '"slack-user"' in line)
    assert [m["role"] for m in slack["prompt"]][-2:] == ["assistant", "tool"]  # the canned tool turn, sent natively


def test_answer_judge_rows_and_verdicts(tmp_path):
    assert run_gym("task=prepare", "benchmark=answer-judge", f"data.mirror={UPSTREAM}", f"data.root={tmp_path}/data",
                   f"hydra.run.dir={tmp_path}/r").returncode == 0
    rows = prepared(tmp_path, "answer-judge")
    assert [r["expected_answer"] for r in rows].count("Yes") == 7 and rows[2]["predicted_answer"] == "16384.60"
    assert rows[0]["question"].startswith("Problem: A parabola") and "\nExpected answer: 2.2" in rows[0]["question"]
    judge = make_verifier("label", {"mode": "judgement"})
    assert judge.verify(rows[2], "Reasoning: the values differ.\nJudgement: No").reward == 1.0


def test_proof_arena_judge_cuts_order_and_token_cap(tmp_path):
    """The graders' cuts, the seeded order and the reference's filter: len(Qwen3-0.6B tokens of the proof) <= cap
    (the fixture's tokenizer stands in); rows, order and verdicts as the reference's own prepare gives them."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(UPSTREAM / "huggingface.co/Qwen/Qwen3-0.6B/resolve/main/tokenizer.json"))
    runs = {}
    for cap in ("10000", "114"):
        args = [] if cap == "10000" else [f"benchmark.dataset.prepare_args.max_proof_tokens={cap}"]
        result = run_gym("task=prepare", "benchmark=proof-arena-judge", f"data.mirror={UPSTREAM}", *args,
                         f"data.root={tmp_path}/{cap}/data", f"hydra.run.dir={tmp_path}/{cap}/r")
        assert result.returncode == 0, result.stderr[-2000:]
        runs[cap] = prepared(tmp_path / cap, "proof-arena-judge")
    rows = runs["10000"]
    manifest = json.loads((tmp_path / "10000" / "data" / "proof-arena-judge" / "manifest.json").read_text())
    assert manifest["upstream_rows"]["left_out"] == 3  # usamo 7/5, imo 6/6, imc 9/10
    assert manifest["prepare_args"] == {"tokenizer": "Qwen/Qwen3-0.6B", "max_proof_tokens": 10000}
    assert {r["metadata"]["source"] for r in rows} == {"openai_imo", "gemini_imo", "usamo", "imo", "imc"}
    assert all("<think>" not in r["proof"] and r["question"].startswith("### Problem Statement:") for r in rows)
    assert [r["metadata"]["source"] for r in rows[:3]] != ["openai_imo"] * 3  # shuffled with seed 42
    counts = [len(tokenizer.encode(r["proof"], add_special_tokens=False).ids) for r in rows]
    assert [r["metadata"]["n_tokens"] for r in rows] == counts and len(rows) == 17
    kept = [r["proof"] for r, n in zip(rows, counts) if n <= 114]
    assert 0 < len(kept) < 17 and [r["proof"] for r in runs["114"]] == kept  # same order, shorter proofs only
    manifest = json.loads((tmp_path / "114" / "data" / "proof-arena-judge" / "manifest.json").read_text())
    assert manifest["upstream_rows"]["left_out_by_reason"]["over 114 tokens (Qwen/Qwen3-0.6B)"] == 17 - len(kept)
    # the reference's own prepare on the same files and tokenizer (tools/make_proof_judge_parity.py)
    reference = json.loads((FIXTURES / "proof_judge_parity.json").read_text(encoding="utf-8"))["proof-arena-judge"]
    for cap, ours in runs.items():
        assert [(r["metadata"]["source"], r["metadata"]["problem_idx"], r["problem"], r["proof"],
                 f"Judgement: {r['expected_answer']}") for r in ours] == [
            (r["source"], r["problem_idx"], r["problem"], r["proof"], r["verdict"]) for r in reference[cap]]


def test_cascade_options_are_found_and_carry_the_function_header(tmp_path):
    hits = json.loads(run_gym("task=search", "query=cascade", "format=json", f"hydra.run.dir={tmp_path}/s").stdout)
    assert {h["name"] for h in hits if h["runs"]} == {"livecodebench_v5_cascade", "livecodebench_v6_cascade"}
    assert e2e("livecodebench_v6_cascade", tmp_path, "num_repeats=1").returncode == 0
    rows = prepared(tmp_path, "livecodebench_v6_cascade")
    for row in rows:
        starter = row["starter_code"]
        assert row["function_header"] == (f"\n\nSolve the problem starting with the provided function header.\n\n"
                                          f"Function header:\n```\n{starter}\n```" if starter else "")
    prompt = json.loads((tmp_path / "livecodebench_v6_cascade" / "rollouts.jsonl").read_text().splitlines()[0])["prompt"]
    assert prompt[0]["content"].endswith("You are not allowed to use any tools.")


# -- iheval against IHEval's own code --------------------------------------------------------------------
@pytest.mark.parametrize("case", PARITY["scorers"], ids=lambda c: f"{c['task']}:{c['prediction'][:24]}")
def test_iheval_scorers_match_upstream(case):
    assert _strict_loose(case["task"], case["answer"], case["prediction"]) == (case["strict"], case.get("loose"))


def _random_in_upstream(instruction_id: str, kwargs: dict) -> bool:
    """IFEval's letter_frequency draws a random letter when the given one is not a-z (key 1122's '#')."""
    letter = str((kwargs or {}).get("letter") or "")
    return instruction_id == "keywords:letter_frequency" and not (len(letter) == 1 and "a" <= letter.lower() <= "z")


def test_iheval_rules_match_upstream():
    prompts = {row["key"]: row for row in map(json.loads, (FIXTURES / "ifeval" / "input_data.jsonl").read_text().splitlines())}
    compared, mismatches = 0, []
    for case in PARITY["rules"]:
        row, reply = prompts[case["key"]], PARITY["rule_replies"][case["reply"]]
        results = follow(row["instruction_id_list"], row["kwargs"], reply, row["prompt"], "reference")
        for index, (instruction_id, result) in enumerate(zip(row["instruction_id_list"], results)):
            if _random_in_upstream(instruction_id, row["kwargs"][index]):
                continue
            compared += 1
            if (result.strict, result.loose) != (case["strict"][index], case["loose"][index]):
                mismatches.append((case["key"], case["reply"], instruction_id))
    assert not mismatches and compared > 1500, mismatches[:5]


def test_iheval_run_matches_upstream_aggregation(tmp_path):
    assert run_gym("task=prepare", "benchmark=iheval", f"data.mirror={UPSTREAM}", f"data.root={tmp_path}/data",
                   f"hydra.run.dir={tmp_path}/r").returncode == 0
    replies = {(r["task"], r["setting"], r["id"]): r["prediction"] for r in PARITY["run"]["replies"]}
    verifier = make_verifier("iheval", {"accuracy_mode": "hierarchy"})
    rollouts = []
    for row in prepared(tmp_path, "iheval"):
        meta = row["metadata"]
        verdict = verifier.verify(row, replies[(meta["task"], meta["setting"], meta["id"])])
        rollouts.append({"status": "ok", "rollout_index": 0, "verifier": verdict.details})
    got = iheval_metrics(rollouts)
    assert got["settings"] == pytest.approx(PARITY["run"]["settings"], abs=1e-9)
    for category, value in PARITY["run"]["overall"].items():
        assert got[f"{category}_score"] == pytest.approx(value, abs=5e-5)
    assert got["result_score"] == got["conflict_score"]
    both = iheval_metrics([{**r, "verifier": {**r["verifier"], "accuracy_mode": "hierarchy_sysprompt"}} for r in rollouts])
    assert both["result_score"] == pytest.approx((PARITY["run"]["overall"]["aligned"] + PARITY["run"]["overall"]["conflict"]) / 2, abs=5e-5)


# -- the litmus-bench options --------------------------------------------------------------------------
def test_litmus_options_read_each_rows_regex_and_match_rule(tmp_path):
    hits = json.loads(run_gym("task=search", "query=litmus", "format=json", f"hydra.run.dir={tmp_path}/s").stdout)
    assert {"litmus-bench_adme_direct", "litmus-bench_adme_analogue", "litmus-bench_adme_comparison",
            "litmus-bench_tier12"} <= {h["name"] for h in hits}
    result = run_gym("task=prepare", "benchmark=litmus-bench_tier12", f"data.mirror={UPSTREAM}",
                     f"data.root={tmp_path}/data", f"hydra.run.dir={tmp_path}/t")
    assert result.returncode == 0, result.stderr[-2000:]
    manifest = json.loads((tmp_path / "data" / "litmus-bench_tier12" / "manifest.json").read_text())
    assert len(prepared(tmp_path, "litmus-bench_tier12")) == 10 and manifest["upstream_rows"]["left_out"] == 10
    assert run_gym("task=prepare", "benchmark=litmus-bench_adme_direct", f"data.mirror={UPSTREAM}",
                   f"data.root={tmp_path}/data", f"hydra.run.dir={tmp_path}/p").returncode == 0
    row = prepared(tmp_path, "litmus-bench_adme_direct")[0]
    assert row["match"] == {"rule": "abs_window", "abs_tol": 0.3} and row["answer_wrapper"] == "regex"
    typed = make_verifier("typed")
    gold = float(row["expected_answer"])
    assert typed.verify(row, f"Reasoning...\n{row['answer_template'].replace('{answer}', str(gold + 0.25))}").reward == 1.0
    assert typed.verify(row, row["answer_template"].replace("{answer}", str(gold + 0.35))).reward == 0.0
    assert typed.verify(row, f"about {gold}").reward == 0.0  # not in the asked format: no answer


def test_tool_arm_of_tier12_is_refused_with_a_reason(tmp_path):
    result = run_gym("task=prepare", "benchmark=litmus-bench_tier12", f"data.mirror={UPSTREAM}",
                     f"data.root={tmp_path}/data", "benchmark.dataset.prepare_args.methods=[direct,mcp-python]",
                     f"hydra.run.dir={tmp_path}/p")
    assert_clean_failure(result, "sandboxed Python tool with RDKit")


def test_rouge_l_is_rouge_scores_value():
    import random

    from rouge_score import rouge_scorer

    from gym.verifiers.iheval.scores import rouge_l

    scorer, rng = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False), random.Random(0)
    words = "el tren sale al mediodía Dos más son cuatro, the train: leaves noon a b".split()
    for _ in range(300):
        gold, guess = (" ".join(rng.choice(words) for _ in range(rng.randint(0, 25))) for _ in range(2))
        assert rouge_l(gold, guess) == scorer.score(target=gold.strip(), prediction=guess.strip())["rougeL"].fmeasure
