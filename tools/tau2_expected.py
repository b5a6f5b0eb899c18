"""Expected τ² scores for gym's parity tests, computed by upstream's own evaluator.

Run with a checkout of sierra-research/tau2-bench at gym.episodes.tau2.prepare.COMMIT on the path
(its `src/` and its data dir) and its dependencies installed, e.g.
    TAU2_DATA_DIR=tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \
    PYTHONPATH=<checkout>/src python tools/tau2_expected.py retail > tests/fixtures/tau2_expected/retail.json
    (telecom: ... tools/tau2_expected.py telecom full > tests/fixtures/tau2_expected/telecom.json: every
    fixture task, its 20 small-split and 4 test-split ones)
For every task it builds episodes in the shape gym records (the task's history or the opening message,
the user's request, the gold actions run on upstream's live environment, a closing message that says
the required strings, the user's stop) plus variants that must fail (a missing write, an extra write, a
closing message without the strings) and records upstream's reward, breakdown and database hashes.
Telecom's gold actions include the user's own calls on the phone (requestor "user"): its variants also
drop the user's last state-changing call, a `reads` case calls every read tool of both sides (and a
few failing calls) around the gold, and a `phone_tour` case works the phone's other settings after it. Upstream's phone hands out one VPN-details object per process (a
task that breaks the VPN changes it for every later task); each episode here starts from the pristine
object, as a fresh process does.
"""

from __future__ import annotations

import hashlib
import json
import sys
from copy import deepcopy

from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry

try:
    from tau2.domains.telecom.user_tools import TelecomUserTools
    PRISTINE_VPN = TelecomUserTools.default_vpn_details.model_copy(deep=True)
except ImportError:  # an older checkout without the telecom domain
    TelecomUserTools = PRISTINE_VPN = None

FIRST = "Hi! How can I help you today?"
# A write each domain accepts on any task (so "an extra write" always changes the database).
EXTRA_WRITES = {
    "mock": lambda env: ("create_task", {"user_id": "user_1", "title": "Extra"}, "assistant"),
    "retail": lambda env: ("modify_user_address", {"user_id": next(iter(env.tools.db.users)), "address1": "1 Extra Road",
                                                   "address2": "", "city": "Austin", "state": "TX", "country": "USA",
                                                   "zip": "73301"}, "assistant"),
    "telecom": lambda env: ("toggle_airplane_mode", {}, "user"),
    "airline": lambda env: ("send_certificate", {"user_id": next(iter(env.tools.db.users)), "amount": 100},
                            "assistant"),
}
USER_READS = ["check_status_bar", "check_network_status", "check_network_mode_preference", "run_speed_test",
              "check_sim_status", "check_data_restriction_status", "check_apn_settings", "check_wifi_status",
              "check_wifi_calling_status", "check_vpn_status", "check_installed_apps", "can_send_mms",
              "check_payment_request"]


def telecom_reads(task, env) -> tuple[list, list]:
    """(agent calls, user calls) that read everything both sides show, plus a few calls that fail."""
    actions = task.initial_state.initialization_actions or []
    number = next(a.arguments["phone_number"] for a in actions if a.func_name == "set_user_info")
    customer = env.tools.get_customer_by_phone(number)
    line = env.tools._get_line_by_phone(number)
    agent = [("get_customer_by_phone", {"phone_number": number}), ("get_customer_by_id", {"customer_id": "C9999"}),
             ("get_customer_by_name", {"full_name": customer.full_name.upper(), "dob": customer.date_of_birth}),
             ("get_bills_for_customer", {"customer_id": customer.customer_id}),
             ("get_data_usage", {"customer_id": customer.customer_id, "line_id": line.line_id})]
    agent += [("get_details_by_id", {"id": i}) for i in (line.line_id, line.device_id, line.plan_id, "X1")]
    user = [(name, {}) for name in USER_READS]
    user += [("check_app_status", {"app_name": "messaging"}), ("check_app_permissions", {"app_name": "browser"}),
             ("check_app_status", {"app_name": "camera"}), ("grant_app_permission", {"app_name": "messaging", "permission": "gps"}),
             ("set_network_mode_preference", {"mode": "5g_only"})]
    return [(n, a, "assistant") for n, a in agent], [(n, a, "user") for n, a in user]


