"""τ² banking's discoverable agent tools over accounts, debit cards and the history tables (upstream's
KnowledgeTools methods of the same names; their texts and checks as upstream's)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Callable

from gym.episodes.tau2.banking.db import TODAY, by_field, find, one_argument, query, table
from gym.episodes.tau2.domain import Tool


def _history(name: str, done: str, heading: str, table_name: str, field: str, parameter: str,
             none: str) -> Callable[..., str]:
    """A tool that lists one table's records for an id, under upstream's heading, or says there are none."""
    def read(db: dict, **arguments: str) -> str:
        value = one_argument(name, parameter, arguments)
        if not value:
            return f"Error: Missing required parameter: {parameter}"
        found = by_field(db, table_name, field, value)
        body = found if "No records found" not in found else f"\n{none}"
        return "\n".join([done, "", f"Executed: {name}", heading.format(value), body])
    read.__name__ = name
    return read


HISTORIES = {
    "get_user_dispute_history_7291": _history(
        "get_user_dispute_history_7291", "User transaction dispute history retrieved successfully.",
        "Transaction dispute history for user {}:", "transaction_disputes", "user_id", "user_id",
        "No transaction disputes found for this user."),
    "get_pending_replacement_orders_5765": _history(
        "get_pending_replacement_orders_5765", "Pending replacement orders check completed.",
        "Replacement orders for credit card account {}:", "credit_card_orders", "credit_card_account_id",
        "credit_card_account_id", "No pending replacement orders found for this credit card account."),
    "get_closure_reason_history_8293": _history(
        "get_closure_reason_history_8293", "Closure reason history retrieved successfully.",
        "Closure reason history for credit card account {}:", "credit_card_closure_reasons", "credit_card_account_id",
        "credit_card_account_id", "No closure reason records found for this credit card account."),
    "get_credit_limit_increase_history_4829": _history(
        "get_credit_limit_increase_history_4829", "Credit limit increase history retrieved.",
        "Credit limit increase history for account {}:", "credit_limit_increase_requests", "credit_card_account_id",
        "credit_card_account_id", "No credit limit increase requests found for this account."),
    "get_debit_dispute_status_7483": _history(
        "get_debit_dispute_status_7483", "Debit card dispute history retrieved successfully.",
        "Debit card dispute history for user {}:", "debit_card_disputes", "user_id", "user_id",
        "No debit card disputes found for this user."),
}


def _date(record: dict) -> datetime:
    text = str(record.get("date", ""))
    for form in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
        try:
            return datetime.strptime(text, form)
        except ValueError:
            continue
    return datetime.min


def get_bank_account_transactions_9173(db: dict, account_id: str) -> str:
    if not account_id:
        return "Error: Missing required parameter: account_id"
    if account_id not in table(db, "accounts"):
        return f"Error: Account '{account_id}' not found."
    # most recent first; a stable sort, so same-day records keep their stored order (upstream relies on it)
    found = sorted(query(db, "bank_account_transaction_history", {"account_id": account_id}),
                   key=lambda item: _date(item[1]), reverse=True)
    parts = ["Bank account transactions retrieved successfully.", "", "Executed: get_bank_account_transactions_9173",
             f"Transactions for account {account_id}:"]
    if not found:
        return "\n".join(parts + ["\nNo transactions found for this account."])
    lines = [f"Found {len(found)} record(s) in 'bank_account_transaction_history':\n"]
    for number, (key, record) in enumerate(found, 1):
        lines.append(f"{number}. Record ID: {key}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(parts + ["\n".join(lines)])


def get_debit_cards_by_account_id_7823(db: dict, account_id: str) -> str:
    if not account_id:
        return "Error: Missing required parameter 'account_id'."
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    if account.get("class", "").lower() not in ("checking", "business_checking"):
        return (f"Error: Account '{account_id}' is not a checking account. "
                "Debit cards are only available for checking accounts.")
    cards = []
    for card_id, card in table(db, "debit_cards").items():
        if card.get("account_id") != account_id:
            continue
        info = {"card_id": card_id, **card}
        if "last_4_digits" in info and "card_number_last_4" not in info:
            info["card_number_last_4"] = info.pop("last_4_digits")
        if "issue_date" in info and "date_issued" not in info:
            info["date_issued"] = info.pop("issue_date")
        elif "created_date" in info and "date_issued" not in info:
            info["date_issued"] = info.pop("created_date")
        cards.append(info)
    if not cards:
        return f"No debit cards found for account '{account_id}'."
    cards.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
    return json.dumps(cards, indent=2)


def get_payment_history_6183(db: dict, credit_card_account_id: str, months: int) -> str:
    if not credit_card_account_id or months is None:
        return "Error: Missing required parameters (credit_card_account_id, months)."
    try:
        months = int(months)
    except (ValueError, TypeError):
        return "Error: Invalid months value. Must be a positive integer."
    if months <= 0:
        return "Error: months must be a positive integer."
    payments = [p for p in table(db, "payment_history").values() if p.get("credit_card_account_id") == credit_card_account_id]
    if not payments:
        return f"No payment history found for account '{credit_card_account_id}'."
    payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
    payments = payments[:months]
    on_time = 0
    for payment in payments:
        if payment.get("status") != "ON_TIME":
            break
        on_time += 1
    parts = [f"Payment history for account '{credit_card_account_id}' (last {months} months):",
             f"Consecutive on-time payments: {on_time}"]
    parts += [f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: {p.get('amount')}\n    Status: {p.get('status')}"
              for p in payments]
    return "\n".join(parts)


CLOSE_REASONS = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]


def close_debit_card_4721(db: dict, card_id: str, reason: str) -> str:
    if not card_id or not reason:
        return "Error: Missing required parameters. Required: card_id, reason."
    if reason.lower() not in CLOSE_REASONS:
        return f"Error: Invalid reason. Must be one of: {CLOSE_REASONS}"
    reason = reason.lower()
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    if card.get("status") not in ("ACTIVE", "PENDING"):
        return (f"Error: Debit card '{card_id}' cannot be closed. Current status: {card.get('status')}. "
                "Only ACTIVE or PENDING cards can be closed.")
    previous = card.get("status")
    card.update(status="CLOSED", closed_date=TODAY, closure_reason=reason)
    parts = ["Debit Card Closed Successfully", f"Card ID: {card_id}", f"Previous Status: {previous}",
             "New Status: CLOSED", f"Closure Reason: {reason.replace('_', ' ').title()}", f"Closure Date: {TODAY}", ""]
    if reason in ("lost", "stolen", "fraud_suspected"):
        parts += ["IMPORTANT: This card has been immediately deactivated for security.",
                  "Any pending transactions may still be processed."]
        if reason == "fraud_suspected":
            parts += ["Please advise the customer to review recent transactions and file disputes for any "
                      "unauthorized charges.", "Also recommend changing their online banking password."]
    parts += ["", "Note: This card cannot be reactivated. If the customer needs a new card, they can order one "
              "through the standard ordering process.",
              "Any recurring payments linked to this card will need to be updated with new payment information."]
    return "\n".join(parts)


def status_error(card_id: str, card: dict, done: str, required: str, already: str) -> str | None:
    """Upstream's error for a debit card whose status does not allow the change (`done`: what the change does
    to it, "frozen"), or None: already in the status the change leads to (`already`), or not in `required`."""
    status = card.get("status")
    if status == already:
        return f"Error: Debit card '{card_id}' is already {already.lower()}."
    if status != required:
        return (f"Error: Debit card '{card_id}' cannot be {done}. Current status: {status}. "
                f"Only {required} cards can be {done}.")
    return None


def closed_account_error(db: dict, card: dict, done: str) -> str | None:
    """Upstream's error for a card whose linked checking account is no longer open, or None."""
    account_id, accounts = card.get("account_id"), table(db, "accounts")
    if account_id and account_id in accounts and accounts[account_id].get("status") != "OPEN":
        return f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be {done}."
    return None


