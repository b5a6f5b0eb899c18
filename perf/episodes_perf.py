"""Episode benchmarks' speed: episodes per second and gym's CPU per model call and per episode step,
against the reference server (model=mock plays the gold agent) in its own process, with gym's mock user.

    .venv/bin/python perf/episodes_perf.py            # tau2_mock, tau2_retail, tau2_airline, tau2_telecom (fixture data), 4 repeats
    .venv/bin/python perf/episodes_perf.py --repeats 16 --concurrency 16
    .venv/bin/python perf/episodes_perf.py --domains airline --mirror <dir>  # e.g. the whole 7 MB database

The CPU charged is this process's (user + system) over the collect run: the episode loop, the mock
user, the tools over the deep-copied database, the scorer's two replays, the HTTP client and the row
writing; the reference server's own CPU is not counted. Target: <= 5 ms of harness CPU per model call.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bare_loop import served  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "upstream"


def prepare(domain: str, data_root: Path, mirror: Path = FIXTURES) -> Path:
    from gym.data.prepare_context import PrepareContext
    from gym.episodes.tau2.prepare import DOMAINS, prepare_domain

    name = f"tau2_{domain}"
    ctx = PrepareContext(name=name, output_path=data_root / name / f"{name}.jsonl", mirror=str(mirror),
                         offline=True, progress=False)
    return prepare_domain(ctx, DOMAINS[domain])


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(domain: str, data: Path, repeats: int, concurrency: int, run_dir: Path) -> dict:
    from gym.core.config import compose
    from gym.tasks import collect

    with served(data, "--accuracy", "1") as url:
        cfg = compose(["task=collect", f"benchmark=tau2_{domain}", "model=vllm", f"model.base_url={url}",
                       "model.name=gym-mock", "user=mock", f"num_repeats={repeats}", f"concurrency={concurrency}",
                       "progress=false", f"+run_dir={run_dir}"])
        started_cpu, started = cpu(), time.perf_counter()
        summary = collect.run(cfg)
        wall, used = time.perf_counter() - started, cpu() - started_cpu
    rows = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    steps = sum(r["episode"]["steps"] for r in rows)
    calls = summary["model_requests"]
    return {"domain": domain, "episodes": len(rows), "model_calls": calls, "steps": steps, "wall_s": round(wall, 3),
            "episodes_per_s": round(len(rows) / wall, 1), "cpu_s": round(used, 3),
            "cpu_ms_per_model_call": round(1000 * used / calls, 2), "cpu_ms_per_step": round(1000 * used / steps, 2),
            "cpu_ms_per_episode": round(1000 * used / len(rows), 2),
            "pass@1": summary["accuracy_percent_this_run"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--domains", nargs="+", default=["mock", "retail", "airline", "telecom"])
    parser.add_argument("--mirror", type=Path, default=FIXTURES, help="a download mirror laid out as the fixtures")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gym-episodes-perf-"))
    os.environ["GYM_DATA_DIR"] = str(root / "data")
    for domain in args.domains:
        data = prepare(domain, root / "data", args.mirror)
        result = measure(domain, data, args.repeats, args.concurrency, root / f"run-{domain}")
        print(json.dumps(result))


if __name__ == "__main__":
    main()
