"""τ²-bench's `telecom` domain, the user's side: a simulated phone and the user's surroundings.

Behaviour follows upstream's src/tau2/domains/telecom (user_tools.py, user_data_model.py): the user's
database is {"device": ..., "surroundings": ...}; every setting that touches the radio re-runs the network
search (`simulate_network_search`), which derives the connection, technology and signal from the SIM,
the preferred mode, airplane mode, the APN and whether the line is active. Tool texts are upstream's,
emoji included. Upstream's connect_vpn hands out one VPN-details object shared by the whole process, so
once a set-up breaks the VPN (making that object poor) every later connection is poor too, in any task
the process runs after. gym keeps that within an episode and starts every episode as a fresh process
would (the `Phone` remembers it beside the hashed data).
"""

from __future__ import annotations

from typing import Any

from gym.episodes.tau2.records import REQUIRED, Record, Shape, dict_of
from gym.episodes.tau2.telecom.carrier import choice

SIGNALS = ("none", "poor", "fair", "good", "excellent")
TECHNOLOGIES = ("none", "2G", "3G", "4G", "5G")
MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
SIM_STATUSES = ("active", "missing", "locked_pin", "locked_puk")
NETWORK_STATUSES = ("connected", "searching", "no_service", "emergency_only")
PERFORMANCE = ("unknown", "poor", "fair", "good", "excellent")

APN = Shape("APNSettings", (("apn_name", "internet", choice("internet", "broken")), ("reset_at_reboot", False),
                            ("mms_apn", "mms"), ("mmsc_url", "http://mms.carrier.com/mms/wapenc"),
                            ("mms_proxy", None), ("mms_port", None)))
VPN = Shape("VpnDetails", (("server_address", None), ("protocol", None),
                           ("server_performance", "unknown", choice(*PERFORMANCE))))
PERMISSIONS = Shape("AppPermissions", (("sms", False), ("storage", False), ("phone", False), ("network", False)))
APP = Shape("AppStatus", (("app_name", REQUIRED), ("permissions", {"sms": False, "storage": False, "phone": False,
                                                                    "network": False}, PERMISSIONS)))
DEFAULT_APPS = {"messaging": {"app_name": "messaging", "permissions": {"sms": True, "storage": True, "phone": True,
                                                                       "network": False}},
                "browser": {"app_name": "browser", "permissions": {"sms": False, "storage": True, "phone": False,
                                                                   "network": True}}}
DEVICE = Shape("MockPhoneAttributes", (
    ("sim_card_status", "active", choice(*SIM_STATUSES)), ("sim_card_missing", False), ("airplane_mode", False),
    ("network_signal_strength", "good", choice(*SIGNALS)),
    ("network_technology_connected", "5G", choice(*TECHNOLOGIES)),
    ("network_connection_status", "connected", choice(*NETWORK_STATUSES)), ("battery_level", 80),
    ("data_enabled", True), ("roaming_enabled", False), ("network_mode_preference", MODES[0], choice(*MODES)),
    ("active_apn_settings", APN.make({}), APN), ("wifi_enabled", False), ("wifi_connected", False),
    ("wifi_ssid", None), ("wifi_signal_strength", "none", choice(*SIGNALS)), ("wifi_calling_enabled", False),
    ("wifi_calling_mms_over_wifi", False), ("data_saver_mode", False), ("vpn_enabled_setting", False),
    ("vpn_connected", False), ("vpn_details", None, VPN),
    ("app_statuses", {k: APP.make(v) for k, v in DEFAULT_APPS.items()}, dict_of(APP))))
