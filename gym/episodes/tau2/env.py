"""The τ²-bench environment behind the tau2_* benchmarks (gym.episodes registry name `tau2`).

A prepared benchmark is a JSONL of tasks plus one domain file beside it (`<name>.env.json`, written by
prepare from the pinned upstream commit): the agent's and the user's databases, the tool schemas taken
from upstream's tool docstrings, and the policy. The databases are parsed once per process and
deep-copied per episode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gym.episodes.base import DONE_SCHEMA, Environment, Score, ToolOutput
from gym.episodes.tau2.airline.domain import DOMAIN as AIRLINE
from gym.episodes.tau2.banking.user import DOMAIN as BANKING
from gym.episodes.tau2.judge import judge_assertions
from gym.episodes.tau2.domain import Domain
from gym.episodes.tau2.mock import DOMAIN as MOCK
from gym.episodes.tau2.retail import DOMAIN as RETAIL
from gym.episodes.tau2.telecom.domain import DOMAIN as TELECOM
from gym.episodes.tau2.scoring import score_episode
from gym.episodes.tau2.state import Tau2State, fresh_state, replay, run_tool
from gym.core.errors import GymError, TaskNotSent
from gym.core.io import cached_parse

DOMAINS: dict[str, Domain] = {"mock": MOCK, "retail": RETAIL, "telecom": TELECOM, "airline": AIRLINE,
                              "banking_knowledge": BANKING}
FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"  # upstream's orchestrator opens every dialogue with it



def load_domain_file(path: Path) -> dict:
    """The parsed domain file (cached per path and modification time), checked against gym's tools."""
    return cached_parse(path, _read_domain_file)


