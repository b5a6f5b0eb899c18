"""τ²-bench's `banking_knowledge` domain: a bank's customer service over a transactional database, with
the policy and most procedures in a knowledge base of ~700 documents the agent searches.

Behaviour follows upstream's src/tau2/domains/banking_knowledge (tools.py, db_query.py, utils.py). Both
sides share one database (upstream gives the user toolkit the agent's), so both hashes cover it.
Procedures the knowledge base names are *discoverable* tools: the agent unlocks one and calls it through
`call_discoverable_agent_tool`, or gives a user one (`give_discoverable_user_tool`) that the user calls
through `call_discoverable_user_tool`. Their descriptions come from upstream's docstrings (prepare puts
them in the domain file as `discoverable`); the ones gym implements are in AGENT_DISCOVERABLE and
USER_DISCOVERABLE, and a task whose gold actions need another is not sent (gym.episodes.tau2.env).
The retrieval tools (KB_search, grep, ...) are gym.episodes.tau2.banking.kb's.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from gym.episodes.tau2.banking.accounts import ACCOUNT_TOOLS
from gym.episodes.tau2.banking.activation import ACTIVATION_TOOLS
from gym.episodes.tau2.banking.cards import CARD_TOOLS
from gym.episodes.tau2.banking.credit import CREDIT_TOOLS
from gym.episodes.tau2.banking.db import BankDB, add, by_field, deterministic_id, one_argument, query_text, update
from gym.episodes.tau2.banking.disputes import DISPUTE_TOOLS
from gym.episodes.tau2.banking.limits import LIMIT_TOOLS
from gym.episodes.tau2.banking.order import ORDER_TOOLS
from gym.episodes.tau2.banking.pins import PIN_TOOLS
from gym.episodes.tau2.domain import Tool

TRANSFER_REASONS = (
    "fraud_or_security_concern", "account_closure_request", "deceased_account_holder", "legal_or_regulatory_matter",
    "account_ownership_dispute", "complex_billing_dispute", "abusive_customer_behavior", "third_party_inquiry",
    "technical_system_error", "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal", "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required", "accessibility_or_special_needs", "customer_frustrated_demands_human",
    "supervisor_request_service_complaint", "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup", "other")


def _executed(name: str, args: dict | None) -> str:
    shown = json.dumps(args, indent=2) if args is not None else "(no arguments)"
    return f"Executed: {name}\nArguments: {shown}"


# -- the agent's tools ------------------------------------------------------------------------------------
def transfer_to_human_agents(db: dict, summary: str, reason: str = "other") -> str:
    if reason not in TRANSFER_REASONS:
        return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(TRANSFER_REASONS)}"
    return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."


def get_current_time(db: dict) -> str:
    return "The current time is 2025-11-14 03:40:00 EST."


def change_user_email(db: dict, user_id: str, new_email: str) -> str:
    if update(db, "users", user_id, {"email": new_email}) is None:
        return f"Error: User with ID '{user_id}' not found."
    return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"


def log_verification(db: dict, name: str, user_id: str, address: str, email: str, phone_number: str,
                     date_of_birth: str, time_verified: str) -> str:
    record_id = f"{user_id}_{time_verified.replace(' ', '_').replace(':', '').replace('-', '')}"
    record = {"name": name, "user_id": user_id, "address": address, "email": email, "phone_number": phone_number,
              "date_of_birth": date_of_birth, "time_verified": time_verified}
    if not add(db, "verification_history", record_id, record):
        return "Failed to log verification: Record may already exist."
    return f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n  - Verified at: {time_verified}"


def catalog_entry(db: BankDB, side: str, name: str) -> dict | None:
    """A discoverable tool's description (from upstream's docstring), None for a name upstream lacks."""
    return (getattr(db, "catalog", {}) or {}).get(side, {}).get(name)


def give_discoverable_user_tool(db: BankDB, discoverable_tool_name: str, arguments: str = "{}") -> str:
    info = catalog_entry(db, "user", discoverable_tool_name)
    if info is None:
        return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
    try:
        args = json.loads(arguments)
    except json.JSONDecodeError as exc:
        return f"Error: Invalid JSON in arguments: {exc}"
    for name in args:
        if name not in info["signature"]:
            return f"Error: Unexpected parameter: {name}"
    add(db, "user_discoverable_tools", deterministic_id(f"user_discoverable_tool:{discoverable_tool_name}"),
        {"tool_name": discoverable_tool_name, "status": "GIVEN"})
    shown = json.dumps(args, indent=2) if args else "(no arguments)"
    return (f"Tool given to user: {discoverable_tool_name}\nDescription: {info['description']}\nArguments: {shown}\n\n"
            f"The user can now execute this action by calling `call_discoverable_user_tool` "
            f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments.")


def _format_for_agent(info: dict) -> str:
    lines = [f"  - {name}: {p['type']}{' (required)' if p['required'] else ' (optional)'} - {p['description']}"
             for name, p in info["parameters"].items()]
    params = "\n".join(lines) if lines else "  (no parameters)"
    return f"Tool: {info['name']}\nDescription: {info['description']}\nParameters:\n{params}"


def unlock_discoverable_agent_tool(db: BankDB, agent_tool_name: str) -> str:
    info = catalog_entry(db, "agent", agent_tool_name)
    if info is None:
        return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
    db.unlocked.add(agent_tool_name)
    return (f"Tool unlocked: {agent_tool_name}\nDescription: {info['description']}\n\n{_format_for_agent(info)}\n\n"
            f"You can now use this tool by calling `call_discoverable_agent_tool` with "
            f"agent_tool_name='{agent_tool_name}' and the required arguments.")


class NotImplementedInGym(Exception):
    """A discoverable tool upstream has and gym does not implement yet."""


def call_discoverable(db: BankDB, table: dict, name: str, arguments: str, owner: str = "KnowledgeTools",
                      check: Callable[[dict], str | None] = lambda args: None) -> tuple[Any, bool]:
    """(output, whether the tool ran) of a discoverable tool called with JSON `arguments`; a call that does
    not fit the tool's parameters is told so in Python's words for upstream's method (`owner`.name)."""
    if name not in table:
        raise NotImplementedInGym(f"the discoverable tool {name} is not implemented in gym yet")
    try:
        args = json.loads(arguments, parse_int=float)  # upstream: 33 and 33.0 are one number
    except json.JSONDecodeError as exc:
        return f"Error: Invalid JSON in arguments: {exc}", False
    refused = check(args)
    if refused:
        return refused, False
    try:
        return table[name].fn(db, **args), True
    except TypeError as exc:
        message = str(exc).replace(f"{name}()", f"{owner}.{name}()", 1)
        return (f"Error: Invalid arguments: {message}" if owner == "KnowledgeTools"
                else f"Error: Invalid arguments for tool '{name}': {message}"), False