PAYMENT_REQUEST = Shape("PaymentRequest", (("bill_id", REQUIRED), ("amount_due", REQUIRED), ("paid", False)))
SURROUNDINGS = Shape("UserSurroundings", (
    ("name", None), ("phone_number", None), ("is_abroad", False), ("roaming_allowed", False),
    ("signal_strength", {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"}),
    ("mobile_data_usage_exceeded", False), ("line_active", True), ("payment_request", None, PAYMENT_REQUEST)))
DEFAULT_VPN = {"server_address": "192.168.1.1", "protocol": "OpenVPN", "server_performance": "excellent"}


class Phone(dict):
    """The user's database {"device", "surroundings"}. Its attributes are not data (never hashed or shown):
    whether the device's VPN details are upstream's shared default object, and whether a set-up broke it."""

    details_shared = False
    default_poor = False


def _remember(db: dict, **facts: bool) -> None:
    if isinstance(db, Phone):
        for name, value in facts.items():
            setattr(db, name, value)


def normalize_phone(data: dict, where: str) -> dict:
    unknown = set(data) - {"device", "surroundings"}
    if unknown:
        raise ValueError(f"{where}: unknown part(s) {sorted(unknown)} (a telecom user database has device, surroundings)")
    return Phone(device=DEVICE.make(data.get("device") or {}, f"{where} device"),
                 surroundings=SURROUNDINGS.make(data.get("surroundings") or {}, f"{where} surroundings"))


def sim_status(device: dict) -> str:
    return "missing" if device["sim_card_missing"] else device["sim_card_status"]


def _no_service(device: dict) -> None:
    device.update(network_connection_status="no_service", network_technology_connected="none",
                  network_signal_strength="none")


def simulate_network_search(db: dict) -> None:
    device, around = db["device"], db["surroundings"]
    if sim_status(device) == "active":
        device["network_connection_status"] = "connected"
        preference = device["network_mode_preference"]
        only = {"4g_only": "4G", "3g_only": "3G", "2g_only": "2G"}
        technology = only.get(preference, "4G") if isinstance(preference, str) else "4G"  # any other value: 4G
        if preference == "4g_5g_preferred" and around["signal_strength"].get("5G", "none") != "none":
            technology = "5G"
        device["network_technology_connected"] = technology
        device["network_signal_strength"] = around["signal_strength"].get(technology, "none")
    else:
        _no_service(device)
    if device["airplane_mode"] or device["active_apn_settings"]["apn_name"] == "broken" or not around["line_active"]:
        _no_service(device)


def status_bar(db: dict) -> str:
    device = db["device"]
    shown = []
    if device["airplane_mode"]:
        shown.append("✈️ Airplane Mode")
    else:
        bars = {"none": "📵 No Signal", "poor": "📶¹ Poor", "fair": "📶² Fair", "good": "📶³ Good",
                "excellent": "📶⁴ Excellent"}
        shown.append(bars.get(device["network_signal_strength"], "📵 No Signal"))
        technology = device["network_technology_connected"]
        if technology != "none":
            shown.append(technology)
        if device["data_enabled"] and technology != "none":
            shown.append("📱 Data Enabled")
            if device["data_saver_mode"]:
                shown.append("🔽 Data Saver")
        else:
            shown.append("📵 Data Disabled")
    if device["wifi_enabled"] and device["wifi_connected"]:
        shown.append(f"📡 Connected to {device['wifi_ssid']}" if device["wifi_ssid"] else "📡 Enabled")
    if device["vpn_connected"]:
        shown.append("🔒 VPN Connected")
    shown.append(f"🔋 {device['battery_level']}%")
    return " | ".join(shown)


def with_status_bar(db: dict, text: str) -> str:
    return f"{text}\nStatus Bar: {status_bar(db)}"


def mobile_data_working(db: dict) -> bool:
    device, around = db["device"], db["surroundings"]
    if device["airplane_mode"] or device["network_signal_strength"] == "none":
        return False
    if device["network_connection_status"] == "no_service":
        return False
    if around["is_abroad"] and (not device["roaming_enabled"] or not around["roaming_allowed"]):
        return False
    return bool(device["data_enabled"]) and not around["mobile_data_usage_exceeded"]


SPEED_RANGES = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0), "5G": (50.0, 500.0), "none": (0.0, 0.0)}
SIGNAL_FACTORS = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0, "none": 0.0}


