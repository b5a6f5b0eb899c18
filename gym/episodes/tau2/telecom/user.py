"""The telecom user's tools over the simulated phone (gym.episodes.tau2.telecom.phone), with upstream's
texts, and the functions tasks name to break the phone or check it (initialization_actions, env_assertions).
"""

from __future__ import annotations

from typing import Any

from gym.episodes.tau2.telecom import phone
from gym.episodes.tau2.telecom.phone import with_status_bar

ON_OFF = {True: "ON", False: "OFF"}
SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
SIM_TEXTS = {"active": "Your SIM card is active and working.", "missing": "No SIM card detected in the phone.",
             "locked_pin": "The SIM card is locked with a PIN code.",
             "locked_puk": "The SIM card is locked with a PUK code."}


def assign(record: dict, **values: Any) -> None:
    for key, value in values.items():  # item by item: an episode's tables note what they own on assignment
        record[key] = value


def check_status_bar(db: dict) -> str:
    return f"Status Bar: {phone.status_bar(db)}"


def check_network_status(db: dict) -> str:
    device = db["device"]
    lines = [f"Airplane Mode: {ON_OFF[bool(device['airplane_mode'])]}", f"SIM Card Status: {phone.sim_status(device)}",
             f"Cellular Connection: {device['network_connection_status']}",
             f"Cellular Signal: {device['network_signal_strength']}",
             f"Cellular Network Type: {device['network_technology_connected']}",
             f"Mobile Data Enabled: {'Yes' if device['data_enabled'] else 'No'}",
             f"Data Roaming Enabled: {'Yes' if device['roaming_enabled'] else 'No'}",
             f"Wi-Fi Radio: {ON_OFF[bool(device['wifi_enabled'])]}",
             f"Wi-Fi Connected: {'Yes' if device['wifi_connected'] else 'No'}"]
    if device["wifi_connected"]:
        lines.append(f"Connected Wi-Fi Network: {device['wifi_ssid']}")
    return "\n".join(lines)


def _value(value: Any) -> str:
    """An enum setting's value; a setting stored with another type fails as upstream's `.value` does."""
    if not isinstance(value, str):
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'value'")
    return value


def check_network_mode_preference(db: dict) -> str:
    return f"Network Mode Preference: {_value(db['device']['network_mode_preference'])}"


def set_network_mode_preference(db: dict, mode: Any) -> str:
    if isinstance(mode, str) and mode not in phone.MODES:
        return with_status_bar(db, f"Failed to set network mode: '{mode}' is not a valid option. "
                                   f"Please use one of: {', '.join(phone.MODES)}")
    db["device"]["network_mode_preference"] = mode
    phone.simulate_network_search(db)
    return with_status_bar(db, f"Preferred Network Mode set to: {_value(mode)}")  # stored even if not a str, as upstream


def run_speed_test(db: dict) -> str:
    speed, description = phone.speed_test(db)
    if speed is None:
        return f"Speed test failed: {description or 'Could not determine speed'}."
    return f"Speed Test Result: {speed:.2f} Mbps ({description}). {SPEED_ADVICE.get(description, '')}"


def toggle_airplane_mode(db: dict) -> str:
    return with_status_bar(db, f"Airplane Mode is now {ON_OFF[phone.toggle_airplane_mode_state(db)]}.")


def check_sim_status(db: dict) -> str:
    return SIM_TEXTS[phone.sim_status(db["device"])]


def reseat_sim_card(db: dict) -> str:
    db["device"]["sim_card_missing"] = False
    phone.simulate_network_search(db)
    return with_status_bar(db, "SIM card re-seated successfully.")


def toggle_data(db: dict) -> str:
    return with_status_bar(db, f"Mobile Data is now {ON_OFF[phone.toggle(db, 'data_enabled')]}.")


def toggle_roaming(db: dict) -> str:
    return with_status_bar(db, f"Data Roaming is now {ON_OFF[phone.toggle(db, 'roaming_enabled')]}.")


def check_data_restriction_status(db: dict) -> str:
    return "Data Saver mode is ON (limits data usage)." if db["device"]["data_saver_mode"] else "Data Saver mode is OFF."


def toggle_data_saver_mode(db: dict) -> str:
    state = phone.toggle(db, "data_saver_mode", search=False)
    return with_status_bar(db, f"Data Saver Mode is now {ON_OFF[state]}.")


def check_apn_settings(db: dict) -> str:
    settings = db["device"]["active_apn_settings"]
    return (f"Current APN Name: {settings['apn_name'] or 'Not Set'}\nMMSC URL (for picture messages): "
            f"{settings['mmsc_url'] or 'Not Set'}\n(These are technical settings, usually best left unchanged.)")


