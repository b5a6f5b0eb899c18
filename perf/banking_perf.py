"""τ² banking (bm25_grep) speed: the knowledge base's index, KB_search and grep per call, and gold episodes
(gym's gold agent and mock user in process, every tool on the episode's database, then the scorer's
replay and gold run) per episode, all CPU time of this process.

    .venv/bin/python perf/banking_perf.py                   # the fixture (52 documents, 9 tasks)
    .venv/bin/python perf/banking_perf.py --mirror <dir>    # e.g. a mirror of the pinned commit (698 documents, 97 tasks)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUERIES = ["gold rewards card annual fee", "dispute a transaction", "open a savings account", "referral bonus",
           "transfer to a human agent", "debit card lost or stolen", "early closure fee", "credit limit increase"]


def cpu() -> float:
    return time.process_time()


def main() -> None:
    from gym.core.errors import TaskNotSent
    from gym.data.prepare_context import PrepareContext
    from gym.episodes.agents import GoldAgent
    from gym.episodes.base import Limits
    from gym.episodes.loop import EpisodeRunner
    from gym.episodes.tau2.banking.kb import KnowledgeBase
    from gym.episodes.tau2.banking.prepare import prepare_banking
    from gym.episodes.tau2.env import Tau2Environment
    from gym.episodes.users import MockUser

    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", default=str(ROOT / "tests" / "fixtures" / "upstream"))
    parser.add_argument("--searches", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "banking_bm25_grep.jsonl"
        ctx = PrepareContext(name="banking_bm25_grep", output_path=out, mirror=args.mirror, offline=True, progress=False)
        prepare_banking(ctx, "bm25_grep")
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        documents = json.loads((out.parent / "banking_bm25_grep.env.json").read_text())["documents"]
        started = cpu()
        kb = KnowledgeBase(documents)
        index_ms = (cpu() - started) * 1000
        started = cpu()
        for number in range(args.searches):
            kb.bm25_search(QUERIES[number % len(QUERIES)])
        search_ms = (cpu() - started) * 1000 / args.searches
        started = cpu()
        for number in range(args.searches):
            kb.grep(QUERIES[number % len(QUERIES)].split()[0])
        grep_ms = (cpu() - started) * 1000 / args.searches
        env = Tau2Environment(out)
        episodes = steps = 0
        solved = 0.0
        started = cpu()
        for row in rows:
            try:
                episode = EpisodeRunner(env, GoldAgent(row), MockUser(), Limits()).run(row, 0)
            except TaskNotSent:
                continue
            solved += env.score(row, episode.trajectory, episode.termination, episode.state).reward
            episodes += 1
            steps += episode.steps
        episode_ms = (cpu() - started) * 1000 / max(episodes, 1)
    print(f"documents {len(documents)}; index {index_ms:.0f} ms; KB_search {search_ms:.2f} ms/call; "
          f"grep {grep_ms:.2f} ms/call")
    print(f"gold episodes {episodes} of {len(rows)} tasks (others: not sent, needing a tool gym lacks): "
          f"{episode_ms:.1f} ms CPU per episode, {steps / max(episodes, 1):.1f} steps each, reward {solved / max(episodes, 1):.2f}")


if __name__ == "__main__":
    main()
