"""BFCL multi-turn's TravelAPI (upstream travel_booking.py): login, credit cards, flights, insurance, budget.

Same tools, parameters, return values, error texts and state as upstream, including:
- every id (access token, card id and balance, booking and transaction ids, insurance id) is drawn from a
  `random.Random` seeded by the scenario's `random_seed` (default 141053), in upstream's order, so a run is
  repeatable and equal to upstream's;
- the traveller's age is taken against today's date, as upstream;
- long-context entries start with upstream's extra cards and bookings (from the `long_context` dict, copied, so
  no instance shares them), price every route on a cost query, and show all bookings after a booking;
  `long_context` (a bool, as upstream) is among the compared attributes.
One deliberate difference: an unknown travel class on booking names the classes in a fixed order, where upstream
prints a set (whose order changes from run to run with string hashing).
"""

from __future__ import annotations

import copy
from datetime import datetime

from gym.episodes.bfcl.apis import Api
from gym.episodes.bfcl.apis.loading import extension, load_attributes

DEFAULTS = {
    "random_seed": 141053, "credit_card_list": {}, "booking_record": {}, "access_token": None, "token_type": None,
    "token_expires_in": None, "token_scope": None, "user_first_name": None, "user_last_name": None,
    "budget_limit": None,
}

# Economy fares in USD, one line per origin: "destination fare" pairs, in upstream's order (a long-context cost
# query lists every route in this order).
_FARES = """
    SFO: LAX 200, JFK 500, ORD 400, BOS 450, RMS 300, SBK 350, MPC 370, SVP 320, SHD 330, SSV 340, OKD 360, WLB 310, CRH 380, ATV 390, PHV 420, GFD 430, CIA 700
    LAX: SFO 100, JFK 600, ORD 500, BOS 550, RMS 310, SBK 320, MPC 330, SVP 340, SHD 350, SSV 360, OKD 370, WLB 380, CRH 390, ATV 400, PHV 410, GFD 420, HND 430
    JFK: ORD 300, BOS 250, RMS 450, SBK 460, MPC 470, SVP 480, SHD 490, SSV 500, OKD 510, WLB 520, CRH 530, ATV 540, PHV 550, GFD 560, LAX 570, HND 800, PVG 950, PEK 1000
    ORD: LAX 180, BOS 200, RMS 350, SBK 360, MPC 370, SVP 380, SHD 390, SSV 400, OKD 410, WLB 420, CRH 430, ATV 440, PHV 450, GFD 460
    BOS: RMS 400, SBK 410, MPC 420, SVP 430, SHD 440, SSV 450, OKD 460, WLB 470, CRH 480, ATV 490, PHV 500, GFD 510
    RMS: BOS 200, JFK 210, SBK 220, MPC 230, SVP 240, SHD 250, SSV 260, OKD 270, WLB 280, CRH 290, ATV 300, PHV 310, GFD 320, LAX 330
    SBK: MPC 200, SVP 210, SHD 220, SSV 230, OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
    MPC: SVP 210, SHD 220, SSV 230, OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
    SVP: SHD 230, SSV 240, OKD 250, WLB 260, CRH 270, ATV 280, PHV 290, GFD 300
    SHD: SSV 220, OKD 230, WLB 240, CRH 250, ATV 260, PHV 270, GFD 280
    SSV: OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
    OKD: WLB 230, CRH 240, ATV 250, PHV 260, GFD 270
    WLB: CRH 250, ATV 260, PHV 270, GFD 280
    CRH: ATV 240, PHV 250, GFD 260, SFO 270, RMS 280, HKG 290, JFK 300
    ATV: PHV 230, GFD 240
    PHV: GFD 220
    LHR: CDG 100
    OKD: LAX 220
"""


def _parse_fares(table: str) -> dict[tuple[str, str], int]:
    fares: dict[tuple[str, str], int] = {}
    for line in filter(None, (raw.strip() for raw in table.splitlines())):
        origin, routes = line.split(":")
        for route in routes.split(","):
            destination, fare = route.split()
            fares[(origin, destination)] = int(fare)
    return fares


FARES = _parse_fares(_FARES)
CLASS_FACTORS = {"economy": 1, "business": 2, "first": 5}
AIRPORTS = ["RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG", "CIA", "CRH",
            "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS"]
AIRPORT_BY_CITY = {
    "Rivermist": "RMS", "Stonebrook": "SBK", "Maplecrest": "MPC", "Silverpine": "SVP", "Shadowridge": "SHD",
    "London": "LHR", "Paris": "CDG", "Sunset Valley": "SSV", "Oakendale": "OKD", "Willowbend": "WLB",
    "Crescent Hollow": "CRH", "Autumnville": "ATV", "Pinehaven": "PHV", "Greenfield": "GFD", "San Francisco": "SFO",
    "Los Angeles": "LAX", "New York": "JFK", "Chicago": "ORD", "Boston": "BOS", "Beijing": "PEK", "Hong Kong": "HKG",
    "Rome": "CIA", "Tokyo": "HND",
}
# Units of the other currency per US dollar.
PER_DOLLAR = {"RMB": 7, "EUR": 0.8, "JPY": 110, "GBP": 0.7, "CAD": 1.3, "AUD": 1.4, "INR": 70, "RUB": 60, "BRL": 3.8,
              "MXN": 20}


