"""The LLM judge: verdict parsing, the reference server as judge, collect with judges that fail, and the
four judge-graded benchmarks' prepare scripts on their upstream-format fixtures."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.data.prepare_context import PrepareContext
from gym.core.errors import GymError
from gym.core.judge_prompts import FORMATS, load_template
from gym.mock.judge import judge_verdict
from gym.mock.server import MockServer
from gym.tasks import collect, prepare
from gym.verifiers import make_verifier
from gym.verifiers.judge import JudgeUnavailable, strip_thinking
from tests.conftest import assert_clean_failure, run_gym

JUDGE_FIXTURES = {"imo_answerbench": "raw.githubusercontent.com/google-deepmind/superhuman/"
                                      "326a740a6877d5ec098035c534d2fbd931fe83ee/imobench/answerbench_v2.csv"}
QA_ROWS = [
    {"question": "Which river flows through the city of Budapest?", "expected_answer": "Danube"},
    {"question": "What is the chemical symbol of the element tungsten?", "expected_answer": "W"},
    {"question": "Who wrote the novel The Master and Margarita?", "expected_answer": "Mikhail Bulgakov"},
]


def read(format_name: str, text: str):
    return FORMATS[format_name].read(text)


# -- verdict formats on judge replies as real judges write them ---------------------------------------
@pytest.mark.parametrize("reply, verdict, grade", [
    ("A", "correct", "A"),
    ("B", "incorrect", "B"),
    ("  C\n", "not_attempted", "C"),
    ("**A**", "correct", "A"),
    ("Grade: B", "incorrect", "B"),
    ("A: CORRECT", "correct", "A"),
    ("C) NOT_ATTEMPTED", "not_attempted", "C"),
    # gpt-oss style notes before the letter: the article "A" must not count as a grade
    ("A careful look shows the response names a different river.\n\nB", "incorrect", "B"),
    ("The response says it cannot look this up.\nFinal grade: C", "not_attempted", "C"),
])
def test_letter_abc(reply, verdict, grade):
    reading = read("letter_abc", reply)
    assert (reading.verdict, reading.grade, reading.found) == (verdict, grade, True)


def test_letter_abc_without_a_grade_is_flagged_not_attempted():
    reading = read("letter_abc", "A response that mentions Paris is acceptable here.")
    assert (reading.verdict, reading.grade, reading.found) == ("not_attempted", None, False)


HLE_YES = ("extracted_final_answer: 1275\n\nreasoning: The response gives 1275, identical to the correct answer; "
           "there is no meaningful difference.\n\ncorrect: yes\n\nconfidence: 85%\n\nJudgement: yes")


def test_judgement_yes_no_first_label_wins_case_sensitive():
    assert read("judgement_yes_no", HLE_YES).verdict == "correct"
    assert read("judgement_yes_no", HLE_YES.replace("yes", "no")).verdict == "incorrect"
    both = "Judgement: no\n(earlier draft said Judgement: yes)"
    assert read("judgement_yes_no", both).grade == "Judgement: no"
    lower = read("judgement_yes_no", "judgement: yes")  # the reference's labels are case-sensitive
    assert (lower.verdict, lower.found) == ("incorrect", False)


def test_boxed_correct_reads_after_the_graders_notes():
    notes = ("<thinking>\n1. **Golden Answer:** $72$\n2. **Extracted Model Answer:** $70$\n3. Not \\boxed{Correct}: "
             "70 differs from 72.\n4. **Conclusion:** Incorrect\n</thinking>\n\\boxed{Incorrect}")
    assert read("boxed_correct", notes).verdict == "incorrect"
    assert read("boxed_correct", notes.replace("\\boxed{Incorrect}", "\\boxed{Correct}")).verdict == "correct"
    assert read("boxed_correct", "\\boxed{Correct} \\boxed{Incorrect}").verdict == "correct"  # first one wins
    assert read("boxed_correct", "Correct").found is False


def test_last_judgement_line_decides():
    reply = ("Step 1: the reference is 6.7 N.\nAn early guess: Judgement: NO\nOn rounding, 6.69 agrees with 6.7.\n"
             "Judgement: YES")
    assert read("last_judgement_yes_no", reply).verdict == "correct"
    assert read("last_judgement_yes_no", "judgement: no").verdict == "incorrect"
    assert read("last_judgement_yes_no", "They agree.").found is False


def test_strip_thinking():
    assert strip_thinking("<think>hmm</think>\nThe answer is 5.") == "The answer is 5."
    assert strip_thinking("<thinking>a</thinking>B<think>c</think>") == "B"
    assert strip_thinking("stray notes</think>Final: 3") == "Final: 3"
    assert strip_thinking("<think>cut off in the middle of thought") == ""
    assert strip_thinking("Answer 4\n<thinking>unclosed") == ""


# -- verifier options -------------------------------------------------------------------------------
def test_judge_options_are_checked():
    with pytest.raises(GymError, match="never mentions 'Judgement: YES'"):
        make_verifier("judge", {"prompt": "hle", "parse": "last_judgement_yes_no"})
    with pytest.raises(GymError, match="parse='letter_xyz' is not one of"):
        make_verifier("judge", {"prompt": "simpleqa", "parse": "letter_xyz"})
    with pytest.raises(GymError, match="neither a built-in judge prompt"):
        make_verifier("judge", {"prompt": "no_such_prompt", "parse": "letter_abc"})
    with pytest.raises(GymError, match="set option parse"):
        make_verifier("judge", {"prompt": "simpleqa"})
    with pytest.raises(GymError, match="must be true or false"):
        make_verifier("judge", {"prompt": "simpleqa", "parse": "letter_abc", "strip_thinking": "yes"})


def test_custom_template_file_needs_the_generation(tmp_path):
    template = tmp_path / "judge.txt"
    template.write_text("Is this right? <reference_answer>\n{expected_answer}\n</reference_answer> Judgement: yes")
    with pytest.raises(GymError, match=r"no \{generation\} placeholder"):
        make_verifier("judge", {"prompt": str(template), "parse": "judgement_yes_no"})
    template.write_text(template.read_text() + "\n<response>\n{generation}\n</response>")
    verifier = make_verifier("judge", {"prompt": str(template), "parse": "judgement_yes_no"})
    rendered = verifier.messages({"question": "q"}, "42", "It is {x} = 42")[0]["content"]
    assert "It is {x} = 42" in rendered and "{expected_answer}" not in rendered


def test_no_judge_attached_is_a_clear_error():
    verifier = make_verifier("judge", {"prompt": "simpleqa", "parse": "letter_abc"})
    with pytest.raises(GymError, match="judge=vllm"):
        verifier.verify(QA_ROWS[0], "Danube")


# -- the reference server as judge ------------------------------------------------------------------
@pytest.mark.parametrize("template, parse", [("simpleqa", "letter_abc"), ("hle", "judgement_yes_no"),
                                             ("imo_answerbench", "boxed_correct"),
                                             ("frontierscience_olympiad", "last_judgement_yes_no")])
def test_mock_judge_answers_every_builtin_template(template, parse):
    verifier = make_verifier("judge", {"prompt": template, "parse": parse})
    row = {"question": "What is 6 times 7?", "expected_answer": "42"}

    def verdict(generation: str):
        prompt = "\n".join(m["content"] for m in verifier.messages(row, "42", generation))
        return FORMATS[parse].read(judge_verdict(prompt))

    assert verdict("Six sevens.\n\nThe answer is \\boxed{42}.\nAnswer: 42").verdict == "correct"
    assert verdict("The answer is \\boxed{41}.").verdict == "incorrect"
    if parse == "letter_abc":
        assert verdict("I don't know.").verdict == "not_attempted"
    assert judge_verdict(row["question"]) is None  # a policy prompt is not a judge prompt


def test_builtin_templates_carry_the_tags_the_mock_reads():
    for path in sorted(Path(load_template("simpleqa")[1]).parent.glob("*.txt")):
        text = path.read_text()
        assert "<reference_answer>\n{expected_answer}\n</reference_answer>" in text, path
        assert "<response>\n{generation}\n</response>" in text, path


# -- collect with a judge ---------------------------------------------------------------------------
class JudgeStub:
    """A real loopback judge endpoint that replies with fixed text and records what it was sent."""

    def __init__(self, content: str | None = "A", finish_reason: str = "stop", status: int = 200):
        self.content, self.finish_reason, self.status = content, finish_reason, status
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if not self.path.endswith("/models"):  # version probes of other server families
                    self._json(404, {"error": {"message": "not found"}})
                    return
                self._json(200, {"object": "list", "data": [{"id": name, "object": "model"}
                                                            for name in ("judge-stub", "judge-a", "judge-b")]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.auth.append(self.headers.get("Authorization"))
                if stub.status != 200:
                    self._json(stub.status, {"error": {"message": "judge says no", "type": "invalid_request_error"}})
                    return
                message = {"role": "assistant", "content": stub.content}
                self._json(200, {"id": "x", "object": "chat.completion", "model": "judge-stub", "choices": [
                    {"index": 0, "message": message, "finish_reason": stub.finish_reason}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def qa_data(data_dir):
    path = data_dir / "simpleqa" / "simpleqa.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in QA_ROWS))
    return path


def run_collect(tmp_path: Path, *overrides: str, benchmark: str = "simpleqa") -> list[dict]:
    out = tmp_path / "rollouts.jsonl"
    collect.run(compose(["task=collect", f"benchmark={benchmark}", "model=mock", "model.mock.accuracy=1.0",
                         "progress=false", f"+run_dir={tmp_path}", f"output={out}", *overrides]))
    return [json.loads(line) for line in out.read_text().splitlines()]


def last_rows(path: Path) -> dict[str, dict]:
    return {row["key"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_needs_judge_without_one_fails_first(qa_data, tmp_path):
    with pytest.raises(GymError, match="judge=none.*judge=vllm judge.base_url="):
        run_collect(tmp_path)
    assert not (tmp_path / "rollouts.jsonl").exists()
    result = run_gym("task=collect", "benchmark=hle", "model=mock", f"hydra.run.dir={tmp_path}/cli")
    assert_clean_failure(result, "needs_judge", "judge=vllm")  # before it even notices hle is not prepared


def test_mock_judge_reuses_the_policy_server(qa_data, tmp_path):
    rows = run_collect(tmp_path, "judge=mock", "num_repeats=2")
    assert len(rows) == 6 and all(r["status"] == "ok" and r["reward"] == 1.0 for r in rows)
    assert {r["verifier"]["judge_model"] for r in rows} == {"gym-mock"}
    assert all(r["verifier"]["judge_output"] == "A" and r["verifier"]["grade"] == "A" for r in rows)
    wrong = run_collect(tmp_path / "wrong", "judge=mock", "model.mock.accuracy=0.0")
    assert all(r["reward"] == 0.0 and r["verifier"]["verdict"] == "incorrect" for r in wrong)


def test_mock_judge_beside_a_real_model_gets_its_own_server(qa_data, tmp_path):
    with MockServer(data_paths=[qa_data], accuracy=1.0) as policy:
        out = tmp_path / "rollouts.jsonl"
        collect.run(compose(["task=collect", "benchmark=simpleqa", "model=vllm", f"model.base_url={policy.base_url}",
                             "judge=mock", "progress=false", f"+run_dir={tmp_path}", f"output={out}"]))
        assert policy.stats["answers"]["judge"] == 0  # no judge prompt reached the policy's server
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["verifier"]["judge_model"] for r in rows} == {"gym-mock-judge"}
    assert all(r["reward"] == 1.0 for r in rows)


def test_judge_down_gives_infra_errors_that_a_resume_finishes(qa_data, tmp_path):
    broken = MockServer(rows=[], faults={"error_503": 1.0}, model_name="judge")
    out = tmp_path / "rollouts.jsonl"
    with broken:
        with pytest.raises(GymError, match="infrastructure errors.*resume=true"):
            run_collect(tmp_path, "judge=vllm", f"judge.base_url={broken.base_url}", "judge.max_retries=1",
                        "num_repeats=2")
    rows = list(last_rows(out).values())
    assert len(rows) == 6 and {r["status"] for r in rows} == {"infra_error"}
    assert all(r["reward"] is None and r["error"].startswith("judge: judge call failed: HTTP 503") for r in rows)
    assert all(r["response"] and "Answer:" in r["response"] for r in rows)  # the model's answer is kept
    assert all(r["verifier"]["judge_attempts"] == 2 for r in rows)
    with MockServer(rows=[], model_name="judge") as healthy:
        run_collect(tmp_path, "judge=vllm", f"judge.base_url={healthy.base_url}", "num_repeats=2", "resume=true")
    final = last_rows(out)
    assert len(final) == 6 and all(r["status"] == "ok" and r["reward"] == 1.0 for r in final.values())


def test_unreachable_judge_fails_before_any_rollout(qa_data, tmp_path):
    stub = JudgeStub()
    url = stub.base_url
    stub.close()
    with pytest.raises(GymError, match="judge: cannot reach"):
        run_collect(tmp_path, "judge=vllm", f"judge.base_url={url}")
    assert not (tmp_path / "rollouts.jsonl").exists()


@pytest.mark.parametrize("content, finish, status, message", [
    ("", "stop", 200, "judge returned an empty reply"),
    (None, "length", 200, "empty reply (cut at max_tokens"),
    ("Let me compare the two answers carefully; the response", "length", 200, "cut at max_tokens before its verdict"),
    ("A", "stop", 400, "judge refused the request: HTTP 400"),
])
def test_judge_without_a_verdict_is_infra_not_wrong(qa_data, tmp_path, content, finish, status, message):
    stub = JudgeStub(content, finish, status)
    try:
        with pytest.raises(GymError, match="infrastructure errors"):
            run_collect(tmp_path, "judge=vllm", f"judge.base_url={stub.base_url}", "limit=1")
    finally:
        stub.close()
    [row] = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert row["status"] == "infra_error" and row["reward"] is None and message in row["error"]


def test_raw_verdict_kept_and_api_key_used_but_never_written(qa_data, tmp_path, monkeypatch):
    secret = "sk-judge-secret-987"
    monkeypatch.setenv("GYM_TEST_JUDGE_KEY", secret)
    reply = "The response names the Danube, matching the gold target.\n\nA"
    stub = JudgeStub(reply)
    try:
        rows = run_collect(tmp_path, "judge=vllm", f"judge.base_url={stub.base_url}", "judge.name=judge-stub",
                           "judge.api_key_env=GYM_TEST_JUDGE_KEY", "judge.sampling.max_tokens=64", "limit=2")
    finally:
        stub.close()
    assert all(r["verifier"]["judge_output"] == reply and r["verifier"]["verdict"] == "correct" for r in rows)
    assert set(stub.auth) == {f"Bearer {secret}"}
    sent = stub.requests[0]
    assert sent["model"] == "judge-stub" and sent["temperature"] == 0.0 and sent["max_tokens"] == 64
    prompts = [request["messages"][-1]["content"] for request in stub.requests]  # tasks finish in any order
    assert any("<reference_answer>\nDanube\n</reference_answer>" in p and "\\boxed{Danube}" in p for p in prompts)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    monkeypatch.setenv("GYM_TEST_JUDGE_KEY", "")
    with pytest.raises(GymError, match="GYM_TEST_JUDGE_KEY.*not set"):
        run_collect(tmp_path / "again", "judge=vllm", "judge.base_url=http://127.0.0.1:9/v1",
                    "judge.api_key_env=GYM_TEST_JUDGE_KEY")


def test_math_first_skips_the_judge_when_math_verify_agrees(data_dir, tmp_path):
    path = data_dir / "imo_answerbench" / "imo_answerbench.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"question": "Find $7 \\cdot 8$.", "expected_answer": "56"}) + "\n")
    with MockServer(rows=[], faults={"error_500": 1.0}, model_name="judge") as broken:  # any judge call would fail
        rows = run_collect(tmp_path, "judge=vllm", f"judge.base_url={broken.base_url}", "judge.max_retries=0",
                           "num_repeats=2", benchmark="imo_answerbench")
        assert broken.stats["endpoints"].get("/v1/chat/completions", 0) == 0
    assert all(r["status"] == "ok" and r["reward"] == 1.0 and r["verifier"]["judged"] is False for r in rows)


def test_judge_sees_only_the_boxed_answer_and_thinking_is_stripped():
    imo = make_verifier("judge", {"prompt": "imo_answerbench", "parse": "boxed_correct",
                                  "judge_input": "last_boxed"})
    fs = make_verifier("judge", {"prompt": "frontierscience_olympiad", "parse": "last_judgement_yes_no",
                                 "strip_thinking": True})
    sent: list[str] = []

    class Recorder:
        model = "recorder"

        def complete(self, messages, seed=None):
            from gym.model.client import Completion

            sent.append(messages[-1]["content"])
            return Completion("ok", "Judgement: NO\n\\boxed{Incorrect}", finish_reason="stop")

    for verifier in (imo, fs):
        verifier.attach_judge(Recorder())
    row = {"question": "Find x.", "expected_answer": "x = 3"}
    assert imo.verify(row, "Work... so \\boxed{x = 3 \\text{ or } x = -3}").reward == 0.0
    assert "<response>\nx = 3 \\text{ or } x = -3\n</response>" in sent[-1]
    verdict = fs.verify(row, "<thinking>long thought that never ends")
    assert verdict.details["judge_skipped"] == "empty response" and len(sent) == 1  # no judge call
    try:
        raise JudgeUnavailable("x", {"judge_output": ""})
    except JudgeUnavailable as exc:
        assert exc.details == {"judge_output": ""}


# -- prepare scripts on the upstream-format fixtures ------------------------------------------------
def prepared(name: str, data_dir: Path, mirror_url: str) -> list[dict]:
    prepare.run(compose(["task=prepare", f"benchmark={name}", f"data.mirror={mirror_url}"]))
    lines = (data_dir / name / f"{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_prepare_simpleqa(data_dir, mirror_url):
    rows = prepared("simpleqa", data_dir, mirror_url)
    assert len(rows) == 5
    assert rows[0]["question"] == "Which river flows through the city of Budapest?"
    assert rows[0]["expected_answer"] == "Danube" and rows[0]["id"] == 11
    assert rows[4]["expected_answer"].startswith("8,850 km (acceptable range")  # tolerance kept for the judge
    meta = rows[4]["metadata"]
    assert meta["multi_step"] is True and meta["requires_reasoning"] is True and meta["original_index"] == 230
    assert meta["topic"] == "History" and meta["source_index"] == 4


def test_prepare_hle_drops_image_questions(data_dir, mirror_url):
    rows = prepared("hle", data_dir, mirror_url)
    assert [r["expected_answer"] for r in rows] == ["101", "B", "Hemoglobin", "1275"]
    assert rows[1]["answer_type"] == "multipleChoice" and "Answer Choices:" in rows[1]["question"]
    assert rows[0]["uuid"] == "6f1c0000000000000000000a"
    assert rows[3]["metadata"] == {"raw_subject": "Mathematics", "category": "Math", "source_index": 4}
    assert not any("image" in json.dumps(r) for r in rows)
    manifest = json.loads((data_dir / "hle" / "manifest.json").read_text())
    assert manifest["sources"] == ["https://huggingface.co/datasets/cais/hle/resolve/main/data/test-00000-of-00001.parquet"]


def test_prepare_imo_answerbench(data_dir, mirror_url):
    rows = prepared("imo_answerbench", data_dir, mirror_url)
    assert len(rows) == 4 and rows[0]["expected_answer"] == "$x=2$ or $x=3$"
    assert rows[1]["metadata"]["problem_id"] == "imo-bench-combinatorics-002"
    assert rows[3]["metadata"]["category"] == "Geometry"


def test_prepare_frontierscience_olympiad(data_dir, mirror_url):
    rows = prepared("frontierscience_olympiad", data_dir, mirror_url)
    assert [r["expected_answer"] for r in rows] == ["20", "C2H4", "chloroplast", "8"]  # backticks gone
    assert [r["subject"] for r in rows] == ["physics", "chemistry", "biology", "physics"]  # astronomy dropped
    assert rows[3]["id"] == "olympiad-3" and rows[0]["metadata"]["task_group_id"] == "fixture-group-0"
    assert rows[0]["question"].endswith("Think step by step and give the final answer.")


def test_prepare_keeps_a_row_without_gold_and_reports_it(tmp_path):
    from gym.core.paths import BENCHMARKS_DIR
    from gym.tasks.prepare import load_prepare

    url_path = JUDGE_FIXTURES["imo_answerbench"]
    bad = tmp_path / "mirror" / url_path
    bad.parent.mkdir(parents=True)
    bad.write_text("Problem ID,Problem,Short Answer,Category,Subcategory,Source\r\np1,Find x.,,Algebra,,x\r\n")
    ctx = PrepareContext(name="imo_answerbench", output_path=tmp_path / "out" / "imo_answerbench.jsonl",
                         mirror=str(tmp_path / "mirror"), progress=False)
    out = load_prepare(BENCHMARKS_DIR / "imo_answerbench" / "prepare.py")(ctx)  # the reference keeps it too
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["expected_answer"] == "" and row["unscorable"] == "missing 'Short Answer'"
    assert "record 1" in ctx.unscorable_rows[0]


def test_another_judge_makes_new_rollout_keys(qa_data, tmp_path):
    stub = JudgeStub("A")
    try:
        first = run_collect(tmp_path, "judge=vllm", f"judge.base_url={stub.base_url}", "judge.name=judge-a", "limit=2")
        same = run_collect(tmp_path, "judge=vllm", f"judge.base_url={stub.base_url}", "judge.name=judge-a", "limit=2",
                           "resume=true")
        other = run_collect(tmp_path, "judge=vllm", f"judge.base_url={stub.base_url}", "judge.name=judge-b", "limit=2",
                            "resume=true")
    finally:
        stub.close()
    assert len(same) == len(first)  # same judge: nothing redone
    assert len(other) == 2 * len(first)  # another judge: every rollout judged again, under new keys
    assert not {r["key"] for r in first} & {r["key"] for r in other[len(first):]}


def test_judge_replies_come_from_the_cache_when_the_judge_request_repeats(qa_data, tmp_path):
    """A collect with cache.dir stores the judge's replies; reverify with the same cache.dir re-reads them
    (no judge request) while a changed judge prompt is sent again."""
    from gym.tasks import reverify

    stub = JudgeStub("A")
    cache = f"cache.dir={tmp_path / 'cache'}"
    judge = ["judge=vllm", f"judge.base_url={stub.base_url}", "judge.name=judge-a"]
    try:
        rows = run_collect(tmp_path / "run", *judge, cache, "num_repeats=2")
        assert len(stub.requests) == 6 and not any(r["verifier"].get("judge_cached") for r in rows)
        again = reverify.run(compose(["task=reverify", f"rollouts={tmp_path / 'run'}", *judge, cache,
                                      f"+run_dir={tmp_path / 'rev'}"]))
        assert len(stub.requests) == 6  # nothing sent
        redone = [json.loads(line) for line in (tmp_path / "rev" / "rollouts.jsonl").read_text().splitlines()]
        assert again["changed"] == 0 and all(r["verifier"]["judge_cached"] and r["reward"] == 1.0 for r in redone)
        report = json.loads((tmp_path / "rev" / "reverify.json").read_text())
        assert report["judge_cache"] == {"judge_hits": 6, "judge_misses": 0}
        summary = collect.run(compose(["task=collect", "benchmark=simpleqa", "model=mock", "model.mock.accuracy=1.0",
                                       "progress=false", f"+run_dir={tmp_path / 'run2'}", *judge, cache,
                                       "num_repeats=2"]))
        assert len(stub.requests) == 6 and summary["cache"]["judge_hits"] == 6 and summary["model_requests"] == 0
        reverify.run(compose(["task=reverify", f"rollouts={tmp_path / 'run'}", *judge, cache, "judge.sampling.seed=7",
                              f"+run_dir={tmp_path / 'rev2'}"]))
        assert len(stub.requests) == 12  # another judge request (here its seed): asked again
        reverify.run(compose(["task=reverify", f"rollouts={tmp_path / 'run'}", *judge, f"+run_dir={tmp_path / 'rev3'}"]))
        assert len(stub.requests) == 18  # no cache.dir: every judge request is sent
    finally:
        stub.close()


def test_a_judge_reply_without_a_verdict_is_not_cached(qa_data, tmp_path):
    stub = JudgeStub("A", status=400)
    judge = ["judge=vllm", f"judge.base_url={stub.base_url}", f"cache.dir={tmp_path / 'cache'}", "limit=1"]
    try:
        with pytest.raises(GymError, match="infrastructure errors"):
            run_collect(tmp_path, *judge)
        stub.status = 200  # the judge's operator fixed it: the resume asks again rather than replaying the refusal
        rows = run_collect(tmp_path, *judge, "resume=true")
    finally:
        stub.close()
    assert len(stub.requests) == 2 and rows[-1]["status"] == "ok" and not rows[-1]["verifier"].get("judge_cached")
