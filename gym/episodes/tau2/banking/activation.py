"""τ² banking's debit-card activation tools (upstream's activate_debit_card_8291/8292/8293: new, replacement
and reissued cards, one shared set of checks, and what activating does to the account's other cards), and
its tools that clear fraud alerts and raise a card's daily limit for a day."""

from __future__ import annotations

from gym.episodes.tau2.banking.cards import closed_account_error, status_error
from gym.episodes.tau2.banking.db import TODAY, find, table
from gym.episodes.tau2.banking.pins import pin_problem
from gym.episodes.tau2.domain import Tool

# issue reason -> the activation tool for it
TOOL_FOR = {"new_account": "activate_debit_card_8291", "first_card": "activate_debit_card_8291",
            "lost": "activate_debit_card_8292", "stolen": "activate_debit_card_8292", "fraud": "activate_debit_card_8292",
            "expired": "activate_debit_card_8293", "damaged": "activate_debit_card_8293",
            "upgrade": "activate_debit_card_8293", "bank_reissue": "activate_debit_card_8293"}


def _checked(db: dict, name: str, card_id: str, last_4_digits: str, expiration_date: str, cvv: str,
             pin: str) -> tuple[str | None, dict | None]:
    if not all([card_id, last_4_digits, expiration_date, cvv, pin]):
        return "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.", None
    problem = pin_problem(pin)
    if problem:
        return f"Error: {problem}", None
    if not cvv.isdigit() or len(cvv) != 3:
        return "Error: CVV must be exactly 3 digits.", None
    if not last_4_digits.isdigit() or len(last_4_digits) != 4:
        return "Error: Last 4 digits must be exactly 4 digits.", None
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing, None
    reason = card.get("issue_reason", "new_account")
    if TOOL_FOR.get(reason) != name:
        return (f"Error: Wrong activation tool. This card has issue_reason='{reason}'. Please use "
                f"{TOOL_FOR.get(reason, 'unknown')} instead of {name}.", None)
    refused = status_error(card_id, card, "activated", "PENDING", "ACTIVE")
    if refused:
        return refused, None
    if card.get("last_4_digits") != last_4_digits:
        return "Error: Card verification failed. The last 4 digits do not match our records.", None
    return closed_account_error(db, card, "activated"), card


def _activate(db: dict, card_id: str, card: dict, status: str, changes: dict) -> list[str]:
    """Activate the card; the account's other active cards take `status` and `changes`; their ids."""
    card.update(status="ACTIVE", activated_date=TODAY)
    others = []
    for other_id, other in table(db, "debit_cards").items():
        if other_id != card_id and other.get("account_id") == card.get("account_id") and other.get("status") == "ACTIVE":
            other.update(status=status, **changes)
            others.append(other_id)
    return others


def activate_debit_card_8291(db: dict, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
    error, card = _checked(db, "activate_debit_card_8291", card_id, last_4_digits, expiration_date, cvv, pin)
    if error:
        return error
    others = _activate(db, card_id, card, "DEACTIVATED",
                       {"deactivated_date": TODAY, "deactivation_reason": "New card activated"})
    parts = ["New Debit Card Activation Successful", f"Card ID: {card_id}", "Status: ACTIVE", f"Activation Date: {TODAY}",
             "", "Your card is now ready to use at any ATM or point of sale terminal.",
             "For security, please sign the back of your card."]
    if others:
        parts.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(others)}")
    return "\n".join(parts)


