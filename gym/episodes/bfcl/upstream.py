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
