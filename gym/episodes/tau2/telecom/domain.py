"""τ²-bench's `telecom` domain: tech support for a carrier (gym.episodes.tau2.telecom.carrier) while the user
works their own phone (telecom.phone, telecom.user), and the sync that joins the two sides.

Upstream's environment syncs after its construction, after each tool call that succeeds, after each
function a task names (set-up actions and checks) and at the end of replaying a trajectory, but not after
the evaluator's gold actions: the phone learns whether its line is active, may roam and is over its data
limit; a bill the user paid is marked paid; a bill awaiting payment becomes the user's payment request.
Pinned by tests that play every fixture task's gold actions (both sides) and compare outputs, rewards and
database hashes with values computed by upstream's code.
"""

from __future__ import annotations

from gym.episodes.tau2.domain import Domain, Tool, Toolkit
from gym.episodes.tau2.telecom import carrier, phone, user


def sync(db: dict, user_db: dict) -> None:
    around = user_db["surroundings"]
    number = around["phone_number"]
    if number is None:
        return
    line = carrier.line_by_phone(db, number)
    around["line_active"] = line["status"] == "Active"
    around["roaming_allowed"] = bool(line["roaming_enabled"])
    plan = carrier.plan_by_id(db, line["plan_id"])
    around["mobile_data_usage_exceeded"] = line["data_used_gb"] >= plan["data_limit_gb"] + line["data_refueling_gb"]
    request = around["payment_request"]
    if request is not None and request["paid"]:
        carrier.bill_by_id(db, request["bill_id"])["status"] = "Paid"
        around["payment_request"] = None
    if around["payment_request"] is None:
        waiting = carrier.bills_awaiting_payment(db, carrier.get_customer_by_phone(db, number))
        if waiting:
            around["payment_request"] = phone.PAYMENT_REQUEST.make(
                {"bill_id": waiting[0]["bill_id"], "amount_due": waiting[0]["total_due"]}, "payment request")


def set_user_info(db: dict, name: str, phone_number: str) -> None:
    user.assign(db["surroundings"], name=name, phone_number=phone_number)


def set_user_location(db: dict, abroad: bool) -> None:
    db["surroundings"]["is_abroad"] = abroad


def _force(setting: str, on: bool, search: bool = True):
    """A set-up function that toggles a setting until it has the wanted value (upstream's turn_*_on/off)."""
    def force(db: dict) -> None:
        if phone.toggle(db, setting, search) != on:
            phone.toggle(db, setting, search)
    return force


def turn_airplane_mode(on: bool):
    def force(db: dict) -> str:
        if phone.toggle_airplane_mode_state(db) != on:
            phone.toggle_airplane_mode_state(db)
        return f"Airplane Mode is now {user.ON_OFF[on]}."
    return force


def turn_data_on(db: dict) -> str:
    db["device"]["data_enabled"] = True  # no network search, as upstream
    return "Data connection restored."


def unseat_sim_card(db: dict) -> str:
    db["device"]["sim_card_missing"] = True
    phone.simulate_network_search(db)
    return "SIM card un-seated successfully."


def lock_sim_card(db: dict, mode: str) -> str:
    if mode in ("pin", "puk"):
        db["device"]["sim_card_status"] = f"locked_{mode}"
    phone.simulate_network_search(db)
    return f"SIM card locked successfully in {mode} mode."


def break_apn_settings(db: dict) -> str:
    db["device"]["active_apn_settings"]["apn_name"] = "broken"
    phone.simulate_network_search(db)
    return "APN settings broken. Please call reset_apn_settings() to fix."


def break_apn_mms_setting(db: dict) -> str:
    db["device"]["active_apn_settings"]["mmsc_url"] = None
    return "APN MMS setting broken. Please call reset_apn_settings() to fix."


def set_wifi_calling(db: dict, enabled: bool, mms_over_wifi: bool | None = None) -> str:
    device = db["device"]
    if device["wifi_calling_enabled"] != enabled:
        phone.toggle(db, "wifi_calling_enabled", search=False)
    text = f"Wi-Fi Calling is now {user.ON_OFF[bool(enabled)]}."
    if mms_over_wifi is not None:
        device["wifi_calling_mms_over_wifi"] = mms_over_wifi
        text += f"\nMMS over Wi-Fi is now {user.ON_OFF[bool(mms_over_wifi)]}."
    return text


