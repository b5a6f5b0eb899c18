"""Expected τ² banking_knowledge scores for gym's parity tests, computed by upstream's own evaluator.

Run with a checkout of sierra-research/tau2-bench at gym.episodes.tau2.prepare.COMMIT on the path (its
`src/`) and its dependencies from PyPI in a scratch venv (pydantic loguru docstring-parser deepdiff addict
pyyaml toml python-dotenv typer requests numpy httpx rich tabulate pandas psutil tenacity rank-bm25
"litellm>=1.80.15,<1.82.7"; its code imports on Python 3.11 too), and the fixture's data dir, e.g.
    TAU2_DATA_DIR=tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \\
    PYTHONPATH=<checkout>/src python tools/tau2_banking_expected.py > tests/fixtures/tau2_expected/banking_knowledge.json
For every fixture task (data/.../banking_knowledge/tasks.json) it builds episodes in the shape gym records
(the opening message, the user's request, the gold actions run on upstream's live environment in the
bm25_grep retrieval form with the task's read-log allowlist, a closing message, the user's stop) plus
variants that must fail (a missing agent write, a missing user write, an extra write) and `reads` and
`probes` cases: the gold calls with calls around them that exercise the discoverable-tool rules (unknown names,
a call before its unlock, bad JSON, a read outside the allowlist, a user tool not given, duplicates).
It records upstream's reward, breakdown, database hashes and the sha256 of every tool output, and
`retrieval`: upstream's BM25 and grep rankings of the fixture's documents for a few queries. Upstream's
read-only knowledge base and indexes are built once per process (`--fresh-retrieval`: per environment, as
upstream does; the same values, an hour instead of minutes on the whole domain).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task
from tau2.domains.banking_knowledge.environment import get_environment
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.runner.build import _derive_read_log_allowlist

DOMAIN = "banking_knowledge"
VARIANT = "bm25_grep"
FIRST = "Hi! How can I help you today?"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def kwargs(task: Task) -> dict:
    return {"retrieval_variant": VARIANT, "read_log_allowlist": _derive_read_log_allowlist(task)}


def environment(task: Task):
    env = get_environment(**kwargs(task))
    initial = task.initial_state
    env.set_state(initial.initialization_data if initial else None,
                  initial.initialization_actions if initial else None, [])
    return env


def episode(task: Task, calls: list) -> dict:
    env = environment(task)
    messages = [AssistantMessage(role="assistant", content=FIRST),
                UserMessage(role="user", content="I need help with my request.")]
    outputs = []
    for number, (name, arguments, requestor) in enumerate(calls):
        call = ToolCall(id=f"gold-{number}", name=name, arguments=arguments, requestor=requestor)
        cls = AssistantMessage if requestor == "assistant" else UserMessage
        messages.append(cls(role=requestor, content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
        outputs.append(sha(messages[-1].content))
    messages.append(AssistantMessage(role="assistant", content="All done."))
    messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
    played = {"calls": [list(c) for c in calls], "tool_output_sha256": outputs}
    sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.USER_STOP, messages=messages)
    try:
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False, domain=DOMAIN,
                                   env_kwargs=kwargs(task))
    except Exception as exc:
        return {**played, "upstream_error": f"{exc.__class__.__name__}: {exc}"}
    return {**played, "reward": info.reward,
            "breakdown": {str(k.value): v for k, v in (info.reward_breakdown or {}).items()},
            "db_hash": env.get_db_hash(), "user_db_hash": env.get_user_db_hash()}


def probe_calls(task: Task, gold: list) -> tuple[list, list]:
    """(reads: calls before the gold that change no table, probes: those, the gold, then writes after it):
    the discoverable-tool rules and the other tools' error paths."""
    user = next(iter(environment(task).tools.db.users.data))
    before = [
        ("call_discoverable_agent_tool", {"agent_tool_name": "get_all_user_accounts_by_user_id_3847",
                                          "arguments": json.dumps({"user_id": user})}, "assistant"),
        ("unlock_discoverable_agent_tool", {"agent_tool_name": "no_such_tool_0000"}, "assistant"),
        ("unlock_discoverable_agent_tool", {"agent_tool_name": "get_all_user_accounts_by_user_id_3847"}, "assistant"),
        ("call_discoverable_agent_tool", {"agent_tool_name": "get_all_user_accounts_by_user_id_3847",
                                          "arguments": "{not json"}, "assistant"),
        ("call_discoverable_agent_tool", {"agent_tool_name": "get_all_user_accounts_by_user_id_3847",
                                          "arguments": json.dumps({"user_id": user})}, "assistant"),
        ("call_discoverable_user_tool", {"discoverable_tool_name": "get_card_last_4_digits",
                                         "arguments": json.dumps({"credit_card_account_id": "cc_x"})}, "user"),
        ("give_discoverable_user_tool", {"discoverable_tool_name": "no_such_tool", "arguments": "{}"}, "assistant"),
        ("give_discoverable_user_tool", {"discoverable_tool_name": "get_card_last_4_digits",
                                         "arguments": json.dumps({"bogus": 1})}, "assistant"),
        ("get_user_information_by_id", {"user_id": user}, "assistant"),
        ("get_credit_card_accounts_by_user", {"user_id": user}, "assistant"),
        ("get_current_time", {}, "assistant"),
        ("list_discoverable_agent_tools", {}, "assistant"),
        ("list_discoverable_user_tools", {}, "user"),
        ("transfer_to_human_agents", {"summary": "x", "reason": "not_a_reason"}, "assistant"),
    ]
    after = [
        ("request_human_agent_transfer", {}, "user"), ("request_human_agent_transfer", {}, "user"),
        ("submit_transaction", {"user_id": user, "credit_card_type": "Silver Rewards Card", "merchant_name": "Shop",
                                "amount": 127.43, "category": "Travel"}, "user"),
        ("apply_for_credit_card", {"card_type": "Iron Card", "customer_name": "X", "annual_income": 1}, "user"),
        ("submit_referral", {"user_id": user, "account_type": "Gold Rewards Card"}, "user"),
        ("submit_referral", {"user_id": user, "account_type": "Gold Rewards Card"}, "user"),
        ("change_user_email", {"user_id": "nobody", "new_email": "a@b.c"}, "assistant"),
        ("list_discoverable_agent_tools", {}, "assistant"),
    ]
    return before + gold, before + gold + after


