"""Values Hydra's grammar rejects as typed: a home path where the knob is a path is expanded, anything else
is one line saying what is wrong and how to quote it (through the real command line)."""

from __future__ import annotations

import pytest

from gym.cli.overrides import check_argv
from gym.core.errors import GymError

from conftest import assert_clean_failure, run_gym


def test_home_path_for_the_response_cache(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=2", "num_repeats=1", "data.offline=true",
                     "cache.dir=~/.cache/gym/responses", f"hydra.run.dir={tmp_path / 'run'}",
                     env={"HOME": str(home), "GYM_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(home / ".cache")})
    assert result.returncode == 0, result.stderr[-2000:]
    assert any((home / ".cache/gym/responses").iterdir())  # the cache went to the home directory, not a '~' dir
    assert not (tmp_path / "run" / "~").exists()
    assert f"cache.dir={home}/.cache/gym/responses" in (tmp_path / "run/.hydra/overrides.yaml").read_text()


@pytest.mark.parametrize("arg", ["data.root=~/gym-data", "data.mirror=~/mirror", "output=~/runs/rollouts.jsonl",
                                 "benchmark.dataset.path=~/train.jsonl", "hydra.run.dir=~/runs/x"])
def test_path_knobs_expand_home(arg, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    key = arg.split("=")[0]
    checked = check_argv(["task=e2e", "benchmark=local", arg])
    assert f"{key}={tmp_path}/" in " ".join(checked) and "~" not in " ".join(checked)


@pytest.mark.parametrize("arg,needles", [
    ("model.name=a~b", ["cannot read model.name=a~b: '~'", """'model.name="a~b"'"""]),
    ("benchmark.prompt.user=Solve: {question", ["an unclosed bracket", """'benchmark.prompt.user="Solve: {question"'"""]),
    ("model.name=it's", ["an unclosed quote", '''"model.name=\\"it's\\""''']),
    ("model.name=a#b", ["'#'"]),
])
def test_unreadable_values_say_how_to_quote(arg, needles):
    with pytest.raises(GymError) as caught:
        check_argv(["task=collect", "benchmark=gsm8k", arg])
    message = str(caught.value)
    assert "\n" not in message and "Exception" not in message
    for needle in needles:
        assert needle in message


def test_unreadable_value_through_the_command_line():
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "model.name=a~b")
    assert_clean_failure(result, "cannot read model.name=a~b", "quote the value")
    assert "LexerNoViableAltException" not in result.stderr and result.stderr.count("\n") == 1
