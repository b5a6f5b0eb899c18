"""Builds the τ²-bench fixtures under tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/
<commit>/ from a git mirror of the upstream repository. Data files are as they are at the pinned commit (MIT;
retail's 2.8 MB database is cut down to the users and orders its test-split tasks touch, every product kept,
the records unchanged and in upstream order; its tasks file to that split). Telecom's tasks.json (13 MB) is
not in the mirror: tools/tau2_telecom_generated.py rebuilds it byte for byte with upstream's own task
generator (pass the rebuilt file as the third argument); the fixture keeps its 20 `small` tasks (those of
upstream's tasks_small.json) and the few `test` tasks of TELECOM_TEST, in the file's order, with
split_tasks.json cut down to those ids. Upstream's source files are not
copied: prepare reads a few facts from them (tool names, parameters and their types, the Literal aliases
that type them, the first agent message, where the prompts take their fields), so each fixture source is a
skeleton in upstream's layout holding those facts, with gym's own docstrings and prompt texts.

    python tools/make_fixtures_tau2.py <bare git mirror of sierra-research/tau2-bench> \\
        <bare git mirror of sierra-research/tau-bench> <telecom tasks.json rebuilt by tools/tau2_telecom_generated.py>

Then recompute the expected scores with upstream's code (tools/tau2_expected.py, TAU2_DATA_DIR=<fixture>/data).

Airline's 7 MB database is a blob the tau2-bench mirror lacks (files over 4 MiB are left out), so it is
rebuilt from τ-bench's airline data it was made from (sierra-research/tau-bench, MIT; pass that mirror
as the second argument): flights, users and reservations in that order, dumped with indent=4, each
record's keys in tau2's order (a flight's origin and destination before its number, a user's id
first, a payment method's source and id first, balances as floats), plus tau2's two edits (flight
HAT018 delayed on 2024-05-11; reservation Z7GOZK a round trip to IAH). The result is byte-identical to
tau2's file: its git blob id equals the one the pinned commit's tree records (c6a1e817...), which the
builder checks before writing anything. (How the recipe was found: a fork's copy of tau2's file
(jdf-prog/frozen-tau2-bench, 7,042,714 characters; a later version carrying commit 7c1c685's K1NW8N and
OWZ4XL cabin changes) was read in 28 chunks of 16,000 characters across flights, users and reservations,
locating every place it departs from τ-bench's data; with those two later changes applied too, this build
has that length and hashes to 7c1c685's blob id a1ed5cae..., and without them to the pinned c6a1e817....)
The fixture keeps the users, reservations and flights the test-split tasks touch, with every flight on
each route they search.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

from gym.episodes.tau2.prepare import COMMIT

ROOT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "upstream" / "raw.githubusercontent.com" / "sierra-research" / "tau2-bench" / COMMIT
COMMON = ["LICENSE", "data/tau2/user_simulator/simulation_guidelines.md",
          "data/tau2/user_simulator/simulation_guidelines_tools.md"]
DOMAIN_FILES = {
    "mock": ["data/tau2/domains/mock/" + f for f in ("db.json", "user_db.json", "policy.md", "policy_solo.md",
                                                     "tasks.json", "split_tasks.json")],
    "retail": ["data/tau2/domains/retail/policy.md"],
    "airline": ["data/tau2/domains/airline/policy.md"],
    "telecom": ["data/tau2/domains/telecom/" + f for f in ("db.toml", "user_db.toml", "main_policy.md",
                                                           "main_policy_solo.md", "tech_support_manual.md",
                                                           "tech_support_workflow.md", "tech_support_workflow_solo.md")],
}
TOOL_MODULES = {"src/tau2/domains/mock/tools.py": "MockTools", "src/tau2/domains/mock/user_tools.py": "MockUserTools",
                "src/tau2/domains/retail/tools.py": "RetailTools", "src/tau2/domains/airline/tools.py": "AirlineTools",
                "src/tau2/domains/telecom/tools.py": "TelecomTools",
                "src/tau2/domains/telecom/user_tools.py": "TelecomUserTools"}
ALIAS_MODULES = ["src/tau2/domains/mock/data_model.py", "src/tau2/domains/mock/user_data_model.py",
                 "src/tau2/domains/retail/data_model.py", "src/tau2/domains/airline/data_model.py",
                 "src/tau2/domains/telecom/data_model.py",
                 "src/tau2/domains/telecom/user_data_model.py"]
AIRLINE_DB = "data/tau2/domains/airline/db.json"
# A few of telecom's `test` tasks (its default split), one of each intent plus a transfer to a human agent:
# a VPN, an overdue bill paid by the agent, a locked SIM, MMS with data used up abroad.
TELECOM_TEST = [
    "[mobile_data_issue]bad_network_preference|bad_vpn|user_abroad_roaming_disabled_off[PERSONA:Hard]",
    "[service_issue]airplane_mode_on|lock_sim_card_pin[PERSONA:Easy]",
    "[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]",
    "[mms_issue]airplane_mode_on|break_app_both_permissions|data_usage_exceeded|user_abroad_roaming_disabled_off[PERSONA:None]",
]
TAU_BENCH_AIRLINE = "tau_bench/envs/airline/data/"
TAU_BENCH_FILES = {  # τ-bench's blobs tau2's airline database was made from (users: the version with 'state')
    "flights": "ecfc0351cb211cf2601317f14c6dd105ee163a30", "users": "3c611cebf115a65ffecaf8c7f362e007b4739228",
    "reservations": "d3e77598bf90486a2805a19332996ec9713295b5"}
HEADER = ("# Test fixture in the layout of tau2-bench's {path} (MIT): only what gym's prepare reads from it,\n"
          "# written for gym's tests; prepare reads the real file of the pinned commit.\n")
PROMPT_MODULES = {  # gym's own texts, with the fields and keys upstream's templates and judge use
    "src/tau2/agent/llm_agent.py": '''
AGENT_INSTRUCTION = """
You are an agent serving the user under the policy below. Each turn, either write to the user or call a
tool, never both. Follow the policy.
""".strip()

SYSTEM_PROMPT = """
<instructions>
{agent_instruction}
</instructions>
<policy>
{domain_policy}
</policy>
""".strip()

AGENT_SOLO_INSTRUCTION = """
You are an agent working a ticket under the policy below, with no one to talk to: only call tools.
When the ticket is solved, send one message holding a single call to `{stop_function_name}` and nothing else
(it stands for {stop_token}).
""".strip()

SYSTEM_PROMPT_SOLO = """
<instructions>
{agent_instruction}
</instructions>
<policy>
{domain_policy}
</policy>
<ticket>
{ticket}
</ticket>
""".strip()
''',
    "src/tau2/orchestrator/orchestrator.py": '''
DEFAULT_FIRST_AGENT_MESSAGE = AssistantMessage(role="assistant", content="Hi! How can I help you today?", cost=0.0)
''',
    "src/tau2/user/user_simulator.py": '''
SYSTEM_PROMPT = """
{global_user_sim_guidelines_with_persona}