def cases(task: Task) -> dict:
    criteria = task.evaluation_criteria
    gold = [(a.name, a.arguments, a.requestor) for a in (criteria.actions or [])]
    env = environment(task)
    out = {"gold": episode(task, gold)}
    agent_writes = [i for i, a in enumerate(gold) if a[2] == "assistant" and env.tools.has_tool(a[0])
                    and env.tools.tool_mutates_state(a[0])]
    if agent_writes:
        out["missing_write"] = episode(task, gold[:agent_writes[-1]] + gold[agent_writes[-1] + 1:])
    user_writes = [i for i, a in enumerate(gold) if a[2] == "user" and env.user_tools.tool_mutates_state(a[0])]
    if user_writes:
        out["missing_user_write"] = episode(task, gold[:user_writes[-1]] + gold[user_writes[-1] + 1:])
    extra = ("log_verification", {"name": "Extra", "user_id": "extra_user", "address": "", "email": "",
                                  "phone_number": "", "date_of_birth": "", "time_verified": "2025-11-14 03:40:00 EST"},
             "assistant")
    out["extra_write"] = episode(task, gold + [extra])
    reads, probes = probe_calls(task, gold)
    out["reads"] = episode(task, reads)
    out["probes"] = episode(task, probes)
    return out


QUERIES = ["gold rewards card annual fee", "dispute a transaction", "How do I open a savings account?",
           "referral bonus", "transfer_to_human_agents reason", "Rho-Bank+ subscription", "", "zzzz"]
PATTERNS = ["annual fee", "credit.*card", "unlock_discoverable_agent_tool", "Rewards Card (", "zzzz", "fee|charge"]


def retrieval() -> dict:
    """Upstream's bm25 and grep pipelines (the bm25_grep form's KB_search and grep) on a few queries:
    (document id, score) in rank order."""
    from tau2.domains.banking_knowledge.environment import get_knowledge_base
    from tau2.domains.banking_knowledge.retrieval import (create_bm25_retrieval_pipeline,
                                                          create_grep_retrieval_pipeline)

    kb = get_knowledge_base()
    bm25, grep = create_bm25_retrieval_pipeline(kb), create_grep_retrieval_pipeline(kb)
    return {"bm25": {q: [[d, s] for d, s in bm25.retrieve(q)] for q in QUERIES},
            "grep": {p: [[d, s] for d, s in grep.retrieve(p)] for p in PATTERNS}}


def build_retrieval_once() -> None:
    """Upstream builds the knowledge base and its BM25 and grep indexes for every environment (seconds each
    on the whole domain, some 3,000 times here); they are read-only, so build each once per process."""
    import functools

    import tau2.domains.banking_knowledge.environment as environment
    import tau2.domains.banking_knowledge.retrieval as retrieval

    environment.get_knowledge_base = functools.lru_cache(None)(environment.get_knowledge_base)
    for name in ("_create_kb_pipeline", "_create_grep_pipeline"):
        built: dict = {}

        def once(spec, knowledge_base, _build=getattr(retrieval, name), _built=built):
            if repr(spec) not in _built:
                _built[repr(spec)] = _build(spec, knowledge_base)
            return _built[repr(spec)]
        setattr(retrieval, name, once)


def main() -> None:
    if "--fresh-retrieval" not in sys.argv:
        build_retrieval_once()
    path = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains" / DOMAIN / "tasks.json"
    tasks = [Task.model_validate(t) for t in json.loads(path.read_text())]
    result = {task.id: cases(task) for task in tasks}
    json.dump({"domain": DOMAIN, "variant": VARIANT, "tasks": result, "retrieval": retrieval()}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
