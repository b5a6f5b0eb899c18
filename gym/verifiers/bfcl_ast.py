"""BFCL's AST rules: is a decoded list of calls right for a row's function docs and allowed answers?

Re-implemented from the upstream checker's documented behaviour (ShishirPatil/gorilla,
berkeley-function-call-leaderboard, eval_checker/ast_eval) and pinned by tests/verifiers/test_tool_call_verifier.py;
every rule, quirks included:

* shape by category: a category containing "parallel" matches every expected call to a distinct model
  call in any order; containing "multiple", exactly as many calls as expected and the first checked
  against the expected one (its docs found by name); otherwise exactly one call checked against the
  row's first function.
* parallel matching is greedy: expected calls in order, each takes the first still-free model call that
  passes, and is never reconsidered (so a call that could fit two expected ones goes to the first).
* per call: the (normalised) name must be the expected one; every `required` parameter present; every
  given parameter both documented and in the expected answer; each passes the type check and the value
  check; an expected parameter that is missing must list "" among its allowed values (optional).
* types: Python types by the doc's type name; an int is accepted for a float; a tuple for a "tuple";
  Java and JavaScript values must be strings of source text and are converted first
  (gym.verifiers.tool_call_types). A value whose type differs from the doc's but equals the expected
  answer's type counts as a "variable" (e.g. a name passed for an object) and is compared as is.
* lists of a nested type check every element's type against some allowed list (one level deep).
* values: strings compared after removing spaces and , . / - _ * ^, lower-casing and ' -> "; lists
  compared element-wise with their top-level strings normalised so; dicts key by key against each
  allowed dict (keys must be expected, values normalised when strings, missing keys optional only with "");
  lists of dicts position by position; other values by Python equality (so 1 == 1.0 == True).
"""

from __future__ import annotations

import re
from typing import Any

from gym.verifiers.tool_call_types import COLLECTIONS, JAVA_TYPES, JS_TYPES, java_value, js_value

PYTHON_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool, "array": list,
                                 "tuple": list, "dict": dict, "any": str}
NESTED_PYTHON = ("array", "tuple")
_IGNORED = re.compile(r"[ ,./\-_*^]")