# Every phone setting the gold actions do not reach, changed and read back (Wi-Fi, VPN, airplane mode with
# a VPN up, an APN reset applied by a reboot, a mode of the wrong type, a permission in capitals).
PHONE_TOUR = [("set_network_mode_preference", {"mode": {"a": 1}}), ("set_apn_settings", {"apn_settings": {"apn_name": "internet"}}),
              ("grant_app_permission", {"app_name": "browser", "permission": "SMS"}),
              ("check_app_status", {"app_name": "browser"}), ("toggle_wifi", {}), ("check_wifi_status", {}),
              ("connect_vpn", {}), ("connect_vpn", {}), ("check_vpn_status", {}), ("toggle_wifi_calling", {}),
              ("check_wifi_calling_status", {}), ("toggle_airplane_mode", {}), ("check_status_bar", {}),
              ("toggle_wifi", {}), ("reset_apn_settings", {}), ("reboot_device", {}), ("toggle_airplane_mode", {}),
              ("toggle_wifi", {}), ("toggle_data_saver_mode", {}), ("run_speed_test", {}), ("check_network_status", {}),
              ("disconnect_vpn", {}), ("disconnect_vpn", {}), ("toggle_data", {}), ("run_speed_test", {}),
              ("check_app_permissions", {"app_name": "messaging"}), ("check_payment_request", {}), ("make_payment", {})]



SOLO_DOMAINS = ("mock", "telecom")  # the domains whose upstream environment has a solo mode


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def episode(domain: str, task, actions: list, closing: str, user_actions: list = ()) -> dict:
    """Upstream's grade of the episode that makes these calls and says `closing`: the calls, the closing
    text, the sha256 of each call's output, the reward, its breakdown and the final database hashes."""
    if TelecomUserTools is not None:
        TelecomUserTools.default_vpn_details = PRISTINE_VPN.model_copy(deep=True)
    env = registry.get_env_constructor(domain)()
    initial = task.initial_state
    history = deepcopy(initial.message_history) if initial and initial.message_history else []
    env.set_state(initial.initialization_data if initial else None,
                  initial.initialization_actions if initial else None, history)
    messages = history or [AssistantMessage(role="assistant", content=FIRST)]
    messages.append(UserMessage(role="user", content="I need help with my request."))
    calls = list(actions) + list(user_actions)
    outputs = []
    for number, (name, arguments, requestor) in enumerate(calls):
        call = ToolCall(id=f"gold-{number}", name=name, arguments=arguments, requestor=requestor)
        cls = AssistantMessage if requestor == "assistant" else UserMessage
        messages.append(cls(role=requestor, content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
        outputs.append(sha(messages[-1].content))
    messages.append(AssistantMessage(role="assistant", content=closing))
    messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
    played = {"calls": [list(c) for c in calls], "closing": closing, "tool_output_sha256": outputs}
    sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.USER_STOP, messages=messages)
    try:
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False, domain=domain)
    except Exception as exc:  # e.g. a check function that raises: upstream's evaluation stops (gym: 0)
        return {**played, "upstream_error": f"{exc.__class__.__name__}: {exc}"}
    predicted = registry.get_env_constructor(domain)()
    predicted.set_state(initial.initialization_data if initial else None,
                        initial.initialization_actions if initial else None, messages)
    return {**played, "reward": info.reward,
            "breakdown": {str(k.value): v for k, v in (info.reward_breakdown or {}).items()},
            "db_hash": predicted.get_db_hash(), "user_db_hash": predicted.get_user_db_hash()}


def solo_episode(domain: str, task) -> dict:
    """Upstream's grade of the solo-mode episode (user=none) that makes the task's gold calls and then calls
    `done` (which upstream's solo agent turns into a ###STOP### message), and whether its solo agent takes
    the task at all."""
    from tau2.agent.llm_agent import LLMSoloAgent

    if not LLMSoloAgent.check_valid_task(task):
        return {"solo_ready": False}
    env = registry.get_env_constructor(domain)(solo_mode=True)
    initial = task.initial_state
    history = deepcopy(initial.message_history) if initial and initial.message_history else []
    env.set_state(initial.initialization_data if initial else None,
                  initial.initialization_actions if initial else None, history)
    messages, outputs = list(history), []
    for number, action in enumerate(task.evaluation_criteria.actions or []):
        call = ToolCall(id=f"gold-{number}", name=action.name, arguments=action.arguments, requestor="assistant")
        messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
        outputs.append(sha(messages[-1].content))
    messages.append(AssistantMessage(role="assistant", content="###STOP###"))
    sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.AGENT_STOP, messages=messages)
    info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=True, domain=domain)
    return {"solo_ready": True, "tool_output_sha256": outputs, "reward": info.reward,
            "breakdown": {str(k.value): v for k, v in (info.reward_breakdown or {}).items()}}


