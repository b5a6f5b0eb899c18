"""τ²-bench's `telecom` domain, the agent's side: the carrier's customers, lines, plans, bills and devices.

Behaviour follows upstream's src/tau2/domains/telecom (tools.py, data_model.py). The tables are lists, as
upstream's; dates are kept as the text upstream's hash and tool outputs give them (`str()` of a date or a
datetime: "2025-02-25", "2025-01-20 14:30:00"). Today is fixed at 2025-02-25, as upstream's. A charge to a
customer without a draft bill opens one under a random id (`B` + 8 hex digits), as upstream does; such a
database never hashes the same twice (the tasks grade the phone, not the hash).
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any, Callable

from gym.episodes.tau2.records import REQUIRED, Record, Shape, list_of, to_float

TODAY = datetime.date(2025, 2, 25)
LINE_STATUSES = ("Active", "Suspended", "Pending Activation", "Closed")
BILL_STATUSES = ("Draft", "Issued", "Awaiting Payment", "Paid", "Overdue", "Disputed")


def choice(*values: str) -> Callable[[Any, str], str]:
    """An enum field: the value must be one of `values` (upstream's str Enums dump as their value)."""
    def convert(value: Any, where: str) -> str:
        if value not in values:
            raise ValueError(f"{where}: {value!r} is not one of {', '.join(values)}")
        return value
    return convert


def to_date(value: Any, where: str) -> str:
    try:
        return str(value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value)[:10]))
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not a date (YYYY-MM-DD)") from None


def to_datetime(value: Any, where: str) -> str:
    try:
        return str(value if isinstance(value, datetime.datetime) else datetime.datetime.fromisoformat(str(value)))
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not a date and time (YYYY-MM-DDTHH:MM:SS)") from None


ADDRESS = Shape("Address", (("street", REQUIRED), ("city", REQUIRED), ("state", REQUIRED), ("zip_code", REQUIRED)))
PLAN = Shape("Plan", (("plan_id", REQUIRED), ("name", REQUIRED), ("data_limit_gb", REQUIRED, to_float),
                      ("price_per_month", REQUIRED, to_float), ("data_refueling_price_per_gb", REQUIRED, to_float)))
DEVICE = Shape("Device", (("device_id", REQUIRED),
                          ("device_type", REQUIRED, choice("phone", "router", "tablet", "watch", "other")),
                          ("model", REQUIRED), ("imei", None), ("is_esim_capable", REQUIRED), ("activated", False),
                          ("activation_date", None, to_datetime), ("last_esim_transfer_date", None, to_datetime)))
LINE = Shape("Line", (("line_id", REQUIRED), ("phone_number", REQUIRED),
                      ("status", "Pending Activation", choice(*LINE_STATUSES)), ("plan_id", REQUIRED),
                      ("device_id", None), ("data_used_gb", 0.0, to_float), ("data_refueling_gb", 0.0, to_float),
                      ("roaming_enabled", False), ("contract_end_date", None, to_date),
                      ("last_plan_change_date", None, to_date), ("last_sim_replacement_date", None, to_date),
                      ("suspension_start_date", None, to_date)))
LINE_ITEM = Shape("LineItem", (("description", REQUIRED), ("amount", REQUIRED, to_float), ("date", REQUIRED, to_date),
                               ("item_type", REQUIRED)))
BILL = Shape("Bill", (("bill_id", REQUIRED), ("customer_id", REQUIRED), ("period_start", REQUIRED, to_date),
                      ("period_end", REQUIRED, to_date), ("issue_date", REQUIRED, to_date),
                      ("total_due", REQUIRED, to_float), ("due_date", REQUIRED, to_date),
                      ("line_items", [], list_of(LINE_ITEM)), ("status", "Draft", choice(*BILL_STATUSES))))
PAYMENT_METHOD = Shape("PaymentMethod", (("method_type", REQUIRED, choice("Credit Card", "Debit Card", "PayPal")),
                                         ("account_number_last_4", REQUIRED), ("expiration_date", REQUIRED)))
