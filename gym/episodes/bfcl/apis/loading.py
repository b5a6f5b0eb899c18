"""Scenario loading shared by the stateful BFCL classes: upstream's defaults and its long-context data."""

from __future__ import annotations

import copy
import random


def scenario_value(scenario: dict, key: str, defaults: dict):
    """The scenario's value for key, else a fresh copy of the class's default, as upstream's loaders read them."""
    if key in scenario:
        return scenario[key]
    return copy.deepcopy(defaults[key])


def extension(long_context: dict | None, name: str):
    """A fresh copy of one of upstream's long_context.py constants. Upstream hands out (and sometimes changes)
    the module's own objects, so one instance's changes could reach another's; gym's instances never share."""
    if name not in (long_context or {}):
        raise KeyError(f"the long-context data has no {name}")
    return copy.deepcopy(long_context[name])


def load_attributes(instance, scenario: dict, defaults: dict, renamed: dict | None = None) -> None:
    """One attribute per default key from the scenario (under another name where upstream's attribute differs
    from its scenario key); `random_seed` instead seeds the instance's private generator, as upstream."""
    scenario = copy.deepcopy(scenario)
    for key in defaults:
        value = scenario_value(scenario, key, defaults)
        if key == "random_seed":
            instance._random = random.Random(value)
        else:
            setattr(instance, (renamed or {}).get(key, key), value)
