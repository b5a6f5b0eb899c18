"""τ² banking's discoverable agent tools for credit-limit increases: the request, its approval (with
upstream's eligibility checks) and its denial (upstream's KnowledgeTools methods of the same names)."""

from __future__ import annotations

from gym.episodes.tau2.banking.accounts import balance
from gym.episodes.tau2.banking.db import TODAY, add, deterministic_id, table
from gym.episodes.tau2.domain import Tool

DENIAL_REASONS = ["insufficient_account_age", "cooldown_period_active", "pending_disputes", "pending_replacement_card",
                  "past_due_balance", "high_utilization", "insufficient_payment_history",
                  "requested_amount_exceeds_limit", "other"]


def request_id(account_id: str, user_id: str, amount: float) -> str:
    return f"cli_{deterministic_id(f'cli_request:{account_id}:{user_id}:{amount:.2f}', 12)}"


def _owned_card(db: dict, account_id: str, user_id: str) -> tuple[dict | None, str | None]:
    cards = table(db, "credit_card_accounts")
    if account_id not in cards:
        return None, f"Error: Credit card account '{account_id}' not found."
    if cards[account_id].get("user_id") != user_id:
        return None, f"Error: Credit card account '{account_id}' does not belong to user '{user_id}'."
    return cards[account_id], None


def submit_credit_limit_increase_request_7392(db: dict, credit_card_account_id: str, user_id: str,
                                              requested_increase_amount: int) -> str:
    if not credit_card_account_id or not user_id or requested_increase_amount is None:
        return "Error: Missing required parameters."
    try:
        amount = float(requested_increase_amount)
    except (TypeError, ValueError):
        return "Error: Invalid requested_increase_amount. Must be a whole number."
    if not amount.is_integer():
        return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
    amount = int(amount)
    if amount <= 0:
        return "Error: Requested increase amount must be positive."
    _, refused = _owned_card(db, credit_card_account_id, user_id)
    if refused:
        return refused
    rid = request_id(credit_card_account_id, user_id, amount)
    if not add(db, "credit_limit_increase_requests", rid, {
            "request_id": rid, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
            "requested_increase_amount": amount, "submitted_at": TODAY, "status": "PENDING"}):
        return "Error: A similar request may already exist."
    return (f"Credit limit increase request submitted successfully.\n\n"
            f"Executed: submit_credit_limit_increase_request_7392\n  - Request ID: {rid}\n"
            f"  - Account: {credit_card_account_id}\n  - Requested Increase: ${amount:,}\n  - Status: PENDING")


def _ineligible(db: dict, card: dict, account_id: str, user_id: str) -> bool:
    if any(d.get("user_id") == user_id and d.get("status") in ("SUBMITTED", "UNDER_REVIEW", "PENDING")
           for d in table(db, "transaction_disputes").values()):
        return True
    if any(o.get("credit_card_account_id") == account_id and o.get("status") in ("PENDING", "PROCESSING", "SHIPPED")
           for o in table(db, "credit_card_orders").values()):
        return True
    return card.get("account_status", "").upper() in ("PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED")


def approve_credit_limit_increase_5847(db: dict, credit_card_account_id: str, user_id: str,
                                       new_credit_limit: int) -> str:
    if not credit_card_account_id or not user_id or new_credit_limit is None:
        return "Error: Missing required parameters."
    card, refused = _owned_card(db, credit_card_account_id, user_id)
    if refused:
        return refused
    if _ineligible(db, card, credit_card_account_id, user_id):
        return "Error: Credit limit increase request cannot be approved at this time."
    try:
        current = balance(str(card.get("credit_limit", "$0.00")))
    except (ValueError, TypeError):
        current = 0.0
    new = float(new_credit_limit)
    card["credit_limit"] = f"${new:.2f}"
    rid = request_id(credit_card_account_id, user_id, new - current)
    add(db, "credit_limit_increase_requests", rid, {
        "request_id": rid, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
        "previous_limit": f"${current:.2f}", "new_limit": f"${new:.2f}", "increase_amount": f"${new - current:.2f}",
        "decision_date": TODAY, "status": "APPROVED"})
    return (f"Credit limit increase approved!\n  - Account: {credit_card_account_id}\n"
            f"  - Previous Limit: ${current:.2f}\n  - New Limit: ${new:.2f}\n  - Increase: ${new - current:.2f}\n"
            f"  - Effective Date: {TODAY}\nThe customer will receive a confirmation email.")


def deny_credit_limit_increase_5848(db: dict, credit_card_account_id: str, user_id: str, denial_reason: str) -> str:
    if not credit_card_account_id or not user_id or not denial_reason:
        return "Error: Missing required parameters."
    if denial_reason not in DENIAL_REASONS:
        return f"Error: Invalid denial_reason. Must be one of: {', '.join(DENIAL_REASONS)}"
    if credit_card_account_id not in table(db, "credit_card_accounts"):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    rid = request_id(credit_card_account_id, user_id, 0.0)
    add(db, "credit_limit_increase_requests", rid, {
        "request_id": rid, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
        "denial_reason": denial_reason, "decision_date": TODAY, "status": "DENIED"})
    return (f"Credit limit increase request denied.\n  - Account: {credit_card_account_id}\n"
            f"  - Denial Reason: {denial_reason}\n  - Date: {TODAY}\n"
            "The customer will receive a notification explaining the denial.")


LIMIT_TOOLS: dict[str, Tool] = {
    "submit_credit_limit_increase_request_7392": Tool(submit_credit_limit_increase_request_7392, mutates=True),
    "approve_credit_limit_increase_5847": Tool(approve_credit_limit_increase_5847),
    "deny_credit_limit_increase_5848": Tool(deny_credit_limit_increase_5848, mutates=True),
}