def cases(domain: str, task) -> dict[str, dict]:
    criteria = task.evaluation_criteria
    # gym's default nl_assertions=skip drops NL_ASSERTION from the basis (as NeMo Gym's prepare does);
    # the judge it needs is not part of this comparison.
    criteria.reward_basis = [b for b in criteria.reward_basis if b.value != "NL_ASSERTION"]
    gold = [(a.name, a.arguments, a.requestor) for a in (criteria.actions or [])]
    agent_gold = [a for a in gold if a[2] == "assistant"]
    user_gold = [a for a in gold if a[2] == "user"]
    strings = " ".join(criteria.communicate_info or [])
    closing = f"All done. {strings}".strip()
    env = registry.get_env_constructor(domain)()
    writes = [i for i, a in enumerate(agent_gold) if env.tools.has_tool(a[0]) and env.tools.tool_mutates_state(a[0])]
    out = {"gold": episode(domain, task, agent_gold, closing, user_gold)}
    if domain in SOLO_DOMAINS:
        out["solo"] = solo_episode(domain, task)
    if writes:
        out["missing_write"] = episode(domain, task, agent_gold[:writes[-1]] + agent_gold[writes[-1] + 1:],
                                       closing, user_gold)
    user_writes = [i for i, a in enumerate(user_gold) if env.user_tools.tool_mutates_state(a[0])]
    if user_writes:
        out["missing_user_write"] = episode(domain, task, agent_gold, closing,
                                            user_gold[:user_writes[-1]] + user_gold[user_writes[-1] + 1:])
    extra = EXTRA_WRITES[domain](env)
    if extra[2] == "user":
        out["extra_write"] = episode(domain, task, agent_gold, closing, user_gold + [extra])
    else:
        out["extra_write"] = episode(domain, task, agent_gold + [extra], closing, user_gold)
    if domain == "telecom":
        set_up = registry.get_env_constructor(domain)()
        initial = task.initial_state
        set_up.set_state(initial.initialization_data, initial.initialization_actions, [])
        agent_reads, user_reads = telecom_reads(task, set_up)
        out["reads"] = episode(domain, task, agent_reads + agent_gold, closing, user_reads + user_gold + user_reads)
        out["phone_tour"] = episode(domain, task, agent_gold, closing,
                                    user_gold + [(n, a, "user") for n, a in PHONE_TOUR] + user_reads)
    if criteria.communicate_info:
        out["no_strings"] = episode(domain, task, agent_gold, "All done.", user_gold)
    return out