<scenario>
{instructions}
</scenario>
""".strip()
''',
    "src/tau2/evaluator/evaluator_nl_assertions.py": '''

class NLAssertionsEvaluator:
    @classmethod
    def evaluate_nl_assertions(cls, trajectory, nl_assertions):
        trajectory_str = "\\n".join(f"{message.role}: {message.content}" for message in trajectory)
        system_prompt = """
        Grade a conversation between an agent and a customer against a list of expected outcomes, one by one.
        Answer with a JSON object {"results": [{"expectedOutcome": <the outcome>, "reasoning": <why>,
        "metExpectation": <true or false>}]}.
        """

        user_prompt = f"""
        conversation:
        {trajectory_str}

        expectedOutcomes:
        {nl_assertions}
        """
        return system_prompt, user_prompt
''',
}


def show(mirror: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True).stdout


def write(path: str, data: bytes) -> None:
    target = ROOT / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def tools_skeleton(source: bytes, path: str, class_name: str) -> str:
    """The `@is_tool` methods of an upstream tools module: decorator, signature, a docstring of gym's own."""
    out = [HEADER.format(path=path.removeprefix("src/tau2/")), "", f"class {class_name}:"]
    for node in ast.walk(ast.parse(source)):
        marks = [d for d in getattr(node, "decorator_list", ()) if isinstance(d, ast.Call)
                 and ast.unparse(d.func) == "is_tool"]
        if not isinstance(node, ast.FunctionDef) or not marks:
            continue
        params = node.args.args[1:]
        defaults = [None] * (len(params) - len(node.args.defaults)) + list(node.args.defaults)
        signature = ["self"] + [p.arg + (f": {ast.unparse(p.annotation)}" if p.annotation is not None else "")
                                + (f" = {ast.unparse(d)}" if d is not None else "") for p, d in zip(params, defaults)]
        returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
        out += [f"    @{ast.unparse(marks[0])}", f"    def {node.name}({', '.join(signature)}){returns}:",
                f'        """{node.name.replace("_", " ").capitalize()}.']
        if params:
            out += ["", "        Args:"] + [f"            {p.arg}: The {p.arg.replace('_', ' ')}." for p in params]
        out += ['        """', "        ...", ""]
    return "\n".join(out).rstrip() + "\n"


