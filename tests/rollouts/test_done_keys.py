"""The keys a resumed collect already has: the compact index gives what reading every row into a dict gives."""

from __future__ import annotations

import json
import random

import pytest

from gym.core.errors import GymError
from gym.rollouts import done_keys
from gym.rollouts.done_keys import read_done


def key(rng: random.Random) -> str:
    return "%032x" % rng.getrandbits(128)


def plain_reading(path) -> dict:
    """The obvious reading: every row in order, the last row of a key wins; a torn last line is skipped."""
    out = {}
    for line in path.read_bytes().splitlines(keepends=True):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        out[row["key"]] = (row.get("status", ""), row.get("reward"))
    return out


def test_same_answers_as_a_dict_of_every_row(tmp_path, monkeypatch):
    monkeypatch.setattr(done_keys, "_BLOCK", 4096)  # many blocks, lines cut across them
    rng = random.Random(0)
    keys = [key(rng) for _ in range(3000)]
    keys[1] = keys[0][:16] + keys[1][16:]  # two keys sharing their first half
    statuses = ["ok", "model_error", "infra_error", "verifier_error"]
    lines = []
    for i in range(6000):  # every key twice or so: later rows supersede earlier ones
        k = keys[i % 3000] if i < 3000 else rng.choice(keys)
        status = rng.choice(statuses)
        reward = rng.choice([0.0, 1.0, 0.25]) if status in ("ok", "model_error") else None
        lines.append(json.dumps({"key": k, "status": status, "reward": reward, "response": "x" * rng.randint(0, 300)}))
    lines.append(json.dumps({"key": "nemo-style-key-7", "status": "ok", "reward": 1}))  # not gym's form
    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join(lines) + "\n" + '{"key": "' + keys[5] + '", "sta')  # a torn last line
    want, index = plain_reading(path), read_done(path)
    assert len(index) == len(want)
    for k, value in want.items():
        assert index.get(k) == value, k
    assert index.get(key(rng), ("", None)) == ("", None) and index.get("unknown") is None


def test_odd_types_are_read_row_by_row_and_a_missing_file_is_empty(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    k = "ab" * 16
    path.write_text(json.dumps({"key": k, "status": "ok", "reward": "1"}) + "\n"
                    + json.dumps({"key": k.upper(), "status": "ok", "reward": True}) + "\n")
    index = read_done(path)
    assert index.get(k) == ("ok", None) and index.get(k.upper()) == ("ok", None)
    assert len(read_done(tmp_path / "absent.jsonl")) == 0


def test_a_malformed_line_in_the_middle_stops_in_one_line(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    path.write_text('{"key": "' + "0" * 32 + '", "status": "ok", "reward": 1}\n{not json\n'
                    '{"key": "' + "1" * 32 + '", "status": "ok", "reward": 0}\n')
    with pytest.raises(GymError, match="malformed"):
        read_done(path)
