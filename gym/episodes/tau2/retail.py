"""τ²-bench's `retail` domain: products with variants, users with payment methods, orders.

Behaviour follows upstream's src/tau2/domains/retail (tools.py, data_model.py), including its quirks
(an items modification prices every new item at the last new variant's price; a return or exchange
checks item counts only). Pinned by tests that replay every fixture task's gold actions and compare
outputs, rewards and database hashes with values computed by upstream's code.
"""

from __future__ import annotations

import json

from gym.episodes.tau2.arithmetic import calculate
from gym.episodes.tau2.domain import Domain, Tool, Toolkit
from gym.episodes.tau2.records import REQUIRED, Record, Shape, dict_of, list_of, one_of, to_float

VARIANT = Shape("Variant", (("item_id", REQUIRED), ("options", REQUIRED), ("available", REQUIRED),
                            ("price", REQUIRED, to_float)))
PRODUCT = Shape("Product", (("name", REQUIRED), ("product_id", REQUIRED), ("variants", REQUIRED, dict_of(VARIANT))))
NAME = Shape("UserName", (("first_name", REQUIRED), ("last_name", REQUIRED)))
ADDRESS = Shape("UserAddress", tuple((field, REQUIRED) for field in
                                     ("address1", "address2", "city", "country", "state", "zip")))
PAYMENT_METHOD = one_of("source", {
    "credit_card": Shape("CreditCard", (("source", REQUIRED), ("id", REQUIRED), ("brand", REQUIRED),
                                        ("last_four", REQUIRED))),
    "gift_card": Shape("GiftCard", (("source", REQUIRED), ("id", REQUIRED), ("balance", REQUIRED, to_float))),
    "paypal": Shape("Paypal", (("source", REQUIRED), ("id", REQUIRED))),
})
USER = Shape("User", (("user_id", REQUIRED), ("name", REQUIRED, NAME), ("address", REQUIRED, ADDRESS),
                      ("email", REQUIRED), ("payment_methods", REQUIRED, dict_of(PAYMENT_METHOD)),
                      ("orders", REQUIRED)))
FULFILLMENT = Shape("OrderFullfilment", (("tracking_id", REQUIRED), ("item_ids", REQUIRED)))
ORDER_ITEM = Shape("OrderItem", (("name", REQUIRED), ("product_id", REQUIRED), ("item_id", REQUIRED),
                                 ("price", REQUIRED, to_float), ("options", REQUIRED)))
PAYMENT = Shape("OrderPayment", (("transaction_type", REQUIRED), ("amount", REQUIRED, to_float),
                                 ("payment_method_id", REQUIRED)))
ORDER = Shape("Order", (
    ("order_id", REQUIRED), ("user_id", REQUIRED), ("address", REQUIRED, ADDRESS),
    ("items", REQUIRED, list_of(ORDER_ITEM)), ("status", REQUIRED), ("fulfillments", REQUIRED, list_of(FULFILLMENT)),
    ("payment_history", REQUIRED, list_of(PAYMENT)), ("cancel_reason", None), ("exchange_items", None),
    ("exchange_new_items", None), ("exchange_payment_method_id", None),
    ("exchange_price_difference", None, to_float), ("return_items", None), ("return_payment_method_id", None)))
CANCEL_REASONS = ("no longer needed", "ordered by mistake")


def _order(db: dict, order_id: str) -> dict:
    if order_id not in db["orders"]:
        raise ValueError("Order not found")
    return db["orders"][order_id]


def _user(db: dict, user_id: str) -> dict:
    if user_id not in db["users"]:
        raise ValueError("User not found")
    return db["users"][user_id]


def _product(db: dict, product_id: str) -> dict:
    if product_id not in db["products"]:
        raise ValueError("Product not found")
    return db["products"][product_id]


def _variant(db: dict, product_id: str, variant_id: str) -> dict:
    product = _product(db, product_id)
    if variant_id not in product["variants"]:
        raise ValueError("Variant not found")
    return product["variants"][variant_id]


def _payment_method(db: dict, user_id: str, payment_method_id: str) -> dict:
    user = _user(db, user_id)
    if payment_method_id not in user["payment_methods"]:
        raise ValueError("Payment method not found")
    return user["payment_methods"][payment_method_id]