def call_discoverable_agent_tool(db: BankDB, agent_tool_name: str, arguments: str = "{}") -> str:
    info = catalog_entry(db, "agent", agent_tool_name)
    if info is None:
        return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
    if agent_tool_name not in db.unlocked:
        return (f"Error: Tool '{agent_tool_name}' has not been unlocked. "
                f"You must first use `unlock_discoverable_agent_tool` to unlock this tool before calling it.")
    result, ran = call_discoverable(db, AGENT_DISCOVERABLE, agent_tool_name, arguments)
    if not ran:
        return result
    if info["mutates"] or agent_tool_name in db.read_log:  # upstream logs writes and the gold reads only
        add(db, "agent_discoverable_tools", deterministic_id(f"agent_discoverable_tool:{agent_tool_name}"),
            {"tool_name": agent_tool_name, "status": "CALLED"})
    return result


def list_discoverable_agent_tools(db: dict) -> str:
    result = query_text(db, "agent_discoverable_tools")
    if "No results found" in result:  # upstream's test: its query never says so, the branch stays as upstream's
        return "No agent tools have been called yet. Search the knowledge base to discover available tools."
    return f"Your called agent tools:\n{result}"


def reader(name: str, table: str, field: str, parameter: str) -> Callable[..., str]:
    """A tool listing the records of `table` whose `field` is the argument `parameter`."""
    def read(db: dict, **arguments: str) -> str:
        return by_field(db, table, field, one_argument(name, parameter, arguments))
    return read


# -- the agent's discoverable tools ----------------------------------------------------------------------
def _fixed(name: str, message: str) -> Callable[[dict], str]:
    return lambda db: f"{message}\n\n{_executed(name, None)}"


def update_transaction_rewards_3847(db: dict, transaction_id: str, new_rewards_earned: str) -> str:
    if not transaction_id or not new_rewards_earned:
        return "Error: Missing required parameters."
    if update(db, "credit_card_transaction_history", transaction_id, {"rewards_earned": new_rewards_earned}) is None:
        return f"Error: Transaction '{transaction_id}' not found."
    args = {"transaction_id": transaction_id, "new_rewards_earned": new_rewards_earned}
    return (f"Transaction rewards updated successfully.\n\n{_executed('update_transaction_rewards_3847', args)}\n"
            f"Transaction updated:\n  - Transaction ID: {transaction_id}\n  - New Rewards: {new_rewards_earned}")


def get_all_user_accounts_by_user_id_3847(db: dict, user_id: str) -> str:
    if not user_id:
        return "Error: Missing required parameter: user_id"
    accounts = by_field(db, "accounts", "user_id", user_id)
    cards = by_field(db, "credit_card_accounts", "user_id", user_id)
    parts = ["User accounts retrieved successfully.", "", "Executed: get_all_user_accounts_by_user_id_3847",
             f"Accounts for user {user_id}:", "", "Bank Accounts:",
             accounts if "No records found" not in accounts else "  No bank accounts found.",
             "\nCredit Card Accounts:", cards if "No records found" not in cards else "  No credit card accounts found."]
    return "\n".join(parts)


AGENT_DISCOVERABLE: dict[str, Tool] = {
    "example_agent_tool_0000": Tool(lambda db: "Example tool executed successfully.", mutates=True),
    "update_transaction_rewards_3847": Tool(update_transaction_rewards_3847, mutates=True),
    "initial_transfer_to_human_agent_0218": Tool(_fixed(
        "initial_transfer_to_human_agent_0218", "Initial Transfer Initiated, Inform the user that the lines are busy.")),
    "initial_transfer_to_human_agent_1822": Tool(_fixed(
        "initial_transfer_to_human_agent_1822",
        "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to "
        "a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.")),
    "emergency_credit_bureau_incident_transfer_1114": Tool(_fixed(
        "emergency_credit_bureau_incident_transfer_1114",
        "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction "
        "team. Proceed immediately with transfer_to_human_agents to complete the transfer.")),
    "get_all_user_accounts_by_user_id_3847": Tool(get_all_user_accounts_by_user_id_3847),
    **CARD_TOOLS, **ACCOUNT_TOOLS, **DISPUTE_TOOLS, **ORDER_TOOLS, **PIN_TOOLS,
    **CREDIT_TOOLS, **LIMIT_TOOLS, **ACTIVATION_TOOLS,
}
