"""ToolSandbox's stateful phone tools (upstream's tools/setting.py, contact.py, messaging.py, reminder.py,
user_tools.py) over gym's World: same signatures, checks, results and error messages. The world a call
acts on is `CURRENT` (set by gym.episodes.toolsandbox.calls around each call); a tool that another tool
uses is called unwrapped, so only the outer call leaves a trace, as upstream's tracing does."""

from __future__ import annotations

import contextvars
import functools
from typing import Any, Optional

from gym.episodes.toolsandbox import checks as c
from gym.episodes.toolsandbox.checks import NOT_GIVEN, typechecked
from gym.episodes.toolsandbox.world import CONTACT, MESSAGING, REMINDER, SETTING, DuplicateError, World

CURRENT: contextvars.ContextVar[World] = contextvars.ContextVar("toolsandbox_world")


def world() -> World:
    return CURRENT.get()


# ---- settings
def _set_boolean(setting: str, on: bool) -> None:
    c.validate_type(setting, "setting_name", c.STR)
    c.validate_type(on, "on", c.BOOL)
    row = world().rows(SETTING)[0]
    if bool(row[setting]) == on:
        raise ValueError(f"{setting} already {('disabled', 'enabled')[int(on)]}")
    world().replace(SETTING, [dict(row, **{setting: not row[setting]})])


def _get_boolean(setting: str) -> bool:
    return world().rows(SETTING)[0][setting]


def set_low_battery_mode_status(on: bool) -> None:
    c.validate_type(on, "on", c.BOOL)
    _set_boolean("low_battery_mode", on)
    if on:
        for dependent in ["cellular", "wifi", "location_service"]:
            try:
                _set_boolean(dependent, False)
            except ValueError:
                pass


def get_low_battery_mode_status() -> bool:
    return _get_boolean("low_battery_mode")


def _service_setter(setting: str, label: str, check_on: bool = True):
    def setter(on: bool) -> None:
        if check_on:
            c.validate_type(on, "on", c.BOOL)
        if on and _get_boolean("low_battery_mode"):
            raise PermissionError(f"{label} cannot be turned on in low battery mode")
        _set_boolean(setting, on)
    return setter


set_location_service_status = _service_setter("location_service", "Location service", check_on=False)
set_cellular_service_status = _service_setter("cellular", "Cellular service")
set_wifi_status = _service_setter("wifi", "Wifi")


def get_location_service_status() -> bool:
    return _get_boolean("location_service")


def get_cellular_service_status() -> bool:
    return _get_boolean("cellular")


def get_wifi_status() -> bool:
    return _get_boolean("wifi")


def get_current_location() -> dict:
    if not _get_boolean("location_service"):
        raise PermissionError("Location service is not enabled.")
    row = world().rows(SETTING)[0]
    return {"latitude": row["latitude"], "longitude": row["longitude"]}


# ---- contacts
def _search_contacts(person_id: Any = NOT_GIVEN, name: Any = NOT_GIVEN, phone_number: Any = NOT_GIVEN,
                     relationship: Any = NOT_GIVEN, is_self: Any = NOT_GIVEN) -> list[dict]:
    c.validate_phone_number(phone_number)
    return c.filter_rows(world().rows(CONTACT), [
        ("person_id", person_id, c.exact), ("name", name, c.fuzzy), ("phone_number", phone_number, c.exact),
        ("relationship", relationship, functools.partial(c.fuzzy, threshold=90)), ("is_self", is_self, c.exact)])


@typechecked(name=c.STR, phone_number=c.STR, relationship=c.OPT_STR, is_self=c.BOOL)
def add_contact(name: str, phone_number: str, relationship: Optional[str] = None, is_self: bool = False) -> str:
    c.validate_phone_number(phone_number)
    person_id = world().new_id()
    if is_self and _search_contacts(is_self=True):
        raise DuplicateError("Self entry already exists. Cannot add another one.")
    world().add(CONTACT, [{"person_id": person_id, "name": name, "phone_number": phone_number,
                           "relationship": relationship, "is_self": is_self}])
    return person_id


@typechecked(person_id=c.STR, name=c.MAYBE_STR, phone_number=c.MAYBE_STR, relationship=c.MAYBE_STR,
             is_self=c.MAYBE_BOOL)