def set_apn_settings(db: dict, apn_settings: Any) -> str:
    settings = phone.make_apn(apn_settings)
    db["device"]["active_apn_settings"] = settings
    phone.simulate_network_search(db)
    return with_status_bar(db, f"APN settings set to: {settings['apn_name']}")


def reset_apn_settings(db: dict) -> str:
    db["device"]["active_apn_settings"]["reset_at_reboot"] = True
    phone.simulate_network_search(db)
    return with_status_bar(db, "APN settings will reset at reboot.")


def check_wifi_status(db: dict) -> str:
    device = db["device"]
    if not device["wifi_enabled"]:
        return "Wi-Fi is turned OFF."
    if device["wifi_connected"]:
        return f"Wi-Fi is ON and connected to '{device['wifi_ssid']}'. Signal strength: {device['wifi_signal_strength']}."
    return "Wi-Fi is ON but not connected to any network."


def toggle_wifi(db: dict) -> str:
    device = db["device"]
    if device["airplane_mode"]:
        return with_status_bar(db, "Cannot change Wi-Fi settings while Airplane Mode is ON.")
    state = phone.toggle(db, "wifi_enabled", search=False)
    if not state:
        assign(device, wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
    return with_status_bar(db, f"Wi-Fi is now {ON_OFF[state]}.")


def check_wifi_calling_status(db: dict) -> str:
    return f"Wi-Fi Calling is currently turned {ON_OFF[bool(db['device']['wifi_calling_enabled'])]}."


def toggle_wifi_calling(db: dict) -> str:
    state = phone.toggle(db, "wifi_calling_enabled", search=False)
    return with_status_bar(db, f"Wi-Fi Calling is now {ON_OFF[state]}.")


def check_vpn_status(db: dict) -> str:
    device = db["device"]
    if device["vpn_connected"]:
        if device["vpn_details"]:
            return f"VPN is ON and connected. Details: {phone.vpn_details_text(device['vpn_details'])}"
        return "VPN is ON and connected (no specific details available)."
    if device["vpn_enabled_setting"]:
        return "VPN is turned ON in settings, but currently not connected."
    return "VPN is turned OFF."


def connect_vpn(db: dict) -> str:
    if phone.connect_vpn_state(db) is None:
        return "VPN already connected."
    return with_status_bar(db, "VPN connected successfully.")


def disconnect_vpn(db: dict) -> str:
    done = phone.disconnect_vpn_state(db)
    return with_status_bar(db, "VPN disconnected successfully." if done else "No active VPN connection to disconnect.")


def check_installed_apps(db: dict) -> str:
    return f"The following apps are installed on the phone: {', '.join(db['device']['app_statuses'])}"


def check_app_status(db: dict, app_name: str) -> str:
    app = db["device"]["app_statuses"].get(app_name)
    if not app:
        return f"App '{app_name}' not found on this phone."
    allowed = phone.granted(app["permissions"])
    lines = [f"Status for App: {app_name}"]
    lines += [" - Permissions Granted:"] + [f"   - {name}" for name in allowed] if allowed \
        else [" - Permissions: None granted."]
    return "\n".join(lines)


def check_app_permissions(db: dict, app_name: str) -> str:
    app = db["device"]["app_statuses"].get(app_name)
    if not app:
        return f"App '{app_name}' not found on this phone."
    allowed = phone.granted(app["permissions"])
    if not allowed:
        return f"App '{app_name}' currently has no permissions granted."
    return f"App '{app_name}' has permission for: {', '.join(allowed)}."


def grant_app_permission(db: dict, app_name: str, permission: str) -> str:
    ok, text = phone.set_permission(db, app_name, permission, True)
    return with_status_bar(db, f"{'Success. ' if ok else 'Error. '}{text}")


def can_send_mms(db: dict) -> str:
    return f"Your messaging app {'can' if phone.can_send_mms(db) else 'cannot'} send MMS messages."


def reboot_device(db: dict) -> str:
    device, lines = db["device"], []
    if device["active_apn_settings"]["reset_at_reboot"]:
        lines.append("Resetting APN settings...")
        device["active_apn_settings"] = phone.APN.make({})
    lines.append("Restarting network services...")
    device["network_connection_status"] = "searching"
    phone.simulate_network_search(db)
    return with_status_bar(db, "\n".join(lines))


def check_payment_request(db: dict) -> str:
    request = db["surroundings"]["payment_request"]
    if request is None:
        return "No payment request has been made."
    return f"You have a payment request for bill {request['bill_id']} of {request['amount_due']} USD."


def make_payment(db: dict) -> str:
    request = db["surroundings"]["payment_request"]
    if request is None:
        return "You do not have a payment request."
    request["paid"] = True  # the carrier's side marks the bill paid when the two sides sync
    return f"Payment of {request['amount_due']} USD has been made for bill {request['bill_id']}."