def activate_debit_card_8292(db: dict, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
    error, card = _checked(db, "activate_debit_card_8292", card_id, last_4_digits, expiration_date, cvv, pin)
    if error:
        return error
    reason = card.get("issue_reason", "lost")
    others = _activate(db, card_id, card, "DEACTIVATED", {"deactivated_date": TODAY,
                                                          "deactivation_reason": f"Replacement card activated ({reason})"})
    parts = ["Replacement Debit Card Activation Successful", f"Card ID: {card_id}",
             f"Replacement Reason: {reason.replace('_', ' ').title()}", "Status: ACTIVE", f"Activation Date: {TODAY}", "",
             "Your replacement card is now ready to use.", "", "IMPORTANT SECURITY REMINDERS:",
             "- Please review your recent transactions for any unauthorized charges",
             "- Report any suspicious activity immediately"]
    if reason == "fraud":
        parts.append("- Since fraud was suspected, we recommend changing your online banking password")
    if others:
        parts.append(f"\nPrevious card(s) have been deactivated for security: {', '.join(others)}")
    return "\n".join(parts)


def activate_debit_card_8293(db: dict, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
    error, card = _checked(db, "activate_debit_card_8293", card_id, last_4_digits, expiration_date, cvv, pin)
    if error:
        return error
    reason = card.get("issue_reason", "expired")
    others = _activate(db, card_id, card, "GRACE_PERIOD", {"grace_period_ends": TODAY,
                                                           "deactivation_reason": f"Reissued card activated ({reason})"})
    parts = ["Reissued Debit Card Activation Successful", f"Card ID: {card_id}",
             f"Reissue Reason: {reason.replace('_', ' ').title()}", "Status: ACTIVE", f"Activation Date: {TODAY}", "",
             "Your reissued card is now ready to use."]
    if others:
        parts += [f"\nNote: Your previous card(s) ({', '.join(others)}) will remain active for 24 hours as a grace period.",
                  "After 24 hours, the old card(s) will be automatically deactivated."]
    if reason in ("expired", "bank_reissue"):
        parts.append("\nReminder: If your card number changed, please update any recurring payments with your new "
                     "card details.")
    return "\n".join(parts)


ACTIVATION_TOOLS: dict[str, Tool] = {
    name: Tool(fn, mutates=True) for name, fn in (("activate_debit_card_8291", activate_debit_card_8291),
                                                  ("activate_debit_card_8292", activate_debit_card_8292),
                                                  ("activate_debit_card_8293", activate_debit_card_8293))}


def clear_debit_card_fraud_alert_4892(db: dict, card_id: str, reason: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not reason:
        return "Error: Missing required parameter: reason."
    if reason not in ("customer_verified", "velocity_clear"):
        return f"Error: Invalid reason '{reason}'. Must be one of: customer_verified, velocity_clear"
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    if reason == "velocity_clear":
        if not card.get("velocity_blocked", False):
            return f"Error: Debit card '{card_id}' does not have an active velocity block."
        card.update(velocity_blocked=False, velocity_cleared_date=TODAY)
        return "\n".join(["Velocity Block Cleared Successfully", f"Card ID: {card_id}", f"Cleared Date: {TODAY}", "",
                          "The card is now unblocked and ready for normal use.",
                          "The velocity monitoring will continue - if the same unusual patterns recur,",
                          "the card may be blocked again automatically."])
    if not card.get("fraud_alert_active", False):
        return f"Error: Debit card '{card_id}' does not have an active fraud alert."
    if card.get("alert_source") == "bank_initiated":
        return ("Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system and "
                "cannot be cleared by customer service agents. Please transfer the customer to the security team using "
                "transfer_to_human_agents.")
    card.update(fraud_alert_active=False, alert_source=None, fraud_alert_cleared_date=TODAY)
    return "\n".join(["Fraud Alert Cleared Successfully", f"Card ID: {card_id}", f"Cleared Date: {TODAY}", "",
                      "The fraud alert has been removed from the card.", "All transactions will process normally.", "",
                      "Remind the customer to review recent transactions and report any unauthorized charges."])


DEFAULT_ATM_LIMITS = {"blue account": 500, "green account": 600, "light blue account": 400,
                      "green fee-free account": 500, "evergreen account": 750, "bluest account": 1500,
                      "dark green account": 300, "gold years account": 600, "purple account": 1000}
TEEN_LIMIT = ("Error: Light Green Account (teen checking) cards have policy-based limits that cannot be modified. The "
              "daily ATM withdrawal limit of $150 is fixed by account policy for safety reasons. The customer may "
              "request the parent/guardian to withdraw cash from their own account if needed.")


def _current_limit(card: dict, account: dict, limit_type: str) -> tuple[object, str]:
    """(the card's current limit, or an error text; the limit's name)."""
    if limit_type != "atm":
        return card.get("daily_purchase_limit"), "Daily Purchase Limit"
    current = card.get("daily_atm_limit")
    if current is None:
        level = account.get("level", "").lower()
        if "light green" in level:
            return TEEN_LIMIT, ""
        current = DEFAULT_ATM_LIMITS.get(level)
        if current is None:
            return (f"Error: Could not determine the default ATM limit for account type '{account.get('level')}'. "
                    "Please verify the account type."), ""
    return current, "Daily ATM Withdrawal Limit"


def request_temporary_debit_card_limit_increase_8374(db: dict, card_id: str, limit_type: str, new_limit: int) -> str:
    from datetime import datetime

    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not limit_type:
        return "Error: Missing required parameter: limit_type."
    if limit_type not in ("atm", "purchase"):
        return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
    if new_limit is None:
        return "Error: Missing required parameter: new_limit."
    try:
        new_limit = float(new_limit)
    except (ValueError, TypeError):
        return f"Error: new_limit must be an integer, got '{new_limit}'."
    if not new_limit.is_integer():
        return f"Error: new_limit must be an integer, got '{new_limit}'."
    new_limit = int(new_limit)
    if new_limit <= 0:
        return "Error: new_limit must be a positive amount."
    accounts = table(db, "accounts")
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    if card.get("status") != "ACTIVE":
        return (f"Error: Debit card '{card_id}' is not active. Current status: {card.get('status')}. "
                "Only ACTIVE cards can have limit increases.")
    account_id = card.get("account_id")
    if not account_id or account_id not in accounts:
        return f"Error: Could not find linked account for debit card '{card_id}'."
    account = accounts[account_id]
    if account.get("status") != "OPEN":
        return (f"Error: The linked account '{account_id}' is not in good standing. "
                f"Account status: {account.get('status')}.")
    if account.get("date_opened"):
        try:
            age = (datetime.strptime(TODAY, "%m/%d/%Y") - datetime.strptime(account["date_opened"], "%m/%d/%Y")).days
            if age < 60:
                return (f"Error: Account must be at least 60 days old for a temporary limit increase. "
                        f"Account age: {age} days.")
        except ValueError:
            pass
    current, name = _current_limit(card, account, limit_type)
    if isinstance(current, str):
        return current
    if current is None:
        return (f"Error: The card does not have a {name.lower()} configured. This may be a restricted account type "
                "where limits are set by account policy and cannot be modified.")
    highest = int(current * 1.5)
    if new_limit > highest:
        return (f"Error: Requested limit ${new_limit} exceeds the maximum allowed temporary increase. Maximum "
                f"temporary limit is ${highest} (150% of current ${current} limit).")
    if new_limit <= current:
        return f"Error: Requested limit ${new_limit} is not higher than the current limit of ${current}."
    field = "daily_atm_limit" if limit_type == "atm" else "daily_purchase_limit"
    card[field] = new_limit
    card.update({f"temporary_{limit_type}_limit_increase": True, f"original_{limit_type}_limit": current,
                 f"temporary_{limit_type}_limit_expires": TODAY})
    return "\n".join([
        f"Temporary {name} Increase Granted Successfully", f"Card ID: {card_id}", f"Previous Limit: ${current}",
        f"New Temporary Limit: ${new_limit}", f"Increase Amount: ${new_limit - current}", "", "Important Information:",
        "- This temporary increase expires in 24 hours", f"- After expiration, the limit will revert to ${current}",
        "- Only one temporary increase is allowed per 24-hour period", "",
        "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
        "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
        "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs."])


ACTIVATION_TOOLS.update({
    "clear_debit_card_fraud_alert_4892": Tool(clear_debit_card_fraud_alert_4892, mutates=True),
    "request_temporary_debit_card_limit_increase_8374": Tool(request_temporary_debit_card_limit_increase_8374,
                                                             mutates=True),
})


def set_debit_card_recurring_block_7382(db: dict, card_id: str, block_recurring: bool) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id"
    card = table(db, "debit_cards").get(card_id)
    if not card:
        return f"Error: Debit card '{card_id}' not found."
    status = card.get("status", "").upper()
    if status != "ACTIVE":
        return f"Error: Cannot update recurring block settings for a card with status '{status}'. Card must be ACTIVE."
    card["recurring_blocked"] = block_recurring
    if block_recurring:
        return (f"Recurring payments BLOCKED for debit card {card_id}.\nAll recurring/subscription charges will be "
                "declined.\nOne-time purchases are not affected.\nThis change takes effect within 24 hours.")
    return (f"Recurring payments UNBLOCKED for debit card {card_id}.\nRecurring/subscription charges will now be "
            "allowed.\nThis change takes effect within 24 hours.")


def get_atm_deposit_images_8473(db: dict, transaction_id: str) -> str:
    from gym.episodes.tau2.banking.scans import SCANS

    if not transaction_id:
        return "Error: Missing required parameter: transaction_id"
    txn, missing = find(db, "bank_account_transaction_history", transaction_id, "Transaction")
    if missing:
        return missing
    if txn.get("type") != "atm_deposit":
        return (f"Error: Transaction '{transaction_id}' is not an ATM deposit. "
                "This tool only works for ATM deposit transactions.")
    description = txn.get("description", "")
    if "RHO-BANK" not in description.upper() and "RHOBANK" not in description.upper():
        return (f"Error: Transaction '{transaction_id}' is from a third-party ATM. Deposit images are only available "
                "for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be submitted to "
                "the ATM network.")
    head = f"ATM Deposit Image Retrieval Results\n=====================================\nTransaction ID: {transaction_id}\n"
    if transaction_id in SCANS:
        atm, scan, notes = SCANS[transaction_id]
        return (f"{head}ATM: {atm}\nDeposit Date: {txn.get('date', 'Unknown')}\n\n{scan}\n\n"
                f"--- VERIFICATION NOTES ---\n{notes}\n")
    return (f"{head}ATM: {description}\nDeposit Date: {txn.get('date', 'Unknown')}\n"
            f"Amount Recorded: ${abs(txn.get('amount', 0)):.2f}\n\n--- IMAGE STATUS ---\nStatus: IMAGES NOT AVAILABLE\n"
            "Reason: Deposit images for this transaction have either expired (older than 90 days) or were not captured "
            "by the ATM system.\n\nFor deposits without available images, the dispute will proceed based on customer "
            "statement and ATM journal records only. Investigation timeline may be extended.\n")


ACTIVATION_TOOLS.update({
    "set_debit_card_recurring_block_7382": Tool(set_debit_card_recurring_block_7382, mutates=True),
    "get_atm_deposit_images_8473": Tool(get_atm_deposit_images_8473),
})