def aliases_skeleton(source: bytes, path: str) -> str:
    """The `Name = Literal[...]` aliases of an upstream data-model module, its Enum classes (members and
    values) and its record classes (field names and types only)."""
    out = [HEADER.format(path=path.removeprefix("src/tau2/")), "from typing import Literal", ""]
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) and ast.unparse(node.value.value) == "Literal":
            out.append(ast.unparse(node))
        elif isinstance(node, ast.ClassDef):
            body = [ast.unparse(item) for item in node.body if isinstance(item, ast.Assign)
                    and isinstance(item.value, ast.Constant)]
            body += [f"{item.target.id}: {ast.unparse(item.annotation)}" for item in node.body
                     if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)]
            if body:
                bases = ", ".join(ast.unparse(base) for base in node.bases)
                out += ["", f"class {node.name}({bases}):", *("    " + line for line in body)]
    return "\n".join(out) + "\n"


def retail_users(db: dict, task: dict) -> set[str]:
    """The users a task's gold actions look up or touch (by name and zip, email, user or order id)."""
    found = set()
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        args = action["arguments"]
        if action["name"] == "find_user_id_by_name_zip":
            found |= {uid for uid, u in db["users"].items()
                      if u["name"]["first_name"].lower() == args["first_name"].lower()
                      and u["name"]["last_name"].lower() == args["last_name"].lower() and u["address"]["zip"] == args["zip"]}
        if action["name"] == "find_user_id_by_email":
            found |= {uid for uid, u in db["users"].items() if u["email"].lower() == args["email"].lower()}
        if "user_id" in args:
            found.add(args["user_id"])
        if args.get("order_id") in db["orders"]:
            found.add(db["orders"][args["order_id"]]["user_id"])
    return found


def trimmed_retail(mirror: str, split: str = "test") -> None:
    db = json.loads(show(mirror, "data/tau2/domains/retail/db.json"))
    tasks = json.loads(show(mirror, "data/tau2/domains/retail/tasks.json"))
    splits = json.loads(show(mirror, "data/tau2/domains/retail/split_tasks.json"))
    kept_tasks = [t for t in tasks if t["id"] in set(splits[split])]
    users = set().union(*(retail_users(db, t) for t in kept_tasks))
    orders = {o for uid in users for o in db["users"][uid]["orders"]}
    small = {"products": db["products"], "users": {k: v for k, v in db["users"].items() if k in users},
             "orders": {k: v for k, v in db["orders"].items() if k in orders}}
    write("data/tau2/domains/retail/db.json", json.dumps(small).encode())
    write("data/tau2/domains/retail/tasks.json", json.dumps(kept_tasks).encode())
    write("data/tau2/domains/retail/split_tasks.json", json.dumps({split: splits[split], "base": splits[split]}, indent=2).encode())


