"""τ² banking's discoverable agent tools for debit-card PINs, account credits, transfers and interest
reports (upstream's KnowledgeTools methods of the same names; checks and texts as upstream's)."""

from __future__ import annotations

from gym.episodes.tau2.banking.accounts import account_balance
from gym.episodes.tau2.banking.db import TODAY, deterministic_id, find, table
from gym.episodes.tau2.domain import Tool

SEQUENTIAL_PINS = ("0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654", "6543", "5432",
                   "4321", "3210")
SECURITY = ["", "The new PIN is effective immediately."]
REMINDER = ["Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
            "Security reminder: Never share your PIN with anyone."]


def pin_problem(pin: str) -> str | None:
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


def reset_debit_card_pin_6284(db: dict, card_id: str, last_4_digits: str, new_pin: str) -> str:
    if not all([card_id, last_4_digits, new_pin]):
        return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
    if not last_4_digits.isdigit() or len(last_4_digits) != 4:
        return "Error: Last 4 digits must be exactly 4 digits."
    problem = pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    if card.get("last_4_digits") != last_4_digits:
        return "Error: Card verification failed. The last 4 digits do not match our records."
    if card.get("status") != "ACTIVE":
        return (f"Error: Cannot reset PIN. Card status is {card.get('status')}. "
                "Only ACTIVE cards can have their PIN reset.")
    card.update(pin_last_changed=TODAY, pin_locked=False, pin_attempts_remaining=3)
    return "\n".join(["Debit Card PIN Reset Successfully", f"Card ID: {card_id}", f"PIN Changed: {TODAY}", *SECURITY,
                      "Your card has been unlocked and is ready to use.", *REMINDER])


def change_debit_card_pin_6285(db: dict, card_id: str, current_pin: str, new_pin: str) -> str:
    if not all([card_id, current_pin, new_pin]):
        return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
    if not current_pin.isdigit() or len(current_pin) != 4:
        return "Error: Current PIN must be exactly 4 digits."
    problem = pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    if current_pin == new_pin:
        return "Error: New PIN must be different from current PIN."
    card, missing = find(db, "debit_cards", card_id)
    if missing:
        return missing
    if card.get("status") != "ACTIVE":
        return (f"Error: Cannot change PIN. Card status is {card.get('status')}. "
                "Only ACTIVE cards can have their PIN changed.")
    card["pin_last_changed"] = TODAY
    return "\n".join(["Debit Card PIN Changed Successfully", f"Card ID: {card_id}", f"PIN Changed: {TODAY}", *SECURITY,
                      *REMINDER])


def post_credit(db: dict, account: dict, account_id: str, amount: float, credit_type: str, seed: str,
                description: str, holdings_prefix: str) -> str:
    """Credit an account and record the transaction, as upstream's two credit tools do (upstream writes a
    checking balance with "$" and a savings balance without)."""
    before = account_balance(account)
    after = before + amount
    account["current_holdings"] = f"{holdings_prefix}{after:.2f}"
    transaction_id = f"txn_{deterministic_id(f'{seed}:{account_id}:{credit_type}:{amount}:{TODAY}')}"
    table(db, "bank_account_transaction_history")[transaction_id] = {
        "transaction_id": transaction_id, "account_id": account_id, "date": TODAY,
        "description": description, "amount": amount, "type": credit_type, "status": "posted"}
    return (f"\nCredit applied successfully!\n  - Transaction ID: {transaction_id}\n  - Account: {account_id}\n"
            f"  - Credit Type: {credit_type}\n  - Amount: ${amount:.2f}\n  - Previous Balance: ${before:.2f}\n"
            f"  - New Balance: ${after:.2f}")


CHECKING_CREDITS = {"rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE", "fee_refund": "FEE REFUND - CUSTOMER SERVICE"}
SAVINGS_CREDITS = {"interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
                   "fee_refund": "FEE REFUND - CUSTOMER SERVICE", "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE"}


def credit_account(db: dict, account_id: str, amount: float, credit_type: str, credits: dict[str, str],
                   classes: tuple[str, ...], wrong_class: str, seed: str, holdings_prefix: str) -> str:
    """Upstream's checking and savings credit tools: one set of checks, in their order (`credits`: the credit
    types the tool takes and their transaction descriptions; `classes`: the account classes it applies to)."""
    if not account_id or amount is None or not credit_type:
        return "Error: Missing required parameters."
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        return "Error: Invalid credit amount. Must be a number."
    if amount <= 0:
        return "Error: Credit amount must be positive."
    if credit_type not in credits:
        return f"Error: Invalid credit_type. Must be one of: {list(credits)}"
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    if account.get("class", "").lower() not in classes:
        return f"Error: Account '{account_id}' is {wrong_class}"
    if account.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Account '{account_id}' is not active."
    return post_credit(db, account, account_id, amount, credit_type, seed, credits[credit_type], holdings_prefix)


