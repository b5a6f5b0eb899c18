"""The oracle (or nop) over Terminal-Bench 2's tasks that can run here: reward next to upstream's expectation
(oracle 1, nop 0), build and trial times, failures with their kind. Figures for docs/performance.md; not a test
(minutes per task).

    python perf/terminal_bench_2_oracle.py --tasks log-summary-date-ranges,fix-git      # some tasks
    python perf/terminal_bench_2_oracle.py --runnable --limit 20                        # the first 20 runnable
    python perf/terminal_bench_2_oracle.py ... -- data.mirror=~/gym-mirror runtime.keep_images=false
    python perf/terminal_bench_2_oracle.py --agent nop ...                              # every reward must be 0

It runs `python -m gym task=e2e benchmark=terminal_bench_2 agent=oracle model=mock` (or `agent=nop`) as a user would (extra
gym arguments after `--`), then prints one line per task and a summary (markdown) from the rollouts file.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(args: argparse.Namespace, extra: list[str]) -> Path:
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    overrides = ["task=e2e", "benchmark=terminal_bench_2", f"agent={args.agent}", "model=mock", "progress=true",
                 f"hydra.run.dir={out / 'run'}", f"concurrency={args.parallel}", f"runtime.max_parallel={args.parallel}"]
    if args.tasks:
        overrides.append(f"prepare_args.only=[{args.tasks}]")
    if args.limit:
        overrides.append(f"limit={args.limit}")
    bundle = os.environ.get("SSL_CERT_FILE") or ssl.get_default_verify_paths().cafile
    if bundle and Path(bundle).is_file() and not any(e.startswith("runtime.extra_ca_certs") for e in extra):
        overrides.append(f"runtime.extra_ca_certs=[{bundle}]")
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "gym", *overrides, *extra], cwd=ROOT, check=False)
    print(f"wall time: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return out / "run" / "rollouts.jsonl"


def report(rollouts: Path, data_dir: Path | None, expected: int) -> None:
    rows = [json.loads(line) for line in rollouts.read_text().splitlines() if line.strip()]
    names = {}
    if data_dir is not None and (data_dir / "terminal_bench_2.jsonl").is_file():
        names = {i: json.loads(line)["id"] for i, line in enumerate((data_dir / "terminal_bench_2.jsonl").open())}
    print(f"| task | reward (upstream: {expected}) | kind | build s (base s) | trial s | CPU s | peak MB | base |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    rewards, kinds = [], {}
    for row in sorted(rows, key=lambda r: r["task_index"]):
        record = row.get("verifier") or {}
        kind = record.get("trial_status") or ("ok" if row["status"] == "ok" else row["status"])
        kinds[kind] = kinds.get(kind, 0) + 1
        if row["status"] == "ok":
            rewards.append(row["reward"])
        base = "; ".join(s["how"].split(":")[-1].strip() for s in record.get("substitutions") or [])
        build = "cached" if record.get("build_cached") else record.get("build_seconds", "")
        if record.get("base_seconds", 0) >= 1:
            build = f"{build} ({record['base_seconds']:.0f})"
        trial = record.get("trial_seconds") or (round(row["latency_s"], 1) if row.get("latency_s") else "")
        reward = row["reward"] if row["status"] == "ok" else "–"
        print(f"| {names.get(row['task_index'], row['task_index'])} | {reward} | {kind} | {build} | {trial} | "
              f"{record.get('cpu_seconds', '')} | {record.get('peak_memory_mb', '')} | {base} |")
    print(f"\n{len(rows)} tasks; reward 1 on {sum(r == 1.0 for r in rewards)}, 0 on {sum(r == 0.0 for r in rewards)}; "
          f"kinds: {kinds}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", help="comma-separated task names (default: every task)")
    parser.add_argument("--runnable", action="store_true", help="only tasks the scan says can run here (default)")
    parser.add_argument("--agent", choices=["oracle", "nop"], default="oracle",
                        help="oracle (upstream expects 1) or nop (upstream expects 0)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many tasks")
    parser.add_argument("--parallel", type=int, default=2, help="trials at once")
    parser.add_argument("--out", default="outputs/perf/terminal_bench_2_oracle")
    parser.add_argument("--report", help="only print the table of an existing rollouts file")
    parser.add_argument("--data", help="the prepared data dir (for task names in the table)")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    path = Path(options.report) if options.report else run(options, extra)
    report(path, Path(options.data) if options.data else None, 1 if options.agent == "oracle" else 0)
