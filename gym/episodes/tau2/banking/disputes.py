"""τ² banking's discoverable agent tools for credit-card disputes and replacement cards (upstream's
KnowledgeTools methods of the same names; checks, record fields and texts as upstream's)."""

from __future__ import annotations

from gym.episodes.tau2.banking.db import TODAY, add, by_field, deterministic_id, table
from gym.episodes.tau2.domain import Tool

CARD_ACTIONS = ["keep_active", "cancel_and_reissue"]
DISPUTE_REASONS = ["unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount",
                   "goods_services_not_received", "goods_services_not_as_described",
                   "canceled_subscription_still_charging", "refund_never_processed"]
RESOLUTIONS = ["full_refund", "partial_refund"]
REPLACEMENT_REASONS = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]


def _title(code: str) -> str:
    return code.replace("_", " ").title()


def file_credit_card_transaction_dispute_4829(
        db: dict, transaction_id: str, card_action: str, card_last_4_digits: str, full_name: str, user_id: str,
        phone: str, email: str, address: str, contacted_merchant: bool, purchase_date: str, issue_noticed_date: str,
        dispute_reason: str, resolution_requested: str, eligible_for_provisional_credit: bool,
        partial_refund_amount: float | None = None) -> str:
    if not transaction_id or not user_id:
        return "Error: Missing required parameters."
    if card_action not in CARD_ACTIONS:
        return f"Error: Invalid card_action. Must be one of: {CARD_ACTIONS}"
    if dispute_reason not in DISPUTE_REASONS:
        return f"Error: Invalid dispute_reason. Must be one of: {DISPUTE_REASONS}"
    if resolution_requested not in RESOLUTIONS:
        return f"Error: Invalid resolution_requested. Must be one of: {RESOLUTIONS}"
    if resolution_requested == "partial_refund" and partial_refund_amount is None:
        return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
    dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
    record = {"dispute_id": dispute_id, "transaction_id": transaction_id, "user_id": user_id, "card_action": card_action,
              "card_last_4_digits": card_last_4_digits, "full_name": full_name, "phone": phone, "email": email,
              "address": address, "contacted_merchant": contacted_merchant, "purchase_date": purchase_date,
              "issue_noticed_date": issue_noticed_date, "dispute_reason": dispute_reason,
              "resolution_requested": resolution_requested, "partial_refund_amount": partial_refund_amount,
              "eligible_for_provisional_credit": eligible_for_provisional_credit,
              "provisional_credit_given": eligible_for_provisional_credit, "submitted_at": TODAY, "status": "SUBMITTED"}
    if not add(db, "transaction_disputes", dispute_id, record):
        return "Error: Dispute may have already been filed for this transaction."
    parts = ["Credit card transaction dispute filed successfully. A case has been opened and will be reviewed "
             "within 10 business days.", "", "Executed: file_credit_card_transaction_dispute_4829",
             f"Dispute ID: {dispute_id}", f"Transaction: {transaction_id}", f"Reason: {_title(dispute_reason)}",
             f"Resolution Requested: {_title(resolution_requested)}"]
    if partial_refund_amount:
        parts.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
    parts.append("Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days."
                 if eligible_for_provisional_credit else "Provisional Credit: Not eligible at this time.")
    return "\n".join(parts)


def order_replacement_credit_card_7291(db: dict, credit_card_account_id: str, user_id: str, shipping_address: str,
                                       reason: str, expedited_shipping: bool = False) -> str:
    if not credit_card_account_id or not user_id or not shipping_address or not reason:
        return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
    if reason not in REPLACEMENT_REASONS:
        return f"Error: Invalid reason. Must be one of: {REPLACEMENT_REASONS}"
    if "No records found" in by_field(db, "credit_card_accounts", "account_id", credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    order_id = f"ccord_{deterministic_id(f'credit_card_order:{credit_card_account_id}:{user_id}:{reason}', 12)}"
    record = {"order_id": order_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
              "shipping_address": shipping_address, "reason": reason, "expedited_shipping": expedited_shipping,
              "order_date": TODAY, "status": "ORDERED", "old_card_cancelled": True}
    if not add(db, "credit_card_orders", order_id, record):
        return "Error: Order may have already been placed for this card replacement."
    cards = table(db, "credit_card_accounts")
    if credit_card_account_id in cards:  # the old card is cancelled for security
        cards[credit_card_account_id].update(status="CLOSED", closed_date=TODAY)
    return "\n".join([
        f"Order ID: {order_id}", f"Card Account: {credit_card_account_id}", f"Reason: {_title(reason)}",
        f"Shipping Address: {shipping_address}", f"Shipping Method: {'Expedited' if expedited_shipping else 'Standard'}",
        f"Expected Delivery: {'2-3 business days' if expedited_shipping else '7-10 business days'}", "",
        "The old card has been cancelled for security. The new card will have the same account number but a new "
        "card number and CVV."])


DISPUTE_TOOLS: dict[str, Tool] = {
    "file_credit_card_transaction_dispute_4829": Tool(file_credit_card_transaction_dispute_4829, mutates=True),
    "order_replacement_credit_card_7291": Tool(order_replacement_credit_card_7291, mutates=True),
}


DEBIT_CATEGORIES = ["unauthorized_transaction", "atm_cash_discrepancy", "atm_deposit_not_credited", "duplicate_charge",
                    "incorrect_amount", "goods_services_not_received", "recurring_charge_after_cancellation",
                    "card_present_fraud", "card_not_present_fraud"]
FRAUD_CATEGORIES = ("unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")
TRANSACTION_TYPES = ["pin_purchase", "signature_purchase", "online_purchase", "atm_withdrawal", "atm_deposit",
                     "recurring_payment", "person_to_person"]
PIN_STATUSES = ["yes_shared", "yes_observed", "no", "unknown"]
DEBIT_CARD_ACTIONS = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]


