"""Prepare scripts of mbpp and livecodebench against their upstream-format fixtures over loopback HTTP,
and their prepared rows through the code verifier."""

from __future__ import annotations

import base64
import importlib.util
import json
import pickle
import zlib
from functools import cache
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.data.prepare_context import PrepareContext, read_manifest
from gym.core.errors import GymError
from gym.core.paths import BENCHMARKS_DIR
from gym.core.prompts import build_messages
from gym.verifiers import make_verifier
from gym.verifiers.code.reference import reference_program
from tests.prepare_helpers import fixture_builder

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"
LCB = "huggingface.co/datasets/livecodebench/code_generation_lite/resolve/main"


@cache
def script(name: str):
    spec = importlib.util.spec_from_file_location(f"code_prepare_{name}", BENCHMARKS_DIR / name / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(name: str, tmp_path: Path, mirror: str, skip_bad_rows: bool = False, **args) -> tuple[PrepareContext, list]:
    ctx = PrepareContext(name=name, output_path=tmp_path / name / f"{name}.jsonl", mirror=mirror, offline=False,
                         retries=0, progress=False, skip_bad_rows=skip_bad_rows, prepare_args=args)
    out = script(name).prepare(ctx, **args)
    return ctx, [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def verifier():
    with make_verifier("code", {"timeout": 5, "allow_unsandboxed": True}) as instance:
        yield instance


def test_configs():
    for name, repeats in (("mbpp", 1), ("livecodebench", 3)):
        bench = compose([f"benchmark={name}"]).benchmark
        assert bench.verifier.family == "code" and bench.needs_sandbox and bench.domain == "coding"
        assert bench.dataset.num_repeats == repeats and not bench.gated


def test_mbpp_rows(tmp_path, mirror_url, verifier):
    ctx, rows = run("mbpp", tmp_path, mirror_url)
    assert [r["metadata"]["task_id"] for r in rows] == ["Mbpp/2", "Mbpp/793", "Mbpp/17", "Mbpp/252", "Mbpp/787", "Mbpp/3"]
    first = rows[0]
    assert first["entry_point"] == "similar_elements"
    assert first["base_input"] == [[[1, 2, 3], [3, 2, 9]], [[5, 6], [7, 8]]]
    assert "`similar_elements`" in first["question"] and "assert set(similar_elements(" in first["question"]
    assert first["prompt"].startswith('"""') and first["expected_answer"] == ""
    assert read_manifest(ctx.output_path)["sources"] == [script("mbpp").URL]
    bench = compose(["benchmark=mbpp"]).benchmark
    assert build_messages(bench.prompt.system, bench.prompt.user, first)[-1]["content"] == first["question"]
    for row in rows:  # canonical solutions pass, including the tuple, complex and "not None" rules
        verdict = verifier.verify(row, f"```python\n{reference_program(row)}```")
        assert verdict.reward == 1.0, (row["metadata"], verdict.details)
        assert verdict.details["passing_base_tests"] and verdict.details["passing_plus_tests"]


def test_mbpp_malformed_record(tmp_path, mirror_url):
    item = {"task_id": "Mbpp/9", "prompt": "x", "entry_point": "f", "canonical_solution": "def f(): pass",
            "base_input": [], "plus_input": "oops"}
    assert script("mbpp").convert(item, 0) == (None, "'base_input' and 'plus_input' must be lists")


def test_livecodebench_default_window(tmp_path, mirror_url, verifier):
    ctx, rows = run("livecodebench", tmp_path, mirror_url, release="v6", start_date="2024-08-01",
                    end_date="2025-06-01")
    assert [r["metadata"]["question_id"] for r in rows] == ["abc366_b", "3250", "2031_c", "3500"]
    stdin_task, call_task = rows[0], rows[1]
    assert stdin_task["unit_tests"] == {"inputs": ["2\n1 2\n3 4\n", "1\n100 -1\n", "3\n0 0\n5 5\n-2 -3\n"],
                                        "outputs": ["3\n7\n", "99\n", "0\n10\n-5\n"], "fn_name": None}
    assert stdin_task["answer_stub"] == "# YOUR CODE HERE" and "stdin" in stdin_task["formatting_message"]
    assert call_task["unit_tests"]["fn_name"] == "maxGap" and call_task["answer_stub"].startswith("class Solution:")
    assert call_task["metadata"]["release_file"] == "test4.jsonl" and call_task["metadata"]["platform"] == "leetcode"
    assert len(read_manifest(ctx.output_path)["sources"]) == 6
    bench = compose(["benchmark=livecodebench"]).benchmark
    content = build_messages(bench.prompt.system, bench.prompt.user, call_task)[-1]["content"]
    assert call_task["question"] in content and "def maxGap(self, nums: List[int], k: int) -> int:" in content
    solution = ("class Solution:\n    def maxGap(self, nums, k):\n        s = sorted(nums)\n"
                "        return max([b - a for a, b in zip(s, s[1:])] + [0]) * k")
    assert verifier.verify(call_task, f"```python\n{solution}\n```").reward == 1.0
    assert verifier.verify(stdin_task, "```python\nt = int(input())\nfor _ in range(t):\n"
                                       "    print(sum(map(int, input().split())))\n```").reward == 1.0
    mean = "input()\nv = list(map(int, input().split()))\nprint(sum(v) / len(v))"  # 2.333... vs 2.333333
    assert verifier.verify(rows[2], f"```python\n{mean}\n```").reward == 0.0  # Decimal compare, no rounding


def test_livecodebench_v5_window_and_file_choice(tmp_path, mirror_url):
    ctx, rows = run("livecodebench", tmp_path, mirror_url, release="v5", end_date="2025-03-01")
    assert [r["metadata"]["question_id"] for r in rows] == ["abc366_b", "3250", "2031_c"]
    assert not any(url.endswith("test6.jsonl") for url in read_manifest(ctx.output_path)["sources"])
    ctx, rows = run("livecodebench", tmp_path / "few", mirror_url, files=["test6.jsonl"])
    assert [r["metadata"]["question_id"] for r in rows] == ["3500"]
    with pytest.raises(GymError, match="files must be a non-empty subset"):
        run("livecodebench", tmp_path, mirror_url, release="v3", files=["test6.jsonl"])
    with pytest.raises(GymError, match="is not a date"):
        run("livecodebench", tmp_path, mirror_url, start_date="August")
    with pytest.raises(GymError, match="must be before"):
        run("livecodebench", tmp_path, mirror_url, start_date="2025-01-01", end_date="2024-01-01")
    with pytest.raises(GymError, match=r"no problem of release v2 has a contest date in \[2024-08-01"):
        run("livecodebench", tmp_path, mirror_url, release="v2")


def test_private_tests_are_decoded_without_loading_objects():
    decode = script("livecodebench").decode_tests
    tests = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    packed = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()
    assert decode(packed) == decode(json.dumps(tests)) == tests
    assert decode(base64.b64encode(zlib.compress(json.dumps(tests).encode())).decode()) == tests

    class Exploit:
        def __reduce__(self):
            return (print, ("pwned",))

    hostile = base64.b64encode(zlib.compress(pickle.dumps(Exploit()))).decode()
    with pytest.raises(ValueError, match="refusing to load builtins.print"):
        decode(hostile)
    with pytest.raises(ValueError, match="not JSON and not base64"):
        decode("%%%")


def test_livecodebench_bad_rows_are_reported_or_skipped(tmp_path):
    mirror = tmp_path / "mirror"
    for name in script("livecodebench").FILES:
        target = mirror / LCB / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((UPSTREAM / LCB / name).read_bytes())
    rows = [json.loads(line) for line in (mirror / LCB / "test5.jsonl").read_text().splitlines()]
    rows[0]["private_test_cases"] = "%%%"
    (mirror / LCB / "test5.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n{broken\n")
    with pytest.raises(GymError, match=r"test5.jsonl:1 \(2031_c\): unreadable tests"):
        run("livecodebench", tmp_path / "strict", str(mirror))
    ctx, kept = run("livecodebench", tmp_path / "lenient", str(mirror), skip_bad_rows=True)
    assert [r["metadata"]["question_id"] for r in kept] == ["abc366_b", "3250", "3500"]
    assert len(ctx.skipped_rows) == 2 and "test5.jsonl:2: malformed JSON" in ctx.skipped_rows[1]


def test_fixture_builder_reproduces_committed_files(tmp_path, monkeypatch):
    builder = fixture_builder()
    monkeypatch.setattr(builder, "UPSTREAM", tmp_path)
    builder.code_benchmarks()
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(built) == 1 + 6
    for relative in built:
        assert (tmp_path / relative).read_bytes() == (UPSTREAM / relative).read_bytes(), relative


def test_collect_records_the_sandbox_in_run_json(tmp_path, data_dir, mirror_url, capsys, monkeypatch):
    import gym.sandbox.host as sandbox_module
    from gym.tasks import collect, prepare

    base = ["benchmark=human_eval", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "model.mock.accuracy=1.0", "limit=2", "progress=false",
                         f"+run_dir={run_dir}"]))
    info = json.loads((run_dir / "run.json").read_text())
    mechanism = sandbox_module.probe_isolation("bwrap")[0] and "bwrap" or "namespaces"
    assert info["verifier"] == {"sandbox": mechanism, "allow_unsandboxed": False}
    assert f"code sandbox: {mechanism}\n" in capsys.readouterr().out
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert {r["verifier"]["sandbox"] for r in rollouts} == {mechanism} and all(r["reward"] == 1.0 for r in rollouts)

    monkeypatch.setattr(sandbox_module, "_probed", {name: (False, "disabled here") for name in sandbox_module.MECHANISMS})
    lenient = tmp_path / "lenient"
    collect.run(compose(["task=collect", *base, "model=mock", "model.mock.accuracy=1.0", "limit=1", "progress=false",
                         "+benchmark.verifier.options.allow_unsandboxed=true", f"+run_dir={lenient}"]))
    assert json.loads((lenient / "run.json").read_text())["verifier"] == {"sandbox": "none", "allow_unsandboxed": True}
    assert "code sandbox: none (UNSANDBOXED" in capsys.readouterr().out
