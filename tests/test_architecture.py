"""The import graph inside gym/: no cycles at module level, and dependencies that point one way."""

from __future__ import annotations

import ast
from pathlib import Path

GYM = Path(__file__).resolve().parents[1] / "gym"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(GYM.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(top_level_only: bool) -> dict[str, set[str]]:
    """module -> the gym modules it imports (all imports, or only those run at import time)."""
    graph: dict[str, set[str]] = {}
    for path in GYM.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = tree.body if top_level_only else list(ast.walk(tree))
        found: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gym") and not node.level:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name.startswith("gym"))
        graph[module_name(path)] = found
    known = set(graph)
    return {module: {name for name in names if name in known and name != module} for module, names in graph.items()}


def test_no_import_cycles_at_module_level():
    graph = imports(top_level_only=True)
    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                raise AssertionError("import cycle: " + " -> ".join(trail[trail.index(target):] + [module, target])
                                     if target in trail else f"import cycle through {module} -> {target}")
            if target not in state:
                visit(target, trail + [module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])


def edges_into(prefixes: tuple[str, ...], sources: str) -> list[tuple[str, str]]:
    graph = imports(top_level_only=False)
    return sorted((module, target) for module, targets in graph.items() if module.startswith(sources)
                  for target in targets if target.startswith(prefixes))


def test_verifiers_never_import_tasks_endpoints_or_the_reference_server():
    assert edges_into(("gym.tasks", "gym.endpoints", "gym.mock", "gym.local_servers"), "gym.verifiers") == []


def test_the_schema_and_io_modules_stay_at_the_bottom():
    upward = ("gym.tasks", "gym.endpoints", "gym.mock", "gym.local_servers")
    for module in ("gym.rollout", "gym.schema", "gym.io", "gym.errors", "gym.table"):
        assert edges_into(upward, module) == [], module


def test_the_reference_server_uses_no_verifier():
    assert edges_into(("gym.verifiers", "gym.tasks"), "gym.mock") == []


def test_no_task_imports_another_task():
    graph = imports(top_level_only=False)
    for module, targets in graph.items():
        if module.startswith("gym.tasks."):
            assert not [t for t in targets if t.startswith("gym.tasks.")], module


def test_no_module_is_much_over_400_lines():
    long = {module_name(p): n for p in GYM.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert long == {}