CUSTOMER = Shape("Customer", (
    ("customer_id", REQUIRED), ("full_name", REQUIRED), ("date_of_birth", REQUIRED), ("email", REQUIRED),
    ("phone_number", REQUIRED), ("address", REQUIRED, ADDRESS),
    ("account_status", "Pending Verification", choice("Active", "Suspended", "Pending Verification", "Closed")),
    ("payment_methods", [], list_of(PAYMENT_METHOD)), ("line_ids", []), ("bill_ids", []),
    ("created_at", "2025-01-01", to_datetime),  # upstream's default is a date, dumped without a time
    ("last_extension_date", None, to_date), ("goodwill_credit_used_this_year", 0.0, to_float)))
TABLES = {"plans": PLAN, "customers": CUSTOMER, "lines": LINE, "bills": BILL, "devices": DEVICE}


def normalize_carrier(data: dict, where: str) -> dict:
    """The carrier database with every record made to its shape (tables are lists, in declared order)."""
    unknown = set(data) - set(TABLES)
    if unknown:
        raise ValueError(f"{where}: unknown table(s) {sorted(unknown)}")
    return {name: [shape.make(record, f"{where} {name}[{i}]") for i, record in enumerate(data.get(name) or [])]
            for name, shape in TABLES.items()}


def _find(db: dict, table: str, key: str, value: str, label: str) -> Record:
    for record in db[table]:
        if record[key] == value:
            return record
    raise ValueError(f"{label} {value} not found")


def line_by_id(db: dict, line_id: str) -> Record:
    return _find(db, "lines", "line_id", line_id, "Line with ID")


def line_by_phone(db: dict, phone_number: str) -> Record:
    return _find(db, "lines", "phone_number", phone_number, "Line with phone number")


def plan_by_id(db: dict, plan_id: str) -> Record:
    return _find(db, "plans", "plan_id", plan_id, "Plan with ID")


def bill_by_id(db: dict, bill_id: str) -> Record:
    return _find(db, "bills", "bill_id", bill_id, "Bill with ID")


def get_customer_by_id(db: dict, customer_id: str) -> Record:
    return _find(db, "customers", "customer_id", customer_id, "Customer with ID")


def get_customer_by_phone(db: dict, phone_number: str) -> Record:
    for customer in db["customers"]:
        if customer["phone_number"] == phone_number:
            return customer
        for line_id in customer["line_ids"]:
            if line_by_id(db, line_id)["phone_number"] == phone_number:
                return customer
    raise ValueError(f"Customer with phone number {phone_number} not found")


def get_customer_by_name(db: dict, full_name: str, dob: str) -> list:
    return [c for c in db["customers"] if c["full_name"].lower() == full_name.lower() and c["date_of_birth"] == dob]


def target_line(db: dict, customer_id: str, line_id: str) -> Record:
    if line_id not in get_customer_by_id(db, customer_id)["line_ids"]:
        raise ValueError(f"Line {line_id} not found for customer {customer_id}")
    return line_by_id(db, line_id)


def get_details_by_id(db: dict, id: str) -> Record:
    lookups = {"L": line_by_id, "D": lambda d, i: _find(d, "devices", "device_id", i, "Device with ID"),
               "B": bill_by_id, "C": get_customer_by_id, "P": plan_by_id}
    lookup = lookups.get(id[:1])
    if lookup is None:
        raise ValueError(f"Unknown ID format or type: {id}")
    return lookup(db, id)


def suspend_line(db: dict, customer_id: str, line_id: str, reason: str) -> dict:
    line = target_line(db, customer_id, line_id)
    if line["status"] != "Active":
        raise ValueError("Line must be active to suspend")
    line["status"] = "Suspended"
    line["suspension_start_date"] = str(TODAY)
    return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": line}


def resume_line(db: dict, customer_id: str, line_id: str) -> dict:
    line = target_line(db, customer_id, line_id)
    if line["status"] not in ("Suspended", "Pending Activation"):
        raise ValueError("Line must be suspended to resume")
    line["status"] = "Active"
    line["suspension_start_date"] = None
    return {"message": "Line resumed successfully", "line": line}


