"""The customer's side of τ²'s banking_knowledge domain (upstream's KnowledgeUserTools) and the domain
itself: the user's own tools and the discoverable tools an agent can give them."""

from __future__ import annotations

import hashlib
import json

from gym.episodes.tau2.banking import agent
from gym.episodes.tau2.banking.accounts import account_balance
from gym.episodes.tau2.banking.dense import dense_index
from gym.episodes.tau2.banking.db import (BankDB, TODAY, add, by_field, deterministic_id, find, normalize, query_text,
                                         table)
from gym.episodes.tau2.banking.kb import ALL_RETRIEVAL_TOOLS, RETRIEVAL_TOOLS, knowledge_base
from gym.episodes.tau2.banking.shell import knowledge_shell
from gym.episodes.tau2.domain import Domain, Tool, Toolkit

CARD_TYPES = ("Bronze Rewards Card", "Business Bronze Rewards Card", "Business Gold Rewards Card",
              "Business Platinum Rewards Card", "Business Silver Rewards Card", "Crypto-Cash Back",
              "Diamond Elite Card", "EcoCard", "Gold Rewards Card", "Green Rewards Card", "Platinum Rewards Card",
              "Silver Rewards Card", "Silver Zoom Card")
# card -> category -> reward percentage ("default" for the rest), upstream's table
REWARDS: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0}, "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5}, "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0}, "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0}, "Crypto-Cash Back": {"default": 2.0},
}


def apply_for_credit_card(db: dict, card_type: str, customer_name: str, annual_income: float,
                          rho_bank_subscription: bool = False) -> str:
    if card_type not in CARD_TYPES:
        return f"Error: Invalid card_type '{card_type}'. Must be one of: {list(CARD_TYPES)}"
    try:
        annual_income = float(annual_income)
    except (TypeError, ValueError):
        return "Error: Invalid annual_income. Must be a number."
    application_id = deterministic_id(f"credit_card:{card_type}:{customer_name}:{annual_income}:{rho_bank_subscription}")
    record = {"application_id": application_id, "card_type": card_type, "customer_name": customer_name,
              "annual_income": annual_income, "rho_bank_subscription": rho_bank_subscription, "status": "PENDING",
              "date": TODAY}
    if not add(db, "credit_card_applications", application_id, record):
        return f"Failed to submit application: Record ID '{application_id}' may already exist."
    return ("Credit card application submitted:\nYour application has been successfully submitted. "
            "You will receive a decision within 5-7 business days via email.")


def submit_referral(db: dict, user_id: str, account_type: str) -> str:
    referral_id = deterministic_id(f"referral:{user_id}:{account_type}")
    record = {"referral_id": referral_id, "referrer_id": user_id, "referred_account_type": account_type,
              "referral_status": "NO_PROGRESS", "date": TODAY}
    if not add(db, "referrals", referral_id, record):
        return f"Failed to submit referral: Record ID '{referral_id}' may already exist."
    return (f"Referral request submitted successfully!\n  - Referral ID: {referral_id}\n  - Referrer ID: {user_id}\n"
            f"  - Account Type: {account_type}\n  - Status: NO_PROGRESS\n  - Date: {TODAY}\n\n"
            "Share your referral ID with the person you're referring. "
            "They will need to use this when applying for their account.")


def request_human_agent_transfer(db: dict) -> str:
    existing = query_text(db, "human_transfer_requests")
    count = 1 if "No records found" in existing else existing.count("request_id") + 1
    request_id = f"transfer_request_{count}"
    add(db, "human_transfer_requests", request_id,
        {"request_id": request_id, "request_number": count, "requested_at": TODAY, "status": "PENDING"})
    return f"Transfer request #{count} submitted.\nThe agent will process your request."


