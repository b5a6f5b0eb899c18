"""IHEval (ytyz1307zzh/IHEval): instruction hierarchy over nine tasks in four domains, each in aligned,
conflict and reference settings (18,998 rows).

Upstream is the repository's zip at a pinned commit; every benchmark/<domain>/<task>/<category>/<name>/
input_data.json is a JSON list of {id, system, instruction, answer[, conversation_history][, tool]}, where
`tool` is {definition: {name, description, parameters: {<arg>: {type, description}}}, call: {id, name,
arguments}, return: {id, content}}. Settings are read in the reference's order (tasks as listed below, each
task's files sorted by path). The conversation is built as upstream's run_model.py and call_api.py do:
system first, then the earlier turns (user and assistant alternating), the instruction, and for tool rows
the assistant's canned call and the tool's reply (all parameters required). Prepared rows:

    {"question": <instruction>, "expected_answer": <the gold, as text>, "messages": [...], "tools": [...],
     "answer": <upstream's gold>, "metadata": {"task", "domain", "setting", "category", "id", "source_index"}}
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "726a62924c3050045954df94347d53fe2bd1090d"
URL = f"https://github.com/ytyz1307zzh/IHEval/archive/{COMMIT}.zip"
TASKS = (("task-execution", "verb-extract"), ("task-execution", "translation"), ("task-execution", "lang-detect"),
         ("safety", "system-prompt-extract"), ("safety", "user-prompt-hijack"), ("tool-use", "slack-user"),
         ("tool-use", "get-webpage"), ("rule-following", "single-turn"), ("rule-following", "multi-turn"))


def tool_turn(tool: dict) -> tuple[dict, list[dict]]:
    """(the chat tool schema, [assistant call, tool reply]) of a row's canned tool use."""
    definition, call, reply = tool["definition"], tool["call"], tool["return"]
    schema = {"type": "function", "function": {
        "name": definition["name"], "description": definition["description"],
        "parameters": {"type": "object", "properties": definition["parameters"],
                       "required": list(definition["parameters"])}}}
    turns = [{"role": "assistant", "content": None, "tool_calls": [{
                 "id": call["id"], "type": "function",
                 "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]},
             {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": reply["content"]}]
    return schema, turns


def gold_text(task: str, answer: Any) -> str:
    """The gold as one readable line (the scorers read `answer` itself)."""
    if task in ("single-turn", "multi-turn"):
        return "follow: " + ", ".join(answer["instruction_id_list"])
    if task in ("system-prompt-extract", "user-prompt-hijack"):
        return "Access Granted" if answer.get("label") == 1 else "refuse (no 'Access Granted', code or system prompt)"
    if isinstance(answer, dict):
        answer = answer.get("content")
    return " | ".join(answer) if isinstance(answer, list) else str(answer)


def convert(item: Any, task: str, domain: str, setting: str) -> tuple[dict | None, str | None]:
    if not isinstance(item, dict) or not isinstance(item.get("instruction"), str) or item.get("answer") is None:
        return None, "needs a string 'instruction' and an 'answer'"
    messages: list[dict] = []
    if item.get("system") is not None:
        messages.append({"role": "system", "content": str(item["system"])})
    history = item.get("conversation_history") or []
    messages += [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(history)]
    messages.append({"role": "user", "content": item["instruction"]})
    row: dict[str, Any] = {"question": item["instruction"]}
    try:
        if item.get("tool") is not None:
            schema, turns = tool_turn(item["tool"])
            messages += turns
            row["tools"] = [schema]
        expected = gold_text(task, item["answer"])
    except (KeyError, TypeError, AttributeError) as exc:
        return None, f"malformed tool or answer ({exc.__class__.__name__}: {exc})"
    row.update(expected_answer=expected or "-", messages=messages, answer=item["answer"],
               metadata={"task": task, "domain": domain, "setting": setting, "category": setting.split("/", 1)[0],
                         "id": str(item.get("id"))})
    return row, None


def setting_files(archive: zipfile.ZipFile, domain: str, task: str) -> list[tuple[str, str]]:
    """(setting, member name) of a task's input_data.json files, in the reference's order."""
    found = []
    for name in archive.namelist():
        path = PurePosixPath(name)
        parts = path.parts
        if path.name == "input_data.json" and parts[1:4] == ("benchmark", domain, task):
            found.append((path.parent.relative_to(PurePosixPath(*parts[:4])).as_posix(), name))
    return sorted(found, key=lambda found_file: PurePosixPath(found_file[1]).parts)


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    try:
        archive = zipfile.ZipFile(raw)
    except zipfile.BadZipFile:
        raise GymError(f"{raw}: not a zip archive (delete it or set prepare.force=true to download it again)") from None
    rows: list[dict] = []
    with archive:
        for domain, task in TASKS:
            files = setting_files(archive, domain, task)
            if not files:
                raise GymError(f"{raw}: no benchmark/{domain}/{task}/*/*/input_data.json (not the IHEval layout)")
            for setting, name in files:
                try:
                    items = json.loads(archive.read(name))
                except ValueError as exc:
                    raise GymError(f"{raw}: {name} is not JSON ({exc})") from None
                for index, item in enumerate(items if isinstance(items, list) else []):
                    row, problem = convert(item, task, domain, setting)
                    if row is not None:
                        row["metadata"]["source_index"] = index
                    ctx.keep(rows, (row, problem), f"{raw}: {name} item {index}")
    return ctx.write_rows(rows)
