"""ToolSandbox (apple/ToolSandbox, Apple's own licence: LICENSE beside the scenario file): 1,032 named
scenarios of a phone assistant working contacts, messages, reminders, settings and utility tools while an
LLM plays the user; graded by milestone similarity (gym.episodes.toolsandbox).

Upstream's scenarios are Python code (polars tables, similarity functions), so they are not parsed here:
tools/toolsandbox_scenarios.py runs upstream's registry at the pinned commit and writes them as data
(`scenarios.json.gz`, shipped beside this script; its format is in docs/benchmarks/toolsandbox.md).
prepare fetches upstream's LICENSE at that commit (provenance; data.mirror serves it offline), copies the
scenario file beside the rows, and writes one row per named scenario, as the reference does:

    {"scenario": <name>, "question": <the user's first message>, "env_file": <scenario file>,
     "user_system_prompt": <upstream's user prompt for it>, "categories": [...],
     "not_sent": <why gym cannot pose it, or null>, "task": {"id", "evaluation_criteria": {"actions",
     "communicate_info", "closing_message"}}, "metadata": {"category": <tool set: base / distraction /
     scrambled variant>}}

`task` holds the gold-ish play read off the milestones (gym.episodes.toolsandbox.gold) for the reference
agent (model=mock): its calls, then one closing message saying the milestones' sentences. Scenarios that offer a RapidAPI search tool are kept with a `not_sent` reason; collect
leaves them out and counts them ("tasks not sent").
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import GymError
from gym.episodes.toolsandbox import gold_play

if TYPE_CHECKING:
    from gym.data import PrepareContext

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios.json.gz"
COMMIT = "165848b9a78cead7ca7fe7c89c688b58e6501219"
LICENSE_URL = f"https://raw.githubusercontent.com/apple/ToolSandbox/{COMMIT}/LICENSE"
NEEDS_RAPID_API = "needs the RapidAPI search tools (a paid web API gym does not call)"
DISTRACTS_RAPID_API = "offers RapidAPI search tools as distractions (a paid web API gym does not call)"
VARIANTS = ("THREE_DISTRACTION_TOOLS", "TEN_DISTRACTION_TOOLS", "ALL_TOOLS_AVAILABLE")
AUGMENTATIONS = ("TOOL_NAME_SCRAMBLED", "TOOL_DESCRIPTION_SCRAMBLED", "ARG_DESCRIPTION_SCRAMBLED",
                 "ARG_TYPE_SCRAMBLED")


def tool_set(categories: list[str]) -> str:
    """The scenario's tool augmentation: base (no distraction), 3/10/all distraction tools, or scrambled."""
    for name in AUGMENTATIONS:
        if name in categories:
            return name.lower()
    for name in VARIANTS:
        if name in categories:
            return name.lower()
    return "no_distraction_tools"


def load(path: Path) -> dict:
    try:
        document = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as exc:
        raise GymError(f"{path}: not a ToolSandbox scenario file ({exc})") from None
    if document.get("format") != "gym-toolsandbox-scenarios/1":
        raise GymError(f"{path}: unknown scenario file format {document.get('format')!r}")
    return document


def row_of(name: str, spec: dict, world: dict, env_file: str, base_needs: set[int]) -> dict:
    opening = [m for m in world["messages"] if m.get("visible_to") is None]
    question = next(m["content"] for m in opening if m["sender"] == "USER" and m["recipient"] == "AGENT")
    user_prompt = [m["content"] for m in opening if m["sender"] == "SYSTEM" and m["recipient"] == "USER"]
    not_sent = None
    if spec["rapid_api_tools"]:
        not_sent = NEEDS_RAPID_API if spec["world"] in base_needs else DISTRACTS_RAPID_API
    gold = gold_play(world["milestones"], spec["tool_names"])
    actions = [{"name": c["name"], "arguments": c["arguments"], "requestor": "assistant"} for c in gold["calls"]]
    return {"scenario": name, "question": question, "env_file": env_file,
            "user_system_prompt": user_prompt[-1] if user_prompt else None, "categories": spec["categories"],
            "not_sent": not_sent,
            "task": {"id": name, "evaluation_criteria": {"actions": actions, "communicate_info": gold["say"],
                                                        "closing_message": " ".join(gold["say"]) or None}},
            "metadata": {"category": tool_set(spec["categories"])}}


def prepare(ctx: "PrepareContext", scenarios: str | None = None) -> Path:
    ctx.fetch(LICENSE_URL)
    source = Path(scenarios).expanduser() if scenarios else SCENARIOS
    if not source.is_file():
        raise GymError(f"toolsandbox: no scenario file at {source} (tools/toolsandbox_scenarios.py writes one)")
    document = load(source)
    env_file = f"{ctx.name}.scenarios.json.gz"
    target = ctx.output_path.parent / env_file
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target.with_suffix(".tmp"))
    target.with_suffix(".tmp").replace(target)
    base_needs = {spec["world"] for spec in document["scenarios"].values()
                  if "NO_DISTRACTION_TOOLS" in spec["categories"] and spec["rapid_api_tools"]}
    rows = [row_of(name, spec, document["worlds"][spec["world"]], env_file, base_needs)
            for name, spec in sorted(document["scenarios"].items())]
    ctx.count_seen(len(rows))
    return ctx.write_rows(rows)