def _gift_card(method: dict) -> bool:
    return method.get("source") == "gift_card"


def _check_counts(order: dict, item_ids: list, message: str) -> None:
    present = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > present.count(item_id):
            raise ValueError(message.format(item_id=item_id))


def _price_difference(db: dict, order: dict, item_ids: list, new_item_ids: list, same_ok: bool) -> tuple:
    """(sum of new minus old prices, the last new variant) over the item pairs, checking each one."""
    difference, variant = 0, None
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        if not same_ok and item_id == new_item_id:
            raise ValueError("The new item id should be different from the old item id")
        item = next((i for i in order["items"] if i["item_id"] == item_id), None)
        if item is None:
            raise ValueError(f"Item {item_id} not found")
        variant = _variant(db, item["product_id"], new_item_id)
        if not variant["available"]:
            raise ValueError(f"New item {new_item_id} not found or available")
        difference += variant["price"] - item["price"]
    return difference, variant


def cancel_pending_order(db: dict, order_id: str, reason: str) -> Record:
    order = _order(db, order_id)
    if order["status"] != "pending":
        raise ValueError("Non-pending order cannot be cancelled")
    if reason not in CANCEL_REASONS:
        raise ValueError("Invalid reason")
    refunds = []
    for payment in order["payment_history"]:
        refunds.append(PAYMENT.make({"transaction_type": "refund", "amount": payment["amount"],
                                     "payment_method_id": payment["payment_method_id"]}))
        method = _payment_method(db, _user(db, order["user_id"])["user_id"], payment["payment_method_id"])
        if _gift_card(method):
            method["balance"] = round(method["balance"] + payment["amount"], 2)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return order


def exchange_delivered_order_items(db: dict, order_id: str, item_ids: list, new_item_ids: list,
                                   payment_method_id: str) -> Record:
    order = _order(db, order_id)
    if order["status"] != "delivered":
        raise ValueError("Non-delivered order cannot be exchanged")
    _check_counts(order, item_ids, "Number of {item_id} not found.")
    if len(item_ids) != len(new_item_ids):
        raise ValueError("The number of items to be exchanged should match.")
    difference = round(_price_difference(db, order, item_ids, new_item_ids, same_ok=True)[0], 2)
    method = _payment_method(db, order["user_id"], payment_method_id)
    if _gift_card(method) and method["balance"] < difference:
        raise ValueError("Insufficient gift card balance to pay for the price difference")
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = difference
    return order


def find_user_id_by_name_zip(db: dict, first_name: str, last_name: str, zip: str) -> str:
    for user_id, user in db["users"].items():
        if (user["name"]["first_name"].lower() == first_name.lower()
                and user["name"]["last_name"].lower() == last_name.lower() and user["address"]["zip"] == zip):
            return user_id
    raise ValueError("User not found")


def find_user_id_by_email(db: dict, email: str) -> str:
    for user_id, user in db["users"].items():
        if user["email"].lower() == email.lower():
            return user_id
    raise ValueError("User not found")


def get_item_details(db: dict, item_id: str) -> Record:
    for product in db["products"].values():
        if item_id in product["variants"]:
            return product["variants"][item_id]
    raise ValueError("Item not found")


def list_all_product_types(db: dict) -> str:
    return json.dumps({p["name"]: p["product_id"] for p in db["products"].values()}, sort_keys=True)


def _new_address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> Record:
    return ADDRESS.make({"address1": address1, "address2": address2, "city": city, "state": state,
                         "country": country, "zip": zip}, "address")


def modify_pending_order_address(db: dict, order_id: str, address1: str, address2: str, city: str, state: str,
                                 country: str, zip: str) -> Record:
    order = _order(db, order_id)
    if "pending" not in order["status"]:
        raise ValueError("Non-pending order cannot be modified")
    order["address"] = _new_address(address1, address2, city, state, country, zip)
    return order


