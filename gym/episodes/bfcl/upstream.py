"""What gym reads from the pinned upstream BFCL sources (the checkout is never imported or executed)."""

from __future__ import annotations

import ast

from gym.core.errors import GymError

COMMIT = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"  # the commit gym's single-turn bfcl pins too
SOURCE = f"https://raw.githubusercontent.com/ShishirPatil/gorilla/{COMMIT}/berkeley-function-call-leaderboard/bfcl_eval"
LONG_CONTEXT_PY = f"{SOURCE}/eval_checker/multi_turn_eval/func_source_code/long_context.py"


def long_context_constants(source: str, where: str = "long_context.py") -> dict:
    """The module-level constants of upstream's long_context.py (name -> value), read with
    ast.literal_eval: the long-context entries' extra files, watch lists, records and texts."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise GymError(f"{where}: not Python source ({exc.msg}, line {exc.lineno})") from None
    constants = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise GymError(f"{where}: {node.targets[0].id} (line {node.lineno}) is not a literal") from None
    if not constants:
        raise GymError(f"{where}: no constants found")
    return constants


# upstream's MULTI_TURN_FUNC_DOC_FILE_MAPPING (constants/executable_backend_config.py) for the multi-turn classes
DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system.json", "MathAPI": "math_api.json", "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json", "TicketAPI": "ticket_api.json", "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json", "VehicleControlAPI": "vehicle_control.json",
}
# the user message of a turn that brings held-out functions back (DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)
ADDED_FUNCTIONS_MESSAGE = "I have updated some more functions you can choose from. What about now?"


def gold_call(text: str, parameters: dict[str, list[str]]) -> dict:
    """One ground-truth call string (`cd(folder='document')`, `sort('report.pdf')`) as {name, arguments}:
    literal values only, positional arguments named by `parameters` (method name -> parameter names)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"gold call {text!r} is not a Python call") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        raise ValueError(f"gold call {text!r} is not a function call")
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    if node.args and name not in parameters:
        raise ValueError(f"gold call {text!r}: no function {name} to name its positional arguments by")
    try:
        arguments = {parameters[name][i]: ast.literal_eval(arg) for i, arg in enumerate(node.args)}
        arguments.update({kw.arg: ast.literal_eval(kw.value) for kw in node.keywords})
    except (ValueError, IndexError):
        raise ValueError(f"gold call {text!r}: arguments are not literals of its parameters") from None
    return {"name": name, "arguments": arguments}