def modify_contact(person_id: str, name: Any = NOT_GIVEN, phone_number: Any = NOT_GIVEN,
                   relationship: Any = NOT_GIVEN, is_self: Any = NOT_GIVEN) -> None:
    if all(x is NOT_GIVEN for x in [name, phone_number, relationship, is_self]):
        raise ValueError("No update information given. At least one new field should be provided among "
                         "[name, phone_number, relationship, is_self] in order to modify contact")
    c.validate_phone_number(phone_number)
    own = _search_contacts(is_self=True)
    if own and is_self and own[0]["person_id"] != person_id:
        raise DuplicateError("Self entry already exists. Cannot add another one.")
    entry = c.one_row(world().rows(CONTACT), "person_id", person_id, "person_id")
    for column, value in [("name", name), ("phone_number", phone_number), ("relationship", relationship),
                          ("is_self", is_self)]:
        if value is not NOT_GIVEN:
            entry[column] = value
    world().remove(CONTACT, "person_id", person_id)
    world().add(CONTACT, [entry])


@typechecked(person_id=c.STR)
def remove_contact(person_id: str) -> None:
    c.validate_type(person_id, "person_id", c.STR)
    world().remove(CONTACT, "person_id", person_id)


def search_contacts(person_id: Any = NOT_GIVEN, name: Any = NOT_GIVEN, phone_number: Any = NOT_GIVEN,
                    relationship: Any = NOT_GIVEN, is_self: Any = NOT_GIVEN) -> list[dict]:
    return _search_contacts(person_id, name, phone_number, relationship, is_self)


# ---- messaging
@typechecked(phone_number=c.STR, content=c.STR)
def send_message_with_phone_number(phone_number: str, content: str) -> str:
    c.validate_phone_number(phone_number)
    if not _get_boolean("cellular"):
        raise ConnectionError("Cellular service is not enabled")
    message_id = world().new_id()
    own = _search_contacts(is_self=True)
    if len(own) != 1:
        raise DuplicateError(f"1 and only 1 self entry should exist in contacts database, instead found {len(own)}")
    recipient = _search_contacts(phone_number=phone_number)
    world().add(MESSAGING, [{
        "message_id": message_id, "sender_person_id": own[0]["person_id"],
        "sender_phone_number": own[0]["phone_number"],
        "recipient_person_id": None if not recipient else recipient[0]["person_id"],
        "recipient_phone_number": phone_number, "content": content, "creation_timestamp": world().now}])
    return message_id


@typechecked(message_id=c.MAYBE_STR, sender_person_id=c.MAYBE_STR, sender_phone_number=c.MAYBE_STR,
             recipient_person_id=c.MAYBE_STR, recipient_phone_number=c.MAYBE_STR, content=c.MAYBE_STR,
             creation_timestamp_lowerbound=c.MAYBE_FLOAT, creation_timestamp_upperbound=c.MAYBE_FLOAT)
def search_messages(message_id: Any = NOT_GIVEN, sender_person_id: Any = NOT_GIVEN,
                    sender_phone_number: Any = NOT_GIVEN, recipient_person_id: Any = NOT_GIVEN,
                    recipient_phone_number: Any = NOT_GIVEN, content: Any = NOT_GIVEN,
                    creation_timestamp_lowerbound: Any = NOT_GIVEN,
                    creation_timestamp_upperbound: Any = NOT_GIVEN) -> list[dict]:
    c.validate_phone_number(sender_phone_number)
    c.validate_phone_number(recipient_phone_number)
    c.validate_timestamp(creation_timestamp_lowerbound, "creation_timestamp_lowerbound", c.MAYBE_FLOAT)
    c.validate_timestamp(creation_timestamp_upperbound, "creation_timestamp_upperbound", c.MAYBE_FLOAT)
    return c.filter_rows(world().rows(MESSAGING), [
        ("message_id", message_id, c.exact), ("sender_person_id", sender_person_id, c.exact),
        ("sender_phone_number", sender_phone_number, c.exact), ("recipient_person_id", recipient_person_id, c.exact),
        ("recipient_phone_number", recipient_phone_number, c.exact),
        ("content", content, functools.partial(c.fuzzy, threshold=50)),
        ("creation_timestamp", creation_timestamp_lowerbound, c.at_least),
        ("creation_timestamp", creation_timestamp_upperbound, c.at_most)])


# ---- reminders
@typechecked(content=c.STR, reminder_timestamp=c.FLOAT, latitude=c.OPT_FLOAT, longitude=c.OPT_FLOAT)
def add_reminder(content: str, reminder_timestamp: float, latitude: Optional[float] = None,
                 longitude: Optional[float] = None) -> str:
    c.validate_timestamp(reminder_timestamp, "reminder_timestamp", c.FLOAT)
    c.validate_latitude(latitude, "latitude", c.OPT_FLOAT)
    c.validate_longitude(longitude, "longitude", c.OPT_FLOAT)
    reminder_id = world().new_id()
    world().add(REMINDER, [{"reminder_id": reminder_id, "content": content, "creation_timestamp": world().now,
                            "reminder_timestamp": reminder_timestamp, "latitude": latitude, "longitude": longitude}])
    return reminder_id