def get_bills_for_customer(db: dict, customer_id: str, limit: int = 12) -> list:
    bills = [bill_by_id(db, bill_id) for bill_id in get_customer_by_id(db, customer_id)["bill_ids"]]
    return sorted(bills, key=lambda bill: bill["issue_date"], reverse=True)[:limit]


def bills_awaiting_payment(db: dict, customer: dict) -> list:
    return [bill for bill in map(lambda b: bill_by_id(db, b), customer["bill_ids"]) if bill["status"] == "Awaiting Payment"]


def send_payment_request(db: dict, customer_id: str, bill_id: str) -> str:
    customer = get_customer_by_id(db, customer_id)
    if bills_awaiting_payment(db, customer):
        raise ValueError("A bill is already awaiting payment for this customer")
    if bill_id not in customer["bill_ids"]:
        raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
    bill = bill_by_id(db, bill_id)
    bill["status"] = "Awaiting Payment"
    return f"Payment request sent to the customer for bill {bill['bill_id']}"


def _first_of_next_month(day: datetime.date) -> datetime.date:
    return (day.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)


def _apply_one_time_charge(db: dict, customer_id: str, amount: float, description: str) -> None:
    customer = get_customer_by_id(db, customer_id)
    draft = next((bill for bill in map(lambda b: bill_by_id(db, b), customer["bill_ids"]) if bill["status"] == "Draft"),
                 None)
    if draft is None:
        start = _first_of_next_month(TODAY)
        draft = BILL.make({"bill_id": f"B{uuid.uuid4().hex[:8]}", "customer_id": customer_id,
                           "period_start": str(start),
                           "period_end": str(_first_of_next_month(start) - datetime.timedelta(days=1)),
                           "issue_date": str(start), "total_due": 0.0,
                           "due_date": str(start + datetime.timedelta(days=14)), "status": "Draft"}, "draft bill")
        db["bills"].append(draft)
        customer["bill_ids"].append(draft["bill_id"])
    draft["line_items"].append(LINE_ITEM.make({"description": description, "amount": amount, "date": str(TODAY),
                                               "item_type": "Credit" if amount < 0 else "Charge"}, "line item"))
    draft["total_due"] += amount


def get_data_usage(db: dict, customer_id: str, line_id: str) -> dict:
    line = target_line(db, customer_id, line_id)
    plan = plan_by_id(db, line["plan_id"])
    cycle_end = _first_of_next_month(TODAY) - datetime.timedelta(days=1)
    return {"line_id": line_id, "data_used_gb": line["data_used_gb"], "data_limit_gb": plan["data_limit_gb"],
            "data_refueling_gb": line["data_refueling_gb"], "cycle_end_date": str(cycle_end)}


def set_data_usage(db: dict, customer_id: str, line_id: str, data_used_gb: float) -> str:
    target_line(db, customer_id, line_id)["data_used_gb"] = data_used_gb  # assigned as given, as upstream
    return f"Data usage set to {data_used_gb} GB for line {line_id}"


def enable_roaming(db: dict, customer_id: str, line_id: str) -> str:
    line = target_line(db, customer_id, line_id)
    if line["roaming_enabled"]:
        return "Roaming was already enabled"
    line["roaming_enabled"] = True
    return "Roaming enabled successfully"


def disable_roaming(db: dict, customer_id: str, line_id: str) -> str:
    line = target_line(db, customer_id, line_id)
    if not line["roaming_enabled"]:
        return "Roaming was already disabled"
    line["roaming_enabled"] = False
    return "Roaming disabled successfully"


def transfer_to_human_agents(db: dict, summary: str) -> str:
    return "Transfer successful"


