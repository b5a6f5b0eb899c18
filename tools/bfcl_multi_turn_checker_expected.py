"""Expected verdicts of BFCL's multi-turn checker for gym's checker parity test, computed by upstream's code.

Run as tools/bfcl_multi_turn_expected.py (same scratch copy of upstream, same PYTHONPATH):

    PYTHONPATH=/tmp/bfcl_upstream/berkeley-function-call-leaderboard .venv/bin/python \
        tools/bfcl_multi_turn_checker_expected.py

For every tenth entry of each of the four categories it builds model results from the entry's gold calls
(the gold itself, one call per step, the last call of the first turn with calls dropped, that call made
twice, a turn's calls made one turn early, no calls at all) and records what upstream's multi_turn_checker
says of each: valid, error type and the turn it names. Written to
tests/fixtures/bfcl_multi_turn_expected/checker.json with each entry's classes, initial config (stored once
per hash) and gold calls as name + keyword arguments.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bfcl_multi_turn_expected import CATEGORIES, DATA, OUT, call_text, keyword_call, load  # noqa: E402

EVERY = 10  # entries 0, 10, 20, ... of each category


def variants(gold: list[list[str]]) -> dict[str, list[list[list[str]]]]:
    """Model results (per turn, per step, call strings) derived from the gold calls."""
    first = next((i for i, turn in enumerate(gold) if turn), None)
    out = {"gold": [[turn] if turn else [] for turn in gold],
           "one_call_per_step": [[[call] for call in turn] for turn in gold],
           "no_calls": [[] for _ in gold]}
    if first is None:
        return out
    out["last_call_dropped"] = [[turn[:-1]] if i == first and turn[:-1] else ([] if i == first else ([turn] if turn else []))
                                for i, turn in enumerate(gold)]
    out["last_call_twice"] = [[turn + turn[-1:]] if i == first else ([turn] if turn else []) for i, turn in enumerate(gold)]
    later = next((i for i in range(first + 1, len(gold)) if gold[i]), None)
    if later is not None:  # the later turn's calls made together with the first turn's, and not in their own turn
        out["calls_one_turn_early"] = [[gold[first] + gold[later]] if i == first else ([] if i == later else ([turn] if turn else []))
                                       for i, turn in enumerate(gold)]
    return out


def verdict(result: dict) -> dict:
    """valid, error type and the failing turn: named in the message, or (a state mismatch, whose message
    names none) the last turn of the execution results upstream attaches."""
    named = re.search(r"for turn (\d+)", result.get("error_message", ""))
    turn = int(named.group(1)) if named else None
    if turn is None and "execution_result" in result:
        turn = len(result["execution_result"]) - 1
    return {"valid": result["valid"], "error_type": result.get("error_type"), "turn": turn}


def main() -> None:
    configs, entries = {}, {}
    for category in CATEGORIES:
        questions = load(DATA / f"BFCL_v4_multi_turn_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in load(DATA / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json")}
        for entry in questions[::EVERY]:
            gold, classes = answers[entry["id"]], entry["involved_classes"]
            cases = {}
            for name, model in variants(gold).items():
                result = multi_turn_checker(model, gold, entry, category, f"parity_{name}")
                cases[name] = {"model": [[[list(keyword_call(call, classes)) for call in step] for step in turn]
                                         for turn in model], **verdict(result)}
            config = json.dumps(entry["initial_config"], ensure_ascii=False)
            key = hashlib.sha256(config.encode()).hexdigest()[:16]
            configs[key] = entry["initial_config"]
            entries[entry["id"]] = {"category": category, "involved_classes": classes, "initial_config": key,
                                    "gold": [[list(keyword_call(call, classes)) for call in turn] for turn in gold],
                                    "cases": cases}
    # every recorded call reads back as the same call text upstream ran (the keyword form is faithful)
    assert all(call_text(*call) for e in entries.values() for turn in e["gold"] for call in turn)
    path = OUT / "checker.json"
    path.write_text(json.dumps({"commit": "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8", "configs": configs,
                                "entries": entries}, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(entries)} entries, {sum(len(e['cases']) for e in entries.values())} cases, "
          f"{path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
