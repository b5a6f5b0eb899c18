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

# TravelAPI's first entry holds this card; FLIGHT is a route it can afford
CARD = "1234-5678-9012-3456"
FLIGHT = {"travel_date": "2024-01-01", "travel_from": "SFO", "travel_to": "LAX", "travel_class": "economy"}

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
    "TwitterAPI": [("retweet", {"tweet_id": 999}), ("comment", {"tweet_id": "0", "comment_content": "x"}),
                   ("mention", {"tweet_id": 999, "mentioned_usernames": ["a"]}), ("get_tweet", {"tweet_id": 999}),
                   ("get_tweet_comments", {"tweet_id": 999}), ("search_tweets", {"keyword": 5}),
                   ("unfollow_user", {"username_to_unfollow": "nobody"}), ("get_user_stats", {"username": "nobody"}),
                   ("authenticate_twitter", {"username": "x", "password": "y"}), ("post_tweet", {"content": "x"}),
                   ("follow_user", {"username_to_follow": "x"}), ("list_all_following", {})],
    "TicketAPI": [("get_ticket", {"ticket_id": 999}), ("close_ticket", {"ticket_id": 999}),
                  ("resolve_ticket", {"ticket_id": 999, "resolution": "r"}), ("edit_ticket", {"ticket_id": 999, "updates": {}}),
                  ("ticket_login", {"username": "", "password": ""}), ("ticket_login", {"username": "u", "password": "p"}),
                  ("create_ticket", {"title": "t", "priority": 9}), ("create_ticket", {"title": "t", "priority": "high"}),
                  ("create_ticket", {"title": "t"}), ("edit_ticket", {"ticket_id": 1, "updates": {"owner": "x"}}),
                  ("edit_ticket", {"ticket_id": 1, "updates": ["title"]}), ("close_ticket", {"ticket_id": 1}),
                  ("close_ticket", {"ticket_id": 1}), ("resolve_ticket", {"ticket_id": 1, "resolution": "r"}),
                  ("resolve_ticket", {"ticket_id": 1, "resolution": "r"}), ("get_user_tickets", {"status": "closed"}),
                  ("logout", {}), ("logout", {}), ("get_user_tickets", {}), ("create_ticket", {"title": "t"})],
    "TradingBot": [("get_order_details", {"order_id": 1}), ("cancel_order", {"order_id": 1}),
                   ("cancel_order", {"order_id": 12345}), ("get_stock_info", {"symbol": "ZZZZ"}),
                   ("trading_logout", {}), ("trading_logout", {}), ("get_watchlist", {}), ("get_order_history", {}),
                   ("get_transaction_history", {}), ("get_account_info", {}), ("withdraw_funds", {"amount": 5}),
                   ("place_order", {"order_type": "Buy", "symbol": "AAPL", "price": 1, "amount": 1}),
                   ("trading_login", {"username": "a", "password": "b"}), ("trading_login", {"username": "a", "password": "b"}),
                   ("place_order", {"order_type": "Buy", "symbol": "ZZZZ", "price": 1, "amount": 1}),
                   ("place_order", {"order_type": "Buy", "symbol": "AAPL", "price": -1, "amount": 1}),
                   ("place_order", {"order_type": "Buy", "symbol": "AAPL", "price": 100000, "amount": 1000}),
                   ("place_order", {"order_type": "Buy", "symbol": "AAPL", "price": "1", "amount": 1}),
                   ("withdraw_funds", {"amount": -5}), ("fund_account", {"amount": 0}), ("fund_account", {"amount": 100}),
                   ("get_transaction_history", {"start_date": "2024/01/01"}),
                   ("remove_stock_from_watchlist", {"symbol": "ZZZZ"}), ("get_available_stocks", {"sector": "Food"}),
                   ("add_to_watchlist", {"stock": "ZZZZ"}), ("notify_price_change", {"stocks": ["AAPL", "ZZZZ"], "threshold": 0.1})],
    "TravelAPI": [("get_credit_card_balance", {"access_token": "x", "card_id": "1"}),
                  ("get_flight_cost", {"travel_from": "SFO", "travel_to": "XXX", "travel_date": "2024-01-01", "travel_class": "economy"}),
                  ("get_flight_cost", {"travel_from": "SFO", "travel_to": "LAX", "travel_date": "2024-01-01", "travel_class": "coach"}),
                  ("compute_exchange_rate", {"base_currency": "EUR", "target_currency": "JPY", "value": 1}),
                  ("compute_exchange_rate", {"base_currency": "EUR", "target_currency": "USD", "value": 100}),
                  ("verify_traveler_information", {"first_name": "A", "last_name": "B", "date_of_birth": "1990-01-01", "passport_number": "US1"}),
                  ("retrieve_invoice", {"access_token": "x"}), ("cancel_booking", {"access_token": "x", "booking_id": "1"}),
                  ("set_budget_limit", {"access_token": "x", "budget_limit": 5}),
                  ("purchase_insurance", {"access_token": "x", "insurance_type": "a", "booking_id": "1", "insurance_cost": 1, "card_id": "1"}),
                  ("contact_customer_support", {"booking_id": "none", "message": "m"}),
                  ("get_nearest_airport_by_city", {"location": "Atlantis"}),
                  ("register_credit_card", {"access_token": "x", "card_number": "1", "expiration_date": "1", "cardholder_name": "a", "card_verification_number": 1}),
                  ("book_flight", {"access_token": "x", "card_id": "1", "travel_date": "2024-01-01", "travel_from": "SFO", "travel_to": "LAX", "travel_class": "economy"}),
                  ("authenticate_travel", {"client_id": "a", "client_secret": "b", "refresh_token": "c", "grant_type": "read_write", "user_first_name": "A", "user_last_name": "B"}),
                  ("verify_traveler_information", {"first_name": "A", "last_name": "B", "date_of_birth": "2020-01-01", "passport_number": "US1"}),
                  ("verify_traveler_information", {"first_name": "A", "last_name": "B", "date_of_birth": "01/01/1990", "passport_number": "US1"}),
                  ("verify_traveler_information", {"first_name": "A", "last_name": "B", "date_of_birth": "1990-01-01", "passport_number": "UK1"}),
                  ("set_budget_limit", {"access_token": "x", "budget_limit": "abc"}), ("get_budget_fiscal_year", {}),
                  ("list_all_airports", {}), ("get_all_credit_cards", {}),
                  # 251675 is the token the authentication above draws (the entry's seeded generator), so the
                  # checks behind the token are reached too
                  *[(method, {"access_token": "251675", **arguments}) for method, arguments in (
                      ("book_flight", {"card_id": "none", **FLIGHT}),
                      ("book_flight", {"card_id": CARD, **FLIGHT, "travel_from": "XXX"}),
                      ("book_flight", {"card_id": CARD, **FLIGHT, "travel_to": "YYY"}),
                      ("book_flight", {"card_id": CARD, **FLIGHT, "travel_date": "01/01/2024"}),
                      ("book_flight", {"card_id": CARD, **FLIGHT, "travel_from": "LHR"}),
                      ("book_flight", {"card_id": CARD, **FLIGHT, "travel_to": "PEK", "travel_from": "JFK", "travel_class": "first"}),
                      ("set_budget_limit", {"budget_limit": "abc"}), ("set_budget_limit", {"budget_limit": 100000}),
                      ("book_flight", {"card_id": CARD, **FLIGHT}),
                      ("purchase_insurance", {"insurance_type": "a", "booking_id": "1", "insurance_cost": 200000, "card_id": CARD}),
                      ("set_budget_limit", {"budget_limit": 10}), ("retrieve_invoice", {"booking_id": "none"}),
                      ("cancel_booking", {"booking_id": "none"}), ("get_credit_card_balance", {"card_id": "none"}),
                      ("register_credit_card", {"card_number": CARD, "expiration_date": "1", "cardholder_name": "a", "card_verification_number": 1}),
                      ("register_credit_card", {"card_number": "4111", "expiration_date": "1", "cardholder_name": "a", "card_verification_number": 1}),
                      ("book_flight", {"card_id": CARD, **FLIGHT}), ("get_booking_history", {}),
                      ("purchase_insurance", {"insurance_type": "a", "booking_id": "none", "insurance_cost": 1, "card_id": CARD}),
                      ("purchase_insurance", {"insurance_type": "a", "booking_id": "none", "insurance_cost": 1, "card_id": "none"}))]],
    "VehicleControlAPI": [("startEngine", {"ignitionMode": "START"}), ("lockDoors", {"unlock": False, "door": ["trunk"]}),
                          ("fillFuelTank", {"fuelAmount": -1}), ("fillFuelTank", {"fuelAmount": 100}),
                          ("adjustClimateControl", {"temperature": 70, "unit": "fahrenheit", "fanSpeed": 200}),
                          ("setHeadlights", {"mode": "blink"}), ("displayCarStatus", {"option": "wheels"}),
                          ("activateParkingBrake", {"mode": "hold"}), ("pressBrakePedal", {"pedalPosition": 2}),
                          ("startEngine", {"ignitionMode": "GO"}), ("estimate_distance", {"cityA": "1", "cityB": "2"}),
                          ("get_zipcode_based_on_city", {"city": "Nowhere"}), ("get_outside_temperature_from_weather_com", {}),
                          ("adjustClimateControl", {"temperature": "hot", "unit": "fahrenheit"}),
                          ("setCruiseControl", {"speed": "fast", "activate": True, "distanceToNextVehicle": 1}),
                          ("releaseBrakePedal", {}), ("setCruiseControl", {"speed": 52, "activate": True, "distanceToNextVehicle": 30}),
                          ("get_current_speed", {}), ("get_outside_temperature_from_google", {})],
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
