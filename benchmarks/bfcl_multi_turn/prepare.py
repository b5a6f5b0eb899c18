"""BFCL v4 multi-turn (ShishirPatil/gorilla, berkeley-function-call-leaderboard, Apache-2.0), pinned to the
commit the single-turn `bfcl` benchmark pins.

Upstream files: `bfcl_eval/data/BFCL_v4_multi_turn_<category>.json` (JSON lines: `id`, `question` = one list
of messages per turn, empty for the turn that brings held-out functions back, `initial_config` per class,
`involved_classes`, `missed_function` {turn: [names]} in miss_func, `excluded_function`),
`bfcl_eval/data/possible_answer/...` (`ground_truth`: the gold call strings per turn), the classes'
function docs `bfcl_eval/data/multi_turn_func_doc/*.json` and the long-context constants
(`func_source_code/long_context.py`, read with ast.literal_eval, never executed).

Written: `<name>.env.json` (every class's docs as the model reads them, BFCL's Python note and JSON-schema
types as in the single-turn benchmark, and the long-context constants), then one row per entry:

    {"task_id": <BFCL id>, "question": <first turn's message>, "user_turns": [<each turn's message>],
     "env_file": ..., "task": {"id", "involved_classes", "initial_config", "long_context", "missed_function",
     "excluded_function", "ground_truth", "gold_turns": [[{name, arguments}]]},
     "metadata": {"id": <BFCL id>, "category": <category>}}

Upstream's code at this commit offers every function of the involved classes but the held-out ones
(`excluded_function` is kept in the row but, as upstream's inference, not applied). Entries that involve
a class gym has not built yet are left out, counted per class set in the manifest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from gym.data import GymError, sibling_script, write_json_atomic
from gym.episodes.bfcl import (ADDED_FUNCTIONS_MESSAGE, API_CLASSES, COMMIT, DOC_FILES, LONG_CONTEXT_PY, SOURCE,
                               gold_call, long_context_constants, parameter_names)

if TYPE_CHECKING:
    from gym.data import PrepareContext

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
SINGLE_TURN = sibling_script(__file__, "bfcl", "the function docs as BFCL's models read them and its category check")


def model_tools(docs: list[dict]) -> list[dict]:
    """The docs as {name, description, parameters} the way BFCL sends them (Python note, JSON-schema types)."""
    return [tool["function"] for tool in SINGLE_TURN.native_tools(SINGLE_TURN.with_language_notes(docs, "python"))]


def user_turns(entry: dict) -> list[str]:
    turns = []
    for number, messages in enumerate(entry["question"]):
        if not messages:
            if str(number) not in (entry.get("missed_function") or {}):
                raise ValueError(f"turn {number} has no message and brings no held-out function back")
            turns.append(ADDED_FUNCTIONS_MESSAGE)
        elif len(messages) != 1 or messages[0].get("role") != "user" or not isinstance(messages[0].get("content"), str):
            raise ValueError(f"turn {number} is not one user message")
        else:
            turns.append(messages[0]["content"])
    return turns


def convert(entry: dict, truth: list | None, category: str, env_name: str) -> tuple[dict | None, str | None]:
    try:
        turns = user_turns(entry)
        if not isinstance(truth, list) or len(truth) != len(turns):
            raise ValueError("the ground truth does not have one list of calls per turn")
        parameters = parameter_names(entry["involved_classes"])
        gold = [[gold_call(text, parameters) for text in turn] for turn in truth]
    except (ValueError, KeyError, TypeError) as exc:
        return None, str(exc)
    task = {"id": entry["id"], "involved_classes": entry["involved_classes"], "initial_config": entry["initial_config"],
            "long_context": category == "long_context", "missed_function": entry.get("missed_function") or {},
            "excluded_function": entry.get("excluded_function") or [], "ground_truth": truth, "gold_turns": gold}
    return {"task_id": entry["id"], "question": turns[0], "user_turns": turns, "env_file": env_name, "task": task,
            "metadata": {"id": entry["id"], "category": category}}, None


def read_category(ctx: PrepareContext, category: str, env_name: str) -> list[dict]:
    name = f"BFCL_v4_multi_turn_{category}.json"
    source = ctx.fetch(f"{SOURCE}/data/{name}")
    answers = {entry.get("id"): entry.get("ground_truth")
               for _, entry in ctx.iter_jsonl(ctx.fetch(f"{SOURCE}/data/possible_answer/{name}"))}
    items = []
    for _, entry in ctx.iter_jsonl(source):
        missing = sorted(set(entry.get("involved_classes") or []) - set(API_CLASSES))
        if missing:
            ctx.leave_out_row(f"involves {', '.join(missing)}, not built in gym yet")
        else:
            items.append(entry)
    return ctx.convert_rows(source, items, lambda item, _: convert(item, answers.get(item.get("id")), category, env_name),
                            id_field="id")


def prepare(ctx: PrepareContext, categories: Iterable[str] = CATEGORIES) -> Path:
    categories = SINGLE_TURN.chosen_categories(categories, CATEGORIES, "bfcl_multi_turn")
    ctx.fetch(f"https://raw.githubusercontent.com/ShishirPatil/gorilla/{COMMIT}/LICENSE")
    docs = {cls: ctx.read_jsonl(ctx.fetch(f"{SOURCE}/data/multi_turn_func_doc/{file}")) for cls, file in DOC_FILES.items()
            if cls in API_CLASSES}
    constants_path = ctx.fetch(LONG_CONTEXT_PY)
    env_name = f"{ctx.name}.env.json"
    write_json_atomic(ctx.output_path.parent / env_name, {
        "upstream": {"repo": "ShishirPatil/gorilla", "commit": COMMIT},
        "tools": {cls: model_tools(class_docs) for cls, class_docs in docs.items()},
        "long_context": long_context_constants(constants_path.read_text(encoding="utf-8"), str(constants_path))})
    rows = [row for category in categories for row in read_category(ctx, category, env_name)]
    if not rows:
        raise GymError("bfcl_multi_turn: no entry left to prepare (see the left-out counts)")
    return ctx.write_rows(rows)
