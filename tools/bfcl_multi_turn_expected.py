"""Expected BFCL multi-turn API behaviour for gym's parity tests, computed by upstream's own classes.

Upstream's code is run from a scratch copy, never committed and never imported by gym:

    mkdir -p /tmp/bfcl_upstream && git --git-dir=/work/.mirror/ShishirPatil+gorilla/repo archive \
        6ea57973c7a6097fd7c5915698c54c17c5b1b6c8 berkeley-function-call-leaderboard/bfcl_eval \
        | tar -x -C /tmp/bfcl_upstream
    PYTHONPATH=/tmp/bfcl_upstream/berkeley-function-call-leaderboard .venv/bin/python \
        tools/bfcl_multi_turn_expected.py [UpstreamClass ...]

(upstream's API classes need only the standard library and mpmath, which gym's venv has; run it with the
Python gym's tests run on, since TypeError texts differ between Python versions.)

For every entry of the four multi-turn categories it plays the ground-truth calls turn by turn through
upstream's own executor (execute_multi_turn_func_call, the one its checker uses) and writes, per class,
tests/fixtures/bfcl_multi_turn_expected/<UpstreamClass>.json: the class's initial config per entry, each
gold call that reached the class (as name + keyword arguments, the way gym receives calls) with its result
text, and the class's state after every turn (configs stored once under "configs", named by their hash). Long texts are stored as their sha256. Then, per class, a few
deliberately wrong calls (unknown argument, missing argument, unknown function, the class's own failure
cases in WRONG_CALLS) are run on the first entry's final state so that error texts are pinned too.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import json
import shutil
import sys
from pathlib import Path

from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "bfcl_multi_turn_expected"
DATA = Path(multi_turn_utils.__file__).resolve().parents[2] / "data"
CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
CLASSES = ("GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI", "TradingBot", "TravelAPI",
           "VehicleControlAPI")
LONG = 160  # texts longer than this are stored as their sha256

# Failure cases per class: (method, keyword arguments), run after the first entry's gold calls.
WRONG_CALLS: dict[str, list[tuple[str, dict]]] = {
    "MathAPI": [("divide", {"a": 1, "b": 0}), ("mean", {"numbers": []}), ("standard_deviation", {"numbers": []}),
                ("square_root", {"number": -4, "precision": 5}), ("square_root", {"number": 2, "precision": 0}),
                ("square_root", {"number": 2, "precision": 12}), ("logarithm", {"value": 100, "base": 10, "precision": 8}),
                ("logarithm", {"value": -1, "base": 10, "precision": 5}), ("si_unit_conversion", {"value": 1, "unit_in": "km", "unit_out": "mi"}),
                ("si_unit_conversion", {"value": "1", "unit_in": "km", "unit_out": "m"}),
                ("imperial_si_conversion", {"value": 100, "unit_in": "celsius", "unit_out": "fahrenheit"}),
                ("imperial_si_conversion", {"value": 5, "unit_in": "kg", "unit_out": "stone"}),
                ("percentage", {"part": 1, "whole": 0}), ("min_value", {"numbers": []}), ("max_value", {"numbers": [3, "a"]}),
                ("sum_values", {"numbers": []}), ("add", {"a": "x", "b": 1}), ("multiply", {"a": "x", "b": 2}),
                ("power", {"base": 2, "exponent": "x"}), ("round_number", {"number": 2.5}),
                ("round_number", {"number": 3.14159, "decimal_places": "2"}), ("absolute_value", {"number": "x"})],
    "GorillaFileSystem": [("cd", {"folder": "no_such_dir"}), ("cat", {"file_name": "missing.txt"}),
                          ("mkdir", {"dir_name": "a/b"}), ("touch", {"file_name": "x/y.txt"}),
                          ("rm", {"file_name": "missing.txt"}), ("rmdir", {"dir_name": "missing"}),
                          ("mv", {"source": "missing.txt", "destination": "x"}),
                          ("cp", {"source": "missing.txt", "destination": "x"}), ("wc", {"file_name": "missing.txt"}),
                          ("tail", {"file_name": "missing.txt"}), ("diff", {"file_name1": "a", "file_name2": "b"}),
                          ("grep", {"file_name": "missing.txt", "pattern": "x"}), ("sort", {"file_name": "missing.txt"}),
                          ("find", {"path": "no_such_dir"}), ("cd", {"folder": "/"}), ("ls", {"a": True}),
                          ("du", {"human_readable": True}), ("pwd", {})],
    "MessageAPI": [("send_message", {"receiver_id": "USR999", "message": "hi"}), ("get_user_id", {"user": "Nobody"}),
                   ("message_login", {"user_id": "USR999"}), ("delete_message", {"receiver_id": "USR999"}),
                   ("add_contact", {"user_name": "Zed"}), ("search_messages", {"keyword": "zzzz"}),
                   ("view_messages_sent", {}), ("get_message_stats", {}), ("list_users", {})],
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def shown(text: str) -> str | dict:
    return text if len(text) <= LONG else {"sha256": sha(text)}


def plain(value, seen: frozenset = frozenset()):
    """A JSON-able copy of an upstream value: dict keys as strings, tuples and sets as lists, objects as
    their public attributes (upstream's Directory without `parent`: its __eq__ ignores it and it points back up),
    anything else JSON cannot hold as its repr()."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v, seen) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, seen) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, seen) for v in value), key=repr)
    if hasattr(value, "__dict__") and id(value) not in seen:
        skip = {"parent"} if type(value).__name__ == "Directory" else set()
        return {k: plain(v, seen | {id(value)}) for k, v in vars(value).items()
                if not k.startswith("_") and k not in skip}
    return repr(value)


def state_of(instance) -> str | dict:
    """The instance's state as upstream's checker compares it (public attributes), canonical JSON."""
    return shown(json.dumps(plain(instance), sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def method_owner(classes: list[str]) -> dict[str, str]:
    """method name -> class, the later class winning as in upstream's executor."""
    owner = {}
    for name in classes:
        cls = getattr(__import__(CLASS_FILE_PATH_MAPPING[name], fromlist=[name]), name)
        for method, _ in inspect.getmembers(cls, predicate=inspect.isfunction):
            if not method.startswith("_"):
                owner[method] = name
    return owner


def keyword_call(text: str, classes: list[str]) -> tuple[str, dict]:
    """A gold call string as (name, keyword arguments): positional arguments named by the method's signature."""
    node = ast.parse(text, mode="eval").body
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    arguments = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
    if node.args:
        owner = method_owner(classes)[name]
        cls = getattr(__import__(CLASS_FILE_PATH_MAPPING[owner], fromlist=[owner]), owner)
        params = [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]
        arguments.update({params[i]: ast.literal_eval(arg) for i, arg in enumerate(node.args)})
    return name, arguments


def call_text(name: str, arguments: dict) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def play_entry(entry: dict, gold: list[list[str]], category: str, wanted: set[str]) -> dict[str, dict]:
    """Per involved class: its initial config, and per turn the calls it received and its state after."""
    classes = entry["involved_classes"]
    owner = method_owner(classes)
    run = f"gold_{entry['id']}"
    out = {name: {"category": category, "involved_classes": classes,
                  "initial_config": entry["initial_config"].get(name, {}), "turns": []}
           for name in classes if name in wanted}
    for turn in gold:
        results, instances = execute_multi_turn_func_call(
            turn, entry["initial_config"], classes, run, entry["id"], long_context=category == "long_context")
        calls = {name: [] for name in out}
        for text, result in zip(turn, results):
            name, arguments = keyword_call(text, classes)
            if owner.get(name) in calls:
                calls[owner[name]].append({"name": name, "arguments": arguments, "result": shown(result)})
        for name in out:
            out[name]["turns"].append({"calls": calls[name], "state": state_of(instances[name])})
    return out, run, instances


def wrong_calls(name: str, entry: dict, run: str, category: str) -> list[dict]:
    """Failure cases on the entry's final state: the class's own list, then an unknown argument and a
    missing argument for every public method, then an unknown function."""
    cases = list(WRONG_CALLS.get(name, []))
    cls = getattr(__import__(CLASS_FILE_PATH_MAPPING[name], fromlist=[name]), name)
    for method, function in inspect.getmembers(cls, predicate=inspect.isfunction):
        if method.startswith("_"):
            continue
        required = [p for p in inspect.signature(function).parameters.values()
                    if p.name != "self" and p.default is inspect.Parameter.empty]
        cases.append((method, {"no_such_argument": 1}))
        if required:
            cases.append((method, {}))
    out = []
    for method, arguments in cases:
        results, instances = execute_multi_turn_func_call(
            [call_text(method, arguments)], entry["initial_config"], entry["involved_classes"], run, entry["id"],
            long_context=category == "long_context")
        out.append({"name": method, "arguments": arguments, "result": shown(results[0]),
                    "state": state_of(instances[name])})
    results, _ = execute_multi_turn_func_call(["no_such_function(x=1)"], entry["initial_config"],
                                              entry["involved_classes"], run, entry["id"])
    out.append({"name": "no_such_function", "arguments": {"x": 1}, "result": shown(results[0])})
    return out


def main(wanted: set[str]) -> None:
    expected = {name: {"configs": {}, "entries": {}, "wrong_calls": []} for name in wanted}
    for category in CATEGORIES:
        entries = load(DATA / f"BFCL_v4_multi_turn_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in load(DATA / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json")}
        for entry in entries:
            played, run, _ = play_entry(entry, answers[entry["id"]], category, wanted)
            for name, record in played.items():
                # the four categories mostly share configs: each is stored once, named by its hash
                config = json.dumps(record["initial_config"], sort_keys=True, ensure_ascii=False)
                expected[name]["configs"][sha(config)[:16]] = record["initial_config"]
                record["initial_config"] = sha(config)[:16]
                expected[name]["entries"][entry["id"]] = record
                if not expected[name]["wrong_calls"] and category == "base":
                    expected[name]["wrong_calls"] = wrong_calls(name, entry, run, category)
                    expected[name]["wrong_calls_after"] = entry["id"]
    OUT.mkdir(parents=True, exist_ok=True)
    # the configs are upstream's data: its licence goes beside them
    shutil.copyfile(ROOT / "tests" / "fixtures" / "upstream" / "raw.githubusercontent.com" / "ShishirPatil" / "gorilla"
                    / "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8" / "LICENSE", OUT / "LICENSE")
    for name, record in expected.items():
        record["stateless"] = name in STATELESS_CLASSES
        record["commit"] = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
        path = OUT / f"{name}.json"
        # keys keep their order: a config's order is the tree's (its first root entry is the root)
        path.write_text(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n",
                        encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(record['entries'])} entries, {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    chosen = set(sys.argv[1:]) or set(CLASSES)
    unknown = chosen - set(CLASSES)
    if unknown:
        sys.exit(f"unknown class(es) {sorted(unknown)}; choose from {', '.join(CLASSES)}")
    main(chosen)