def speed_test(db: dict) -> tuple[float | None, str]:
    """(Mbps, description): the midpoint of the technology's range, scaled by signal, a poor VPN and data saver."""
    device = db["device"]
    if not mobile_data_working(db):
        return None, "No Connection"
    vpn = device["vpn_details"]
    factor = 0.1 if device["vpn_connected"] and vpn and vpn["server_performance"] == "poor" else 1.0
    if device["data_saver_mode"]:
        factor *= 0.2
    low, high = SPEED_RANGES.get(device["network_technology_connected"], (0.0, 0.0))
    speed = round((low + high) / 2.0 * SIGNAL_FACTORS.get(device["network_signal_strength"], 0.0) * factor, 2)
    for limit, description in ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good")):
        if speed < limit:
            return speed, description
    return speed, "Excellent"


def can_send_mms(db: dict) -> bool:
    device = db["device"]
    if not mobile_data_working(db) or device["network_technology_connected"] == "2G":
        return False
    if device["wifi_calling_enabled"] and device["wifi_calling_mms_over_wifi"]:
        return False  # the carrier does not carry MMS over Wi-Fi
    if device["active_apn_settings"]["mmsc_url"] is None:
        return False
    app = device["app_statuses"].get("messaging")
    return bool(app is not None and app["permissions"]["storage"] and app["permissions"]["sms"])


def toggle(db: dict, setting: str, search: bool = True) -> bool:
    device = db["device"]
    device[setting] = not device[setting]
    if search:
        simulate_network_search(db)
    return device[setting]


def toggle_airplane_mode_state(db: dict) -> bool:
    device = db["device"]
    was_on = device["airplane_mode"]
    device["airplane_mode"] = not was_on
    if not was_on or device["wifi_enabled"]:
        device.update(wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
    if was_on:
        device["network_connection_status"] = "searching"
    elif device["vpn_connected"]:
        disconnect_vpn_state(db)
    simulate_network_search(db)
    return device["airplane_mode"]


def connect_vpn_state(db: dict) -> bool | None:
    device = db["device"]
    if device["vpn_connected"]:
        return None
    device["vpn_connected"] = True
    poor = getattr(db, "default_poor", False)
    device["vpn_details"] = VPN.make({**DEFAULT_VPN, "server_performance": "poor"} if poor else DEFAULT_VPN)
    _remember(db, details_shared=True)
    return True


def break_vpn_state(db: dict) -> None:
    """A set-up's broken VPN: connected (if it was not) and made poor; upstream's shared default object
    with it, when the device holds that object."""
    connect_vpn_state(db)
    db["device"]["vpn_details"]["server_performance"] = "poor"
    if getattr(db, "details_shared", False):
        _remember(db, default_poor=True)


def disconnect_vpn_state(db: dict) -> bool:
    device = db["device"]
    if not device["vpn_connected"]:
        return False
    device["vpn_connected"] = False
    device["vpn_details"] = None
    _remember(db, details_shared=False)
    return True


def _enum_repr(enum: str, value: str) -> str:
    return f"<{enum}.{value.upper()}: {value!r}>"


def vpn_details_text(details: dict) -> str:
    """The details as Python prints upstream's model dump (its enum member shown in repr form)."""
    parts = [f"'server_address': {details['server_address']!r}", f"'protocol': {details['protocol']!r}",
             f"'server_performance': {_enum_repr('PerformanceLevel', details['server_performance'])}"]
    return "{" + ", ".join(parts) + "}"


def granted(permissions: dict) -> list[str]:
    return [name.replace("_", " ").lower() for name, allowed in permissions.items() if allowed]


def set_permission(db: dict, app_name: str, permission: str, value: bool) -> tuple[bool, str]:
    app = db["device"]["app_statuses"].get(app_name)
    permission = permission.lower()
    if app is None:
        return False, f"App '{app_name}' not found. Cannot {'grant' if value else 'remove'} permission."
    if permission not in app["permissions"]:
        untracked = f"Permission '{permission}' not tracked for app '{app_name}'"
        # upstream's two texts differ: granting lists the permissions, removing ends with a full stop
        return False, (f"{untracked}, available permissions: {list(app['permissions'])}" if value else f"{untracked}.")
    app["permissions"][permission] = value
    return True, f"Permission '{permission}' {'granted to' if value else 'removed from'} app '{app_name}'."


def make_apn(value: Any) -> Record:
    if isinstance(value, dict):
        return APN.make(value, "apn_settings")
    raise ValueError(f"apn_settings must be an object, got {type(value).__name__}")
