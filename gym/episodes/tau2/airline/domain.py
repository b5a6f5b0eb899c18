"""τ²-bench's `airline` domain: flights with a status per date, users with payment methods and saved
passengers, reservations.

Behaviour follows upstream's src/tau2/domains/airline/tools.py, quirks included: cancelling refunds every
payment and releases no seats; changing flights releases and takes no seats either; a one-stop search
looks for the next day's leg at "2024-05-<day+1>" without zero-padding; new reservation ids are HATHAT,
HATHAU, HATHAV and new certificates certificate_3221322..4. Pinned by tests that replay every fixture
task's gold actions (and variants that must fail) and compare outputs, rewards and database hashes with
values computed by upstream's code.
"""

from __future__ import annotations

import copy

from gym.episodes.tau2.airline.records import (CERTIFICATE, FLIGHT_INFO_ARGS, PASSENGER, PASSENGER_ARGS, PAYMENT,
                                               PAYMENT_ARGS, RESERVATION, RESERVATION_ARGS, RESERVATION_FLIGHT, TABLES,
                                               as_models, attribute, direct_flights)
from gym.episodes.tau2.arithmetic import calculate
from gym.episodes.tau2.domain import Domain, Tool, Toolkit
from gym.episodes.tau2.records import Record
from gym.episodes.tau2.validation import build

NOW = "2024-05-15T15:00:00"  # upstream's fixed clock for new reservations
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_CERTIFICATE_NUMBERS = (3221322, 3221323, 3221324)
AIRPORTS = (("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"),
            ("DFW", "Dallas"), ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"),
            ("BOS", "Boston"), ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"),
            ("EWR", "Newark"), ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"),
            ("PHL", "Philadelphia"), ("LGA", "LaGuardia"))


def _user(db: dict, user_id: str) -> dict:
    if user_id not in db["users"]:
        raise ValueError(f"User {user_id} not found")
    return db["users"][user_id]


def _reservation(db: dict, reservation_id: str) -> dict:
    if reservation_id not in db["reservations"]:
        raise ValueError(f"Reservation {reservation_id} not found")
    return db["reservations"][reservation_id]


def _flight(db: dict, flight_number: str) -> dict:
    if flight_number not in db["flights"]:
        raise ValueError(f"Flight {flight_number} not found")
    return db["flights"][flight_number]


def _flight_on(db: dict, flight_number: str, date: str) -> dict:
    flight = _flight(db, flight_number)
    if date not in flight["dates"]:
        raise ValueError(f"Flight {flight_number} not found on date {date}")
    return flight["dates"][date]


def _bookable(db: dict, flight_number: str, date: str, cabin: str, seats: int) -> dict:
    """The flight's status on `date`, checked to be on sale with `seats` free in `cabin`."""
    status = _flight_on(db, flight_number, date)
    if status["status"] != "available":
        raise ValueError(f"Flight {flight_number} not available on date {date}")
    if cabin not in status["available_seats"]:
        raise ValueError(repr(cabin))  # upstream's dict lookup fails with the key as the message
    if status["available_seats"][cabin] < seats:
        raise ValueError(f"Not enough seats on flight {flight_number}")
    return status


def _charge_for_update(user: dict, payment_id: str, total: int) -> Record | None:
    """A change's payment (upstream's _payment_for_update): certificates refused, gift cards debited."""
    if payment_id not in user["payment_methods"]:
        raise ValueError("Payment method not found")
    method = user["payment_methods"][payment_id]
    if method["source"] == "certificate":
        raise ValueError("Certificate cannot be used to update reservation")
    if method["source"] == "gift_card" and method["amount"] < total:
        raise ValueError("Gift card balance is not enough")
    if method["source"] == "gift_card":
        method["amount"] -= total
    return PAYMENT.make({"payment_id": payment_id, "amount": total}) if total != 0 else None


def _check_payments(user: dict, payments: list, total: int) -> None:
    for payment in payments:
        payment_id = attribute(payment, "payment_id")
        if payment_id not in user["payment_methods"]:
            raise ValueError(f"Payment method {payment_id} not found")
        method = user["payment_methods"][payment_id]
        if method["source"] in ("gift_card", "certificate") and method["amount"] < payment["amount"]:
            raise ValueError(f"Not enough balance in payment method {payment_id}")
    paid = sum(payment["amount"] for payment in payments)
    if paid != total:
        raise ValueError(f"Payment amount does not add up, total price is {total}, but paid {paid}")


