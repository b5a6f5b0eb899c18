"""How long RULER v2's generation takes: task=prepare benchmark=ruler2 through the CLI, offline, on sources in
the upstream layout at a fraction of upstream's sizes (cais/mmlu all: 14,042 test and 99,842 auxiliary_train
questions; hotpotqa distractor: 7,405 dev and 90,447 train questions of 10 paragraphs each), written by
this script from the fixtures' rows with numbered variations, with the words counter and with the
fixture's BPE tokenizer.json. With --reference (a NeMo Gym checkout or bare git dir) and --reference-python
(a venv with the reference's requirements, see tools/make_ruler2_parity.py), the reference's own
generators are timed on the same sources (its 12 task processes one after another).

    .venv/bin/python perf/ruler2_prepare.py [--scale 0.05] [--num-samples 10] [--reference DIR --reference-python PY]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures/upstream/huggingface.co"
BPE = FIXTURES / "gym-fixtures/tiny-bpe/resolve/main/tokenizer.json"
MMLU = "datasets/cais/mmlu/resolve/main/all/{}-00000-of-00001.parquet"
HOTPOT = "datasets/hotpotqa/hotpot_qa/resolve/main/distractor/{}.parquet"
SIZES = {"test": 14_042, "auxiliary_train": 99_842, "validation": 7_405, "train": 90_447}


def scaled_copy(table, size: int, column: str, vary):
    """`size` rows cycling through `table`'s, each row's `column` varied by its number (distinct texts)."""
    import pyarrow as pa

    rows = table.to_pylist()
    out = [dict(rows[i % len(rows)]) for i in range(size)]
    for i, row in enumerate(out):
        row[column] = vary(row[column], i)
    return pa.Table.from_pylist(out, schema=table.schema)


def write_sources(mirror: Path, scale: float) -> None:
    import pyarrow.parquet as pq

    def numbered_context(context: dict, i: int) -> dict:
        return {"title": [f"{t} ({i})" for t in context["title"]] + [f"Filler {i}.{k}" for k in range(7)],
                "sentences": [[f"{s} (row {i})" for s in ss] for ss in context["sentences"]]
                + [[f"Paragraph {k} of row {i} says little of note."] for k in range(7)]}

    for split in ("test", "auxiliary_train"):
        table = pq.read_table(FIXTURES / MMLU.format(split))
        target = mirror / "huggingface.co" / MMLU.format(split)
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(scaled_copy(table, int(SIZES[split] * scale), "question", lambda q, i: f"{q} (#{i})"), target)
    train = [pq.read_table(FIXTURES / HOTPOT.format(f"train-0000{k}-of-00002")) for k in (0, 1)]
    dev = pq.read_table(FIXTURES / HOTPOT.format("validation-00000-of-00001"))
    dev_rows = scaled_copy(dev, int(SIZES["validation"] * scale), "question", lambda q, i: f"{q} (#{i})")
    parts = {"validation-00000-of-00001": dev_rows}
    for k, table in enumerate(train):
        parts[f"train-0000{k}-of-00002"] = scaled_copy(table, int(SIZES["train"] * scale / 2), "context",
                                                       lambda c, i, k=k: numbered_context(c, 2 * i + k))
    for name, table in parts.items():
        target = mirror / "huggingface.co" / HOTPOT.format(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, target)


def timed_prepare(mirror: Path, tokenizer: str, length: int, samples: int, tasks: str | None = None) -> float:
    with tempfile.TemporaryDirectory() as root:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=ruler2", f"data.mirror={mirror}",
                        "data.offline=true", f"data.root={root}", f"+prepare_args.tokenizer={tokenizer}",
                        f"+prepare_args.max_length={length}", f"+prepare_args.num_samples={samples}",
                        *([f"+prepare_args.tasks=[{tasks}]"] if tasks else [])], cwd=ROOT, check=True,
                       capture_output=True)
        return time.perf_counter() - started


def time_reference(reference: Path, python: str, mirror: Path, length: int, samples: int) -> float:
    sys.path.insert(0, str(ROOT))
    from tests.fixtures.make_ruler2_parity import TASK_NAMES, checkout, run_task, tokenizer_folder

    with tempfile.TemporaryDirectory() as tmp:
        ref = checkout(reference, Path(tmp) / "ref")
        tokenizer = tokenizer_folder(BPE, Path(tmp))
        started = time.perf_counter()
        for task in TASK_NAMES:
            run_task(python, ref, Path(tmp), task, mirror, tokenizer, length, samples)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--num-samples", type=int, default=10)
    parser.add_argument("--reference", type=Path)
    parser.add_argument("--reference-python")
    args = parser.parse_args()
    scale, samples = args.scale, args.num_samples
    with tempfile.TemporaryDirectory() as tmp:
        mirror = Path(tmp) / "mirror"
        write_sources(mirror, scale)
        print(f"sources at {scale:g} of upstream's sizes; {samples} samples per task")
        seconds = timed_prepare(mirror, "words", 2048, 1, "mk_niah_easy,qa_hard")
        print(f"reading the sources (+ gym start-up), 2 rows: {seconds:.1f} s")
        print(f"{'who':<10} {'tokenizer':<10} {'max_length':>10} {'rows':>5} {'seconds':>8}")
        for tokenizer, length in (("words", 16384), ("words", 65536), (str(BPE), 16384), (str(BPE), 65536)):
            seconds = timed_prepare(mirror, tokenizer, length, samples)
            name = "words" if tokenizer == "words" else "bpe"
            print(f"{'gym':<10} {name:<10} {length:>10} {12 * samples:>5} {seconds:>8.1f}")
        if args.reference and args.reference_python:
            for length in (16384, 65536):
                seconds = time_reference(args.reference, args.reference_python, mirror, length, samples)
                print(f"{'reference':<10} {'bpe':<10} {length:>10} {12 * samples:>5} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