def small_telecom(mirror: str, rebuilt_tasks: str) -> None:
    small = {t["id"] for t in json.loads(show(mirror, "data/tau2/domains/telecom/tasks_small.json"))}
    splits = json.loads(show(mirror, "data/tau2/domains/telecom/split_tasks.json"))
    assert set(TELECOM_TEST) <= set(splits["test"])
    ids = small | set(TELECOM_TEST)
    tasks = [t for t in json.loads(Path(rebuilt_tasks).read_text()) if t["id"] in ids]
    kept = {name: [i for i in members if i in ids] for name, members in splits.items()}
    write("data/tau2/domains/telecom/tasks.json", json.dumps(tasks).encode())
    write("data/tau2/domains/telecom/split_tasks.json", json.dumps(kept, indent=2).encode())


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def airline_db(mirror: str, tau_mirror: str) -> bytes:
    """tau2's airline db.json rebuilt from τ-bench's data, checked against the pinned tree's blob id."""
    parts = {name: json.loads(subprocess.run(["git", "--git-dir", tau_mirror, "cat-file", "blob", blob], check=True,
                                             capture_output=True).stdout) for name, blob in TAU_BENCH_FILES.items()}
    flights = {number: {"origin": f["origin"], "destination": f["destination"],
                        **{k: v for k, v in f.items() if k not in ("origin", "destination")}}
               for number, f in parts["flights"].items()}
    flights["HAT018"]["dates"]["2024-05-11"] = {"status": "delayed",
                                                "estimated_departure_time_est": "2024-05-11T16:30:00",
                                                "estimated_arrival_time_est": "2024-05-11T19:05:00"}
    method_keys = {"credit_card": ("source", "id", "brand", "last_four"), "gift_card": ("source", "id", "amount"),
                   "certificate": ("source", "id", "amount")}
    users = {}
    for user_id, user in parts["users"].items():
        methods = {key: {k: float(m[k]) if k == "amount" else m[k] for k in method_keys[m["source"]]}
                   for key, m in user["payment_methods"].items()}
        users[user_id] = {"user_id": user_id, **{k: methods if k == "payment_methods" else v for k, v in user.items()}}
    reservations = parts["reservations"]
    reservations["Z7GOZK"].update(destination="IAH", flight_type="round_trip")
    data = json.dumps({"flights": flights, "users": users, "reservations": reservations}, indent=4).encode()
    listed = subprocess.run(["git", "--git-dir", mirror, "ls-tree", COMMIT, AIRLINE_DB], check=True,
                            capture_output=True, text=True).stdout.split()
    if len(listed) < 3 or listed[2] != _git_blob_id(data):
        sys.exit(f"the rebuilt airline db.json ({_git_blob_id(data)}) is not tau2's ({listed[2:3]}): not writing fixtures")
    return data


def airline_touched(db: dict, tasks: list) -> tuple[set, set, set]:
    """(users, reservations, flights) the tasks' gold actions read or change: the users named or owning a
    named reservation with all their reservations, the flights booked and every flight on a searched route
    (a reservation's own flights are kept only when named: changing flights looks up the new ones only)."""
    users, reservations, flights, routes = set(), set(), set(), set()
    for task in tasks:
        for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
            args = action["arguments"]
            users.update([args["user_id"]] if "user_id" in args else [])
            if args.get("reservation_id") in db["reservations"]:
                reservations.add(args["reservation_id"])
            flights.update(f["flight_number"] for f in args.get("flights") or [] if isinstance(f, dict))
            if action["name"] in ("search_direct_flight", "search_onestop_flight"):
                routes.add((args["origin"], args["destination"]))
    users |= {db["reservations"][r]["user_id"] for r in reservations}
    reservations |= {r for u in users for r in db["users"][u]["reservations"] if r in db["reservations"]}
    flights |= {n for n, f in db["flights"].items() if (f["origin"], f["destination"]) in routes}
    return users, reservations, flights


def trimmed_airline(mirror: str, tau_mirror: str, split: str = "test") -> None:
    db = json.loads(airline_db(mirror, tau_mirror))
    tasks = json.loads(show(mirror, "data/tau2/domains/airline/tasks.json"))
    splits = json.loads(show(mirror, "data/tau2/domains/airline/split_tasks.json"))
    kept_tasks = [t for t in tasks if t["id"] in set(splits[split])]
    users, reservations, flights = airline_touched(db, kept_tasks)
    small = {"flights": {k: v for k, v in db["flights"].items() if k in flights},
             "users": {k: v for k, v in db["users"].items() if k in users},
             "reservations": {k: v for k, v in db["reservations"].items() if k in reservations}}
    write(AIRLINE_DB, json.dumps(small).encode())
    write("data/tau2/domains/airline/tasks.json", json.dumps(kept_tasks).encode())
    write("data/tau2/domains/airline/split_tasks.json", json.dumps({split: splits[split], "base": splits[split]}, indent=2).encode())


def main(mirror: str, tau_mirror: str, telecom_tasks: str) -> None:
    for path in COMMON + [p for files in DOMAIN_FILES.values() for p in files]:
        write(path, show(mirror, path))
    for path, class_name in TOOL_MODULES.items():
        write(path, tools_skeleton(show(mirror, path), path, class_name).encode())
    for path in ALIAS_MODULES:
        write(path, aliases_skeleton(show(mirror, path), path).encode())
    for path, text in PROMPT_MODULES.items():
        write(path, (HEADER.format(path=path.removeprefix("src/tau2/")) + text).encode())
    trimmed_retail(mirror)
    small_telecom(mirror, telecom_tasks)
    trimmed_airline(mirror, tau_mirror)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: make_fixtures_tau2.py <tau2-bench git mirror> <tau-bench git mirror> <rebuilt telecom tasks.json>")
    main(*sys.argv[1:4])
