"""How long RULER's generation takes: task=prepare benchmark=ruler on the committed fixtures, at a few lengths,
with the words counter and with the fixture's BPE tokenizer.json (tokenization dominates at long lengths).

    .venv/bin/python perf/ruler_generate.py [num_samples]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BPE = ROOT / "tests/fixtures/upstream/huggingface.co/gym-fixtures/tiny-bpe/resolve/main/tokenizer.json"


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(f"{'tokenizer':<10} {'max_length':>10} {'rows':>5} {'seconds':>8}")
    for tokenizer, length in (("words", 4096), ("words", 32768), (str(BPE), 4096), (str(BPE), 32768)):
        with tempfile.TemporaryDirectory() as root:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=ruler",
                            "data.mirror=tests/fixtures/upstream", f"data.root={root}",
                            f"+prepare_args.tokenizer={tokenizer}", f"+prepare_args.max_length={length}",
                            f"+prepare_args.num_samples={samples}"], cwd=ROOT, check=True, capture_output=True)
            seconds = time.perf_counter() - started
        name = "words" if tokenizer == "words" else "bpe"
        print(f"{name:<10} {length:>10} {13 * samples:>5} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