@typechecked(reminder_id=c.STR, content=c.MAYBE_STR, reminder_timestamp=c.MAYBE_FLOAT, latitude=c.MAYBE_OPT_FLOAT,
             longitude=c.MAYBE_OPT_FLOAT)
def modify_reminder(reminder_id: str, content: Any = NOT_GIVEN, reminder_timestamp: Any = NOT_GIVEN,
                    latitude: Any = NOT_GIVEN, longitude: Any = NOT_GIVEN) -> None:
    c.validate_timestamp(reminder_timestamp, "reminder_timestamp", c.MAYBE_FLOAT)
    c.validate_latitude(latitude, "latitude", c.MAYBE_OPT_FLOAT)
    c.validate_longitude(longitude, "longitude", c.MAYBE_OPT_FLOAT)
    if all(x is NOT_GIVEN for x in [content, reminder_timestamp, latitude, longitude]):
        raise ValueError("No update information given. At least one new field should be provided among "
                         "[content, reminder_timestamp, latitude, longitude] in order to modify reminder")
    entry = c.one_row(world().rows(REMINDER), "reminder_id", reminder_id, "reminder_id")
    for column, value in [("content", content), ("creation_timestamp", world().now),
                          ("reminder_timestamp", reminder_timestamp), ("latitude", latitude),
                          ("longitude", longitude)]:
        if value is not NOT_GIVEN:
            entry[column] = value
    world().remove(REMINDER, "reminder_id", reminder_id)
    world().add(REMINDER, [entry])


_BOUNDS = dict(creation_timestamp_lowerbound=c.MAYBE_FLOAT, creation_timestamp_upperbound=c.MAYBE_FLOAT,
               reminder_timestamp_lowerbound=c.MAYBE_FLOAT, reminder_timestamp_upperbound=c.MAYBE_FLOAT)


@typechecked(reminder_id=c.MAYBE_STR, content=c.MAYBE_STR, latitude=c.MAYBE_FLOAT, longitude=c.MAYBE_FLOAT,
             **_BOUNDS)
def search_reminder(reminder_id: Any = NOT_GIVEN, content: Any = NOT_GIVEN,
                    creation_timestamp_lowerbound: Any = NOT_GIVEN, creation_timestamp_upperbound: Any = NOT_GIVEN,
                    reminder_timestamp_lowerbound: Any = NOT_GIVEN, reminder_timestamp_upperbound: Any = NOT_GIVEN,
                    latitude: Any = NOT_GIVEN, longitude: Any = NOT_GIVEN) -> list[dict]:
    bounds = [creation_timestamp_lowerbound, creation_timestamp_upperbound, reminder_timestamp_lowerbound,
              reminder_timestamp_upperbound]
    for name, value in zip(_BOUNDS, bounds):
        c.validate_timestamp(value, name, c.MAYBE_FLOAT)
    c.validate_latitude(latitude, "latitude", c.MAYBE_FLOAT)
    c.validate_longitude(longitude, "longitude", c.MAYBE_FLOAT)
    return c.filter_rows(world().rows(REMINDER), [
        ("reminder_id", reminder_id, c.exact), ("content", content, functools.partial(c.fuzzy, threshold=50)),
        ("creation_timestamp", bounds[0], c.at_least), ("creation_timestamp", bounds[1], c.at_most),
        ("reminder_timestamp", bounds[2], c.at_least), ("reminder_timestamp", bounds[3], c.at_most),
        ("latitude", latitude, c.exact), ("longitude", longitude, c.exact)])


@typechecked(reminder_id=c.STR)
def remove_reminder(reminder_id: str) -> None:
    world().remove(REMINDER, "reminder_id", reminder_id)


# ---- the user's tool
def end_conversation() -> None:
    last = world().messages[-1]
    if not last["conversation_active"]:
        raise ValueError("Conversation already ended")
    last["conversation_active"] = False


DEVICE_TOOLS = {f.__name__: f for f in [
    set_low_battery_mode_status, get_low_battery_mode_status, set_location_service_status,
    get_location_service_status, set_cellular_service_status, get_cellular_service_status, set_wifi_status,
    get_wifi_status, get_current_location, add_contact, modify_contact, remove_contact, search_contacts,
    send_message_with_phone_number, search_messages, add_reminder, modify_reminder, search_reminder,
    remove_reminder, end_conversation]}
for _name, _setter in [("set_location_service_status", set_location_service_status),
                       ("set_cellular_service_status", set_cellular_service_status),
                       ("set_wifi_status", set_wifi_status)]:
    _setter.__name__ = _setter.__qualname__ = _name
    DEVICE_TOOLS[_name] = _setter
DEVICE_TOOLS.pop("setter", None)
