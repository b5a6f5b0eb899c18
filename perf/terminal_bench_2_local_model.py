"""A real model plays a Terminal-Bench 2 task with gym's terminal agent, end to end, on this machine: the
llama.cpp server of `model=local` (SmolLM2-135M-Instruct by default, no GPU, no internet), the task's image
in podman or docker, every command the model sends run in the container, then the task's own tests.

    python perf/terminal_bench_2_local_model.py                          # log-summary-date-ranges, 6 steps
    python perf/terminal_bench_2_local_model.py --task sqlite-db-truncate --steps 4 -- runtime=docker

It runs, as a user would type it:

    python -m gym task=e2e benchmark=harbor benchmark.dataset.tasks=tests/fixtures/harbor/terminal-bench-2 \\
        agent=terminal model=local model.api=completions "prepare_args.only=[<task>]" episode.max_agent_steps=<n> \\
        '+model.sampling.extra_body.grammar=${oc.env:GYM_SHELL_GRAMMAR}' ...

A 135M model asked in plain chat answers in prose and never calls a tool (SmolLM2's chat template has no
tools), so the script asks through the prompt format (`model.api=completions`: the tools and earlier calls
written into the prompt as Hermes `<tool_call>` blocks) with llama.cpp's grammar holding each reply to one
`shell` call: the model still writes every command itself. The episode ends at the step budget; the task's
tests then give the verdict. Prints each command with its exit code, then the reward and the trial's times.
Not a test: a few minutes (the model and the tests on shared cores).
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
TASKS = ROOT / "tests" / "fixtures" / "harbor" / "terminal-bench-2"
# one `shell` call per reply (llama.cpp GBNF): the command is the model's own text
GRAMMAR = ('root ::= "<tool_call>\\n{\\"name\\": \\"shell\\", \\"arguments\\": {\\"command\\": \\"" cmd "\\"}}\\n</tool_call>"\n'
           'cmd ::= [^"\\\\\\n]{1,200}\n')


def run(args: argparse.Namespace, extra: list[str]) -> Path:
    out = Path(args.out).resolve()
    bundle = os.environ.get("SSL_CERT_FILE") or ssl.get_default_verify_paths().cafile
    overrides = ["task=e2e", "benchmark=harbor", f"benchmark.dataset.tasks={TASKS}", "agent=terminal", "model=local",
                 "model.api=completions", f"prepare_args.only=[{args.task}]", f"episode.max_agent_steps={args.steps}",
                 "agent.output_chars=1500", "+model.sampling.extra_body.grammar=${oc.env:GYM_SHELL_GRAMMAR}",
                 "cache.dir=null", "progress=false", f"hydra.run.dir={out}",
                 # trixie's own Python 3.13 stands in for python:3.13-slim-bookworm: no CPython compile first
                 "runtime.images=['python:3.13-slim-bookworm=python:3.13-slim-trixie']"]
    if bundle and Path(bundle).is_file():
        overrides.append(f"runtime.extra_ca_certs=[{bundle}]")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gym", *overrides, *extra], cwd=ROOT, check=False,
                          env={**os.environ, "GYM_SHELL_GRAMMAR": GRAMMAR})
    print(f"exit {done.returncode}; wall time {time.monotonic() - started:.0f} s", file=sys.stderr)
    return out / "rollouts.jsonl"


def report(rollouts: Path) -> None:
    for line in rollouts.read_text().splitlines():
        row = json.loads(line)
        trajectory = row.get("trajectory") or []
        print(f"task: {row['trajectory'][1]['content'][:70]!r}…")
        for message in trajectory:
            for call in message.get("tool_calls") or []:
                arguments = call["function"]["arguments"]
                command = json.loads(arguments).get("command") if isinstance(arguments, str) else arguments
                text = str(command)
                print(f"  $ {text if len(text) <= 120 else text[:117] + '...'}")
            if message.get("role") == "tool":
                print("    -> " + message["content"].splitlines()[0] if message["content"] else "    -> (no output)")
        record = row.get("verifier") or {}
        episode = row.get("episode") or {}
        print(f"status {row['status']}, reward {row['reward']}, ended by {episode.get('termination')}, "
              f"{episode.get('tool_calls')} commands, tokens {(episode.get('agent_usage') or {}).get('total_tokens')}")
        print("trial: " + ", ".join(f"{key} {record[key]}" for key in (
            "build_seconds", "agent_seconds", "verifier_seconds", "trial_seconds", "cpu_seconds", "peak_memory_mb")
            if key in record) + f"; rollout {row.get('latency_s', 0):.0f} s")
        tail = (record.get("test_output") or "").strip().splitlines()[-1:]
        print("tests: " + (tail[0] if tail else "(no output)"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="log-summary-date-ranges", help="a task under tests/fixtures/harbor")
    parser.add_argument("--steps", type=int, default=6, help="the model's turns (episode.max_agent_steps)")
    parser.add_argument("--out", default="outputs/perf/terminal_bench_2_local_model")
    parser.add_argument("--report", help="only print an existing rollouts file")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    report(Path(options.report) if options.report else run(options, extra))