def break_vpn(db: dict) -> str:
    phone.break_vpn_state(db)
    return "VPN connection broken."


def _speed_at_least(db: dict, expected_speed: float, expected_desc: str | None = None) -> bool:
    speed, description = phone.speed_test(db)
    speed = speed or 0.0
    return speed >= expected_speed and (expected_desc is None or description.lower() == expected_desc.lower())


def _service_is(db: dict, expected_status: str) -> bool:
    if expected_status not in phone.NETWORK_STATUSES:
        raise ValueError(f"'{expected_status}' is not a valid NetworkStatus")
    return db["device"]["network_connection_status"] == expected_status


def _device_is(field: str):
    return lambda db, expected_status: db["device"][field] == expected_status


PHONE_HELPERS = {
    "set_user_info": set_user_info, "set_user_location": set_user_location,
    "simulate_network_search": phone.simulate_network_search,
    "turn_airplane_mode_on": turn_airplane_mode(True), "turn_airplane_mode_off": turn_airplane_mode(False),
    "unseat_sim_card": unseat_sim_card, "lock_sim_card": lock_sim_card, "turn_data_on": turn_data_on,
    "turn_data_off": lambda db: (_force("data_enabled", False)(db), "Data connection broken.")[1],
    "turn_roaming_on": lambda db: (_force("roaming_enabled", True)(db), "Data Roaming is now ON.")[1],
    "turn_roaming_off": lambda db: (_force("roaming_enabled", False)(db), "Data Roaming is now OFF.")[1],
    "turn_data_saver_mode_on": lambda db: (_force("data_saver_mode", True, False)(db), "Data Saver Mode is now ON.")[1],
    "turn_data_saver_mode_off": lambda db: (_force("data_saver_mode", False, False)(db),
                                            "Data Saver Mode is now OFF.")[1],
    "break_apn_settings": break_apn_settings, "break_apn_mms_setting": break_apn_mms_setting,
    "set_wifi_calling": set_wifi_calling, "break_vpn": break_vpn,
    "remove_app_permission": lambda db, app_name, permission: phone.set_permission(db, app_name, permission, False),
    "assert_airplane_mode_status": _device_is("airplane_mode"), "assert_service_status": _service_is,
    "assert_mobile_data_status": lambda db, expected_status: phone.mobile_data_working(db) == expected_status,
    "assert_mobile_roaming_status": _device_is("roaming_enabled"),
    "assert_mobile_data_saver_mode_status": _device_is("data_saver_mode"),
    "assert_internet_speed": _speed_at_least,
    "assert_internet_not_excellent": lambda db: phone.speed_test(db)[1].lower() != "excellent",
    "assert_can_send_mms": lambda db, expected_status: phone.can_send_mms(db) == expected_status,
    "assert_mobile_data_usage_exceeded": lambda db, expected_status: (
        db["surroundings"]["mobile_data_usage_exceeded"] == expected_status),
}
PHONE_READS = ("check_status_bar", "check_network_status", "check_network_mode_preference", "run_speed_test",
               "check_sim_status", "check_data_restriction_status", "check_apn_settings", "check_wifi_status",
               "check_wifi_calling_status", "check_vpn_status", "check_installed_apps", "check_app_status",
               "check_app_permissions", "can_send_mms", "check_payment_request")
PHONE_WRITES = ("set_network_mode_preference", "toggle_airplane_mode", "reseat_sim_card", "toggle_data",
                "toggle_roaming", "toggle_data_saver_mode", "set_apn_settings", "reset_apn_settings", "toggle_wifi",
                "toggle_wifi_calling", "connect_vpn", "disconnect_vpn", "grant_app_permission", "reboot_device",
                "make_payment")

DOMAIN = Domain(
    name="telecom",
    agent=Toolkit(tables={}, normalizer=carrier.normalize_carrier,
                  tools={**{name: Tool(fn) for name, fn in carrier.READS.items()},
                         **{name: Tool(fn, mutates=True) for name, fn in carrier.WRITES.items()}},
                  helpers=carrier.HELPERS),
    user=Toolkit(tables={}, normalizer=phone.normalize_phone,
                 tools={**{name: Tool(getattr(user, name)) for name in PHONE_READS},
                        **{name: Tool(getattr(user, name), mutates=True) for name in PHONE_WRITES}},
                 helpers=PHONE_HELPERS),
    sync=sync,
)
