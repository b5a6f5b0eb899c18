"""τ²'s airline domain beyond the gold actions, against values from upstream's own code, and the
benchmark from the command line.

tests/fixtures/tau2_expected/airline.json holds, besides every task's cases (tests/episodes/test_tau2_parity.py),
upstream's answers to probe calls made in order on a fresh database (tools/tau2_expected.py): every
tool, its error paths with pydantic's messages, bookings paid by card, certificate and split payments,
the reservation and certificate limits, the one-stop search.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from gym.episodes.passk import pass_hat_k
from gym.episodes.tau2.env import Tau2Environment
from gym.episodes.tau2.validation import build
from tests.conftest import UPSTREAM, run_gym
from tests.rollouts.test_episode_collect import expected_rewards
from tests.episodes.test_tau2_parity import EXPECTED, prepared


@pytest.fixture(scope="module")
def airline(tmp_path_factory):
    path = prepared(tmp_path_factory, "airline")
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def test_probe_calls_answer_and_change_the_database_as_upstream(airline):
    path, rows = airline
    want = json.loads((EXPECTED / "airline.json").read_text())["probes"]
    env = Tau2Environment(path)
    state = env.reset(rows[0])  # airline tasks start from the database as it is
    got = [hashlib.sha256(env.call(state, name, arguments, requestor).content.encode()).hexdigest()
           for name, arguments, requestor in want["calls"]]
    wrong = [(i, want["calls"][i][0]) for i, (a, b) in enumerate(zip(got, want["tool_output_sha256"])) if a != b]
    assert not wrong, wrong
    assert state.hashes()[0] == want["db_hash"]


def test_argument_errors_read_as_pydantic_writes_them():
    """Texts copied from upstream's answers (pydantic 2.14) to a missing field and a fractional amount."""
    with pytest.raises(ValueError) as missing:
        build("FlightInfo", (("flight_number", "str"), ("date", "str")), {"flight_number": "HAT001"})
    assert str(missing.value) == (
        "1 validation error for FlightInfo\ndate\n  Field required [type=missing, input_value={'flight_number': "
        "'HAT001'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.14/v/missing")
    with pytest.raises(ValueError) as fraction:
        build("Payment", (("payment_id", "str"), ("amount", "int")), {"payment_id": "x", "amount": 10.5})
    assert str(fraction.value).splitlines()[2] == ("  Input should be a valid integer, got a number with a "
                                                   "fractional part [type=int_from_float, input_value=10.5, "
                                                   "input_type=float]")
    assert build("Payment", (("payment_id", "str"), ("amount", "int")), {"payment_id": "x", "amount": "12"}) == {
        "payment_id": "x", "amount": 12}


def test_command_line_run_offline_gives_the_known_pass_hat_k(tmp_path):
    """`task=e2e benchmark=tau2_airline model=mock user=mock` prepares from the fixture mirror and scores
    what the gold agent earns on the episodes the mock model's draw sends right."""
    data = tmp_path / "data"
    result = run_gym("task=e2e", "benchmark=tau2_airline", "model=mock", "user=mock", "model.mock.accuracy=0.5",
                     "num_repeats=2", f"data.mirror={UPSTREAM}", "data.offline=true", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(data)})
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "metrics.json").read_text())["benchmarks"]["tau2_airline"]
    want = pass_hat_k(expected_rewards(data / "tau2_airline" / "tau2_airline.jsonl", 0.5, 2))
    assert 0 < want[2] < want[1] < 1  # the draw sends some episodes wrong, so reliability falls with k
    for k in (1, 2):
        assert entry["pass^k"][str(k)]["value"] == pytest.approx(100 * want[k], abs=1e-6)
    assert entry["family_metrics"]["terminations"]["user_stop"]["count"] == 40