def airline_probes(env) -> list:
    """Calls beyond the gold actions, chosen from the database: every tool, its error paths (pydantic's
    messages included), certificates and gift cards as payment, the reservation and certificate limits."""
    db = env.tools.db
    user = next(u for u in db.users.values() if {m.source for m in u.payment_methods.values()}
                >= {"credit_card", "certificate"} and u.reservations)
    card = next(k for k, m in user.payment_methods.items() if m.source == "credit_card")
    certificate = next(k for k, m in user.payment_methods.items() if m.source == "certificate")
    gift = next((k for k, m in user.payment_methods.items() if m.source == "gift_card"), None)
    number, date = next((f.flight_number, d) for f in db.flights.values() for d, s in f.dates.items()
                        if s.status == "available" and min(s.available_seats.values()) >= 2)
    flight, status = db.flights[number], db.flights[number].dates[date]
    landed = next(d for d, s in flight.dates.items() if s.status == "landed")
    reservation = db.reservations[user.reservations[0]]
    person = {"first_name": "Ada", "last_name": "Lovelace", "dob": "1990-12-10"}

    def booking(cabin, payments, **extra):
        return ("book_reservation", {"user_id": user.user_id, "origin": flight.origin,
                                     "destination": flight.destination, "flight_type": "one_way", "cabin": cabin,
                                     "flights": [{"flight_number": number, "date": date}], "passengers": [person],
                                     "payment_methods": payments, "total_baggages": 1, "nonfree_baggages": 1,
                                     "insurance": "yes", **extra})

    def price(cabin):
        return status.prices[cabin] + 30 + 50

    cert_amount = int(user.payment_methods[certificate].amount)
    airports = [a.iata for a in env.tools.list_all_airports()]
    via = next(a for a in airports if env.tools.search_onestop_flight(origin=flight.origin, destination=a, date=date))
    calls = [
        ("list_all_airports", {}), ("get_flight_status", {"flight_number": number, "date": date}),
        ("get_flight_status", {"flight_number": number, "date": "2024-06-01"}),
        ("get_flight_status", {"flight_number": "HAT999", "date": date}),
        ("search_direct_flight", {"origin": flight.origin, "destination": flight.destination, "date": date}),
        ("search_onestop_flight", {"origin": flight.origin, "destination": via, "date": date}),
        ("search_onestop_flight", {"origin": flight.origin, "destination": flight.destination, "date": "2024-05-05"}),
        ("update_reservation_flights", {"reservation_id": reservation.reservation_id, "cabin": "first",
                                        "flights": [{"flight_number": number, "date": date}], "payment_id": card}),
        ("update_reservation_flights", {"reservation_id": reservation.reservation_id, "cabin": reservation.cabin,
                                        "flights": [{"flight_number": number, "date": date}],
                                        "payment_id": certificate}),
        booking("first", [{"payment_id": card, "amount": price("economy")}]),
        ("book_reservation", {**booking("economy", [])[1], "flights": [{"flight_number": number}]}),
        booking("economy", [{"payment_id": card, "amount": 10.5}]),
        booking("economy", [{"payment_id": card, "amount": price("economy") + 1}]),
        ("book_reservation", {**booking("economy", [{"payment_id": card, "amount": 1}])[1],
                              "flights": [{"flight_number": number, "date": landed}]}),
        booking("economy", [{"payment_id": "credit_card_0000000", "amount": price("economy")}]),
        booking("economy", [{"payment_id": card, "amount": price("economy")}]),
        booking("business", [{"payment_id": certificate, "amount": min(cert_amount, price("business"))},
                             {"payment_id": card, "amount": price("business") - min(cert_amount, price("business"))}]),
        booking("basic_economy", [{"payment_id": gift or card, "amount": price("basic_economy")}]),
        booking("economy", [{"payment_id": card, "amount": price("economy")}]),
        ("update_reservation_baggages", {"reservation_id": reservation.reservation_id,
                                         "total_baggages": reservation.total_baggages + 2,
                                         "nonfree_baggages": reservation.nonfree_baggages + 1,
                                         "payment_id": gift or card}),
        ("update_reservation_passengers", {"reservation_id": reservation.reservation_id, "passengers": []}),
        ("update_reservation_passengers", {"reservation_id": reservation.reservation_id,
                                           "passengers": [person] * len(reservation.passengers)}),
        ("send_certificate", {"user_id": user.user_id, "amount": "lots"}),
        *[("send_certificate", {"user_id": user.user_id, "amount": 150}) for _ in range(4)],
        ("cancel_reservation", {"reservation_id": reservation.reservation_id}),
        ("cancel_reservation", {"reservation_id": "NOPE00"}), ("get_user_details", {"user_id": "nobody"}),
        ("get_reservation_details", {"reservation_id": reservation.reservation_id}),
        ("get_user_details", {"user_id": user.user_id}), ("calculate", {"expression": "2 * (3 + 4) / 3"}),
    ]
    return [(name, arguments, "assistant") for name, arguments in calls]


PROBES = {"airline": airline_probes}


def probes(domain: str) -> dict:
    """Upstream's answers to the domain's probe calls, made in order on a fresh environment."""
    env = registry.get_env_constructor(domain)()
    calls, outputs = PROBES[domain](env), []
    for number, (name, arguments, requestor) in enumerate(calls):
        outputs.append(sha(env.get_response(ToolCall(id=f"probe-{number}", name=name, arguments=arguments,
                                                     requestor=requestor)).content))
    return {"calls": [list(c) for c in calls], "tool_output_sha256": outputs, "db_hash": env.get_db_hash()}


def main(domain: str, split: str | None = None) -> None:
    """Every task of upstream's default split (base), or of `split` (telecom's fixture: full)."""
    tasks = registry.get_tasks_loader(domain)(*([split] if split else []))
    result = {task.id: cases(domain, task) for task in tasks}
    extra = {"probes": probes(domain)} if domain in PROBES else {}
    json.dump({"domain": domain, "tasks": result, **extra}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
