"""The agent knobs through gym's command-line checks (gym.cli.overrides.check_argv, what main() runs before
Hydra): every key of the user schema, prepare_args spelled alike for prepare, e2e and collect, keys inside
free mappings, and the wrong key named when several are wrong."""

from __future__ import annotations

import dataclasses

import pytest

from gym.cli.overrides import check_argv
from gym.core.errors import GymError
from gym.core.schema import UserConfig, SamplingConfig

from conftest import assert_clean_failure, run_gym

USER_KEYS = [f"user.{f.name}" for f in dataclasses.fields(UserConfig) if f.name != "sampling"] + \
            [f"user.sampling.{f.name}" for f in dataclasses.fields(SamplingConfig) if f.name != "extra_body"]
VALUES = {"user.base_url": "http://gpu2:8002/v1", "user.name": "Qwen/Qwen3-32B", "user.api": "chat",
          "user.kind": "openai_compatible", "user.api_key_env": "USER_KEY", "user.sampling.stop": "[END]"}
TASKS_WITH_A_USER = ("collect", "e2e", "reverify")


@pytest.mark.parametrize("task", TASKS_WITH_A_USER)
def test_every_user_key_is_known(task):
    argv = [f"task={task}", "benchmark=tau2_retail", "user=vllm",
            *(f"{key}={VALUES.get(key, '1')}" for key in USER_KEYS), "user.sampling.extra_body.top_k=20"]
    checked = check_argv(argv)
    assert "user.base_url=http://gpu2:8002/v1" in checked
    assert "++user.sampling.extra_body.top_k=20" in checked  # a new key in a free mapping: set or added


def test_the_wrong_key_is_named_among_user_keys():
    with pytest.raises(GymError, match=r"unknown key 'user\.nmae' for task=collect \(did you mean user\.name\?\)"):
        check_argv(["task=collect", "benchmark=tau2_retail", "user=vllm", "user.base_url=http://h:8002/v1",
                    "user.nmae=Qwen/Qwen3-32B"])
    with pytest.raises(GymError, match=r"unknown key 'num_repeat'"):
        check_argv(["task=e2e", "benchmark=tau2_retail", "user=vllm", "user.base_url=http://h:8002/v1",
                    "user.name=Qwen/Qwen3-32B", "num_repeat=4"])


@pytest.mark.parametrize("task", ("prepare", "e2e", "collect"))
@pytest.mark.parametrize("spelling", ("+prepare_args.categories=[simple_python]", "prepare_args.categories=[simple_python]"))
def test_prepare_args_spelled_alike(task, spelling):
    checked = check_argv([f"task={task}", "benchmark=bfcl", spelling])
    assert checked[-1].lstrip("+") == "prepare_args.categories=[simple_python]"
    assert checked[-1].startswith("+")


def test_readme_agent_command_line_passes_the_checks():
    result = run_gym("task=collect", "benchmark=tau2_retail", "model=vllm", "model.base_url=http://127.0.0.1:9/v1",
                     "user=vllm", "user.base_url=http://127.0.0.1:9/v1", "user.name=Qwen/Qwen3-32B", "user.nmae=x")
    assert_clean_failure(result, "unknown key 'user.nmae'", "did you mean user.name?")
