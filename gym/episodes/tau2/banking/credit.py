"""τ² banking's discoverable agent tools over credit-card accounts: closure reasons and closing, statement
credits, account flags, payments from checking (upstream's KnowledgeTools methods of the same names)."""

from __future__ import annotations

import json

from gym.episodes.tau2.banking.accounts import account_balance, balance
from gym.episodes.tau2.banking.db import TODAY, add, by_field, deterministic_id, table, update
from gym.episodes.tau2.domain import Tool

CLOSURE_REASONS = ["annual_fee", "not_using_card", "found_better_card", "unhappy_with_rewards", "simplifying_finances",
                   "negative_experience", "other"]
CREDIT_REASONS = ["goodwill_adjustment", "promotional_credit", "annual_fee_reversal", "late_fee_reversal",
                  "interest_charge_reversal", "dispute_resolution", "price_match", "retention_offer",
                  "error_correction", "other"]
FLAG_TYPES = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
FLAG_REASONS = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]


def _title(code: str) -> str:
    return code.replace("_", " ").title()


def _no_card(db: dict, account_id: str) -> str | None:
    if "No records found" in by_field(db, "credit_card_accounts", "account_id", account_id):
        return f"Error: Credit card account '{account_id}' not found."
    return None


def log_credit_card_closure_reason_4521(db: dict, credit_card_account_id: str, user_id: str, closure_reason: str) -> str:
    if not credit_card_account_id or not user_id or not closure_reason:
        return "Error: Missing required parameters."
    if closure_reason not in CLOSURE_REASONS:
        return f"Error: Invalid closure_reason. Must be one of: {CLOSURE_REASONS}"
    record_id = f"clsr_{deterministic_id(f'closure_reason:{credit_card_account_id}:{user_id}', 12)}"
    add(db, "credit_card_closure_reasons", record_id, {
        "record_id": record_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
        "closure_reason": closure_reason, "logged_at": TODAY, "status": "LOGGED"})
    args = {"credit_card_account_id": credit_card_account_id, "user_id": user_id, "closure_reason": closure_reason}
    return (f"Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\n"
            f"Arguments: {json.dumps(args, indent=2)}\n"
            f"Closure reason '{closure_reason}' logged for account {credit_card_account_id}.")


def apply_statement_credit_8472(db: dict, user_id: str, credit_card_account_id: str, amount: float, reason: str) -> str:
    if not user_id or not credit_card_account_id or amount is None or not reason:
        return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
    if amount <= 0:
        return "Error: Credit amount must be positive."
    if reason not in CREDIT_REASONS:
        return f"Error: Invalid reason. Must be one of: {CREDIT_REASONS}"
    missing = _no_card(db, credit_card_account_id)
    if missing:
        return missing
    seed = ":".join(["transaction", user_id, "STATEMENT_CREDIT", reason, f"{amount:.2f}", "Statement Credit"])
    transaction_id = f"txn_{deterministic_id(seed, 12)}"
    record = {"transaction_id": transaction_id, "user_id": user_id, "credit_card_account_id": credit_card_account_id,
              "credit_card_type": "N/A", "merchant_name": "Rho-Bank Statement Credit",
              "transaction_amount": f"-${amount:.2f}", "transaction_date": TODAY, "category": "Statement Credit",
              "status": "COMPLETED", "rewards_earned": "0 points", "credit_reason": reason}
    if not add(db, "credit_card_transaction_history", transaction_id, record):
        return f"Error: Failed to apply statement credit. Transaction ID '{transaction_id}' may already exist."
    return (f"Statement credit applied successfully.\n\nExecuted: apply_statement_credit_8472\n"
            f"  - Transaction ID: {transaction_id}\n  - User ID: {user_id}\n  - Account: {credit_card_account_id}\n"
            f"  - Credit Amount: ${amount:.2f}\n  - Reason: {_title(reason)}\n  - Date: {TODAY}")


