"""CPU cost of benchmark=toolsandbox: per tool call, per episode replay and per episode score.

Plays the gold-ish script (gym.episodes.toolsandbox.gold.plays) of every scenario that needs no RapidAPI
tool (the 95 base scenarios) on gym's environment, with the scenario file shipped in
benchmarks/toolsandbox. Reports process CPU time (time.process_time), so other load on the machine
matters less than with wall time.

    .venv/bin/python perf/toolsandbox_perf.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gym.episodes.toolsandbox.calls import execute  # noqa: E402
from gym.episodes.toolsandbox.env import ToolSandboxEnvironment  # noqa: E402
from gym.episodes.toolsandbox.gold import chat, plays  # noqa: E402
from gym.episodes.toolsandbox.matcher import evaluate  # noqa: E402

SCENARIOS = ROOT / "benchmarks" / "toolsandbox" / "scenarios.json.gz"
CALLS = [("get_current_timestamp", {}), ("search_contacts", {"name": "Fredrik"}),
         ("add_reminder", {"content": "Call mom", "reminder_timestamp": 1722945600.0}),
         ("search_messages", {"content": "GPU"}), ("set_wifi_status", {"on": False}),
         ("timestamp_diff", {"timestamp_0": 1722859200.0, "timestamp_1": 1723000000.0})]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp())
    shutil.copyfile(SCENARIOS, home / "scenarios.json.gz")
    env = ToolSandboxEnvironment(home / "rows.jsonl")
    document = json.loads(gzip.decompress(SCENARIOS.read_bytes()))
    names = sorted(n for n, s in document["scenarios"].items()
                   if "NO_DISTRACTION_TOOLS" in s["categories"] and not s["rapid_api_tools"])
    rows = {n: {"scenario": n, "env_file": "scenarios.json.gz"} for n in names}
    games = {n: chat(env.initial_messages(rows[n]), plays(env.scenario(rows[n]).world["milestones"],
                                               document["scenarios"][n]["tool_names"])["gold"]) for n in names}
    # tool calls
    world = env.reset(rows["wifi_off"]).world
    started = time.process_time()
    count = 0
    for _ in range(200):
        trial = world.copy()
        for name, arguments in CALLS:
            execute(trial, name, arguments)
            count += 1
    per_call = (time.process_time() - started) / count
    warm = env.replay(rows[names[0]], games[names[0]])  # imports (rouge, pint, ...) outside the timings
    evaluate(warm, env.scenario(rows[names[0]]).world["milestones"], env.scenario(rows[names[0]]).world["minefields"])
    replay_times, score_times, calls = [], [], 0
    for _ in range(args.rounds):
        for name in names:
            started = time.process_time()
            played = env.replay(rows[name], games[name])
            replay_times.append(time.process_time() - started)
            scenario = env.scenario(rows[name])
            started = time.process_time()
            evaluate(played, scenario.world["milestones"], scenario.world["minefields"])
            score_times.append(time.process_time() - started)
            calls += sum(1 for m in played.messages if m["sender"] == "EXECUTION_ENVIRONMENT")
    print(f"tool call (incl. a world copy per {len(CALLS)} calls): {per_call * 1e6:.0f} us CPU")
    print(f"episode replay ({len(names)} gold-ish plays x {args.rounds}): median {statistics.median(replay_times) * 1e3:.2f} ms, "
          f"max {max(replay_times) * 1e3:.2f} ms CPU")
    print(f"episode score (milestone matching): median {statistics.median(score_times) * 1e3:.2f} ms, "
          f"p90 {sorted(score_times)[int(len(score_times) * 0.9)] * 1e3:.2f} ms, max {max(score_times) * 1e3:.2f} ms CPU")


if __name__ == "__main__":
    main()
