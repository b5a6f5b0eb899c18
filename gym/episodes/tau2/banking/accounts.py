"""τ² banking's discoverable agent tools that open and close bank accounts (upstream's KnowledgeTools
methods of the same names: eligibility rules, early-closure fees by account tier, texts as upstream's)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gym.episodes.tau2.banking.db import TODAY, add, deterministic_id, find, table
from gym.episodes.tau2.domain import Tool

NOW = datetime(2025, 11, 14, 3, 40, 0)  # upstream's fixed "now" for every banking scenario
ACCOUNT_TYPES = ["checking", "savings", "business_checking", "business_savings"]
NOT_ELIGIBLE = "Error: Account eligibility requirements not met."
# account tier -> (early-closure fee, days after opening it applies)
CHECKING_EARLY_CLOSURE = {"Light Blue Account": (15, 30), "Light Green Account": (15, 30),
                          "Green Fee-Free Account": (15, 30), "Blue Account": (25, 60), "Green Account": (25, 60),
                          "Evergreen Account": (50, 90), "Bluest Account": (100, 180)}
SAVINGS_EARLY_CLOSURE = {"Bronze Account": (20, 60), "Silver Account": (35, 90), "Silver Plus Account": (35, 90),
                         "Gold Account": (75, 180), "Gold Plus Account": (75, 180), "Gold Years Account": (75, 180),
                         "Platinum Account": (150, 270), "Platinum Plus Account": (150, 270),
                         "Diamond Elite Account": (150, 270)}


def balance(value: Any) -> float:
    """A balance that may be a number or a text such as '$2,850.00'."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: dict) -> float:
    return balance(account.get("current_holdings", account.get("balance", 0)))


def _age_days(account: dict) -> int:
    try:
        return (NOW - datetime.strptime(account.get("date_opened", ""), "%m/%d/%Y")).days
    except ValueError:
        return 0


def _kind(account: dict) -> str:
    return account.get("account_type", account.get("class", ""))


def _open(account: dict) -> bool:
    return account.get("status", "") in ("OPEN", "ACTIVE")


def _eligible(accounts: list[dict], account_type: str) -> bool:
    if account_type == "savings":  # a personal checking account open 14 days or more
        return any(_kind(a) in ("checking", "personal_checking") and _open(a) and _age_days(a) >= 14 for a in accounts)
    if account_type == "business_checking":  # no closed account, and an open personal checking account
        return (not any(a.get("status") == "CLOSED" for a in accounts)
                and any(_kind(a) in ("checking", "personal_checking") and _open(a) for a in accounts))
    if account_type == "business_savings":  # no negative balance, a business checking account open 30+ days
        if any(account_balance(a) < 0 for a in accounts):
            return False
        return any(_kind(a) == "business_checking" and _open(a) and _age_days(a) >= 30 for a in accounts)
    return True


def open_bank_account_4821(db: dict, user_id: str, account_type: str, account_class: str) -> str:
    if not user_id or not account_type or not account_class:
        return "Error: Missing required parameters."
    if account_type not in ACCOUNT_TYPES:
        return f"Error: Invalid account_type. Must be one of: {ACCOUNT_TYPES}"
    if not _eligible([a for a in table(db, "accounts").values() if a.get("user_id") == user_id], account_type):
        return NOT_ELIGIBLE
    account_id = deterministic_id(f"account:{user_id}:{account_type}:{account_class}")
    record = {"account_id": account_id, "user_id": user_id, "account_type": account_type,
              "account_class": account_class, "current_holdings": "0.00", "status": "OPEN", "date_opened": TODAY}
    if not add(db, "accounts", account_id, record):
        return f"Failed to open account: Account ID '{account_id}' may already exist."
    return (f"Bank account opened successfully!\n  - Account ID: {account_id}\n  - User ID: {user_id}\n"
            f"  - Account Type: {account_type}\n  - Account Class: {account_class}\n  - Status: OPEN\n"
            f"  - Initial Balance: $0.00\n  - Date Opened: {TODAY}")


def _early_closure_fee(account: dict, held: float) -> float | None:
    """The fee closing the account now costs (0 outside its window); None when the balance cannot pay it."""
    tiers = {"checking": CHECKING_EARLY_CLOSURE, "savings": SAVINGS_EARLY_CLOSURE}.get(account.get("class", ""), {})
    tier = tiers.get(account.get("level", ""))
    opened = account.get("date_opened", "")
    if not tier or not opened:
        return 0.0
    try:
        age = (NOW - datetime.strptime(opened, "%m/%d/%Y")).days
    except ValueError:
        return 0.0
    fee, window = tier
    if age >= window:
        return 0.0
    return None if held < fee else fee


def close_bank_account_7392(db: dict, account_id: str, reason: str = "Customer requested closure",
                            waive_early_closure_fee: bool = False) -> str:
    if not account_id:
        return "Error: Missing required parameter (account_id)."
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    if account.get("status") == "CLOSED":
        return f"Error: Account '{account_id}' is already closed."
    held = account_balance(account)
    fee = 0.0 if waive_early_closure_fee else _early_closure_fee(account, held)
    if fee is None:
        return "Error: Account unable to be closed."
    if held - fee != 0:
        return f"Error: Account balance must be $0.00 before closing. Current balance: ${held:.2f}"
    account.update(status="CLOSED", date_closed=TODAY, closure_reason=reason,
                   early_closure_fee_waived=waive_early_closure_fee)
    return (f"Bank account closed successfully!\n  - Account ID: {account_id}\n"
            f"  - Account Type: {account.get('account_type', 'N/A')}\n"
            f"  - Account Class: {account.get('account_class', 'N/A')}\n  - Status: CLOSED\n  - Date Closed: {TODAY}\n"
            f"  - Reason: {reason}\n  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}")


ACCOUNT_TOOLS: dict[str, Tool] = {
    "open_bank_account_4821": Tool(open_bank_account_4821, mutates=True),
    "close_bank_account_7392": Tool(close_bank_account_7392, mutates=True),
}
