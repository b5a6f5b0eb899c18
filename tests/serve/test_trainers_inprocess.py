"""gym.serve.trainers as trainers call it: TRL's reward_funcs, verl's compute_score loaded by file path
with verl's keyword arguments, reward settings, fork safety, and the Gymnasium-shaped Environment."""

from __future__ import annotations

import importlib.util
import multiprocessing
import os

import pytest

from gym.core.errors import GymError
from tests.conftest import ROOT
from tests.serve_helpers import prepare, rows_of


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("inprocess_data")
    prepare(path, "gsm8k", "tau2_mock")
    return path


@pytest.fixture()
def trainers(data, monkeypatch):
    from gym.serve import trainers

    monkeypatch.setenv("GYM_DATA_DIR", str(data))
    for var in trainers.ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)
    saved = dict(trainers._configured)
    trainers._configured.clear()
    yield trainers
    trainers._configured.clear()
    trainers._configured.update(saved)


def verl_loads(path: str, name: str):
    """verl's get_custom_reward_fn: the file imported as a module of its own, the function by name."""
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_verl_calls_compute_score_with_its_own_keywords_and_data_sources(trainers, data):
    score = verl_loads(str(ROOT / "gym" / "serve" / "trainers.py"), "compute_score")
    gold = rows_of(data / "gsm8k" / "gsm8k.jsonl")[0]["expected_answer"]
    extra = {"split": "train", "index": 0, "num_turns": 1, "rollout_reward_scores": {}}
    # NaiveRewardManager's call, reward_kwargs merged in, and the reward router's arguments
    assert score(data_source="openai/gsm8k", solution_str=f"#### {gold}", ground_truth=str(gold), extra_info=extra,
                 format_score=0.1, reward_router_address=None, reward_model_tokenizer=None) == 1.0
    assert score(data_source="gsm8k", solution_str="#### -3", ground_truth=str(gold), extra_info=extra) == 0.0
    with pytest.raises(GymError) as wrong:
        score(data_source="openai/gsm8kk", solution_str="1", ground_truth="1")
    message = str(wrong.value)
    assert "\n" not in message and "gsm8k" in message and "not a gym benchmark" in message


def test_trl_reward_function_masks_what_it_cannot_score(trainers, data):
    reward = trainers.reward_function("gsm8k")
    got = reward(prompts=["q", "q"], completions=["\\boxed{7}", "\\boxed{7}"],
                 expected_answer=["7", "7"], unscorable=[None, "no gold upstream"])
    assert got == [1.0, None]  # TRL leaves None out of the group's baseline


def test_strict_rewards_for_trl(trainers, data):
    gold = str(rows_of(data / "gsm8k" / "gsm8k.jsonl")[0]["expected_answer"])
    loose = trainers.reward_function("gsm8k")
    completions = [f"Let me think. She has {gold}", f"So the answer is \\boxed{{{gold}}}"]
    ids = [[1] * 48, [1] * 20]
    assert loose(completions=completions, completion_ids=ids, task_index=[0, 0]) == [1.0, 1.0]
    trainers.configure(strict=True)
    strict = trainers.reward_function("gsm8k", max_completion_length=48)
    assert strict(completions=completions, completion_ids=ids, task_index=[0, 0]) == [0.0, 1.0]
    cut = [f"\\boxed{{{gold}}} and then", f"\\boxed{{{gold}}}"]
    assert strict(completions=cut, completion_ids=ids, task_index=[0, 0]) == [0.0, 1.0]  # cut at 48 tokens


def test_settings_by_call_or_environment_and_overrides_without_plus(trainers, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 96)  # a big node: still a small pool per process
    assert trainers.benchmark("gsm8k").verifier.workers == 2
    monkeypatch.setenv("GYM_REWARD_WORKERS", "1")
    monkeypatch.setenv("GYM_REWARD_TIMEOUT", "7.5")
    served = trainers.benchmark("gsm8k")
    assert (served.verifier.workers, served.verifier.timeout) == (1, 7.5)
    trainers.configure(workers=3)
    assert trainers.benchmark("gsm8k").verifier.workers == 3
    with pytest.raises(GymError, match="unknown setting 'worker'.*workers"):
        trainers.configure(worker=3)
    monkeypatch.setenv("GYM_REWARD_WORKERS", "many")
    trainers._configured.clear()
    with pytest.raises(GymError, match="workers must be an integer"):
        trainers.current_settings()
    monkeypatch.delenv("GYM_REWARD_WORKERS")
    reward = trainers.reward_function("gsm8k", overrides=["benchmark.verifier.options.timeout=9"])
    assert reward(completions=["\\boxed{1}"], expected_answer=["1"]) == [1.0]


def _score_in_child(conn) -> None:
    from gym.serve.trainers import compute_score

    conn.send(compute_score("gsm8k", "\\boxed{\\frac{36}{2}}", "18"))
    conn.close()


def test_a_forked_child_scores_after_its_parent(trainers):
    assert trainers.compute_score("gsm8k", "\\boxed{\\frac{36}{2}}", "18") == 1.0  # a math worker answered
    parent, child = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(target=_score_in_child, args=(child,))
    process.start()
    assert parent.poll(120), "the child gave no score"
    assert parent.recv() == 1.0
    process.join(60)
    assert process.exitcode == 0
    assert trainers.compute_score("gsm8k", "\\boxed{\\frac{36}{2}}", "18") == 1.0  # the parent's pool still works
    assert os.getpid() in {key[0] for key in trainers._loaded}


def test_environment_is_gymnasium_shaped(trainers, data):
    from gym.serve.trainers import Environment

    env = Environment("tau2_mock", user="mock", max_agent_steps=1)
    rows = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")
    assert len(env) == env.num_tasks == len(rows)
    observation, info = env.reset(seed=len(rows) + 1)
    assert info["task_index"] == 1 and observation
    assert all(tool["type"] == "function" and set(tool["function"]) == {"name", "description", "parameters"}
               for tool in info["tools"])
    _, info = env.reset(seed=0, options={"task_index": 0})
    assert info["task_index"] == 0
    call = {"id": "c1", "type": "function", "function": {"name": "create_task", "arguments": "{\"user_id\": "
                                                                                          "\"user_1\", \"title\": \"x\"}"}}
    observation, reward, terminated, truncated, info = env.step({"role": "assistant", "tool_calls": [call]})
    # the one allowed agent step was taken: the episode ends on it, truncated, without asking for another
    assert (terminated, truncated, info["termination"], info["agent_turns"]) == (False, True, "max_steps", 1)
    assert reward is not None


def test_environment_without_seed_or_task_goes_in_order(trainers):
    from gym.serve.trainers import Environment

    env = Environment("gsm8k")
    assert [env.reset()[1]["task_index"] for _ in range(3)] == [0, 1, 2]
    observation, reward, terminated, truncated, info = env.step("\\boxed{-99999}")
    assert (reward, terminated, truncated) == (0.0, True, False)