def apply_checking_account_credit_5829(db: dict, account_id: str, amount: float, credit_type: str) -> str:
    return credit_account(db, account_id, amount, credit_type, CHECKING_CREDITS, ("checking",),
                          "not a checking account. Credits can only be applied to checking accounts.",
                          "checking_credit", "$")


PIN_TOOLS: dict[str, Tool] = {
    "reset_debit_card_pin_6284": Tool(reset_debit_card_pin_6284, mutates=True),
    "change_debit_card_pin_6285": Tool(change_debit_card_pin_6285, mutates=True),
    "apply_checking_account_credit_5829": Tool(apply_checking_account_credit_5829, mutates=True),
}


def apply_savings_account_credit_6831(db: dict, account_id: str, amount: float, credit_type: str) -> str:
    return credit_account(db, account_id, amount, credit_type, SAVINGS_CREDITS, ("saving", "savings"),
                          "not a savings account. This tool only applies to savings accounts.", "savings_credit", "")


def submit_interest_discrepancy_report_7294(db: dict, account_id: str, user_id: str, expected_apy: float,
                                            actual_apy: float, amount_difference: float) -> str:
    if not account_id or not user_id or expected_apy is None or actual_apy is None or amount_difference is None:
        return "Error: Missing required parameters."
    try:
        expected_apy, actual_apy, amount_difference = float(expected_apy), float(actual_apy), float(amount_difference)
    except (ValueError, TypeError):
        return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
    account, missing = find(db, "accounts", account_id)
    if missing:
        return missing
    user, missing = find(db, "users", user_id, "User")
    if missing:
        return missing
    report_id = f"IDR_{deterministic_id(f'interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{TODAY}')}"
    # upstream adds the report to a table its database does not have: nothing is stored, as there
    level = account.get("level", "Unknown")
    return (f"\nInterest Discrepancy Report Submitted Successfully!\n  - Report ID: {report_id}\n"
            f"  - Account: {account_id} ({level})\n  - Customer: {user.get('name', 'Unknown')}\n"
            f"  - Expected APY: {expected_apy}%\n  - Actual APY: {actual_apy}%\n"
            f"  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
            f"  - Amount Difference: ${amount_difference:.2f}\n  - Status: PENDING_REVIEW\n"
            "\nThe backend team will investigate this discrepancy and ensure "
            "correct APY calculations are applied going forward.")


def transfer_funds_between_bank_accounts_7291(db: dict, source_account_id: str, destination_account_id: str,
                                              amount: float) -> str:
    if not source_account_id or not destination_account_id or amount is None:
        return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
    try:
        amount = float(amount)
    except (ValueError, TypeError):
        return f"Error: Invalid amount '{amount}'. Must be a number."
    if amount <= 0:
        return "Error: Transfer amount must be positive."
    if source_account_id == destination_account_id:
        return "Error: Source and destination accounts cannot be the same."
    accounts = table(db, "accounts")
    for role, key in (("Source", source_account_id), ("Destination", destination_account_id)):
        if key not in accounts:
            return f"Error: {role} account '{key}' not found."
    source, dest = accounts[source_account_id], accounts[destination_account_id]
    for role, key, account in (("Source", source_account_id, source), ("Destination", destination_account_id, dest)):
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: {role} account '{key}' is not active."
    held = account_balance(source)
    if held < amount:
        return (f"Error: Insufficient funds. Source account balance is ${held:.2f}, "
                f"but transfer amount is ${amount:.2f}.")
    new_source, new_dest = held - amount, account_balance(dest) + amount
    source["current_holdings"] = f"${new_source:.2f}"
    dest["current_holdings"] = f"${new_dest:.2f}"
    return (f"Transfer completed successfully!\n  - Amount: ${amount:.2f}\n"
            f"  - From: {source_account_id} (new balance: ${new_source:.2f})\n"
            f"  - To: {destination_account_id} (new balance: ${new_dest:.2f})")


PIN_TOOLS.update({
    "apply_savings_account_credit_6831": Tool(apply_savings_account_credit_6831, mutates=True),
    "submit_interest_discrepancy_report_7294": Tool(submit_interest_discrepancy_report_7294, mutates=True),
    "transfer_funds_between_bank_accounts_7291": Tool(transfer_funds_between_bank_accounts_7291, mutates=True),
})