def book_reservation(db: dict, user_id: str, origin: str, destination: str, flight_type: str, cabin: str,
                     flights: list, passengers: list, payment_methods: list, total_baggages: int,
                     nonfree_baggages: int, insurance: str) -> Record:
    flights = as_models(flights, "FlightInfo", FLIGHT_INFO_ARGS)
    passengers = as_models(passengers, "Passenger", PASSENGER_ARGS)
    payment_methods = as_models(payment_methods, "Payment", PAYMENT_ARGS)
    user = _user(db, user_id)
    reservation_id = next((rid for rid in NEW_RESERVATION_IDS if rid not in db["reservations"]), None)
    if reservation_id is None:
        raise ValueError("Too many reservations")
    fields = build("Reservation", RESERVATION_ARGS, {
        "reservation_id": reservation_id, "user_id": user_id, "origin": origin, "destination": destination,
        "flight_type": flight_type, "cabin": cabin, "created_at": NOW, "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages, "insurance": insurance})
    reservation = RESERVATION.make({**fields, "flights": [], "passengers": [PASSENGER.make(p) for p in passengers],
                                    "payment_history": [PAYMENT.make(p) for p in payment_methods]})
    total, taken = 0, []
    for info in flights:
        number, date = attribute(info, "flight_number"), attribute(info, "date")
        flight = _flight(db, number)
        status = _bookable(db, number, date, cabin, len(passengers))
        price = status["prices"][cabin]
        reservation["flights"].append(RESERVATION_FLIGHT.make({"flight_number": number, "origin": flight["origin"],
                                                               "destination": flight["destination"], "date": date,
                                                               "price": price}))
        taken.append(status)
        total += price * len(passengers)
    if insurance == "yes":
        total += 30 * len(passengers)
    total += 50 * nonfree_baggages
    _check_payments(user, payment_methods, total)
    for payment in payment_methods:
        method = user["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            user["payment_methods"].pop(payment["payment_id"])
    for status in taken:
        status["available_seats"][cabin] -= len(passengers)
    db["reservations"][reservation_id] = reservation
    user["reservations"].append(reservation_id)
    return reservation


def cancel_reservation(db: dict, reservation_id: str) -> Record:
    reservation = _reservation(db, reservation_id)
    refunds = [PAYMENT.make({"payment_id": p["payment_id"], "amount": -p["amount"]})
               for p in reservation["payment_history"]]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return reservation


def list_all_airports(db: dict) -> list:
    return [Record({"iata": iata, "city": city}) for iata, city in AIRPORTS]


def search_direct_flight(db: dict, origin: str, destination: str, date: str) -> list:
    return direct_flights(db, date, origin, destination)


def search_onestop_flight(db: dict, origin: str, destination: str, date: str) -> list:
    pairs = []
    for first in direct_flights(db, date, origin):
        first["date"] = date
        next_date = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
        for second in direct_flights(db, next_date, first["destination"], destination,
                                     leave_after=first["scheduled_arrival_time_est"]):
            second["date"] = next_date
            pairs.append([first, second])
    return pairs


def send_certificate(db: dict, user_id: str, amount: int) -> str:
    user = _user(db, user_id)
    for number in NEW_CERTIFICATE_NUMBERS:
        payment_id = f"certificate_{number}"
        if payment_id not in user["payment_methods"]:
            value = build("Certificate", (("amount", "float"),), {"amount": amount})["amount"]
            user["payment_methods"][payment_id] = CERTIFICATE.make({"source": "certificate", "id": payment_id,
                                                                    "amount": value})
            return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
    raise ValueError("Too many certificates")


def transfer_to_human_agents(db: dict, summary: str) -> str:
    return "Transfer successful"


def update_reservation_baggages(db: dict, reservation_id: str, total_baggages: int, nonfree_baggages: int,
                                payment_id: str) -> Record:
    reservation = _reservation(db, reservation_id)
    user = _user(db, reservation["user_id"])
    payment = _charge_for_update(user, payment_id, 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"]))
    if payment is not None:
        reservation["payment_history"].append(payment)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    return reservation


def update_reservation_flights(db: dict, reservation_id: str, cabin: str, flights: list, payment_id: str) -> Record:
    flights = as_models(flights, "FlightInfo", FLIGHT_INFO_ARGS)
    reservation = _reservation(db, reservation_id)
    user = _user(db, reservation["user_id"])
    travellers = len(reservation["passengers"])
    total, kept = 0, []
    for info in flights:
        number, date = attribute(info, "flight_number"), attribute(info, "date")
        same = next((f for f in reservation["flights"] if f["flight_number"] == number and f["date"] == date
                     and cabin == reservation["cabin"]), None)
        if same is not None:  # an unchanged segment keeps the price paid
            total += same["price"] * travellers
            kept.append(same)
            continue
        flight = _flight(db, number)
        status = _bookable(db, number, date, cabin, travellers)
        leg = RESERVATION_FLIGHT.make({"flight_number": number, "origin": flight["origin"],
                                       "destination": flight["destination"], "date": date,
                                       "price": status["prices"][cabin]})
        total += leg["price"] * travellers
        kept.append(leg)
    total -= sum(f["price"] for f in reservation["flights"]) * travellers
    payment = _charge_for_update(user, payment_id, total)
    if payment is not None:
        reservation["payment_history"].append(payment)
    reservation["flights"] = kept
    reservation["cabin"] = cabin
    return reservation


def update_reservation_passengers(db: dict, reservation_id: str, passengers: list) -> Record:
    passengers = as_models(passengers, "Passenger", PASSENGER_ARGS)
    reservation = _reservation(db, reservation_id)
    if len(passengers) != len(reservation["passengers"]):
        raise ValueError("Number of passengers does not match")
    reservation["passengers"] = [PASSENGER.make(p) if isinstance(p, dict) else copy.deepcopy(p) for p in passengers]
    return reservation


def get_flight_status(db: dict, flight_number: str, date: str) -> str:
    return _flight_on(db, flight_number, date)["status"]


def _write(fn):
    return Tool(fn, mutates=True)


DOMAIN = Domain(name="airline", agent=Toolkit(
    tables=TABLES,
    tools={
        "book_reservation": _write(book_reservation),
        "calculate": Tool(lambda db, expression: calculate(expression)),
        "cancel_reservation": _write(cancel_reservation),
        "get_reservation_details": Tool(_reservation), "get_user_details": Tool(_user),
        "list_all_airports": Tool(list_all_airports),
        "search_direct_flight": Tool(search_direct_flight), "search_onestop_flight": Tool(search_onestop_flight),
        "send_certificate": _write(send_certificate),
        "transfer_to_human_agents": Tool(transfer_to_human_agents),
        "update_reservation_baggages": _write(update_reservation_baggages),
        "update_reservation_flights": _write(update_reservation_flights),
        "update_reservation_passengers": _write(update_reservation_passengers),
        "get_flight_status": Tool(get_flight_status),
    }))