def apply_credit_card_account_flag_6147(db: dict, credit_card_account_id: str, user_id: str, flag_type: str,
                                        expiration_date: str, reason: str) -> str:
    if not credit_card_account_id or not user_id or not flag_type or not expiration_date or not reason:
        return ("Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, "
                "reason).")
    if flag_type not in FLAG_TYPES:
        return f"Error: Invalid flag_type. Must be one of: {FLAG_TYPES}"
    if reason not in FLAG_REASONS:
        return f"Error: Invalid reason. Must be one of: {FLAG_REASONS}"
    missing = _no_card(db, credit_card_account_id)
    if missing:
        return missing
    flag_id = f"ccflag_{deterministic_id(f'account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}', 12)}"
    record = {"flag_id": flag_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
              "flag_type": flag_type, "effective_date": TODAY, "expiration_date": expiration_date, "reason": reason,
              "applied_at": TODAY, "status": "ACTIVE"}
    if not add(db, "credit_card_account_flags", flag_id, record):
        return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
    return (f"Account flag applied successfully!\n  - Flag ID: {flag_id}\n  - Account: {credit_card_account_id}\n"
            f"  - User ID: {user_id}\n  - Flag Type: {_title(flag_type)}\n  - Effective Date: {TODAY}\n"
            f"  - Expiration Date: {expiration_date}\n  - Reason: {_title(reason)}")


def close_credit_card_account_7834(db: dict, credit_card_account_id: str, user_id: str) -> str:
    if not credit_card_account_id or not user_id:
        return "Error: Missing required parameters (credit_card_account_id, user_id)."
    missing = _no_card(db, credit_card_account_id)
    if missing:
        return missing
    if update(db, "credit_card_accounts", credit_card_account_id,
              {"status": "CLOSED", "closed_date": TODAY, "closed_by": user_id}) is None:
        return f"Error: Failed to close credit card account '{credit_card_account_id}'."
    args = {"credit_card_account_id": credit_card_account_id, "user_id": user_id}
    return (f"Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\n"
            f"Arguments: {json.dumps(args, indent=2)}\nAccount {credit_card_account_id} has been closed.")


def pay_credit_card_from_checking_9182(db: dict, user_id: str, checking_account_id: str, credit_card_account_id: str,
                                       amount: float) -> str:
    if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
        return "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, amount)."
    try:
        amount = float(amount)
    except (ValueError, TypeError):
        return "Error: Invalid payment amount. Must be a positive number."
    if amount <= 0:
        return "Error: Payment amount must be a positive number."
    accounts, cards = table(db, "accounts"), table(db, "credit_card_accounts")
    if checking_account_id not in accounts:
        return f"Error: Checking account '{checking_account_id}' not found."
    checking = accounts[checking_account_id]
    if checking.get("user_id") != user_id:
        return f"Error: Checking account '{checking_account_id}' does not belong to user '{user_id}'."
    if checking.get("class") != "checking":
        return f"Error: Account '{checking_account_id}' is not a checking account."
    held = account_balance(checking)
    if amount > held:
        return (f"Error: Insufficient funds in checking account. Available balance: ${held:.2f}, "
                f"requested payment: ${amount:.2f}.")
    if credit_card_account_id not in cards:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    card = cards[credit_card_account_id]
    if card.get("user_id") != user_id:
        return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
    try:
        owed = balance(str(card.get("current_balance", "$0.00")))
    except (ValueError, TypeError):
        owed = 0.0
    if amount > owed:
        return (f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${owed:.2f}). "
                "Please specify an amount up to the outstanding balance.")
    checking["current_holdings"] = f"{held - amount:.2f}"
    card["current_balance"] = f"${owed - amount:.2f}"
    return (f"Payment processed successfully!\n  - Payment Amount: ${amount:.2f}\n"
            f"  - From Checking Account: {checking_account_id}\n  - To Credit Card Account: {credit_card_account_id}\n"
            f"  - New Checking Balance: ${held - amount:.2f}\n  - New Credit Card Balance: ${owed - amount:.2f}\n"
            "The payment has been applied immediately.")


CREDIT_TOOLS: dict[str, Tool] = {
    "log_credit_card_closure_reason_4521": Tool(log_credit_card_closure_reason_4521, mutates=True),
    "apply_statement_credit_8472": Tool(apply_statement_credit_8472),
    "apply_credit_card_account_flag_6147": Tool(apply_credit_card_account_flag_6147, mutates=True),
    "close_credit_card_account_7834": Tool(close_credit_card_account_7834, mutates=True),
    "pay_credit_card_from_checking_9182": Tool(pay_credit_card_from_checking_9182, mutates=True),
}