class Failure(Exception):
    """A call that does not pass: `kind` is the upstream's error type (e.g. value_error:string)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def normalise(text: str) -> str:
    return _IGNORED.sub("", text).lower().replace("'", '"')


def check(functions: list[dict], calls: list[dict], expected: list[dict], category: str, language: str,
          underscore_names: bool) -> None:
    """Raise Failure unless `calls` ([{name: {param: value}}]) pass for this row; return None when they do."""
    if "parallel" in category:
        return _parallel(functions, calls, expected, language, underscore_names)
    wanted = len(expected) if "multiple" in category else 1
    if len(calls) != wanted:
        raise Failure("wrong_count", f"{len(calls)} calls where {wanted} expected")
    doc = _doc(functions, next(iter(expected[0]))) if "multiple" in category else functions[0]
    check_call(doc, calls[0], expected[0], language, underscore_names)


def _doc(functions: list[dict], name: str) -> dict:
    for function in functions:
        if function.get("name") == name:
            return function
    raise KeyError(f"the row documents no function named {name!r}")


def _parallel(functions: list[dict], calls: list[dict], expected: list[dict], language: str,
              underscore_names: bool) -> None:
    if len(calls) != len(expected):
        raise Failure("wrong_count", f"{len(calls)} calls where {len(expected)} expected")
    taken: set[int] = set()
    for number, answer in enumerate(expected):
        doc = _doc(functions, next(iter(answer)))
        for index, call in enumerate(calls):
            if index in taken:
                continue
            try:
                check_call(doc, call, answer, language, underscore_names)
            except Failure:
                continue
            taken.add(index)
            break
        else:
            raise Failure("cannot_find_match", f"no model call matches expected call {number}")


def check_call(doc: dict, call: dict, answer: dict, language: str, underscore_names: bool) -> None:
    allowed_by_param = next(iter(answer.values()))
    name = doc["name"].replace(".", "_") if underscore_names else doc["name"]
    if name not in call:
        raise Failure("wrong_func_name", f"function {name!r} not called")
    given = call[name]
    properties = doc["parameters"]["properties"]
    for param in doc["parameters"].get("required", []):
        if param not in given:
            raise Failure("missing_required", f"missing required parameter {param!r}")
    for param, value in given.items():
        if param not in properties or param not in allowed_by_param:
            raise Failure("unexpected_param", f"unexpected parameter {param!r}")
        _check_param(param, value, properties[param], allowed_by_param[param], language)
    for param, allowed in allowed_by_param.items():
        if param not in given and "" not in allowed:
            raise Failure("missing_optional", f"parameter {param!r} not given and not optional")


def _converted(value: Any, spec: dict, language: str) -> tuple[Any, type, type | None]:
    """(the value as checked, the doc type's Python type, the element type for collections or None)."""
    declared = spec["type"]
    if language == "python":
        item = PYTHON_TYPES[spec["items"]["type"]] if declared in NESTED_PYTHON else None
        return value, PYTHON_TYPES[declared], item
    types, convert = (JAVA_TYPES, java_value) if language == "java" else (JS_TYPES, js_value)
    target = types[declared]
    if type(value) is not str:
        raise Failure(f"type_error:{'java' if language == 'java' else 'js'}",
                      f"{language} value of {declared} must be source text (a string), got {type(value).__name__}")
    if declared in COLLECTIONS:
        item_name = spec["items"]["type"]
        return convert(value, declared, item_name), target, types[item_name]
    return convert(value, declared), target, None


def _check_param(param: str, value: Any, spec: dict, allowed: list, language: str) -> None:
    value, target, item = _converted(value, spec, language)
    if spec["type"] == "tuple" and type(value) is tuple:
        value = list(value)
    if language == "python" and spec["type"] == "float" and type(value) is int:
        value = float(value)
    is_variable = check_type(value, allowed, target, item)
    if not is_variable:
        if target is dict:
            return _check_dict(value, allowed)
        if target is list and item is dict:
            return _check_list_of_dicts(value, allowed)
        if target is str:
            return _check_string(param, value, allowed)
        if target is list:
            return _check_list(param, value, allowed)
    if value not in allowed:
        raise Failure("value_error:others", f"{param}: {value!r} not among {allowed!r}")


def _answer_type(allowed: Any) -> type | None:
    for option in allowed:
        if option != "":
            return type(option)
    return None


def check_type(value: Any, allowed: Any, target: type, item: type | None) -> bool:
    """Raise Failure when the type is wrong; return whether the value stands for a variable."""
    answer_type = _answer_type(allowed)
    is_variable = answer_type is not None and answer_type is not target
    if type(value) is target:
        if item is None:
            return is_variable
        for option in allowed:
            if type(option) is not list or all(_item_fits(element, option, item) for element in value):
                return is_variable
        raise Failure("type_error:nested", f"an element of {value!r} is not of type {item.__name__}")
    if answer_type is not None and type(value) is answer_type:
        return True
    raise Failure("type_error:simple", f"{value!r} is a {type(value).__name__}, not a {target.__name__}")


def _item_fits(element: Any, option: list, item: type) -> bool:
    try:
        check_type(element, option, item, None)
    except Failure:
        return False
    return True


def _normalised_options(allowed: Any) -> list:
    return [normalise(option) if type(option) is str else option for option in allowed]


def _check_string(param: str, value: str, allowed: list) -> None:
    if normalise(value) not in [normalise(option) for option in allowed if type(option) is str]:
        raise Failure("value_error:string", f"{param}: {value!r} not among {allowed!r}")


def _check_list(param: str, value: list, allowed: list) -> None:
    given = [normalise(element) if type(element) is str else element for element in value]
    if given not in [_normalised_options(option) for option in allowed]:
        raise Failure("value_error:list/tuple", f"{param}: {value!r} not among {allowed!r}")


def _check_dict(value: dict, allowed: list) -> None:
    failure = Failure("dict_checker:unclear", "no allowed dict")
    for option in allowed:
        if option == "":
            continue
        failure = _dict_failure(value, option)
        if failure is None:
            return
    raise failure


def _dict_failure(value: dict, option: dict) -> Failure | None:
    if not isinstance(value, dict):  # upstream crashes here (a list of non-dicts matched by an optional ""); gym fails the call
        return Failure("value_error:dict_value", f"{value!r} is not a dict")
    for key, given in value.items():
        if key not in option:
            return Failure("value_error:dict_key", f"unexpected key {key!r}")
        if (normalise(given) if type(given) is str else given) not in _normalised_options(option[key]):
            return Failure("value_error:dict_value", f"{key}: {given!r} not among {option[key]!r}")
    for key, choices in option.items():
        if key not in value and "" not in choices:
            return Failure("value_error:dict_key", f"missing key {key!r}")
    return None


def _check_list_of_dicts(value: list, allowed: list) -> None:
    failure = Failure("list_dict_checker:unclear", "no allowed list")
    for option in allowed:
        if len(value) != len(option):
            failure = Failure("value_error:list_dict_count", "wrong number of dicts")
            continue
        failure = next((f for f in (_dict_failure_or_none(v, o) for v, o in zip(value, option)) if f), None)
        if failure is None:
            return
    raise failure


def _dict_failure_or_none(value: Any, option: Any) -> Failure | None:
    try:
        _check_dict(value, [option])
    except Failure as failure:
        return failure
    return None
