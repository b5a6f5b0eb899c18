"""τ²-bench's `airline` database: its record shapes, the argument models its tools build, and the
flight search the two search tools share.

Shapes list fields in upstream's model declaration order (src/tau2/domains/airline/data_model.py), which
is the order tool outputs print them in: a flight is flight_number, origin, destination, ... although
the database file lists origin first; a reservation carries `status` (null unless cancelled) and a
reservation's flight its number before its airports.
"""

from __future__ import annotations

from gym.episodes.tau2.records import REQUIRED, Record, Shape, dict_of, list_of, one_of, to_float
from gym.episodes.tau2.validation import build, literal

CABINS = ("business", "economy", "basic_economy")
FLIGHT_TYPE = literal("round_trip", "one_way")
CABIN = literal(*CABINS)
INSURANCE = literal("yes", "no")


def to_int(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise ValueError(f"{where}: expected an integer, got {value!r}")
    return int(value)


NAME = Shape("Name", (("first_name", REQUIRED), ("last_name", REQUIRED)))
ADDRESS = Shape("Address", (("address1", REQUIRED), ("address2", None), ("city", REQUIRED), ("country", REQUIRED),
                            ("state", REQUIRED), ("zip", REQUIRED)))
CERTIFICATE = Shape("Certificate", (("source", REQUIRED), ("id", REQUIRED), ("amount", REQUIRED, to_float)))
PAYMENT_METHOD = one_of("source", {
    "credit_card": Shape("CreditCard", (("source", REQUIRED), ("id", REQUIRED), ("brand", REQUIRED),
                                        ("last_four", REQUIRED))),
    "gift_card": Shape("GiftCard", (("source", REQUIRED), ("id", REQUIRED), ("amount", REQUIRED, to_float))),
    "certificate": CERTIFICATE,
})
PASSENGER = Shape("Passenger", (("first_name", REQUIRED), ("last_name", REQUIRED), ("dob", REQUIRED)))
USER = Shape("User", (
    ("user_id", REQUIRED), ("name", REQUIRED, NAME), ("address", REQUIRED, ADDRESS), ("email", REQUIRED),
    ("dob", REQUIRED), ("payment_methods", REQUIRED, dict_of(PAYMENT_METHOD)),
    ("saved_passengers", REQUIRED, list_of(PASSENGER)), ("membership", REQUIRED), ("reservations", REQUIRED)))

_ESTIMATED = (("estimated_departure_time_est", REQUIRED), ("estimated_arrival_time_est", REQUIRED))
DATE_STATUS = one_of("status", {
    "available": Shape("FlightDateStatusAvailable", (("status", REQUIRED), ("available_seats", REQUIRED),
                                                     ("prices", REQUIRED))),
    "landed": Shape("FlightDateStatusLanded", (("status", REQUIRED), ("actual_departure_time_est", REQUIRED),
                                               ("actual_arrival_time_est", REQUIRED))),
    "cancelled": Shape("FlightDateStatusCancelled", (("status", REQUIRED),)),
    "delayed": Shape("FlightDateStatusDelayed", (("status", REQUIRED),) + _ESTIMATED),
    "flying": Shape("FlightDataStatusFlying", (("status", REQUIRED), ("actual_departure_time_est", REQUIRED),
                                               ("estimated_arrival_time_est", REQUIRED))),
    "on time": Shape("FlightDataStatusOnTime", (("status", REQUIRED),) + _ESTIMATED),
})
FLIGHT = Shape("Flight", (("flight_number", REQUIRED), ("origin", REQUIRED), ("destination", REQUIRED),
                          ("scheduled_departure_time_est", REQUIRED), ("scheduled_arrival_time_est", REQUIRED),
                          ("dates", REQUIRED, dict_of(DATE_STATUS))))
RESERVATION_FLIGHT = Shape("ReservationFlight", (("flight_number", REQUIRED), ("origin", REQUIRED),
                                                 ("destination", REQUIRED), ("date", REQUIRED),
                                                 ("price", REQUIRED, to_int)))
PAYMENT = Shape("Payment", (("payment_id", REQUIRED), ("amount", REQUIRED, to_int)))
RESERVATION = Shape("Reservation", (
    ("reservation_id", REQUIRED), ("user_id", REQUIRED), ("origin", REQUIRED), ("destination", REQUIRED),
    ("flight_type", REQUIRED), ("cabin", REQUIRED), ("flights", REQUIRED, list_of(RESERVATION_FLIGHT)),
    ("passengers", REQUIRED, list_of(PASSENGER)), ("payment_history", REQUIRED, list_of(PAYMENT)),
    ("created_at", REQUIRED), ("total_baggages", REQUIRED, to_int), ("nonfree_baggages", REQUIRED, to_int),
    ("insurance", REQUIRED), ("status", None)))
TABLES = {"flights": FLIGHT, "users": USER, "reservations": RESERVATION}

# The models tools build from their arguments, for pydantic's checks (gym.episodes.tau2.validation).
FLIGHT_INFO_ARGS = (("flight_number", "str"), ("date", "str"))
PASSENGER_ARGS = (("first_name", "str"), ("last_name", "str"), ("dob", "str"))
PAYMENT_ARGS = (("payment_id", "str"), ("amount", "int"))
RESERVATION_ARGS = (("reservation_id", "str"), ("user_id", "str"), ("origin", "str"), ("destination", "str"),
                    ("flight_type", FLIGHT_TYPE), ("cabin", CABIN), ("created_at", "str"),
                    ("total_baggages", "int"), ("nonfree_baggages", "int"), ("insurance", INSURANCE))


def as_models(items: list, model: str, fields: tuple) -> list:
    """A list argument made into models when every item is an object (upstream converts only then;
    anything else reaches the tool as it is)."""
    if all(isinstance(item, dict) for item in items):
        return [Record(build(model, fields, item)) for item in items]
    return list(items)


def attribute(item, name: str):
    """`item.name` as upstream reads it from a model (a non-object fails as Python's attribute access)."""
    if isinstance(item, dict) and name in item:
        return item[name]
    raise ValueError(f"'{type(item).__name__}' object has no attribute '{name}'")


def direct_flights(db: dict, date: str, origin: str | None = None, destination: str | None = None,
                   leave_after: str | None = None) -> list[Record]:
    """The available flights on `date` (upstream's _search_direct_flight): database order, times compared as text."""
    found = []
    for flight in db["flights"].values():  # read only: the shared records stay untouched
        status = flight["dates"].get(date)
        if ((origin is None or flight["origin"] == origin) and (destination is None or flight["destination"] == destination)
                and status is not None and status["status"] == "available"
                and (leave_after is None or flight["scheduled_departure_time_est"] >= leave_after)):
            found.append(Record({
                "flight_number": flight["flight_number"], "origin": flight["origin"],
                "destination": flight["destination"], "status": "available",
                "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
                "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"], "date": None,
                "available_seats": dict(status["available_seats"]), "prices": dict(status["prices"])}))
    return found
