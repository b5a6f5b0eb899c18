"""Checks on the command line before Hydra composes anything: one clear line for the common mistakes.

Overrides are parsed with Hydra's own grammar (OverridesParser), so what is checked here is exactly
what Hydra will apply. Nothing has been written when one of these checks fails: no run dir, no log,
no saved config (which matters most for secrets).
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from gym.core.errors import GymError, did_you_mean, unknown_benchmark
from gym.cli.quoting import expand_home, unreadable
from gym.cli.secrets import override_secret_problem
from gym.tasks import TASKS

LAUNCHER_EXTRAS = {"local": ("hydra_plugins.hydra_joblib_launcher", "parallel"),
                   "joblib": ("hydra_plugins.hydra_joblib_launcher", "parallel"),
                   "slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
                   "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
                   "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "slurm")}
DISTRIBUTION = "gym-eval-harness"  # the name gym is installed under (pip install ...)

# Hydra's flags; those in INFO_FLAGS only print something (help, config, completion).
FLAGS_WITH_VALUE = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn",
                    "--config-dir", "-cd", "--experimental-rerun", "--info", "-i"}
INFO_FLAGS = {"--help", "-h", "--hydra-help", "--info", "-i", "--cfg", "-c", "--shell-completion", "-sc",
              "--version", "--resolve"}
MULTIRUN_FLAGS = ("-m", "--multirun")
INFO_VALUES = {"all", "config", "defaults", "defaults-tree", "plugins", "searchpath", "job", "hydra"}

# Keys that used to mean something else in some tasks: task -> old key -> what to write instead.
RENAMED = {
    "search": {"output": "use format=table|json (output= is the rollouts file of collect)",
               "limit": "use max_rows=<n> (limit= is the number of tasks collect runs)"},
    "aggregate": {"output": "use format=table|json (output= is the rollouts file of collect)"},
    "prepare": {"use_cached": "prepare skips prepared benchmarks by default; prepare.force=true prepares them again"},
}


def move_multirun_flag_first(argv: list[str]) -> list[str]:
    """`-m`/`--multirun` may come anywhere; Hydra's argument parser wants it before the overrides."""
    flags = [a for a in argv if a in MULTIRUN_FLAGS]
    return flags[:1] + [a for a in argv if a not in MULTIRUN_FLAGS] if flags else argv


