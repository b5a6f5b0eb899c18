"""SWE-bench Lite (300 instances, MIT): SWE-bench/SWE-bench_Lite, split test, from the Hugging Face Hub
(data.mirror=<dir> for offline use). See gym.swebench.prepare."""

from __future__ import annotations

from pathlib import Path

from gym.swebench import prepare_instances

URL = "https://huggingface.co/datasets/SWE-bench/SWE-bench_Lite/resolve/main/data/test-00000-of-00001.parquet"


def prepare(ctx, only: list[str] | None = None) -> Path:
    return prepare_instances(ctx, URL, only)
