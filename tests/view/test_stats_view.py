"""The viewer's run page shows what a priced run cost and which interval method its figures use."""

from __future__ import annotations

import requests

from tests.conftest import UPSTREAM, run_gym
from tests.view_helpers import Viewer


def test_run_page_shows_cost_tokens_and_the_interval_method(tmp_path, data_dir):
    run = tmp_path / "runs" / "priced"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=3", "model.price.input=3",
                     "model.price.output=15", "progress=false", f"data.mirror={UPSTREAM}", f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    viewer = Viewer(f"rollouts={run.parent}")
    try:
        page = requests.get(f"{viewer.url}/run/0/index.html", timeout=60).text
    finally:
        assert viewer.stop() == 0
    assert "cost/usd" in page and "tokens/policy/total" in page
    assert "wilson = Wilson score interval over tasks" in page