def _fare(travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> tuple[float, float]:
    """(multiplier, cost) of a route: its base fare times the class factor, doubled on dates whose digits sum even."""
    if (travel_from, travel_to) not in FARES:
        raise ValueError("No available route for the given airports.")
    if travel_class not in CLASS_FACTORS:
        raise ValueError("Invalid travel class. Options are: economy, business, first.")
    date_factor = 2 if sum(int(char) for char in travel_date if char.isdigit()) % 2 == 0 else 1
    multiplier = CLASS_FACTORS[travel_class] * date_factor
    return multiplier, float(FARES[(travel_from, travel_to)] * multiplier)


class TravelAPI(Api):
    def __init__(self) -> None:
        self.load_scenario({})

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        load_attributes(self, config, DEFAULTS)
        self.long_context = long_context is not None
        if self.long_context:
            # The scenario's own cards and bookings win over upstream's extra ones.
            for card_id, card in extension(long_context, "CREDIT_CARD_EXTENSION").items():
                self.credit_card_list.setdefault(card_id, card)
            for booking_id, booking in extension(long_context, "BOOKING_RECORD_EXTENSION").items():
                self.booking_record.setdefault(booking_id, booking)

    def _token_problem(self, access_token: str) -> str | None:
        if self.token_expires_in == 0:
            return "Token expired"
        if access_token != self.access_token:
            return "Invalid access token"
        return None

    def authenticate_travel(self, client_id: str, client_secret: str, refresh_token: str, grant_type: str,
                            user_first_name: str, user_last_name: str) -> dict:
        self.token_expires_in = 2
        self.access_token = str(self._random.randint(100000, 999999))
        self.token_type = "Bearer"
        self.token_scope = grant_type
        self.user_first_name = user_first_name
        self.user_last_name = user_last_name
        return {"expires_in": 2, "access_token": self.access_token, "token_type": "Bearer", "scope": grant_type}

    def travel_get_login_status(self) -> dict:
        return {"status": not (self.token_expires_in is None or self.token_expires_in == 0)}

    def get_budget_fiscal_year(self, lastModifiedAfter: str | None = None, includeRemoved: str | None = None) -> dict:
        return {"budget_fiscal_year": "2018"}

    def register_credit_card(self, access_token: str, card_number: str, expiration_date: str, cardholder_name: str,
                             card_verification_number: int) -> dict:
        if self.token_expires_in is None:
            return {"error": "Token not initialized"}
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        # Upstream looks the card number up among the card ids.
        if card_number in self.credit_card_list:
            return {"error": "Card already registered"}
        card_id = str(self._random.randint(100000000000, 999999999999))
        self.credit_card_list[card_id] = {
            "card_number": card_number, "expiration_date": expiration_date, "cardholder_name": cardholder_name,
            "card_verification_number": card_verification_number, "balance": self._random.randint(10000, 99999),
        }
        return {"card_id": card_id}

    def get_flight_cost(self, travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> dict:
        multiplier, cost = _fare(travel_from, travel_to, travel_date, travel_class)
        if self.long_context:
            return {"travel_cost_list": [float(fare * multiplier) for fare in FARES.values()]}
        return {"travel_cost_list": [cost]}

    def get_credit_card_balance(self, access_token: str, card_id: str) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        if card_id not in self.credit_card_list:
            return {"error": "Card not registered. Here are a list of card_id's: "
                             + str(list(self.credit_card_list.keys()))}
        return {"card_balance": self.credit_card_list[card_id]["balance"]}

    def book_flight(self, access_token: str, card_id: str, travel_date: str, travel_from: str, travel_to: str,
                    travel_class: str) -> dict:
        problem = self._booking_problem(access_token, card_id, travel_date, travel_from, travel_to, travel_class)
        if problem:
            return {"booking_status": False, "error": problem}
        try:
            _, travel_cost = _fare(travel_from, travel_to, travel_date, travel_class)
        except ValueError as error:
            return {"booking_status": False, "error": str(error)}
        card = self.credit_card_list[card_id]
        if card["balance"] < travel_cost:
            return {"booking_status": False, "error": "Insufficient funds"}
        if self.budget_limit is not None and card["balance"] < self.budget_limit:
            return {"booking_status": False, "error": "Balance is less than budget limit"}
        card["balance"] -= travel_cost
        booking_id = str(self._random.randint(1000000, 9999999))
        transaction_id = str(self._random.randint(10000000, 99999999))
        self.booking_record[booking_id] = {
            "card_id": card_id, "travel_date": travel_date, "travel_from": travel_from, "travel_to": travel_to,
            "travel_class": travel_class, "travel_cost": travel_cost, "transaction_id": transaction_id,
        }
        # Upstream shows the booking history only on long-context entries.
        history = self.booking_record if self.long_context else {}
        return {"booking_id": booking_id, "transaction_id": transaction_id, "booking_status": True,
                "booking_history": history}

    def _booking_problem(self, access_token, card_id, travel_date, travel_from, travel_to, travel_class) -> str | None:
        problem = self._token_problem(access_token)
        if problem:
            return problem
        if card_id not in self.credit_card_list:
            return "Card not registered"
        if "balance" not in self.credit_card_list[card_id]:
            return "Balance not found"
        if travel_from not in AIRPORTS:
            return f"Invalid departure airport code: {travel_from}"
        if travel_to not in AIRPORTS:
            return f"Invalid destination airport code: {travel_to}"
        try:
            datetime.strptime(travel_date, "%Y-%m-%d")
        except ValueError:
            return "Invalid date format. Use YYYY-MM-DD."
        if travel_class not in CLASS_FACTORS:
            return "Invalid travel class. Must be one of {'economy', 'business', 'first'}"
        return None

    def retrieve_invoice(self, access_token: str, booking_id: str | None = None,
                         insurance_id: str | None = None) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        booking = self.booking_record[booking_id]
        fields = ("travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id")
        return {"invoice": {"booking_id": booking_id, **{field: booking[field] for field in fields}}}

    def get_booking_history(self, access_token: str) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        return {"booking_history": copy.deepcopy(self.booking_record)}

    def list_all_airports(self) -> list:
        return list(AIRPORTS)

    def cancel_booking(self, access_token: str, booking_id: str) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"cancel_status": False, "error": problem}
        if booking_id not in self.booking_record:
            return {"cancel_status": False, "error": "Booking not found"}
        booking = self.booking_record[booking_id]
        self.credit_card_list[booking["card_id"]]["balance"] += booking["travel_cost"]
        del self.booking_record[booking_id]
        return {"cancel_status": True}

    def compute_exchange_rate(self, base_currency: str, target_currency: str, value: float) -> dict:
        for currency, rate in PER_DOLLAR.items():
            if base_currency == "USD" and target_currency == currency:
                return {"exchanged_value": float(value * rate)}
            if base_currency == currency and target_currency == "USD":
                return {"exchanged_value": round(value / rate, 2)}
        raise ValueError("No available exchange rate for the given currencies.")

    def verify_traveler_information(self, first_name: str, last_name: str, date_of_birth: str,
                                    passport_number: str) -> dict:
        if self.user_first_name != first_name or self.user_last_name != last_name:
            return {"verification_status": False,
                    "verification_failure": "Cannot book flight information for another user."
                    + f"Expected {self.user_first_name} {self.user_last_name}, got {first_name} {last_name}"}
        try:
            born = datetime.strptime(date_of_birth, "%Y-%m-%d")
        except ValueError:
            return {"verification_status": False,
                    "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD."}
        today = datetime.today()
        age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        if age < 18:
            return {"verification_status": False, "verification_failure": "Traveler must be at least 18 years old."}
        if not passport_number.startswith("US"):
            return {"verification_status": False,
                    "verification_failure": "Passport must be issued by the United States."}
        return {"verification_status": True}

    def set_budget_limit(self, access_token: str, budget_limit: float) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        self.budget_limit = float(budget_limit)
        return {"budget_limit": self.budget_limit}

    def get_nearest_airport_by_city(self, location: str) -> dict:
        return {"nearest_airport": AIRPORT_BY_CITY.get(location, "Unknown")}

    def purchase_insurance(self, access_token: str, insurance_type: str, booking_id: str, insurance_cost: float,
                           card_id: str) -> dict:
        problem = self._token_problem(access_token)
        if problem:
            return {"insurance_status": False, "error": problem}
        if self.budget_limit is not None and self.budget_limit < insurance_cost:
            return {"insurance_status": False, "error": "Exceeded budget limit"}
        if booking_id not in self.booking_record:
            return {"insurance_status": False, "error": "Booking not found"}
        if card_id not in self.credit_card_list:
            return {"insurance_status": False, "error": "Credit card not registered"}
        self.credit_card_list[card_id]["balance"] -= insurance_cost
        return {"insurance_id": str(self._random.randint(100000000, 999999999)), "insurance_status": True}

    def contact_customer_support(self, booking_id: str, message: str) -> dict:
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        return {"customer_support_message": "Thank you for contacting customer support. Your message has been "
                                            "received and we will get back to you shortly."}

    def get_all_credit_cards(self) -> dict:
        return {"credit_card_list": self.credit_card_list}