def freeze_debit_card_3892(db: dict, card_id: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    refused = status_error(card_id, card, "frozen", "ACTIVE", "FROZEN")
    if refused:
        return refused
    card.update(status="FROZEN", frozen_date=TODAY)
    return "\n".join(["Debit Card Frozen Successfully", f"Card ID: {card_id}", "Status: FROZEN", f"Frozen Date: {TODAY}",
                      "", "While frozen:", "- All new purchase transactions will be declined",
                      "- Recurring payments and subscriptions will be declined",
                      "- Pending transactions already authorized may still process", "",
                      "To unfreeze, the customer can call customer service or use the mobile app.",
                      "If the card is confirmed lost or stolen, recommend closing the card permanently instead."])


def unfreeze_debit_card_3893(db: dict, card_id: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    refused = status_error(card_id, card, "unfrozen", "FROZEN", "ACTIVE") or closed_account_error(db, card, "unfrozen")
    if refused:
        return refused
    card.update(status="ACTIVE", unfrozen_date=TODAY)
    return "\n".join(["Debit Card Unfrozen Successfully", f"Card ID: {card_id}", "Status: ACTIVE",
                      f"Unfrozen Date: {TODAY}", "", "The card is now active and ready to use immediately.",
                      "All transactions will process normally."])


CARD_TOOLS: dict[str, Tool] = {
    **{name: Tool(fn) for name, fn in HISTORIES.items()},
    "get_bank_account_transactions_9173": Tool(get_bank_account_transactions_9173),
    "get_debit_cards_by_account_id_7823": Tool(get_debit_cards_by_account_id_7823),
    "get_payment_history_6183": Tool(get_payment_history_6183),
    "close_debit_card_4721": Tool(close_debit_card_4721, mutates=True),
    "freeze_debit_card_3892": Tool(freeze_debit_card_3892, mutates=True),
    "unfreeze_debit_card_3893": Tool(unfreeze_debit_card_3893, mutates=True),
}