def _debit_dispute_refused(a: dict) -> str | None:
    """Upstream's checks of a debit dispute's fields, in its order (None: the dispute can be filed)."""
    if not all(a[k] for k in ("transaction_id", "account_id", "card_id", "user_id", "dispute_category",
                              "transaction_date", "discovery_date", "disputed_amount", "transaction_type",
                              "pin_compromised", "card_action")):
        return "Error: Missing required parameters."
    if a["customer_max_liability_amount"] is None:
        return "Error: customer_max_liability_amount is required."
    if any(a[k] is None for k in ("card_in_possession", "contacted_merchant", "police_report_filed",
                                  "written_statement_provided")):
        return ("Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided "
                "are required boolean fields.")
    for field, allowed in (("dispute_category", DEBIT_CATEGORIES), ("transaction_type", TRANSACTION_TYPES),
                           ("pin_compromised", PIN_STATUSES), ("card_action", DEBIT_CARD_ACTIONS)):
        if a[field] not in allowed:
            return f"Error: Invalid {field}. Must be one of: {allowed}"
    if a["disputed_amount"] <= 0:
        return "Error: disputed_amount must be a positive number."
    return None


def file_debit_card_transaction_dispute_6281(
        db: dict, transaction_id: str, account_id: str, card_id: str, user_id: str, dispute_category: str,
        transaction_date: str, discovery_date: str, disputed_amount: float, transaction_type: str,
        card_in_possession: bool, pin_compromised: str, contacted_merchant: bool, police_report_filed: bool,
        written_statement_provided: bool, provisional_credit_eligible: bool, customer_max_liability_amount: float,
        card_action: str) -> str:
    fields = dict(locals())
    refused = _debit_dispute_refused(fields)
    if refused:
        return refused
    dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
    fraud = dispute_category in FRAUD_CATEGORIES
    pin_shared = pin_compromised == "yes_shared"
    record = {k: fields[k] for k in ("transaction_id", "account_id", "card_id", "user_id", "dispute_category",
                                     "transaction_date", "discovery_date", "disputed_amount", "transaction_type",
                                     "card_in_possession", "pin_compromised", "contacted_merchant",
                                     "police_report_filed", "written_statement_provided", "provisional_credit_eligible")}
    record = {"dispute_id": dispute_id, **record, "provisional_credit_issued": provisional_credit_eligible,
              "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
              "customer_max_liability_amount": customer_max_liability_amount, "card_action": card_action,
              "is_fraud_category": fraud, "pin_shared_voluntarily": pin_shared, "submitted_at": TODAY, "status": "OPEN"}
    if not add(db, "debit_card_disputes", dispute_id, record):
        return "Error: Dispute may have already been filed for this transaction."
    parts = [f"Dispute ID: {dispute_id}", f"Transaction: {transaction_id}", f"Account: {account_id}",
             f"Category: {_title(dispute_category)}", f"Disputed Amount: ${disputed_amount:.2f}",
             f"Card Action: {_title(card_action)}"]
    parts.append(f"Provisional Credit: ISSUED - ${disputed_amount:.2f} credited within 10 business days per Regulation E."
                 if provisional_credit_eligible else
                 "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.")
    if pin_shared:
        parts.append("WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.")
    if fraud and not police_report_filed and disputed_amount > 500:
        parts.append("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
    return "\n".join(parts)


DISPUTE_TOOLS["file_debit_card_transaction_dispute_6281"] = Tool(file_debit_card_transaction_dispute_6281, mutates=True)
