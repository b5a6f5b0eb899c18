"""The BFCL multi-turn API classes, registered by upstream's class names.

Every class has a no-argument constructor and `load_scenario(config, long_context=None)` (upstream's
`_load_scenario`: `long_context` is None for normal entries, else the constants of upstream's long_context.py
by name); its tools are its public methods, with upstream's names, parameters and return values; `state()`
is the JSON-able form of the public attributes upstream's state check compares (see `plain`). Stateless
classes are never loaded, as upstream. Parity with upstream's classes is pinned by
tests/episodes/test_bfcl_multi_turn_apis.py against values tools/bfcl_multi_turn_expected.py computes with upstream's code.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# upstream class name -> "module:Class"; imported on first use. A class missing here is not built yet:
# prepare leaves out (and counts) the entries that involve it.
API_CLASSES: dict[str, str] = {
    "GorillaFileSystem": "gym.episodes.bfcl.apis.file_system:GorillaFileSystem",
    "MathAPI": "gym.episodes.bfcl.apis.math_api:MathAPI",
    "MessageAPI": "gym.episodes.bfcl.apis.message_api:MessageAPI",
    "TwitterAPI": "gym.episodes.bfcl.apis.posting:TwitterAPI",
    "TicketAPI": "gym.episodes.bfcl.apis.ticket:TicketAPI",
    "TradingBot": "gym.episodes.bfcl.apis.trading:TradingBot",
    "TravelAPI": "gym.episodes.bfcl.apis.travel:TravelAPI",
    "VehicleControlAPI": "gym.episodes.bfcl.apis.vehicle:VehicleControlAPI",
}
STATELESS = {"MathAPI"}  # upstream's STATELESS_CLASSES: no scenario to load


def api_class(name: str) -> type:
    module, cls = API_CLASSES[name].split(":")
    return getattr(import_module(module), cls)


def plain(value: Any) -> Any:
    """A JSON-able copy of a state value: dict keys as strings, tuples and sets as lists, objects as their
    public attributes, anything else JSON cannot hold as its repr() (the parity harness's rule)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if hasattr(value, "__dict__"):
        return public_state(value)
    return repr(value)


def public_state(instance: Any) -> dict:
    """The instance's public (non-"_") attributes, as `plain` values."""
    return {k: plain(v) for k, v in vars(instance).items() if not k.startswith("_")}


class Api:
    """What every API class shares: `state()` from its public attributes; stateless classes load nothing."""

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        pass

    def state(self) -> dict:
        return public_state(self)
