"""Where gym's BFCL API classes deliberately part from upstream: nothing leaks between instances or runs.

Upstream hands its long-context module's own objects to every instance and shares post_tweet's default lists
across the process, so one episode (or the model's run beside the gold run) can change another's data; two
of its error texts print a set in hash order. gym keeps upstream's answers (pinned by
test_bfcl_multi_turn_apis.py) without those couplings.
"""

from __future__ import annotations

import copy
import json

from gym.episodes.bfcl.apis.posting import TwitterAPI
from gym.episodes.bfcl.apis.ticket import TicketAPI
from gym.episodes.bfcl.apis.travel import TravelAPI
from gym.episodes.bfcl.calls import build_instances, execute, method_owners

CARD = "1111222233334444"
LONG_CONTEXT = {
    "CREDIT_CARD_EXTENSION": {CARD: {"card_number": CARD, "expiration_date": "12/30", "cardholder_name": "A B",
                                     "card_verification_number": 1, "balance": 5000.0}},
    "BOOKING_RECORD_EXTENSION": {"booking_1": {"card_id": CARD, "travel_date": "2024-05-21", "travel_from": "SFO",
                                               "travel_to": "JFK", "travel_class": "economy", "travel_cost": 400.0,
                                               "transaction_id": "t1"}},
}


def test_long_context_cards_are_each_instances_own():
    given = copy.deepcopy(LONG_CONTEXT)
    first, second = TravelAPI(), TravelAPI()
    for api in (first, second):
        api.load_scenario({"access_token": "tok", "token_expires_in": 2}, long_context=given)
    booked = first.book_flight("tok", CARD, "2024-01-01", "SFO", "LAX", "economy")
    assert booked["booking_status"] is True
    assert first.credit_card_list[CARD]["balance"] == 5000.0 - 400.0  # 2024-01-01: digits sum even, fare doubled
    assert second.credit_card_list[CARD]["balance"] == 5000.0
    assert given == LONG_CONTEXT
    assert second.state()["long_context"] is True and TravelAPI().state()["long_context"] is False


def test_tweets_without_mentions_share_one_list_within_an_instance_only():
    instances = build_instances(["TwitterAPI"], {"TwitterAPI": {"authenticated": True}}, None)
    owners = method_owners(instances)
    for content in ("one", "two"):
        execute(instances, owners, "post_tweet", {"content": content})
    execute(instances, owners, "mention", {"tweet_id": 0, "mentioned_usernames": ["@x"]})
    # upstream's quirk, kept within the episode: both tweets posted without mentions now show the mention
    assert json.loads(execute(instances, owners, "get_tweet", {"tweet_id": 1}))["mentions"] == ["@x"]
    fresh = TwitterAPI()
    fresh.load_scenario({"authenticated": True})
    assert fresh.post_tweet("three")["mentions"] == []


def test_fixed_orders_where_upstream_prints_a_set():
    tickets = TicketAPI()
    tickets.load_scenario({"current_user": "u", "ticket_queue": [{"id": 1, "status": "Open", "created_by": "u"}]})
    assert tickets.edit_ticket(1, {"owner": "x", "title": "t", "due": "y"}) == {
        "error": "Invalid fields for update: owner, due"}
    travel = TravelAPI()
    travel.load_scenario({"access_token": "tok", "token_expires_in": 2,
                          "credit_card_list": {CARD: {"balance": 10.0}}})
    assert travel.book_flight("tok", CARD, "2024-01-01", "SFO", "LAX", "coach")["error"] == (
        "Invalid travel class. Must be one of {'economy', 'business', 'first'}")