def modify_pending_order_items(db: dict, order_id: str, item_ids: list, new_item_ids: list,
                               payment_method_id: str) -> Record:
    order = _order(db, order_id)
    if order["status"] != "pending":
        raise ValueError("Non-pending order cannot be modified")
    _check_counts(order, item_ids, "{item_id} not found")
    if len(item_ids) != len(new_item_ids):
        raise ValueError("The number of items to be exchanged should match")
    difference, variant = _price_difference(db, order, item_ids, new_item_ids, same_ok=False)
    method = _payment_method(db, order["user_id"], payment_method_id)
    if _gift_card(method) and method["balance"] < difference:
        raise ValueError("Insufficient gift card balance to pay for the new item")
    order["payment_history"].append(PAYMENT.make({"transaction_type": "payment" if difference > 0 else "refund",
                                                  "amount": abs(difference), "payment_method_id": payment_method_id}))
    if _gift_card(method):
        method["balance"] = round(method["balance"] - difference, 2)
    for item_id, new_item_id in zip(item_ids, new_item_ids):
        item = next((i for i in order["items"] if i["item_id"] == item_id), None)
        if item is None:
            raise ValueError(f"Item {item_id} not found")
        item["item_id"] = new_item_id
        item["price"] = variant["price"]  # upstream prices every item at the last variant's price
        item["options"] = variant["options"]
    order["status"] = "pending (item modified)"
    return order


def modify_pending_order_payment(db: dict, order_id: str, payment_method_id: str) -> Record:
    order = _order(db, order_id)
    if "pending" not in order["status"]:
        raise ValueError("Non-pending order cannot be modified")
    method = _payment_method(db, order["user_id"], payment_method_id)
    history = order["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise ValueError("There should be exactly one payment for a pending order")
    if history[0]["payment_method_id"] == payment_method_id:
        raise ValueError("The new payment method should be different from the current one")
    amount = history[0]["amount"]
    if _gift_card(method) and method["balance"] < amount:
        raise ValueError("Insufficient gift card balance to pay for the order")
    history.extend([PAYMENT.make({"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id}),
                    PAYMENT.make({"transaction_type": "refund", "amount": amount,
                                  "payment_method_id": history[0]["payment_method_id"]})])
    if _gift_card(method):
        method["balance"] = round(method["balance"] - amount, 2)
    old = _payment_method(db, order["user_id"], history[0]["payment_method_id"])
    if _gift_card(old):
        old["balance"] = round(old["balance"] + amount, 2)
    return order


def modify_user_address(db: dict, user_id: str, address1: str, address2: str, city: str, state: str, country: str,
                        zip: str) -> Record:
    user = _user(db, user_id)
    user["address"] = _new_address(address1, address2, city, state, country, zip)
    return user


def return_delivered_order_items(db: dict, order_id: str, item_ids: list, payment_method_id: str) -> Record:
    order = _order(db, order_id)
    if order["status"] != "delivered":
        raise ValueError("Non-delivered order cannot be returned")
    method = _payment_method(db, _user(db, order["user_id"])["user_id"], payment_method_id)
    if not _gift_card(method) and payment_method_id != order["payment_history"][0]["payment_method_id"]:
        raise ValueError("Payment method should be the original payment method")
    _check_counts(order, item_ids, "Some item not found")
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return order


def transfer_to_human_agents(db: dict, summary: str) -> str:
    return "Transfer successful"


def _read(fn):
    return Tool(fn)


def _write(fn):
    return Tool(fn, mutates=True)


DOMAIN = Domain(name="retail", agent=Toolkit(
    tables={"products": PRODUCT, "users": USER, "orders": ORDER},
    tools={
        "calculate": Tool(lambda db, expression: calculate(expression)),
        "cancel_pending_order": _write(cancel_pending_order),
        "exchange_delivered_order_items": _write(exchange_delivered_order_items),
        "find_user_id_by_name_zip": _read(find_user_id_by_name_zip),
        "find_user_id_by_email": _read(find_user_id_by_email),
        "get_order_details": _read(_order), "get_product_details": _read(_product),
        "get_item_details": _read(get_item_details), "get_user_details": _read(_user),
        "list_all_product_types": _read(list_all_product_types),
        "modify_pending_order_address": _write(modify_pending_order_address),
        "modify_pending_order_items": _write(modify_pending_order_items),
        "modify_pending_order_payment": _write(modify_pending_order_payment),
        "modify_user_address": _write(modify_user_address),
        "return_delivered_order_items": _write(return_delivered_order_items),
        "transfer_to_human_agents": _read(transfer_to_human_agents),
    }))
