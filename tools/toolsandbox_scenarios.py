"""Write ToolSandbox's scenarios as one JSON file (the file benchmark=toolsandbox's prepare reads).

ToolSandbox defines its scenarios in Python (initial databases built with polars, milestones as
similarity functions), so gym does not parse them: this script runs upstream's own registry
(`tool_sandbox.scenarios.named_scenarios`) and writes what each scenario declares, in the format
docs/benchmarks/toolsandbox.md describes: the starting messages, the initial databases, the tools the
agent is offered (upstream's own OpenAI schemas, scrambling applied), and the milestones and minefields
as declarative snapshot constraints (guardrails included, as upstream's MilestoneMatcher adds them).

Upstream's scenarios read the clock (`datetime.now()`) and shuffle tool lists (`random.shuffle`); both are
pinned here (freezegun at FROZEN_NOW, random.seed(SEED)) so the file is reproducible, and gym's tools
answer the same frozen clock.

Run in a throwaway venv with upstream's requirements (polars 0.20.31 ...) and freezegun, on upstream's
checkout at the commit benchmarks/toolsandbox/prepare.py pins:

    git clone https://github.com/apple/ToolSandbox /tmp/ts_up && git -C /tmp/ts_up checkout <COMMIT>
    PYTHONPATH=/tmp/ts_up:. TZ=UTC PYTHONHASHSEED=0 /tmp/ts_venv/bin/python tools/toolsandbox_scenarios.py OUT.json.gz

(PYTHONHASHSEED fixes the order upstream adds guardrails in: it walks a set; the order changes no score.)
"""

from __future__ import annotations

import functools
import gzip
import json
import random
import sys
from pathlib import Path

FROZEN_NOW = "2024-08-05 12:00:00"  # a Monday; the clock of every scenario and of gym's tools (UTC)
SEED = 0
RAPID_API = "rapid_api_search_tools"  # the module of the tools that call RapidAPI web services


def _describe(value):
    """A similarity function (maybe a functools.partial) as {name, kwargs}."""
    if isinstance(value, functools.partial):
        kwargs = {}
        for key, item in value.keywords.items():
            kwargs[key] = item.__name__ if callable(item) else item
        return {"name": value.func.__name__, **kwargs}
    return {"name": value.__name__}


def _frame(frame):
    if frame is None:
        return None
    return {"schema": {name: str(dtype) for name, dtype in frame.schema.items()},
            "rows": [{k: _plain(v) for k, v in row.items()} for row in frame.to_dicts()]}


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, (int, float, str, bool)):
        return str(value)
    return str(value) if type(value).__name__ in ("RoleType", "DatabaseNamespace") else value


def _constraints(milestone, defaults):
    out = []
    for c in milestone.snapshot_constraints:
        namespace = str(c.database_namespace)
        overrides = {col: _describe(fn) for col, fn in (c.column_similarity_measure or {}).items()
                     if fn is not defaults[c.database_namespace].get(col)}
        out.append({"database": namespace, **{"similarity": _describe(c.snapshot_constraint)},
                    "reference": c.reference_milestone_node_index, "target": _frame(c.target_dataframe),
                    "columns": overrides})
    return out


def _matcher(matcher, defaults):
    return {"nodes": [{"constraints": _constraints(m, defaults),
                       "guardrail_databases": [str(x) for x in (m.guardrail_database_list or [])]}
                      for m in matcher.milestones],
            "edges": [list(edge) for edge in matcher.milestone_dag.edges],
            "order": list(matcher.milestone_dag.nodes)}  # the DAG's nodes (a milestone no edge names is not one)


class Tables:
    """Scenarios share worlds (variants differ in tools only) and tool schemas: each stored once."""

    def __init__(self) -> None:
        self.index: dict[str, dict[str, int]] = {"worlds": {}, "tools": {}}
        self.listed: dict[str, list] = {"worlds": [], "tools": []}

    def intern(self, table: str, value) -> int:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in self.index[table]:
            self.index[table][key] = len(self.listed[table])
            self.listed[table].append(value)
        return self.index[table][key]


def _entry(scenario, tables: Tables, defaults: dict) -> dict:
    from tool_sandbox.common.execution_context import DatabaseNamespace, RoleType, set_current_context
    from tool_sandbox.common.tool_conversion import convert_to_openai_tools

    context = scenario.starting_context
    set_current_context(context)
    agent_tools = {n: t for n, t in context.get_available_tools(scrambling_allowed=True).items()
                   if RoleType.AGENT in getattr(t, "visible_to", (RoleType.AGENT,))}
    user_tools = {n: t for n, t in context.get_available_tools(scrambling_allowed=False).items()
                  if RoleType.USER in getattr(t, "visible_to", (RoleType.AGENT,))}
    sandbox = context.get_database(DatabaseNamespace.SANDBOX, get_all_history_snapshots=True)
    world = {
        "messages": [{k: _plain(v) for k, v in row.items()} for row in sandbox.to_dicts()],
        "databases": {str(ns): [{k: _plain(v) for k, v in row.items()} for row in context.get_database(ns).to_dicts()]
                      for ns in DatabaseNamespace if ns != DatabaseNamespace.SANDBOX},
        "milestones": _matcher(scenario.evaluation.milestone_matcher, defaults),
        "minefields": _matcher(scenario.evaluation.minefield_matcher, defaults),
    }
    return {
        "categories": [str(c) for c in scenario.categories],
        "max_messages": scenario.max_messages,
        "tool_augmentation_list": [str(x) for x in context.tool_augmentation_list],
        "tools": [tables.intern("tools", t) for t in convert_to_openai_tools(agent_tools)],
        "user_tools": [tables.intern("tools", t) for t in convert_to_openai_tools(user_tools)],
        "tool_names": {n: t.__name__ for n, t in agent_tools.items()},
        "rapid_api_tools": sorted(n for n, t in agent_tools.items() if t.__module__.endswith(RAPID_API)),
        "world": tables.intern("worlds", world),
    }


def export(out: Path) -> dict:
    import datetime

    import tool_sandbox.tools  # noqa: F401
    from tool_sandbox.common import evaluation
    from tool_sandbox.common.tool_discovery import ToolBackend
    from tool_sandbox.scenarios import named_scenarios

    from benchmarks.toolsandbox.prepare import COMMIT

    random.seed(SEED)
    scenarios = named_scenarios(preferred_tool_backend=ToolBackend.DEFAULT)
    tables = Tables()
    result = {name: _entry(scenarios[name], tables, evaluation._default_dbs_column_similarities)
              for name in sorted(scenarios)}
    document = {"format": "gym-toolsandbox-scenarios/1", "upstream": "apple/ToolSandbox", "commit": COMMIT,
                "now": datetime.datetime.now().timestamp(), "timezone": "UTC", "seed": SEED,
                "scenarios": result, "worlds": tables.listed["worlds"], "tools": tables.listed["tools"]}
    tmp = out.with_suffix(".tmp")
    data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    tmp.write_bytes(gzip.compress(data, mtime=0) if out.suffix == ".gz" else data)
    tmp.replace(out)
    return document


if __name__ == "__main__":
    from freezegun import freeze_time

    import tool_sandbox.common.tool_conversion  # noqa: F401  (pydantic's date types, before the clock is frozen)
    import tool_sandbox.scenarios  # noqa: F401

    with freeze_time(FROZEN_NOW):
        doc = export(Path(sys.argv[1]))
    rapid = sum(1 for s in doc["scenarios"].values() if s["rapid_api_tools"])
    print(f"{len(doc['scenarios'])} scenarios, {rapid} offer a RapidAPI tool", file=sys.stderr)
