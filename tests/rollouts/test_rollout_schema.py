"""gym.rollouts.row, the row schema: the key is stable, versions are read explicitly, the docs document
every field, and the fast and line-by-line readers agree on every status."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gym.rollouts import row as rollout
from gym.model.client import Completion
from gym.core.errors import GymError
from gym.rollouts.load import _read_fast, _read_slow, load_rollouts
from gym.verifiers import Verifier
from tests.conftest import ROOT


def test_key_bytes_are_those_of_existing_rollout_files():
    # Pinned digests: rollouts collected before the schema module existed must still resume.
    args = ("ab" * 32, 3, [{"role": "system", "content": "Réponds"}, {"role": "user", "content": "2+2?"}],
            {"temperature": 0.6, "seed": 7}, "m-1", "chat", 2)
    assert rollout.rollout_key(*args) == "fb2c8e2b372b47452646234b06821de9"
    assert rollout.rollout_key(*args, "judge-x") == "8b9c7c001267e0e42314cab69ceae22f"


def test_fields_match_the_typed_row_and_the_docs():
    assert set(rollout.FIELDS) == set(rollout.Rollout.__annotations__)
    page = (ROOT / "docs" / "concepts" / "rollouts.md").read_text()
    section = page[page.index("## Rollout file"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section else section
    documented = set(re.findall(r"^\| `([a-z_0-9]+)` \|", section, flags=re.MULTILINE))
    assert documented >= set(rollout.FIELDS), sorted(set(rollout.FIELDS) - documented)
    for status in rollout.STATUSES:
        assert f"`{status}`" in page


class Echo(Verifier):
    """A verifier whose outcome is chosen per call."""

    family = "echo"

    def __init__(self, outcome):
        super().__init__()
        self.outcome = outcome

    def verify(self, row, text):
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def build(outcome, completion=None):
    completion = completion or Completion("ok", text="Answer: B", usage={"prompt_tokens": 3, "completion_tokens": 2})
    return rollout.make_rollout("b", "m", {"expected_answer": "B"}, [{"role": "user", "content": "q"}], 4, 1, "k",
                                completion, Echo(outcome), data_sha256="ff")


def test_make_rollout_statuses():
    from gym.verifiers.base import Verdict, VerifierError
    from gym.verifiers.judge import JudgeUnavailable

    ok = build(Verdict(1.0, "B", {"scores": {"prompt_loose": 0.5, "bad": 3}}))
    assert (ok["status"], ok["reward"], ok["scores"], ok["schema_version"]) == ("ok", 1.0, {"prompt_loose": 0.5}, 4)
    assert ok["data_sha256"] == "ff" and set(ok) <= set(rollout.FIELDS)

    failed = build(VerifierError("output limit", {"bytes": 99}))
    assert (failed["status"], failed["reward"], failed["extracted_answer"]) == ("verifier_error", None, None)
    assert failed["error"] == "verifier: output limit" and failed["verifier"] == {"bytes": 99}
    crashed = build(ZeroDivisionError("boom"))
    assert crashed["status"] == "verifier_error" and "ZeroDivisionError: boom" in crashed["error"]
    judge = build(JudgeUnavailable("judge call failed: HTTP 503", {"judge_attempts": 6}))
    assert judge["status"] == "infra_error" and judge["verifier"] == {"judge_attempts": 6}
    with pytest.raises(GymError):
        build(GymError("task row has no usable expected_answer"))
    refused = build(None, Completion("model_error", error="HTTP 400: context length"))
    assert (refused["status"], refused["reward"], refused["response"]) == ("model_error", 0.0, None)


def test_make_rollout_writes_optional_fields_only_when_they_say_something():
    from gym.verifiers.base import Verdict

    row, messages, completion = {"expected_answer": "B"}, [{"role": "user", "content": "q"}], Completion("ok", text="B")
    plain = rollout.make_rollout("b", "m", row, messages, 0, 0, "k", completion, Echo(Verdict(1.0, "B")),
                                 subsets={}, cached=False, adaptive=None)
    assert not {"subsets", "cached", "adaptive"} & set(plain)
    marked = rollout.make_rollout("b", "m", row, messages, 0, 0, "k", completion, Echo(Verdict(1.0, "B")),
                                  subsets={"language": "de"}, cached=True, adaptive="wilson:0.9")
    assert (marked["subsets"], marked["cached"], marked["adaptive"]) == ({"language": "de"}, True, "wilson:0.9")
    assert set(marked) <= set(rollout.FIELDS)


def row(task, rollout_index, status="ok", reward=1.0, **extra):
    out = {"benchmark": "b", "model": "m", "task_index": task, "rollout_index": rollout_index,
           "key": f"{task}:{rollout_index}", "status": status, "reward": reward, "extracted_answer": "x",
           "usage": {"prompt_tokens": 5, "completion_tokens": 3}, "latency_s": 0.1}
    out.update(extra)
    return out


def write(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_versions_one_and_two_read_alike_fast_and_slow(tmp_path):
    rows = [row(0, 0), row(0, 1, reward=0.0),  # version 1: no schema_version
            row(1, 0, schema_version=2), row(1, 1, "verifier_error", None, schema_version=2, error="verifier: x"),
            row(2, 0, "model_error", None, schema_version=2), row(2, 1, "infra_error", None, schema_version=2)]
    path = write(tmp_path / "rollouts.jsonl", rows)
    fast = _read_fast(path, path.stat().st_size, nemo=False)
    assert fast is not None
    slow = _read_slow(path)
    assert fast.to_pylist() == slow.to_pylist()
    frame = load_rollouts(str(path)).frame
    assert frame["status"].astype(str).tolist() == ["ok", "ok", "ok", "verifier_error", "model_error", "infra_error"]
    assert frame["reward"].tolist()[:3] == [1.0, 0.0, 1.0] and frame["reward"].isna().tolist()[3:] == [True, False, True]


@pytest.mark.parametrize("bad, message", [
    (row(0, 0, "verifier_error", None), r":1: unknown status 'verifier_error' \(expected one of ok, model_error, infra_error\)"),
    (row(0, 0, schema_version=5), r":1: rollout schema_version 5 is newer than this gym reads \(1, 2, 3, 4\); upgrade gym"),
    (row(0, 0, schema_version="2"), r":1: schema_version must be a positive integer"),
    (row(0, 0, "verifier_error", 0.0, schema_version=2, key=""), r":1: rollout row has no 'key'"),
])
def test_rows_a_version_does_not_allow_are_refused(tmp_path, bad, message):
    path = write(tmp_path / "rollouts.jsonl", [bad])
    assert _read_fast(path, path.stat().st_size, nemo=False) is None  # the line-by-line reader names the line
    with pytest.raises(GymError, match=message):
        load_rollouts(str(path))


def test_upgrade_brings_a_version_one_row_to_the_current_version(tmp_path):
    old = row(0, 0, response="B", prompt=[], custom="kept")
    new = rollout.upgrade(old, "f:1")
    assert new["schema_version"] == rollout.SCHEMA_VERSION and new["custom"] == "kept"
    assert new["data_sha256"] is None and "reverified" not in new and new["reward"] == 1.0
    with pytest.raises(GymError, match="f:1: status 'ok' but the reward is missing"):
        rollout.upgrade(row(0, 0, reward=None), "f:1")


def test_version_3_rows_keep_the_tool_calls():
    from gym.toolcalls import ToolCall
    from gym.verifiers.base import Verdict

    calls = [ToolCall("f", {"a": 1}, id="c1"), ToolCall("g", None, "{oops")]
    done = build(Verdict(0.0, None, {}), Completion("ok", text="", tool_calls=calls,
                                                   tool_problems={"invalid_tool_arguments": 1}))
    assert done["schema_version"] == 4 and set(done) <= set(rollout.FIELDS)
    assert done["tool_calls"] == [{"name": "f", "arguments": {"a": 1}, "id": "c1"},
                                  {"name": "g", "arguments": None, "raw_arguments": "{oops"}]
    assert done["tool_call_problems"] == {"invalid_tool_arguments": 1}
    assert "tool_calls" not in build(Verdict(1.0, "B", {}))  # no tools offered: no field
    assert rollout.upgrade(done, "x:1")["tool_calls"] == done["tool_calls"]
