"""τ² banking's `order_debit_card_5739` (upstream's KnowledgeTools method): the checks on the account, the
fee charged and booked as a transaction, and the new card's deterministic number, CVV and expiry."""

from __future__ import annotations

from gym.episodes.tau2.banking.db import TODAY, add, deterministic_id, find, table
from gym.episodes.tau2.domain import Tool

DELIVERY = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}
DESIGNS = ["CLASSIC", "PREMIUM", "CUSTOM"]
LONG_MONTHS = ("01", "03", "05", "07", "08", "10", "12")


def _number(value: object) -> float | None:
    return float(value) if value is not None else None


def _refused(db: dict, account_id: str, user_id: str, holdings: float) -> str | None:
    account = table(db, "accounts")[account_id]
    if account.get("class") != "checking":
        return (f"Error: Debit cards can only be ordered for checking accounts. Account '{account_id}' is a "
                f"{account.get('class')} account.")
    if account.get("status") != "OPEN":
        return f"Error: Account must be OPEN. Account '{account_id}' has status: {account.get('status')}"
    if account.get("user_id") != user_id:
        return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
    if holdings < 25.0:
        return f"Error: Account must have a minimum balance of $25. Current balance: ${holdings:.2f}"
    if any(o.get("account_id") == account_id and o.get("status") == "PENDING"
           for o in table(db, "debit_card_orders").values()):
        return f"Error: There is already a pending debit card order for account '{account_id}'."
    if any(c.get("account_id") == account_id and c.get("status") == "ACTIVE" for c in table(db, "debit_cards").values()):
        return (f"Error: Account '{account_id}' already has an active debit card. "
                "Maximum 1 active card per checking account.")
    return None


def _fees(delivery_fee: float, design_fee: float, excess: float, sep: str) -> str:
    parts = [f"Delivery{sep}${delivery_fee}" if delivery_fee > 0 else "", f"Design{sep}${design_fee}" if design_fee > 0 else "",
             f"Excess Replacement{sep}${excess:.0f}" if excess > 0 else ""]
    return ", ".join(p for p in parts if p)


def _issue_reason(db: dict, account_id: str) -> str:
    existing = [c for c in table(db, "debit_cards").values() if c.get("account_id") == account_id]
    closed = next((c for c in existing if c.get("status") == "CLOSED"), None)
    if closed:
        reason = closed.get("closure_reason", "first_card")
        if reason in ("lost", "stolen", "fraud", "fraud_suspected"):
            return "fraud" if reason == "fraud_suspected" else reason
        return "first_card"
    return "first_card" if existing else "new_account"


def _expiry(order_date: str) -> str:
    month, _, year = order_date.split("/")
    day = "31" if month in LONG_MONTHS else "28" if month == "02" else "30"
    return f"{month}/{day}/{int(year) + 4}"


def order_debit_card_5739(db: dict, account_id: str, user_id: str, delivery_option: str, delivery_fee: float,
                          card_design: str, design_fee: float, shipping_address: str,
                          excess_replacement_fee: float | None = None) -> str:
    excess = excess_replacement_fee or 0
    try:
        delivery_fee = _number(delivery_fee)
    except (TypeError, ValueError):
        return "Error: delivery_fee must be a number."
    try:
        design_fee = _number(design_fee)
    except (TypeError, ValueError):
        return "Error: design_fee must be a number."
    try:
        excess = float(excess)
    except (TypeError, ValueError):
        excess = 0
    if not all([account_id, user_id, delivery_option, delivery_fee is not None, card_design, design_fee is not None,
                shipping_address]):
        return ("Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, "
                "card_design, design_fee, shipping_address.")
    if delivery_option.upper() not in DELIVERY:
        return f"Error: Invalid delivery_option. Must be one of: {list(DELIVERY)}"
    if card_design.upper() not in DESIGNS:
        return f"Error: Invalid card_design. Must be one of: {DESIGNS}"
    delivery_option, card_design = delivery_option.upper(), card_design.upper()
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    try:
        holdings = float(str(account.get("current_holdings", "0")).replace(",", ""))
    except ValueError:
        holdings = 0.0
    refused = _refused(db, account_id, user_id, holdings)
    if refused:
        return refused
    total = delivery_fee + design_fee + excess
    if total > 0 and holdings < total:
        return f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current balance: ${holdings:.2f}"
    order_id = f"dcord_{deterministic_id(f'debit_card_order:{account_id}:{user_id}:{delivery_option}', 12)}"
    order = {"order_id": order_id, "account_id": account_id, "user_id": user_id, "delivery_option": delivery_option,
             "card_design": card_design, "shipping_address": shipping_address, "delivery_fee": delivery_fee,
             "design_fee": design_fee, "excess_replacement_fee": excess, "total_fee": total, "order_date": TODAY,
             "expected_delivery": DELIVERY[delivery_option], "status": "PENDING"}
    if not add(db, "debit_card_orders", order_id, order):
        return "Error: Failed to create debit card order. Order may already exist."
    if total > 0:
        account["current_holdings"] = f"{holdings - total:.2f}"
        fee_id = f"btxn_dcfee_{order_id[-8:]}"
        add(db, "bank_account_transaction_history", fee_id, {
            "transaction_id": fee_id, "account_id": account_id, "date": TODAY,
            "description": f"DEBIT CARD ORDER FEE - {_fees(delivery_fee, design_fee, excess, ' ')}",
            "amount": -total, "type": "debit_card_fee", "status": "posted"})
    card_id = f"dbc_{deterministic_id(f'debit_card:{account_id}:{user_id}:{TODAY}', 12)}"
    last_4 = "".join(c for c in deterministic_id(f"card_details:{card_id}:last4", 8) if c.isdigit())[:4].zfill(4)
    cvv = "".join(c for c in deterministic_id(f"card_details:{card_id}:cvv", 6) if c.isdigit())[:3].zfill(3)
    users = table(db, "users")
    holder = users[user_id].get("name", "CARDHOLDER").upper() if user_id in users else "CARDHOLDER"
    add(db, "debit_cards", card_id, {
        "card_id": card_id, "account_id": account_id, "user_id": user_id, "cardholder_name": holder,
        "last_4_digits": last_4, "cvv": cvv, "status": "PENDING", "issue_date": TODAY, "expiration_date": _expiry(TODAY),
        "card_design": card_design, "issue_reason": _issue_reason(db, account_id)})
    parts = ["Debit Card Order Confirmed", f"Order ID: {order_id}", f"Card ID: {card_id}", f"Linked Account: {account_id}",
             f"Delivery Option: {delivery_option}", f"Card Design: {card_design}", f"Shipping Address: {shipping_address}",
             f"Expected Delivery: {DELIVERY[delivery_option]}", "",
             "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card."]
    if total > 0:
        parts += [f"Total Fees: ${total:.2f} ({_fees(delivery_fee, design_fee, excess, ': ')}) - CHARGED to account "
                  f"{account_id}", f"New Account Balance: ${holdings - total:.2f}"]
    else:
        parts.append("Total Fees: $0 (No additional charges)")
    return "\n".join(parts)


ORDER_TOOLS: dict[str, Tool] = {"order_debit_card_5739": Tool(order_debit_card_5739, mutates=True)}
