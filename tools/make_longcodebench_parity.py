"""The rows the reference's own LongCodeBench prepare writes for the test fixture's LongCodeQA.zip: their
number, order, questions, uuids and letters (tests/fixtures/longcodebench_parity.json).

    python3 -m venv /tmp/lcb-ref && /tmp/lcb-ref/bin/pip install datasets
    /tmp/lcb-ref/bin/python tools/make_longcodebench_parity.py <bare git mirror of NVIDIA-NeMo/Gym>

It runs benchmarks/longcodebench/prepare.py of the reference (read from that git dir) with the `datasets`
library, as the reference runs it (`load_dataset("json", data_files=<the zip>)`), on the fixture zip in
place of the Hugging Face copy. Its token counts (tiktoken's o200k_base, a download) are not compared: the
counter is replaced by a word count, so only `n_tokens` differs from a real run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
ZIP = HERE / "upstream/huggingface.co/datasets/Steefano/LCB/resolve/main/LongCodeQA.zip"
EXPECTED = HERE / "longcodebench_parity.json"
HF_PATH = "hf://datasets/Steefano/LCB/LongCodeQA.zip"


def main(git_dir: str) -> None:
    source = subprocess.run(["git", "-C", git_dir, "show", "HEAD:benchmarks/longcodebench/prepare.py"],
                            check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(HF_DATASETS_CACHE=f"{tmp}/cache", HF_HUB_OFFLINE="1")
        import datasets

        real_load = datasets.load_dataset

        def local_load(kind, data_files, **kwargs):
            assert data_files == HF_PATH, data_files
            return real_load(kind, data_files=str(ZIP), **kwargs)

        datasets.load_dataset = local_load
        stand_in = types.ModuleType("tiktoken")  # imported at the top; its counter is replaced below
        stand_in.Encoding = type("Encoding", (), {})  # `datasets` looks the class up once tiktoken is imported
        sys.modules["tiktoken"] = stand_in
        module = types.ModuleType("reference_longcodebench")
        module.__file__ = f"{tmp}/benchmarks/longcodebench/prepare.py"  # its data dir, unused (output_fpath given)
        exec(compile(source, "benchmarks/longcodebench/prepare.py", "exec"), module.__dict__)
        module._build_token_counter = lambda name: (lambda text: len(text.split()))
        out = module.prepare(tokenizer_name="words", output_fpath=Path(tmp) / "rows.jsonl")
        rows = [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]
    kept = [{key: row[key] for key in ("question", "uuid", "expected_answer", "repo", "is_hard")} for row in rows]
    EXPECTED.write_text(json.dumps({"datasets": datasets.__version__, "rows": kept}, indent=1) + "\n",
                        encoding="utf-8")
    print(f"wrote {EXPECTED}: {len(kept)} rows (datasets {datasets.__version__})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
