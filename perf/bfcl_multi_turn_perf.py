"""BFCL multi-turn's speed in process: the gold agent plays every prepared entry with the scripted user on
gym's API classes, then the checker replays it (the model's run and the gold run, turn by turn).

    .venv/bin/python perf/bfcl_multi_turn_perf.py                       # the fixture entries
    .venv/bin/python perf/bfcl_multi_turn_perf.py --mirror /path/to/mirror   # all 800, from a local mirror of the pinned commit

Prints episodes per second, CPU per episode and per tool call for playing and for scoring, and the share
of entries the gold calls pass (every one, when gym's classes and checker agree with upstream's).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "upstream"


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def prepare(mirror: str, out: Path) -> Path:
    from gym.data.prepare_context import PrepareContext

    spec = importlib.util.spec_from_file_location("bfcl_multi_turn_prepare", ROOT / "benchmarks" / "bfcl_multi_turn" / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ctx = PrepareContext(name="bfcl_multi_turn", output_path=out, mirror=mirror, offline=True, progress=False)
    return module.prepare(ctx)


def main() -> None:
    from gym.episodes.agents import GoldAgent
    from gym.episodes.base import Limits
    from gym.episodes.bfcl.env import BfclEnvironment
    from gym.episodes.loop import EpisodeRunner
    from gym.episodes.users import ScriptedUser

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", default=str(FIXTURES))
    args = parser.parse_args()
    path = prepare(args.mirror, Path(tempfile.mkdtemp(prefix="gym-bfcl-perf-")) / "bfcl_multi_turn.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    env = BfclEnvironment(path)
    played, calls, passed = [], 0, 0
    started_cpu, started = cpu(), time.perf_counter()
    for row in rows:
        episode = EpisodeRunner(env, GoldAgent(row), ScriptedUser(), Limits()).run(row, 0)
        played.append(episode)
        calls += episode.tool_calls
    play_cpu, middle = cpu() - started_cpu, cpu()
    for row, episode in zip(rows, played):
        passed += env.score(row, episode.trajectory, episode.termination).reward == 1.0
    score_cpu, wall = cpu() - middle, time.perf_counter() - started
    print(json.dumps({"entries": len(rows), "tool_calls": calls, "wall_s": round(wall, 2),
                      "episodes_per_s": round(len(rows) / wall, 1),
                      "play_cpu_ms_per_episode": round(1000 * play_cpu / len(rows), 2),
                      "score_cpu_ms_per_episode": round(1000 * score_cpu / len(rows), 2),
                      "cpu_ms_per_tool_call": round(1000 * (play_cpu + score_cpu) / max(calls, 1), 3),
                      "gold_pass_percent": round(100.0 * passed / len(rows), 2)}))


if __name__ == "__main__":
    main()