def split_argv(argv: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(flags, their values, overrides) of a command line."""
    flags, values, overrides = [], [], []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("-"):
            name, sep, inline = arg.partition("=")
            flags.append(name)
            if sep:
                values.append(inline)
            elif name in FLAGS_WITH_VALUE and i + 1 < len(argv):
                optional = name in ("--info", "-i")
                if not optional or argv[i + 1] in INFO_VALUES:
                    values.append(argv[i + 1])
                    i += 1
        else:
            overrides.append(arg)
        i += 1
    return flags, values, overrides


def check_argv(argv: list[str]) -> list[str]:
    """The command line to hand to Hydra, or a GymError naming the first mistake."""
    argv = move_multirun_flag_first(argv)
    flags, flag_values, args = split_argv(argv)
    homes = {arg: expand_home(arg) for arg in args}  # cache.dir=~/...: a home path where a knob is a path
    argv, args = [homes.get(arg, arg) for arg in argv], [homes[arg] for arg in args]
    if set(flags) & INFO_FLAGS:
        return argv  # help, --cfg, --info, completion: Hydra's business
    for i, arg in enumerate(args):
        if "=" not in arg:
            following = args[i + 1] if i + 1 < len(args) and "=" not in args[i + 1] else None
            hint = f" (did you mean {arg}={following}?)" if following else ""
            raise GymError(f"'{arg}' is not an override: gym takes key=value arguments{hint}")
    for arg in args:  # before anything can echo them
        key, _, value = arg.partition("=")
        problem = override_secret_problem(key, value)
        if problem:
            raise GymError(problem)
    overrides = parse(args)
    tasks = _choices(overrides, "task")
    if not tasks and not any(o.key_or_group == "task" for o in overrides):
        raise GymError(f"no task chosen: add task=<{'|'.join(TASKS)}> (python -m gym --help explains each)")
    for task in tasks:
        if task not in TASKS:
            raise GymError(f"unknown task '{task}'{did_you_mean(task, TASKS)}; tasks: {', '.join(TASKS)}")
    _check_launcher_keys(overrides, bool(set(flags) & set(MULTIRUN_FLAGS)))
    dirs = _config_dirs(flag_values, overrides)
    adds = set()
    for override in overrides:
        if _check_override(override, tasks, dirs):
            adds.add(override.input_line)
    # a key inside a free mapping (the task file's `prepare_args: {}`, a schema's `extra_body`, `options`) may be
    # new to Hydra, which wants a '+' for it: '++' sets or adds, rather than refuse what the docs show
    return [f"++{arg}" if arg in adds else arg for arg in argv]


def parse(args: list[str]) -> list[Any]:
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    try:
        return parser.parse_overrides(args)
    except OverrideParseException:
        pass
    for arg in args:  # the one Hydra's grammar rejects, said in a sentence
        try:
            parser.parse_overrides([arg])
        except OverrideParseException as exc:
            raise GymError(unreadable(arg, str(exc))) from None
    raise GymError(f"Hydra cannot read the overrides {' '.join(args)}")


def _choices(overrides: list[Any], key: str) -> list[str]:
    """The values an override of `key` names (a sweep names several; glob() and null name none)."""
    for override in overrides:
        if override.key_or_group == key and not override.is_delete():
            return _names(override)
    return []


def _names(override: Any) -> list[str]:
    from hydra.core.override_parser.types import ValueType

    if override.value_type == ValueType.GLOB_CHOICE_SWEEP:
        return []
    if override.is_sweep_override():
        values = list(override.sweep_string_iterator()) if override.is_discrete_sweep() else []
    else:
        value = override.value()
        values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if v is not None and str(v) != "null"]


def _config_dirs(flag_values: list[str], overrides: list[Any]) -> list[Path]:
    from gym.data.catalog import config_dirs

    extra = []
    for override in overrides:
        if override.key_or_group == "hydra.searchpath":
            extra += [str(p)[len("file://"):] for p in override.value() or [] if str(p).startswith("file://")]
    # --config-dir's value: a flag value that is an existing directory
    extra += [v for v in flag_values if Path(v).expanduser().is_dir()]
    return config_dirs(extra)


def _check_override(override: Any, tasks: list[str], dirs: list[Path]) -> bool:
    """Raise on a mistake; True when the override needs a '+' to add its key."""
    key = override.key_or_group
    if override.is_hydra_override() or override.is_delete() or override.package:
        if key == "hydra/launcher":
            for name in _names(override):
                _check_launcher(name)
        return False
    groups = _groups(tuple(dirs))
    if key in groups:
        for name in _names(override):
            _check_choice(key, name, groups[key])
        return False
    if key == "benchmarks":
        for name in _names(override):
            if name not in groups.get("benchmark", ()) and name != "all":
                raise _missing_benchmark(name, [*groups.get("benchmark", ()), "all"])
    adding = override.is_add() or override.is_force_add()
    needs_plus = [_check_key(key, task, adding) for task in tasks or ["search"]]
    return not adding and all(needs_plus)


def _check_launcher(name: str) -> None:
    if name in LAUNCHER_EXTRAS:
        module, extra = LAUNCHER_EXTRAS[name]
        try:
            importlib.import_module(module)
        except ImportError:
            raise GymError(f"hydra/launcher={name} needs the '{extra}' extra: "
                           f"pip install '{DISTRIBUTION}[{extra}]'") from None


def _check_launcher_keys(overrides: list[Any], multirun: bool) -> None:
    """`hydra.launcher.<key>` of hydra/launcher=slurm: a key gym's SLURM launcher has, and a dry run only of a sweep."""
    keys = [o for o in overrides if o.key_or_group.startswith("hydra.launcher.") and not o.is_delete()]
    if not keys or "slurm" not in _choices(overrides, "hydra/launcher"):
        return  # other launchers' keys are Hydra's to check
    from hydra_plugins.gym_slurm.gym_slurm_launcher import GymSlurmConf

    known = {field.name for field in dataclasses.fields(GymSlurmConf) if not field.name.startswith("_")}
    for override in keys:
        name = override.key_or_group.split(".")[2]
        if name not in known and not (name == "additional_parameters" and len(override.key_or_group.split(".")) > 3):
            raise GymError(f"unknown key '{override.key_or_group}' for hydra/launcher=slurm{did_you_mean(name, known)}")
    if not multirun and any(o.key_or_group == "hydra.launcher.dry_run" for o in keys):
        raise GymError("hydra.launcher.dry_run shows the jobs of a sweep: add -m (python -m gym -m ... "
                       "hydra/launcher=slurm hydra.launcher.dry_run=true)")


def _check_choice(group: str, name: str, options: set[str]) -> None:
    if name in options or not options:
        return
    if group == "benchmark":
        raise _missing_benchmark(name, options)
    raise GymError(f"unknown {group} '{name}'{did_you_mean(name, options)}; {group}s: {', '.join(sorted(options))}")


def _missing_benchmark(name: str, options: Iterable[str]) -> GymError:
    """A reference benchmark gym does not run gets its one line (what it needs); any other name a did-you-mean."""
    from gym.data.catalog import load_not_run, not_run_entry

    entry = not_run_entry(name)
    return GymError(entry.line()) if entry else unknown_benchmark(name, [*options, *(e.name for e in load_not_run())])


@lru_cache(maxsize=8)
def _groups(dirs: tuple[Path, ...]) -> dict[str, set[str]]:
    """Config group -> its options, over every config dir (sub-folders such as `_base` are not groups users pick)."""
    groups: dict[str, set[str]] = {}
    for conf_dir in dirs:
        if not Path(conf_dir).is_dir():
            continue
        for folder in Path(conf_dir).iterdir():
            if folder.is_dir() and folder.name != "hydra" and not folder.name.startswith(("_", ".")):
                groups.setdefault(folder.name, set()).update(p.stem for p in folder.glob("*.yaml"))
    return groups


def _check_key(key: str, task: str, adding: bool) -> bool:
    """Raise if `key` is not one of task's keys; True when it lies inside a free mapping (may be new to Hydra)."""
    leaves, open_nodes = known_keys(task)
    parts = key.split(".")
    if task == "e2e" and parts[0] in STEP_KNOBS and len(parts) > 1:  # e2e's aggregate.<k>: a key of that task
        _check_key(".".join(parts[1:]), parts[0], adding)
        return True
    prefixes = [".".join(parts[:i]) for i in range(1, len(parts))]
    if key in leaves or any(leaf.startswith(key + ".") for leaf in leaves):
        return False
    if set(prefixes) & open_nodes:
        return True
    holder = next((p for p in prefixes if p in leaves), None)
    if holder:  # e.g. compare.test=x under compare=[A,B]
        raise GymError(f"unknown key '{key}' for task={task}: '{holder}' takes a value ({holder}=...), not keys")
    renamed = RENAMED.get(task, {}).get(key)
    if renamed:
        raise GymError(f"task={task} has no '{key}' key: {renamed}")
    hint = _key_hint(key, leaves, task)
    what = f"'+{key}' adds a key gym does not know" if adding else f"unknown key '{key}'"
    raise GymError(f"{what} for task={task}{hint}")


def _key_hint(key: str, leaves: set[str], task: str) -> str:
    """Close key paths, by the last part of the name; a key at the same place counts a bit more."""
    import difflib

    parent, _, leaf = key.rpartition(".")
    root = key.split(".", 1)[0]
    scored = []
    for path in leaves:
        if "." in key and not path.startswith(root + "."):
            continue
        path_parent, _, path_leaf = path.rpartition(".")
        score = difflib.SequenceMatcher(None, leaf, path_leaf).ratio() + (0.1 if path_parent == parent else 0.0)
        if score >= 0.75:
            scored.append((-score, path))
    if scored:
        return f" (did you mean {', '.join(path for _, path in sorted(scored)[:3])}?)"
    return f" (python -m gym task={task} --cfg job shows every key)"


STEP_KNOBS = ("aggregate", "profile")  # e2e's knobs holding another task's keys


@lru_cache(maxsize=16)
def known_keys(task: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every key path a config of `task` has, the paths under which any key may be added).

    From the dataclass schemas (gym.core.schema) and the option files they describe: the primary config,
    the task's file (with the files it includes), and the model/judge/user/benchmark/tracker/runtime/agent schemas."""
    from gym.core import schema
    from gym.core.paths import CONF_DIR
    from gym.core.task_knobs import TASK_KNOBS

    leaves: set[str] = {"task.name"}
    open_nodes: set[str] = set()
    _walk_yaml(_yaml(CONF_DIR / "config.yaml"), "", leaves, open_nodes, skip=("defaults", "hydra"))
    for name in _task_files(task):
        _walk_yaml(_yaml(CONF_DIR / "task" / f"{name}.yaml"), "", leaves, open_nodes, skip=("defaults", "task"))
    knobs = TASK_KNOBS.get(task)
    if knobs is not None:
        _walk_dataclass(knobs, "", leaves, open_nodes)
    for prefix, node in (("model", schema.ModelConfig), ("judge", schema.JudgeConfig), ("user", schema.UserConfig),
                         ("benchmark", schema.BenchmarkConfig), ("tracker", schema.TrackerConfig),
                         ("runtime", schema.RuntimeConfig), ("agent", schema.AgentConfig)):
        _walk_dataclass(node, prefix + ".", leaves, open_nodes)
    return frozenset(leaves), frozenset(open_nodes)


def _yaml(path: Path) -> dict:
    import yaml

    if not path.is_file():
        return {}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _task_files(task: str) -> list[str]:
    """The task's option file and the task files its defaults list includes (e2e includes collect)."""
    from gym.core.paths import CONF_DIR

    names, todo = [], [task]
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.append(name)
        for item in _yaml(CONF_DIR / "task" / f"{name}.yaml").get("defaults", []):
            if isinstance(item, str) and item != "_self_" and (CONF_DIR / "task" / f"{item}.yaml").is_file():
                todo.append(item)
    return names


def _walk_yaml(node: dict, prefix: str, leaves: set[str], open_nodes: set[str], skip: Iterable[str] = ()) -> None:
    for key, value in node.items():
        if key in skip:
            continue
        path = prefix + str(key)
        if isinstance(value, dict) and value:
            _walk_yaml(value, path + ".", leaves, open_nodes)
        else:
            leaves.add(path)
            if value == {}:
                open_nodes.add(path)


def _walk_dataclass(cls: type, prefix: str, leaves: set[str], open_nodes: set[str]) -> None:
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        path = prefix + field.name
        kind = hints.get(field.name, Any)
        inner = [a for a in typing.get_args(kind) if a is not type(None)]
        if typing.get_origin(kind) is typing.Union and len(inner) == 1 and dataclasses.is_dataclass(inner[0]):
            kind = inner[0]  # Optional[a section]: its keys (benchmark.embeddings.*)
        if dataclasses.is_dataclass(kind):
            _walk_dataclass(kind, path + ".", leaves, open_nodes)
            continue
        leaves.add(path)
        origin = typing.get_origin(kind)
        if (kind is Any and field.metadata.get("subkeys", True)) or origin in (dict, typing.Dict) or kind is dict:
            open_nodes.add(path)
