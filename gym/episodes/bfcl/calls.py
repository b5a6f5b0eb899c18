"""Running calls on an entry's API instances, with upstream's result texts.

Upstream evaluates each call string with `eval`; gym never does: a call arrives as a name and keyword
arguments and is dispatched to the public method of that name. What the caller sees is upstream's text:
a str result as is, a dict as JSON (its repr when JSON cannot hold it), anything else its str(), and a
failure as "Error during execution: <message>" (a misnamed or missing argument gives Python's own TypeError
text, an unknown function the NameError text `eval` would give).
"""

from __future__ import annotations

import copy
import inspect
import json
from typing import Any

from gym.episodes.bfcl.apis import STATELESS, api_class

# Method names upstream refuses to run whatever the class (they could end the process).
BLOCKED = {"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"}


NOT_TOOLS = ("load_scenario", "state")  # the contract's methods, not upstream's


def tool_names(cls: type) -> list[str]:
    """A class's tools: its public methods."""
    return [name for name in dir(cls) if not name.startswith("_") and name not in NOT_TOOLS
            and callable(getattr(cls, name))]


def build_instances(classes: list[str], config: dict, long_context: dict | None) -> dict[str, Any]:
    """The entry's instances, each stateful one loaded with a copy of its part of the initial config."""
    instances = {}
    for name in classes:
        instance = api_class(name)()
        if name not in STATELESS:
            instance.load_scenario(copy.deepcopy(config.get(name, {})), long_context=long_context)
        instances[name] = instance
    return instances


def method_owners(instances: dict[str, Any]) -> dict[str, str]:
    """method name -> class name over the entry's classes; a later class wins a shared name, as upstream."""
    return {name: class_name for class_name, instance in instances.items() for name in tool_names(type(instance))}


def result_text(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):  # e.g. a Decimal or an mpmath number inside
            return str(value)
    return str(value)


EXECUTION_ERROR = "Error during execution: "  # upstream's prefix of a call that raised


def execute(instances: dict[str, Any], owners: dict[str, str], name: str, arguments: dict) -> str:
    """One call's result text (upstream's), the instance changed in place."""
    try:
        if name in BLOCKED:
            raise RuntimeError(f"Function call {name} is not allowed.")
        if name not in owners:
            raise NameError(f"name '{name}' is not defined")
        # a fresh copy, as upstream evaluates each call's literals anew: a class may keep a list it is given
        return result_text(getattr(instances[owners[name]], name)(**copy.deepcopy(arguments)))
    except Exception as exc:  # the agent sees every failure as text, as upstream
        return f"{EXECUTION_ERROR}{exc}"


def parameter_names(classes: list[str]) -> dict[str, list[str]]:
    """method name -> its parameter names, over gym's classes (a later class wins, as in dispatch)."""
    return {name: [p for p in inspect.signature(getattr(api_class(class_name), name)).parameters if p != "self"]
            for class_name in classes for name in tool_names(api_class(class_name))}
