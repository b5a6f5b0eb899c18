"""The import graph inside gym/: no cycles at module level, and dependencies that point one way."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

GYM = Path(__file__).resolve().parents[2] / "gym"
BENCHMARKS = GYM.parent / "benchmarks"


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
        if any(isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["FACE"]
               for node in tree.body):  # a lazy face (gym.core.faces): the modules it names are its imports
            found.update(importlib.import_module(module_name(path)).FACE.values())
        graph[module_name(path)] = found
    known = set(graph)
    return {module: {name for name in names if name in known and name != module} for module, names in graph.items()}


def test_no_import_cycles_even_through_imports_inside_functions():
    graph = imports(top_level_only=False)
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


# The layers, bottom first: a package may import only itself and the packages before it. The folder tree
# is the architecture (docs/architecture.md draws it).
LAYERS = ("core", "data", "sandbox", "runtime", "swebench", "toolcalls", "episodes", "verifiers", "mock", "model",
          "proxy", "cliagents", "rollouts", "metrics", "collect", "serve", "view", "cluster", "tasks", "cli")


def package_of(module: str) -> str:
    """The layer a module belongs to; "" for gym itself and its entry point (gym/__main__.py)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (GYM / parts[1]).is_dir() else ""


def test_every_package_is_a_known_layer_and_the_root_holds_only_the_entry_points():
    packages = {package_of(module) for module in imports(top_level_only=True)}
    assert packages - set(LAYERS) == {""}, "a package missing from LAYERS"
    roots = sorted(module for module in imports(top_level_only=True) if package_of(module) == "")
    assert roots == ["gym", "gym.__main__"]


def test_each_package_imports_only_the_layers_below_it():
    upward = []
    for module, targets in imports(top_level_only=False).items():
        if package_of(module) == "":
            continue
        rank = LAYERS.index(package_of(module))
        upward += [(module, target) for target in sorted(targets)
                   if package_of(target) and LAYERS.index(package_of(target)) > rank]
    assert upward == []


def test_no_task_imports_another_task():
    graph = imports(top_level_only=False)
    for module, targets in graph.items():
        if module.startswith("gym.tasks."):
            assert not [t for t in targets if t.startswith("gym.tasks.")], module


def test_no_module_is_much_over_400_lines():
    long = {module_name(p): n for p in GYM.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert long == {}


def gym_imports_of_benchmarks() -> list[tuple[str, str, str]]:
    """(script, module, name) of every gym import in benchmarks/, inside functions and TYPE_CHECKING too."""
    found = []
    for path in sorted(BENCHMARKS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "gym":
                found += [(str(path.relative_to(BENCHMARKS)), node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                found += [(str(path.relative_to(BENCHMARKS)), alias.name, "")
                          for alias in node.names if alias.name.split(".")[0] == "gym"]
    return found


def test_prepare_scripts_import_gym_only_through_its_faces():
    from gym.data import PREPARE_FACES

    found = gym_imports_of_benchmarks()
    assert len({script for script, _, _ in found}) >= 89  # every prepare script imports gym somewhere
    outside = [(script, module) for script, module, _ in found if module not in PREPARE_FACES]
    assert outside == [], "a prepare script reaching past gym.data and the families' faces"
    unlisted = [(script, module, name) for script, module, name in found
                if name not in importlib.import_module(module).__all__]
    assert unlisted == [], "a name missing from its face's __all__"


def test_every_name_of_a_face_resolves():
    from gym.data import PREPARE_FACES

    for face in PREPARE_FACES:
        module = importlib.import_module(face)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{face}.{name}"


def test_collect_starts_without_the_heavy_libraries():
    """collect (and the CLI in front of it) loads numpy, pandas, plotting and the episode layer only where a run
    uses them: resuming, the reference server, aggregate's statistics, an episode benchmark."""
    import subprocess
    import sys

    code = ("import sys, gym.cli.main, gym.tasks.collect; "
            "print(' '.join(sorted(sys.modules)))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                cwd=GYM.parent).stdout.split())
    libraries = {"numpy", "pandas", "matplotlib", "scipy", "pyarrow", "polars", "sympy"}
    assert sorted(name for name in loaded if name.split(".")[0] in libraries
                  or name.split(".")[:2] in (["gym", "episodes"], ["gym", "mock"])) == []


# Below gym/tasks/ code takes typed objects (gym.core.typed), not the composed config. The modules that must
# still read OmegaConf, and why:
CONFIG_READERS = {
    "gym.core.config": "composing: Hydra's compose API, the resolvers, a step's config derived from e2e's",
    "gym.core.schema": "the schemas themselves (MISSING, Hydra's ConfigStore)",
    "gym.core.task_knobs": "checks a task's knobs against their schema at the door, before any work",
    "gym.core.typed": "the door: the composed config turned into the schemas' dataclasses",
    "gym.cluster.launch": "a Hydra launcher: Hydra hands it each job's composed config",
    "gym.metrics.trackers": "a Hydra callback: Hydra hands it the job's config, which it logs as it was composed",
}


def omegaconf_importers() -> set[str]:
    found = set()
    for path in GYM.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if any(name.split(".")[0] == "omegaconf" for name in names):
                found.add(module_name(path))
    return found


def test_below_the_tasks_nothing_reads_the_composed_config():
    below = {module for module in omegaconf_importers()
             if package_of(module) and LAYERS.index(package_of(module)) < LAYERS.index("tasks")}
    assert below - set(CONFIG_READERS) == set(), "a module below gym/tasks/ importing omegaconf: take typed objects"
    assert set(CONFIG_READERS) - below == set(), "CONFIG_READERS names a module that no longer imports omegaconf"
