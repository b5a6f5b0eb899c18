"""A τ² domain in gym: its database shapes, its tools and the helper functions tasks name.

A `Toolkit` is the set of functions over one database (the agent's or the user's). Tools are the
functions offered to a model; `mutates` says which ones change the database (only those are replayed
when a trajectory is scored, as upstream's `mutates_state`). Helpers are the other functions a task may
name in `initialization_actions` and `env_assertions` (upstream looks these up on the toolkit object,
so a tool may be named there too). A toolkit whose database is not tables of keyed records (telecom's
lists and its phone) gives its own `normalizer`. A domain whose two sides must agree after each change
(telecom: the phone learns the line's status) gives `sync`, run where upstream's `sync_tools` runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gym.episodes.tau2.records import Shape, normalize

ToolFn = Callable[..., Any]  # fn(db, **arguments) -> output


@dataclass(frozen=True)
class Tool:
    fn: ToolFn
    mutates: bool = False


@dataclass(frozen=True)
class Toolkit:
    tables: dict[str, Shape]
    tools: dict[str, Tool]
    helpers: dict[str, ToolFn] = field(default_factory=dict)
    normalizer: Callable[[dict, str], dict] | None = None  # (data, where) -> the database with records shaped

    def function(self, name: str) -> ToolFn | None:
        if name in self.tools:
            return self.tools[name].fn
        return self.helpers.get(name)

    def normalize(self, data: dict, where: str) -> dict:
        if self.normalizer is not None:
            return self.normalizer(data, where)
        return normalize(data, self.tables, where)


@dataclass(frozen=True)
class Domain:
    name: str
    agent: Toolkit
    user: Toolkit | None = None
    sync: Callable[[dict, dict], None] | None = None  # (agent db, user db): make the sides agree
    shared_db: bool = False  # the user's tools work on the agent's database (banking: upstream shares one)
    # agent tools a prepared benchmark may or may not offer (banking's retrieval tools, per variant)
    variant_tools: frozenset = frozenset()
    # (episode db, domain file, task): what an episode keeps beside its hashed tables (banking's index)
    setup: Callable[[Any, dict, dict], None] | None = None
    # task -> why gym cannot run it yet (None: it can); such a task is not sent
    unsupported: Callable[[dict], str | None] | None = None

    def toolkit(self, requestor: str) -> Toolkit | None:
        return self.user if requestor == "user" else self.agent
