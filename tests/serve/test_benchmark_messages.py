"""A row renders to the same messages wherever gym sends it: collect's prompts, task=serve's /run and /reset
(gym.serve.catalog) and the trainer functions (gym.serve.in_process), for benchmarks that cover every way a
prompt is made: a template with a system prompt and images sent with their detail (hle_vision, whose third
row has an image), multiple-choice options (mmlu), a row's own conversation (mrcr), code (mbpp), a tool
request (bfcl), an episode's opening messages (tau2_mock), a judged benchmark (simpleqa). The whole catalog's
check is tools/same_messages.py (docs/development.md)."""

from __future__ import annotations

import pytest

from tests.benchmark_messages import rendered_three_ways
from tests.serve_helpers import prepare

BENCHMARKS = ("hle_vision", "mmlu", "mrcr", "mbpp", "bfcl", "tau2_mock", "simpleqa")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("messages_data")
    prepare(path, *BENCHMARKS)
    return path


@pytest.mark.parametrize("name", BENCHMARKS)
def test_collect_serve_and_trainers_send_the_same_messages(name, data, tmp_path):
    rendered = rendered_three_ways(name, data, tmp_path)
    assert rendered["collect"] and all(isinstance(one, list) for one in rendered["collect"])
    assert rendered["serve"] == rendered["collect"]
    assert rendered["trainer"] == rendered["collect"]
    if name == "hle_vision":
        images = [part for message in rendered["collect"][2] if isinstance(message["content"], list)
                  for part in message["content"] if part["type"] == "image"]
        assert len(images) == 1 and images[0]["detail"] == "high" and images[0]["sha256"]