def _read_domain_file(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    domain = DOMAINS.get(data.get("domain"))
    if domain is None:
        raise GymError(f"{path}: unknown τ² domain {data.get('domain')!r} (gym has {', '.join(DOMAINS)})")
    data["db"] = domain.agent.normalize(data["db"], f"{path} db")
    if domain.user is not None and data.get("user_db") is not None:
        data["user_db"] = domain.user.normalize(data["user_db"], f"{path} user_db")
    _check_tools(path, domain, data)
    return data


def _check_tools(path: Path, domain: Domain, data: dict) -> None:
    for side, toolkit, schemas in (("agent", domain.agent, data.get("tools") or []),
                                   ("user", domain.user, data.get("user_tools") or [])):
        names = {schema["name"] for schema in schemas}
        have = set(toolkit.tools) if toolkit is not None else set()
        optional = domain.variant_tools if side == "agent" else frozenset()
        if names - optional != have - optional or not names & optional <= have:
            raise GymError(f"{path}: the upstream {side} tools {sorted(names)} differ from gym's {sorted(have)}; "
                           "the pinned upstream commit and gym's domain code disagree")


def chat_history(history: list[dict]) -> list[dict]:
    """Upstream's message_history as OpenAI chat messages (one message each)."""
    out = []
    for message in history:
        role = message["role"]
        if role == "tool":
            out.append({"role": "tool", "tool_call_id": message.get("id"), "content": message.get("content") or ""})
            continue
        item: dict[str, Any] = {"role": role, "content": message.get("content")}
        if message.get("tool_calls"):
            item["tool_calls"] = [{"id": call.get("id"), "type": "function",
                                   "function": {"name": call["name"],
                                                "arguments": json.dumps(call.get("arguments") or {})}}
                                  for call in message["tool_calls"]]
        out.append(item)
    return out


def _user_tools(data: dict, task: dict) -> list[dict]:
    """The user's tools: all of the domain's, or the ones the task names (upstream's `user_tools`)."""
    schemas = data.get("user_tools") or []
    wanted = task.get("user_tools")
    return schemas if wanted is None else [s for s in schemas if s["name"] in set(wanted)]


def is_solo(row: dict, trajectory: list[dict]) -> bool:
    """Whether a trajectory was played in solo mode: it opens with the row's solo system prompt."""
    solo = row.get("solo_system_prompt")
    return bool(solo) and bool(trajectory) and trajectory[0].get("role") == "system" \
        and trajectory[0].get("content") == solo


class Tau2Environment(Environment):
    name = "tau2"
    supports_solo = True  # on the tasks prepare gave a solo_system_prompt (domains with a solo policy)

    def __init__(self, data_path: str | Path, nl_assertions: str = "skip"):
        self.data_dir = Path(data_path).parent
        self.nl_assertions = nl_assertions
        self.judge_client: Any = None  # nl_assertions=judge: a ready client (the episode verifier attaches it)
        self.judge_seed: int | None = None
        self._gold: dict = {}  # the gold end state of each task, computed once (gym.episodes.tau2.scoring)
        self._gold_solo: dict = {}  # the same in solo mode (the gold actions run as upstream's solo env runs them)

    def attach_embedder(self, embedder: Any) -> dict:
        """Give the domain files beside the tasks that offer KB_search_dense (τ² banking's alltools form)
        their dense index: the documents embedded by `embedder` (gym.model.embeddings) or read from the
        cache beside the file. Returns what was built; fails when no domain file offers the tool."""
        from gym.episodes.tau2.banking.dense import build_dense_index

        stats = {}
        for path in sorted(self.data_dir.glob("*.env.json")):
            data = load_domain_file(path)
            if any(tool.get("name") == "KB_search_dense" for tool in data.get("tools") or []):
                cache_dir = path.with_name(path.name[:-len(".env.json")] + ".embeddings")
                stats[path.name] = build_dense_index(id(data), data.get("documents") or [], embedder, cache_dir)
        if not stats:
            raise GymError(f"{self.data_dir}: no prepared domain file offers KB_search_dense, so there is nothing "
                           "to embed (benchmark.embeddings is for τ² banking's alltools form)")
        return stats

    def _domain_file(self, row: dict) -> dict:
        name = row.get("env_file")
        if not name:
            raise GymError("a tau2 row needs 'env_file' (the domain file prepare writes beside the tasks)")
        path = self.data_dir / name
        if not path.is_file():
            raise GymError(f"{path} is missing: prepare the benchmark again (python -m gym task=prepare ...)")
        return load_domain_file(path)

    def _fresh(self, row: dict, solo: bool = False) -> Tau2State:
        data = self._domain_file(row)
        domain = DOMAINS[data["domain"]]
        state = fresh_state(domain, data["db"], data.get("user_db"), row["task"])
        if domain.setup is not None:
            domain.setup(state.db, data, row["task"])
        state.solo = solo
        if solo:  # the agent gets the user's tools too, and `done` (upstream's solo agent)
            state.schemas = {"assistant": [*(data.get("tools") or []), *(data.get("user_tools") or []), DONE_SCHEMA]}
        else:
            state.schemas = {"assistant": data.get("tools") or [], "user": _user_tools(data, row["task"])}
        return state

    @staticmethod
    def _solo_prompt(row: dict) -> str:
        if not row.get("solo_system_prompt"):
            raise TaskNotSent("no solo mode for this task: user=none runs only τ² tasks with a ticket, in the "
                              "domains upstream gives a solo mode (mock, telecom)")
        return row["solo_system_prompt"]

    def _runnable(self, row: dict) -> None:
        """TaskNotSent for a task gym's domain code cannot run yet (banking: a discoverable tool it lacks)."""
        unsupported = DOMAINS[self._domain_file(row)["domain"]].unsupported
        reason = unsupported(row["task"]) if unsupported is not None else None
        if reason:
            raise TaskNotSent(reason)

    def reset(self, row: dict, seed: int | None = None, solo: bool = False) -> Tau2State:
        self._runnable(row)
        if solo:
            self._solo_prompt(row)
        state = self._fresh(row, solo)
        history = chat_history(((row["task"].get("initial_state") or {}).get("message_history")) or [])
        replay(state, history, strict=False)  # the task's own earlier calls shape the world the agent meets
        return state

    def tools(self, state: Tau2State, requestor: str = "assistant") -> list[dict]:
        return list(state.schemas.get(requestor) or [])

    def call(self, state: Tau2State, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        if name in state.domain.variant_tools and name not in {s["name"] for s in state.schemas.get("assistant", [])}:
            return ToolOutput(f"Error: Tool '{name}' not found.", error=True)  # a retrieval tool this variant lacks
        return run_tool(state, name, arguments, requestor)

    def initial_messages(self, row: dict, solo: bool = False) -> list[dict]:
        self._runnable(row)
        history = ((row["task"].get("initial_state") or {}).get("message_history")) or []
        if solo:  # no opening message: the agent starts, from the ticket
            return [{"role": "system", "content": self._solo_prompt(row)}] + chat_history(history)
        first = [{"role": "assistant", "content": row.get("first_message") or FIRST_AGENT_MESSAGE}]
        return [{"role": "system", "content": row["system_prompt"]}] + (chat_history(history) or first)

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Tau2State | None = None) -> Score:
        solo = is_solo(row, trajectory)
        memo = self._gold_solo if solo else self._gold
        return score_episode(row["task"], trajectory, termination, lambda: self._fresh(row, solo),
                             nl_assertions=self.nl_assertions, memo=memo, final=final,
                             judge=lambda assertions, messages: judge_assertions(
                                 self.judge_client, self.judge_seed, self._domain_file(row), assertions, messages))
