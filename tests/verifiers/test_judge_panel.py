"""Several judges per item (judges=[...]) and unparseable verdicts, through the CLI against a real loopback
judge endpoint; agreement statistics pinned to independent implementations (Inspect AI's
krippendorff_alpha, stored by tools/inspect_parity.py; Cohen's kappa by its formula)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from gym.metrics.agreement import cohen_kappa, krippendorff_alpha
from gym.verifiers.judge import panel_reward
from tests.conftest import UPSTREAM, assert_clean_failure, run_gym
from tests.view_helpers import Viewer

INSPECT = json.loads((Path(__file__).parents[1] / "fixtures" / "stats" / "inspect_parity.json").read_text())


@pytest.mark.parametrize("case", ["two_judges", "three_judges"])
def test_krippendorff_alpha_matches_inspect(case):
    fixture = INSPECT["krippendorff"][case]
    assert krippendorff_alpha(fixture["ratings"]) == pytest.approx(fixture["alpha"], abs=1e-4)


def test_cohen_kappa_by_its_formula():
    a = list("CCCCIIICCI" * 3)
    b = list("CCCIIICCCC" * 3)
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    chance = sum((a.count(c) / n) * (b.count(c) / n) for c in "CI")
    assert cohen_kappa(a, b) == pytest.approx((observed - chance) / (1 - chance), abs=1e-4)
    assert cohen_kappa(list("CCC"), list("CCC")) is None  # one category: undefined, not 1


def test_panel_rules():
    assert [panel_reward(s, "majority") for s in (2 / 3, 1 / 3, 0.5)] == [1.0, 0.0, 0.5]
    assert panel_reward(2 / 3, "unanimous") == 0.0 and panel_reward(1 / 3, "any") == 1.0
    assert panel_reward(2 / 3, "mean") == pytest.approx(2 / 3)


class Judges:
    """A loopback judge endpoint serving several judge models; each model's reply comes from `replies`."""

    def __init__(self, replies: dict):
        self.replies, self.asked = replies, Counter()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, body: dict, status: int = 200) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if not self.path.endswith("/models"):
                    self._json({"error": {"message": "not found"}}, 404)
                    return
                self._json({"object": "list", "data": [{"id": name, "object": "model"} for name in outer.replies]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model = body["model"]
                outer.asked[model] += 1
                reply = outer.replies[model]
                text = reply(body) if callable(reply) else reply
                self._json({"id": "x", "object": "chat.completion", "model": model, "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _strict(body) -> str:
    """Says B (incorrect) for one question in three: the judge that disagrees."""
    prompt = body["messages"][-1]["content"]
    return "B" if sum(map(ord, prompt)) % 3 == 0 else "A"


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]


def test_three_judges_vote_and_their_agreement_is_reported(tmp_path, data_dir):
    judges = Judges({"judge-a": "A", "judge-b": _strict, "judge-c": "A"})
    run = tmp_path / "run"
    try:
        result = run_gym("task=e2e", "benchmark=simpleqa", "model=mock", "model.mock.accuracy=1.0", "judge=vllm",
                         f"judge.base_url={judges.url}", "judges=[judge-a,judge-b,judge-c]", "limit=6",
                         "progress=false", f"data.mirror={UPSTREAM}", f"hydra.run.dir={run}")
    finally:
        judges.close()
    assert result.returncode == 0, result.stderr
    rows = _rows(run)
    assert all(row["status"] == "ok" and row["reward"] == 1.0 for row in rows)  # two of three say correct
    assert {tuple(v["model"] for v in row["verifier"]["judges"]) for row in rows} == {("judge-a", "judge-b", "judge-c")}
    panel = json.loads((run / "metrics.json").read_text())["benchmarks"]["simpleqa"]["family_metrics"]
    split = [row for row in rows if len({v["verdict"] for v in row["verifier"]["judges"]}) > 1]
    assert panel["family"] == "judge_panel" and panel["disagreements"] == len(split) > 0
    assert {d["task_index"] for d in panel["disagreements_listed"]} == {row["task_index"] for row in split}
    ratings = [[v["verdict"] for v in row["verifier"]["judges"]] for row in rows]
    assert panel["krippendorff_alpha"] == krippendorff_alpha(ratings)
    assert "3 judges (majority): agree on" in result.stdout and "Krippendorff's alpha" in result.stdout
    assert judges.asked["judge-a"] == judges.asked["judge-b"] == len(rows)
    viewer = Viewer(f"rollouts={run}")
    try:
        page = requests.get(f"{viewer.url}/run/0/index.html", timeout=60).text
        first = split[0]
        href = f'rollout/simpleqa/{first["task_index"]}_{first["rollout_index"]}.html'
        linked = requests.get(f"{viewer.url}/run/0/{href}", timeout=60)
    finally:
        assert viewer.stop() == 0
    # the viewer shows the panel as tables, each disagreement a row linked to its rollout's page
    assert f"3 judges (majority): agree on {panel['agreement_percent']:.1f}% of {panel['items']} items" in page
    assert f"Krippendorff's α {panel['krippendorff_alpha']:.3f}" in page and "disagreements_listed" not in page
    assert "<th>judge-a</th><th>judge-b</th><th>judge-c</th>" in page and f"Disagreements: {len(split)}" in page
    cells = "".join(f"<td>{v['verdict']}</td>" for v in first["verifier"]["judges"])
    assert f'<a href="{href}">{first["task_index"]}</a>' in page and cells in page
    assert linked.status_code == 200 and "judge-b" in linked.text


def test_an_unparseable_verdict_is_a_judge_error_that_resume_asks_again(tmp_path, data_dir):
    judges = Judges({"judge-a": "I would rather not say."})
    run = tmp_path / "run"
    args = ("task=e2e", "benchmark=simpleqa", "model=mock", "model.mock.accuracy=1.0", "judge=vllm",
            f"judge.base_url={judges.url}", "judge.name=judge-a", "limit=3", "progress=false",
            f"data.mirror={UPSTREAM}", f"hydra.run.dir={run}")
    try:
        first = run_gym(*args)
        rows = _rows(run)
        assert all(r["status"] == "verifier_error" and r["reward"] is None for r in rows)  # never a 0
        assert all(r["error"].startswith("verifier: judge_error: the reply of judge judge-a holds no verdict")
                   for r in rows)
        assert_clean_failure(first, "no task has a scored rollout")  # nothing to score: one line, no 0 figure
        judges.replies["judge-a"] = "A"
        again = run_gym(*args, "resume=true")
    finally:
        judges.close()
    assert again.returncode == 0, again.stderr
    final = {r["key"]: r for r in _rows(run)}  # the last row per key wins
    assert len(final) == 3 and all(r["status"] == "ok" and r["reward"] == 1.0 for r in final.values())


def test_bad_panel_knobs_fail_in_one_line(tmp_path, data_dir):
    one = run_gym("task=e2e", "benchmark=simpleqa", "model=mock", "judge=mock", "judges=[a]",
                  f"data.mirror={UPSTREAM}", f"hydra.run.dir={tmp_path / 'a'}")
    assert_clean_failure(one, "judges=[...] needs at least two judges")
    rule = run_gym("task=e2e", "benchmark=simpleqa", "model=mock", "judge=mock", "judges=[gym-mock,gym-mock]",
                   "judges_rule=loudest", f"data.mirror={UPSTREAM}", f"hydra.run.dir={tmp_path / 'b'}")
    assert_clean_failure(rule, "judges_rule='loudest' is not one of majority, unanimous, any, mean")
    unjudged = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "judges=[a,b]", f"data.mirror={UPSTREAM}",
                       f"hydra.run.dir={tmp_path / 'c'}")
    assert_clean_failure(unjudged, "judges=[...]: gsm8k is not graded by an LLM judge")


def test_each_judge_of_a_panel_is_billed_at_its_own_price(tmp_path, data_dir):
    """judges=[{name: a, price: ...}, b]: judge a at its own input price (its output price from judge.price),
    judge b at judge.price; the row's cost, metrics.json's and the summary's dollars all say so."""
    judges = Judges({"judge-a": "A", "judge-b": "A"})
    run = tmp_path / "run"
    try:
        result = run_gym("task=e2e", "benchmark=simpleqa", "model=mock", "judge=vllm", f"judge.base_url={judges.url}",
                         "judges=[{name:judge-a,price:{input:1}},judge-b]", "judge.price.input=10",
                         "judge.price.output=20", "limit=3", "progress=false", f"data.mirror={UPSTREAM}",
                         f"hydra.run.dir={run}")
    finally:
        judges.close()
    assert result.returncode == 0, result.stderr
    rows = _rows(run)
    each = (100 * 1 + 1 * 20 + 100 * 10 + 1 * 20) / 1e6  # the server reports 100 prompt and 1 completion token a call
    assert [row["cost_usd"] for row in rows] == [pytest.approx(each)] * 3
    cost = json.loads((run / "metrics.json").read_text())["benchmarks"]["simpleqa"]["cost"]
    assert cost["usd"] == pytest.approx(3 * each) and cost["tokens"]["judge"] == 3 * 2 * 101
    bad = run_gym("task=e2e", "benchmark=simpleqa", "model=mock", "judge=mock", "judges=[{name:a,price:{input:-1}},b]",
                  "limit=1", f"data.mirror={UPSTREAM}", f"hydra.run.dir={tmp_path / 'bad'}")
    assert_clean_failure(bad, "judges[0].price.input=-1.0 must be a non-negative number")
