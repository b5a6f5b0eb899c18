"""The BFCL multi-turn environment behind benchmark=bfcl_multi_turn (gym.episodes registry name `bfcl`).

A prepared benchmark is a JSONL of entries plus one file beside it (`<name>.env.json`, written by
prepare from the pinned upstream commit): every class's function docs as the model reads them, and the
constants of upstream's long_context.py. An entry's row holds its turns' user messages, its involved
classes and initial config, its held-out functions (miss_func) and its gold calls per turn.

The episode goes as upstream's inference loop: the first turn's message opens it; the agent calls tools
until it answers without a call, then the scripted user sends the next turn's message (for a turn that
brings held-out functions back, upstream's "I have updated some more functions..." message, the
functions offered from that turn on). At most `max_steps_per_turn` replies with calls per turn (upstream's
MAXIMUM_STEP_LIMIT, 20; the conf knob episode.max_steps_per_turn overrides it): one more ends the episode,
which then fails as force-terminated. Scoring replays the trajectory's calls on fresh instances
(gym.episodes.bfcl.checker), so task=reverify gives the same verdict.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.io import cached_parse
from gym.episodes.base import Environment, Score, ToolOutput
from gym.episodes.bfcl.apis import API_CLASSES
from gym.episodes.bfcl.calls import EXECUTION_ERROR, build_instances, execute, method_owners
from gym.episodes.bfcl.checker import GoldRun, check_entry, play_gold
from gym.episodes.messages import is_stop

MAXIMUM_STEP_LIMIT = 20  # upstream's per-turn limit on replies with calls (constants/default_prompts.py)
# Endings after which the turns played are graded (max_steps: the per-turn limit, as upstream's force quit).
PLAYED_OUT = ("user_stop", "agent_stop", "max_steps")

def load_env_file(path: Path) -> dict:
    """The parsed env file (cached per path and modification time)."""
    if not path.is_file():
        raise GymError(f"{path} is missing: prepare the benchmark again (python -m gym task=prepare ...)")
    return cached_parse(path, _read_json)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def gold_calls(task: dict) -> list[list[tuple[str, dict]]]:
    return [[(call["name"], dict(call["arguments"])) for call in turn] for turn in task["gold_turns"]]


def model_turns(trajectory: list[dict]) -> list[list[list[tuple[str, dict]]]]:
    """The agent's calls per user turn and per reply (steps), as upstream's checker takes them: a turn
    starts at each user message that is not the closing stop; calls whose arguments are not a JSON object
    are left out (upstream's decoder drops what it cannot read)."""
    turns: list[list[list[tuple[str, dict]]]] = []
    for message in trajectory:
        role = message.get("role")
        if role == "user" and not message.get("tool_calls"):
            if is_stop(message.get("content")):
                break
            turns.append([])
        elif role == "assistant" and message.get("tool_calls") and turns:
            step = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments)
                    except ValueError:
                        arguments = None
                if isinstance(arguments, dict):
                    step.append((str(function.get("name") or ""), arguments))
            if step:
                turns[-1].append(step)
    return turns


@dataclass
class BfclState:
    instances: dict[str, Any]
    owners: dict[str, str]
    turn_tools: list[list[dict]]
    turn: int = 0


class BfclEnvironment(Environment):
    name = "bfcl"
    max_steps_per_turn = MAXIMUM_STEP_LIMIT  # the loop's per-turn limit when episode.max_steps_per_turn is null
    errors_end_episode = False  # upstream has no error limit: episode.max_errors does not apply

    def __init__(self, data_path: str | Path, **options: Any):
        self.data_dir = Path(data_path).parent
        self._gold: dict[str, GoldRun] = {}  # entry id -> the gold run, computed once
        self._gold_lock = threading.Lock()

    def _env_file(self, row: dict) -> dict:
        name = row.get("env_file")
        if not name:
            raise GymError("a bfcl_multi_turn row needs 'env_file' (the file prepare writes beside the entries)")
        return load_env_file(self.data_dir / name)

    def _build(self, row: dict) -> dict[str, Any]:
        task = row["task"]
        missing = [name for name in task["involved_classes"] if name not in API_CLASSES]
        if missing:
            raise GymError(f"{task['id']}: gym has no API class {', '.join(missing)} yet; prepare again")
        extra = self._env_file(row)["long_context"] if task.get("long_context") else None
        return build_instances(task["involved_classes"], task["initial_config"], extra)

    def turn_tools(self, row: dict) -> list[list[dict]]:
        """The functions offered in each turn: the involved classes' docs without the held-out ones, which
        join (after the others, as upstream appends them) from the turn that brings them back."""
        task, docs = row["task"], self._env_file(row)["tools"]
        offered = [tool for name in task["involved_classes"] for tool in docs[name]]
        held = {str(turn): names for turn, names in (task.get("missed_function") or {}).items()}
        held_names = {name for names in held.values() for name in names}
        current = [tool for tool in offered if tool["name"] not in held_names]
        by_name = {tool["name"]: tool for tool in offered}
        out = []
        for turn in range(len(row["user_turns"])):
            current = current + [by_name[name] for name in held.get(str(turn), []) if name in by_name]
            out.append(current)
        return out

    def reset(self, row: dict, seed: int | None = None) -> BfclState:
        instances = self._build(row)
        return BfclState(instances, method_owners(instances), self.turn_tools(row))

    def tools(self, state: BfclState, requestor: str = "assistant") -> list[dict]:
        if requestor != "assistant":
            return []
        return list(state.turn_tools[min(state.turn, len(state.turn_tools) - 1)])

    def user_spoke(self, state: BfclState) -> None:
        """The scripted user sent the next turn's message."""
        state.turn += 1

    def call(self, state: BfclState, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        if not isinstance(arguments, dict):
            return ToolOutput(f"{EXECUTION_ERROR}the arguments are not a JSON object", error=True)
        # a call that raised is counted as a tool error (BFCL sets no limit on them: errors_end_episode)
        text = execute(state.instances, state.owners, name, arguments)
        return ToolOutput(text, error=text.startswith(EXECUTION_ERROR))

    def initial_messages(self, row: dict) -> list[dict]:
        return [{"role": "user", "content": row["user_turns"][0]}]

    def gold_run(self, row: dict) -> GoldRun:
        key = f"{row.get('env_file')}:{row['task']['id']}"
        with self._gold_lock:
            if key not in self._gold:
                self._gold[key] = play_gold(gold_calls(row["task"]), lambda: self._build(row))
            return self._gold[key]

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        if termination in PLAYED_OUT:
            # a turn cut by the step limit still counts as played (upstream keeps it): unless it was the
            # last one, the turn counts then differ and the entry fails as force-terminated
            verdict = check_entry(model_turns(trajectory), gold_calls(row["task"]), self.gold_run(row),
                                  lambda: self._build(row))
        else:
            verdict = {"valid": False, "error_type": "multi_turn:inference_error",
                       "error_message": f"the episode ended early ({termination or 'no termination recorded'})",
                       "turn": None}
        details = {"valid": verdict["valid"], "category": (row.get("metadata") or {}).get("category")}
        if not verdict["valid"]:
            details.update({k: v for k, v in verdict.items() if k != "valid"})
        return Score(1.0 if verdict["valid"] else 0.0, details)
