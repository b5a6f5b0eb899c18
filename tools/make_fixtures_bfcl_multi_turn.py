"""Rebuild the BFCL multi-turn fixtures: real entries of BFCL v4's four multi-turn categories (Apache-2.0,
ShishirPatil/gorilla at COMMIT, the LICENSE beside them), the classes' function docs and long_context.py,
in the upstream layout under tests/fixtures/upstream/raw.githubusercontent.com/...

    .venv/bin/python tools/make_fixtures_bfcl_multi_turn.py <gorilla git dir>

Which entries: a few per category (base_1 and miss_func_1, miss_param_3 and long_context_3 open alike, so
the reference server has to tell them apart; base_0 involves TwitterAPI, which the prepare test removes
from the registry to see such entries left out). Rows are copied unchanged; reproducible byte for byte.
"""

from __future__ import annotations

import json
import sys

from tests.fixtures.make_fixtures_bfcl import DATA, ROOT, show

ENTRIES = {"base": [0, 1, 14, 15], "miss_func": [1, 14], "miss_param": [3, 15], "long_context": [3, 17]}
DOCS = ("gorilla_file_system", "math_api", "message_api", "posting_api", "ticket_api", "trading_bot",
        "travel_booking", "vehicle_control")
LONG_CONTEXT = "berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py"


def write(path: str, text: str) -> None:
    target = ROOT / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def main(git_dir: str) -> None:
    write("LICENSE", show(git_dir, "LICENSE"))
    write(LONG_CONTEXT, show(git_dir, LONG_CONTEXT))
    for name in DOCS:
        write(f"{DATA}/multi_turn_func_doc/{name}.json", show(git_dir, f"{DATA}/multi_turn_func_doc/{name}.json"))
    for category, numbers in ENTRIES.items():
        name = f"BFCL_v4_multi_turn_{category}.json"
        wanted = {f"multi_turn_{category}_{number}" for number in numbers}
        for folder in ("", "possible_answer/"):
            lines = [line for line in show(git_dir, f"{DATA}/{folder}{name}").splitlines()
                     if line.strip() and json.loads(line)["id"] in wanted]
            assert len(lines) == len(wanted), (category, folder)
            write(f"{DATA}/{folder}{name}", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/ShishirPatil+gorilla/repo")