def refuel_data(db: dict, customer_id: str, line_id: str, gb_amount: float) -> dict:
    line = target_line(db, customer_id, line_id)
    if gb_amount <= 0:
        raise ValueError("Refuel amount must be positive")
    plan = plan_by_id(db, line["plan_id"])
    price = plan["data_refueling_price_per_gb"]
    charge = gb_amount * price
    line["data_refueling_gb"] += gb_amount
    _apply_one_time_charge(db, customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
    return {"message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
            "new_data_refueling_gb": line["data_refueling_gb"], "charge": charge}


def suspend_line_for_overdue_bill(db: dict, customer_id: str, line_id: str, new_bill_id: str,
                                  contract_ended: bool) -> str:
    """A task's set-up: an overdue bill for last month's plan charge, and the line suspended for it."""
    line = line_by_id(db, line_id)
    if line["status"] != "Active":
        raise ValueError("Line must be active to suspend for unpaid bill")
    amount = plan_by_id(db, line["plan_id"])["price_per_month"]
    if amount <= 0:
        raise ValueError("Amount must be positive for overdue bill")
    customer = get_customer_by_id(db, customer_id)
    if any(bill_by_id(db, b)["status"] == "Overdue" for b in customer["bill_ids"]):
        raise ValueError("Customer already has an overdue bill")
    last_month_end = TODAY.replace(day=1) - datetime.timedelta(days=1)
    last_month_start = last_month_end.replace(day=1)
    bill = BILL.make({"bill_id": new_bill_id, "customer_id": customer_id, "period_start": str(last_month_start),
                      "period_end": str(last_month_end), "issue_date": str(last_month_start), "total_due": 0.0,
                      "due_date": str(last_month_start + datetime.timedelta(days=14)), "status": "Overdue"}, "bill")
    bill["line_items"].append(LINE_ITEM.make({"description": f"Charge for line {line['line_id']}", "amount": amount,
                                              "date": str(TODAY), "item_type": "Charge"}, "line item"))
    bill["total_due"] += amount
    db["bills"].append(bill)
    customer["bill_ids"].append(new_bill_id)
    line["status"] = "Suspended"
    line["suspension_start_date"] = str(TODAY)
    if contract_ended:
        line["contract_end_date"] = str(last_month_end)
    return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"


def assert_data_refueling_amount(db: dict, customer_id: str, line_id: str, expected_amount: float) -> bool:
    return abs(target_line(db, customer_id, line_id)["data_refueling_gb"] - expected_amount) < 1e-6


def assert_line_status(db: dict, customer_id: str, line_id: str, expected_status: str) -> bool:
    return target_line(db, customer_id, line_id)["status"] == expected_status


def assert_overdue_bill_exists(db: dict, customer_id: str, overdue_bill_id: str) -> bool:
    if overdue_bill_id not in get_customer_by_id(db, customer_id)["bill_ids"]:
        raise ValueError(f"Overdue bill {overdue_bill_id} not found")
    if bill_by_id(db, overdue_bill_id)["status"] != "Overdue":
        raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
    return True


def assert_no_overdue_bill(db: dict, overdue_bill_id: str) -> bool:
    try:
        return bill_by_id(db, overdue_bill_id)["status"] == "Paid"
    except ValueError:
        return True  # no such bill: nothing overdue


READS = {"get_customer_by_phone": get_customer_by_phone, "get_customer_by_id": get_customer_by_id,
         "get_customer_by_name": get_customer_by_name, "get_details_by_id": get_details_by_id,
         "get_bills_for_customer": get_bills_for_customer, "get_data_usage": get_data_usage,
         "transfer_to_human_agents": transfer_to_human_agents}
WRITES = {"suspend_line": suspend_line, "resume_line": resume_line, "send_payment_request": send_payment_request,
          "enable_roaming": enable_roaming, "disable_roaming": disable_roaming, "refuel_data": refuel_data}
HELPERS = {"set_data_usage": set_data_usage, "suspend_line_for_overdue_bill": suspend_line_for_overdue_bill,
           "assert_data_refueling_amount": assert_data_refueling_amount, "assert_line_status": assert_line_status,
           "assert_overdue_bill_exists": assert_overdue_bill_exists, "assert_no_overdue_bill": assert_no_overdue_bill,
           "get_available_plan_ids": lambda db: [plan["plan_id"] for plan in db["plans"]]}
