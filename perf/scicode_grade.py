"""SciCode grading speed: seconds per sub-step (code + tests in the sandbox, targets read from test_data.h5 on
the host) on the test fixture's gold code, and the CPU it takes. Needs h5py and scipy (gym-eval-harness[scicode]).

    .venv/bin/python perf/scicode_grade.py [rounds]
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(rounds: int = 5) -> None:
    from gym.data.prepare_context import PrepareContext
    from gym.verifiers import make_verifier

    sys.path.insert(0, str(ROOT / "benchmarks" / "scicode"))
    import prepare as scicode_prepare

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scicode" / "scicode.jsonl"
        ctx = PrepareContext("scicode", out, mirror=str(ROOT / "tests" / "fixtures" / "upstream"), progress=False)
        scicode_prepare.prepare(ctx)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        options = {"environment": "scicode", "data_path": str(out), "test_data": str(out.parent / "test_data.h5")}
        with make_verifier("episode", options) as verifier:
            steps, started = 0, time.perf_counter()
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            for _ in range(rounds):
                for row in rows:
                    gold = [s["ground_truth_code"] for s in row["sub_steps"] if s["test_cases"]]
                    replies = [{"role": "assistant", "content": f"```python\n{code}\n```"} for code in gold]
                    trajectory = [m for reply in replies for m in ({"role": "user", "content": "step"}, reply)]
                    verdict = verifier.verify(row, {"trajectory": trajectory, "termination": "user_stop"})
                    assert verdict.reward == 1.0, verdict.details
                    steps += len(gold)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    print(f"{steps} sub-steps graded in {wall:.2f} s: {wall / steps * 1000:.0f} ms per sub-step (wall), "
          f"{cpu / steps * 1000:.0f} ms CPU per sub-step in the sandboxed programs")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