def submit_transaction(db: dict, user_id: str, credit_card_type: str, merchant_name: str, amount: float,
                       category: str) -> str:
    if credit_card_type not in REWARDS:
        return f"Error: Unknown credit card type '{credit_card_type}'. Available types: {list(REWARDS)}"
    seed = ":".join(["transaction", user_id, credit_card_type, merchant_name, f"{amount:.2f}", category])
    transaction_id = f"txn_{deterministic_id(seed, 12)}"
    rate = REWARDS[credit_card_type].get(category, REWARDS[credit_card_type]["default"])
    points = int(amount * rate)
    record = {"transaction_id": transaction_id, "user_id": user_id, "credit_card_type": credit_card_type,
              "merchant_name": merchant_name, "transaction_amount": f"${amount:.2f}", "transaction_date": TODAY,
              "category": category, "status": "COMPLETED", "rewards_earned": f"{points} points"}
    if not add(db, "credit_card_transaction_history", transaction_id, record):
        return f"Failed to submit transaction: Record ID '{transaction_id}' may already exist."
    return (f"Transaction submitted successfully!\n  - Transaction ID: {transaction_id}\n  - User ID: {user_id}\n"
            f"  - Card Type: {credit_card_type}\n  - Merchant: {merchant_name}\n  - Amount: ${amount:.2f}\n"
            f"  - Category: {category}\n  - Date: {TODAY}\n"
            f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n")


# -- discoverable tools the agent gives the user ---------------------------------------------------------
def _not_given(db: dict, name: str, args: dict) -> str | None:
    """Upstream's error when the agent has not given the user the tool; else None, the call logged."""
    if "No records found" in by_field(db, "user_discoverable_tools", "tool_name", name):
        return (f"Error: Tool '{name}' has not been given to you by the agent. "
                f"The agent must first use `give_discoverable_user_tool` to give this tool to you.")
    record_id = deterministic_id(f"user_discoverable_tool_call:{name}:{json.dumps(args, sort_keys=True)}")
    add(db, "user_discoverable_tool_calls", record_id,
        {"tool_name": name, "arguments": args, "called_at": TODAY, "status": "CALLED"})
    return None


def _done(message: str, name: str, args: dict) -> str:
    return f"{message}\n\nExecuted: {name}\nArguments: {json.dumps(args, indent=2)}\n"


def submit_cash_back_dispute_0589(db: dict, user_id: str, transaction_id: str) -> str:
    name, args = "submit_cash_back_dispute_0589", {"user_id": user_id, "transaction_id": transaction_id}
    error = _not_given(db, name, args)
    if error:
        return error
    dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
    settings = table(db, "task_config").get("dispute_settings", {}) if table(db, "task_config") else {}
    record = {"dispute_id": dispute_id, "user_id": user_id, "transaction_id": transaction_id, "submitted_at": TODAY}
    if settings.get("auto_resolve_disputes", False):
        record.update(status="RESOLVED", resolution="APPROVED")
        status = ("Status: RESOLVED - The dispute has been reviewed and approved. "
                  "The transaction rewards need to be updated.")
    else:
        record["status"] = "SUBMITTED"
        status = "Status: SUBMITTED - Your dispute has been queued for review."
    result = _done("Cash back dispute submitted successfully. Your case has been queued for review.", name, args)
    if add(db, "cash_back_disputes", dispute_id, record):
        return result + f"Dispute ID: {dispute_id}\n{status}"
    return result + "Note: Dispute may have already been submitted for this transaction."


def get_referral_link(db: dict, user_id: str, card_name: str) -> str:
    name, args = "get_referral_link", {"user_id": user_id, "card_name": card_name}
    error = _not_given(db, name, args)
    if error:
        return error
    referral_id = deterministic_id(f"referral_link:{user_id}:{card_name}")
    record = {"referral_id": referral_id, "referrer_id": user_id, "referred_account_type": card_name,
              "referral_status": "NO_PROGRESS", "date": TODAY}
    result = _done("Referral link generated successfully. Share this link with the person you want to refer.",
                   name, args)
    if add(db, "referrals", referral_id, record):
        return result + f"Referral ID: {referral_id}\nReferral link: https://rhobank.com/refer/{referral_id}"
    return result + "Note: A referral link for this card may have already been generated."


def get_card_last_4_digits(db: dict, credit_card_account_id: str) -> str:
    name, args = "get_card_last_4_digits", {"credit_card_account_id": credit_card_account_id}
    error = _not_given(db, name, args)
    if error:
        return error
    if "No records found" in by_field(db, "credit_card_accounts", "account_id", credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    digits = [c for c in hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest() if c.isdigit()]
    last_4 = "".join(digits[:4]).ljust(4, "0")
    return _done("Card information retrieved successfully.", name, args).rstrip("\n") + f"\nLast 4 digits of card: {last_4}"


def deposit_check_3847(db: dict, account_id: str, check_amount: float) -> str:
    name, args = "deposit_check_3847", {"account_id": account_id, "check_amount": check_amount}
    error = _not_given(db, name, args)
    if error:
        return error
    try:
        check_amount = float(check_amount)
    except (ValueError, TypeError):
        return f"Error: Invalid check amount '{check_amount}'. Must be a number."
    if check_amount <= 0:
        return "Error: Check amount must be positive."
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    if account.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Account '{account_id}' is not active."
    before = account_balance(account)
    after = before + check_amount
    account["current_holdings"] = f"${after:.2f}"
    return (_done("Check deposited successfully. Funds will be available according to your account's deposit "
                  "policy.", name, args) + f"Check deposit processed!\n  - Account: {account_id}\n"
            f"  - Check Amount: ${check_amount:.2f}\n  - Previous Balance: ${before:.2f}\n  - New Balance: ${after:.2f}")


USER_DISCOVERABLE: dict[str, Tool] = {
    "submit_cash_back_dispute_0589": Tool(submit_cash_back_dispute_0589, mutates=True),
    "get_referral_link": Tool(get_referral_link, mutates=True),
    "get_card_last_4_digits": Tool(get_card_last_4_digits),
    "deposit_check_3847": Tool(deposit_check_3847, mutates=True),
}


def call_discoverable_user_tool(db: BankDB, discoverable_tool_name: str, arguments: str = "{}") -> str:
    info = agent.catalog_entry(db, "user", discoverable_tool_name)
    if info is None:
        return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."

    def check(args: dict) -> str | None:
        signature = info["signature"]
        for name, has_default in signature.items():
            if not has_default and name not in args:
                return f"Error: Missing required parameter: {name}"
        return next((f"Error: Unexpected parameter: {name}" for name in args if name not in signature), None)

    return agent.call_discoverable(db, USER_DISCOVERABLE, discoverable_tool_name, arguments, "KnowledgeUserTools",
                                   check)[0]


def list_discoverable_user_tools(db: dict) -> str:
    return f"Tools given to you by the agent:\n{query_text(db, 'user_discoverable_tools')}"


def read_log(task: dict) -> set[str]:
    """The read tools whose calls are logged: those the task's gold actions call (upstream's allowlist)."""
    return {(a.get("arguments") or {}).get("agent_tool_name")
            for a in ((task.get("evaluation_criteria") or {}).get("actions") or [])
            if a.get("name") == "call_discoverable_agent_tool"} - {None}


def missing_tools(task: dict) -> list[str]:
    """The discoverable tools the task's gold actions name that gym does not implement yet."""
    missing = []
    for action in ((task.get("evaluation_criteria") or {}).get("actions") or []):
        args = action.get("arguments") or {}
        if action.get("name") in ("unlock_discoverable_agent_tool", "call_discoverable_agent_tool"):
            name, known = args.get("agent_tool_name"), agent.AGENT_DISCOVERABLE
        elif action.get("name") in ("give_discoverable_user_tool", "call_discoverable_user_tool"):
            name, known = args.get("discoverable_tool_name"), USER_DISCOVERABLE
        else:
            continue
        if name not in known and name not in missing:
            missing.append(name)
    return missing


AGENT_TOOLS: dict[str, Tool] = {
    "transfer_to_human_agents": Tool(agent.transfer_to_human_agents), "get_current_time": Tool(agent.get_current_time),
    "get_user_information_by_id": Tool(agent.reader("get_user_information_by_id", "users", "user_id", "user_id")),
    "get_user_information_by_name": Tool(agent.reader("get_user_information_by_name", "users", "name", "customer_name")),
    "get_user_information_by_email": Tool(agent.reader("get_user_information_by_email", "users", "email", "email")),
    "change_user_email": Tool(agent.change_user_email, mutates=True),
    "get_referrals_by_user": Tool(agent.reader("get_referrals_by_user", "referrals", "referrer_id", "user_id")),
    "get_credit_card_transactions_by_user": Tool(agent.reader("get_credit_card_transactions_by_user",
                                                              "credit_card_transaction_history", "user_id", "user_id")),
    "get_credit_card_accounts_by_user": Tool(agent.reader("get_credit_card_accounts_by_user", "credit_card_accounts",
                                                          "user_id", "user_id")),
    "log_verification": Tool(agent.log_verification, mutates=True),
    "give_discoverable_user_tool": Tool(agent.give_discoverable_user_tool, mutates=True),
    "unlock_discoverable_agent_tool": Tool(agent.unlock_discoverable_agent_tool, mutates=True),
    "call_discoverable_agent_tool": Tool(agent.call_discoverable_agent_tool, mutates=True),
    "list_discoverable_agent_tools": Tool(agent.list_discoverable_agent_tools),
    **RETRIEVAL_TOOLS,
}


def setup(db: BankDB, data: dict, task: dict) -> None:
    db.kb = knowledge_base(id(data), data.get("documents") or [])
    if any(tool.get("name") == "shell" for tool in data.get("tools") or []):
        knowledge_shell(db.kb)  # the files laid out and the sandbox checked before the first turn
    db.dense = dense_index(id(data))  # built when the run attached an embeddings endpoint (Tau2Environment)
    db.catalog = data.get("discoverable") or {}
    db.read_log = read_log(task)


def unsupported(task: dict) -> str | None:
    missing = missing_tools(task)
    return (f"its gold actions use discoverable tools gym does not implement yet ({', '.join(missing)})"
            if missing else None)


DOMAIN = Domain(
    name="banking_knowledge",
    agent=Toolkit(tables={}, tools=AGENT_TOOLS, normalizer=normalize),
    user=Toolkit(tables={}, tools={
        "apply_for_credit_card": Tool(apply_for_credit_card, mutates=True),
        "submit_referral": Tool(submit_referral, mutates=True),
        "call_discoverable_user_tool": Tool(call_discoverable_user_tool, mutates=True),
        "list_discoverable_user_tools": Tool(list_discoverable_user_tools),
        "request_human_agent_transfer": Tool(request_human_agent_transfer, mutates=True),
        "submit_transaction": Tool(submit_transaction, mutates=True),
    }, normalizer=normalize),
    shared_db=True, variant_tools=ALL_RETRIEVAL_TOOLS, setup=setup, unsupported=unsupported,
)
