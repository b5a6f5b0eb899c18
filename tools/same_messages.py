"""Every benchmark's first rows rendered through collect's, task=serve's and the trainer functions' paths
(tests/benchmark_messages.py), compared: the whole-catalog form of tests/serve/test_benchmark_messages.py.

Prepare the catalog from the test fixtures first (a few minutes), then compare (about 3 s a benchmark):

    python -m gym task=prepare 'benchmarks=all' data.mirror=tests/fixtures/upstream data.offline=true data.root=/tmp/catalog
    .venv/bin/python tools/same_messages.py /tmp/catalog

Benchmarks without prepared data (the container benchmarks) are listed as skipped; one whose path fails
is listed with its one-line error; exit 1 when any benchmark renders differently.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gym.data.catalog import benchmark_files  # noqa: E402
from tests.benchmark_messages import rendered_three_ways  # noqa: E402

# what a benchmark needs to load offline beyond model/judge/user=mock
EXTRA = {"banking_alltools": ("benchmark.embeddings.kind=mock",)}


def main() -> int:
    root = Path(sys.argv[1])
    same, differ, failed, skipped = [], [], {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(benchmark_files()):
            if not (root / name).is_dir():
                skipped.append(name)
                continue
            try:
                rendered = rendered_three_ways(name, root, Path(tmp), extra=EXTRA.get(name, ()))
            except Exception as exc:  # noqa: BLE001 - reported, the others go on
                failed[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                continue
            (same if rendered["collect"] == rendered["serve"] == rendered["trainer"] else differ).append(name)
    print(f"same messages: {len(same)} benchmarks; different: {differ or 'none'}; skipped (not prepared): "
          f"{', '.join(skipped) or 'none'}")
    for name, error in failed.items():
        print(f"failed: {name}: {error}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
