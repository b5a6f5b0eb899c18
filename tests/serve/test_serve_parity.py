"""The same reward in training as in evaluation: collect's rows (through `python -m gym task=collect`) scored
again by the in-process API (TRL's reward function, verl's compute_score, the reset/step Environment) and
by task=serve's /verify give collect's reward, row for row."""

from __future__ import annotations

import pytest

from gym.episodes.messages import agent_view
from gym.rollouts.nemo_gym import to_nemo
from gym.serve.trainers import Environment, compute_score, reward_function
from tests.conftest import run_gym
from tests.serve_helpers import post, prepare, rows_of, served


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("parity_data")
    prepare(path, "gsm8k", "tau2_mock", "bfcl_multi_turn")
    return path


@pytest.fixture
def data_env(data, monkeypatch):
    monkeypatch.setenv("GYM_DATA_DIR", str(data))
    return data


def collect(data, run_dir, *overrides):
    result = run_gym("task=collect", "model=mock", "progress=false", f"hydra.run.dir={run_dir}", *overrides,
                     env={"GYM_DATA_DIR": str(data)})
    assert result.returncode == 0, result.stderr
    return rows_of(run_dir / "rollouts.jsonl")


@pytest.fixture(scope="module")
def answers(data, tmp_path_factory):
    return collect(data, tmp_path_factory.mktemp("collect_gsm8k"), "benchmark=gsm8k", "num_repeats=4")


@pytest.fixture(scope="module")
def episodes(data, tmp_path_factory):
    return collect(data, tmp_path_factory.mktemp("collect_tau2"), "benchmark=tau2_mock", "user=mock", "num_repeats=2")


@pytest.fixture(scope="module")
def bfcl_episodes(data, tmp_path_factory):  # BFCL multi-turn: the scripted user (its default), tools per turn
    return collect(data, tmp_path_factory.mktemp("collect_bfcl"), "benchmark=bfcl_multi_turn", "num_repeats=2")


def test_trl_and_verl_rewards_equal_collects(answers, data_env):
    rewards = [row["reward"] for row in answers]
    assert 0 < sum(rewards) < len(rewards)  # the reference server is right 70% of the time: both kinds occur
    tasks = rows_of(data_env / "gsm8k" / "gsm8k.jsonl")
    trl = reward_function("gsm8k")
    texts = [row["response"] for row in answers]
    assert trl(prompts=[r["prompt"] for r in answers], completions=texts,
               task_index=[r["task_index"] for r in answers]) == rewards
    conversational = [[{"role": "assistant", "content": text}] for text in texts]
    columns = {key: [tasks[r["task_index"]][key] for r in answers] for key in tasks[0]}
    assert trl(prompts=None, completions=conversational, **columns) == rewards  # the dataset's own columns
    verl = [compute_score("gsm8k", row["response"], row["expected_answer"]) for row in answers]
    assert verl == rewards


def test_verify_over_http_equals_collect(answers, episodes, data, tmp_path):
    with served(tmp_path / "run", data, "benchmarks=[gsm8k,tau2_mock]") as url:
        got = [post(url, "/gsm8k/verify", {"task_index": r["task_index"], "response": r["response"]}).json()["reward"]
               for r in answers]
        assert got == [row["reward"] for row in answers]
        # an episode as export writes it (NeMo Gym's layout: input items, then the trajectory's output items)
        for row in episodes:
            body = {**to_nemo(row), "task_index": row["task_index"], "termination": row["episode"]["termination"]}
            assert post(url, "/tau2_mock/verify", body).json()["reward"] == row["reward"], row["key"]


@pytest.mark.parametrize("name, rows", [("tau2_mock", "episodes"), ("bfcl_multi_turn", "bfcl_episodes")])
def test_step_environment_replays_collects_episodes_to_the_same_reward(name, rows, request, data_env):
    rows = request.getfixturevalue(rows)
    rewards = [row["reward"] for row in rows]
    assert 0 < sum(rewards) < len(rewards)
    env = Environment(name)
    for row in rows:
        observation, info = env.reset(task_index=row["task_index"], seed=300 + row["rollout_index"])
        assert info["tools"]
        replies = [m for m in agent_view(row["trajectory"])[len(observation):] if m["role"] == "assistant"]
        for reply in replies:
            observation, reward, terminated, truncated, info = env.step(reply)
        assert terminated and (reward, info["termination"]) == (row["reward"], row["episode"]["termination"])
    env.close()
