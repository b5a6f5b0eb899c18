"""The configuration reference page (docs/configuration.md), built from conf/ and gym/core/schema.py.

Each knob's meaning is the comment beside it in the option files (`key: value  # comment`), else the comment
beside its field in the schema's dataclass; each default is the file's value, else the dataclass's. A knob
added to a file or a schema shows up here by itself; tools/docs_pages.py writes the page.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import typing
from pathlib import Path
from typing import Any

import yaml

from gym.core import schema
from gym.core.task_knobs import TASK_KNOBS
from gym.core.paths import CONF_DIR
from gym.verifiers import FAMILIES

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z_][\w.-]*):(?P<value>.*)$")
_QUOTED = re.compile(r""""(?:[^"\\]|\\.)*"|'[^']*'""")
_COMMENT = re.compile(r"(?:^|\s)#\s?(?P<comment>.*)$")
_FIELD_LINE = re.compile(r"^\s+(?P<name>\w+): [^=]+?(?: = .*?)?\s+#\s?(?P<comment>.*)$")


# outside code spans, what Markdown would read as markup (or HTML) in a comment shown in a table cell
_MARKUP = str.maketrans({"<": "&lt;", ">": "&gt;", "\\": "&#92;", "*": "&#42;", "_": "&#95;", "[": "&#91;",
                         "]": "&#93;"})


def _cell(text: Any) -> str:
    """A comment as a table cell: its `code spans` kept, the rest shown as it is written."""
    parts = str(text).replace("\n", " ").split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        parts = ["`".join(parts)]
    shown = [part if i % 2 else part.translate(_MARKUP).replace("|", "\\|") for i, part in enumerate(parts)]
    return "`".join(shown).strip()  # a pipe in a code span stays one: the table reads code spans whole


def _code(value: Any) -> str:
    if value is dataclasses.MISSING or value == "???":
        return "required"
    text = "null" if value is None else json.dumps(value, ensure_ascii=False) if not isinstance(value, str) \
        else value if value else '""'
    return "`" + text.replace("\n", " ") + "`"


def file_comments(path: Path) -> tuple[str, dict[str, str]]:
    """(the file's opening comment, dotted key -> the comment beside it) of one YAML option file."""
    header, comments, stack, block_indent = [], {}, [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if block_indent is not None:  # inside a `key: |` block scalar
            if not line.strip() or len(line) - len(line.lstrip()) > block_indent:
                continue
            block_indent = None
        if line.startswith("#") and not comments and not stack:
            if not line.startswith("# @package"):
                header.append(line.lstrip("#").strip())
            continue
        match = _KEY_LINE.match(line)
        if not match:
            continue
        indent = len(match["indent"])
        stack = [(i, k) for i, k in stack if i < indent] + [(indent, match["key"])]
        key = ".".join(k for _, k in stack)
        value = _QUOTED.sub('""', match["value"])  # a # inside a quoted value is not a comment
        comment = _COMMENT.search(value)
        if comment:
            comments[key] = comment["comment"].strip()
        if value.split("#")[0].strip() in ("|", "|-", ">", ">-"):
            block_indent = indent
    return " ".join(header), comments


def _schema_comments(cls: type) -> dict[str, str]:
    """field -> the comment beside it in the dataclass's source."""
    found = {}
    for line in inspect.getsource(cls).splitlines():
        match = _FIELD_LINE.match(line)
        if match:
            found[match["name"]] = match["comment"].strip()
    return found


def _type_name(kind: Any) -> str:
    if kind is Any:
        return "any"
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Union:
        inner = [a for a in args if a is not type(None)]
        return " or ".join(_type_name(a) for a in inner) + (" or null" if len(inner) < len(args) else "")
    if origin in (list, typing.List):
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin in (dict, typing.Dict):
        return "mapping"
    return getattr(kind, "__name__", str(kind))


def schema_fields(cls: type, prefix: str = "") -> list[tuple[str, str, Any, str]]:
    """(dotted key, type, default, schema comment) of every leaf of a dataclass schema, nested ones flattened."""
    rows, hints, comments = [], typing.get_type_hints(cls), _schema_comments(cls)
    for f in dataclasses.fields(cls):
        kind = hints[f.name]
        nested = [a for a in typing.get_args(kind) if dataclasses.is_dataclass(a)] or [kind]
        if dataclasses.is_dataclass(nested[0]):  # a section (Optional ones too: benchmark.dataset.columns)
            rows += schema_fields(nested[0], f"{prefix}{f.name}.")
            continue
        default = f.default if f.default is not dataclasses.MISSING else \
            f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING
        rows.append((prefix + f.name, _type_name(kind), default, comments.get(f.name, "")))
    return rows


def _flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(node, dict) or not node:
        return {prefix.rstrip("."): node} if prefix else {}
    flat = {}
    for key, value in node.items():
        flat.update(_flatten(value, f"{prefix}{key}."))
    return flat


def _values(path: Path, skip: tuple[str, ...] = ("defaults", "task")) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return _flatten({k: v for k, v in data.items() if k not in skip})


def _task_section(path: Path) -> list[str]:
    header, comments = file_comments(path)
    values = _values(path)
    knobs = TASK_KNOBS.get(path.stem)
    types = {key: kind for key, kind, _, _ in schema_fields(knobs)} if knobs else {}
    includes = [d for d in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("defaults", [])
                if isinstance(d, str) and d != "_self_"]
    lines = ["", f"### task={path.stem}", "", f"`conf/task/{path.name}`. {_cell(header)}", ""]
    if includes:
        lines += [f"Also every key of {', '.join(f'[task={d}](#task{d})' for d in includes)}.", ""]
    lines += ["| key | default | type | meaning |", "|---|---|---|---|"]
    for key, value in values.items():
        lines += _section_row(key, comments, seen=lines)
        lines.append(f"| `{key}` | {_code(value)} | {types.get(key, '')} | {_cell(comments.get(key, ''))} |")
    return lines


def _section_row(key: str, comments: dict[str, str], seen: list[str], columns: int = 3) -> list[str]:
    """A row for the section a key sits in (`adaptive.*`), once, when the section's line has a comment."""
    section = key.rpartition(".")[0]
    row = f"| `{section}.*` |" + " |" * (columns - 1) + f" {_cell(comments.get(section, ''))} |"
    return [row] if section in comments and row not in seen else []


def _group_section(group: str, title: str, cls: type, base: str | None) -> list[str]:
    """One config group: its options (each file's opening comment and what it sets) and its keys."""
    folder = CONF_DIR / group
    base_values, comments, option_values = {}, {}, {}
    if base:
        base_values = _values(folder / "_base" / f"{base}.yaml")
        comments.update(file_comments(folder / "_base" / f"{base}.yaml")[1])
    comments.update({key: note for key, _, _, note in schema_fields(cls) if note and key not in comments})
    option_rows = []
    for path in sorted(folder.glob("*.yaml")):
        header, own = file_comments(path)
        for key, comment in own.items():
            comments.setdefault(key, comment)
        values = _values(path)
        option_values.update(values)
        sets = ", ".join(f"`{k}`" for k, v in values.items() if base_values.get(k, object()) != v)
        option_rows.append(f"| `{group}={path.stem}` | {_cell(header)} | {sets} |")
    lines = ["", f"## {title}: `{group}=`", "", "| option | what it is | keys it sets |", "|---|---|---|",
             *option_rows, "", f"Keys (`{group}.<key>`; defaults of "
             + (f"`conf/{group}/_base/{base}.yaml`" if base else "the schema") + " unless an option sets them):", "",
             "| key | default | type | meaning |", "|---|---|---|---|"]
    for key, kind, default, _ in schema_fields(cls):
        value = base_values.get(key, default)
        meaning = _cell(comments.get(key, ""))
        inner = [k.rpartition(".")[2] for k in option_values if k.startswith(key + ".")]  # mock.faults.<name>
        if inner:
            meaning += "; keys: " + ", ".join(f"`{name}`" + (f" ({_cell(comments[f'{key}.{name}'])})"
                                                             if f"{key}.{name}" in comments else "")
                                              for name in inner)
        lines.append(f"| `{group}.{key}` | {_code(value)} | {kind} | {meaning} |")
    return lines


def _benchmark_section() -> list[str]:
    folder = CONF_DIR / "benchmark" / "_base"
    base_values = _values(folder / "base.yaml")
    comments = file_comments(folder / "base.yaml")[1]
    lines = ["", "## Benchmarks: `benchmark=`", "",
             "One option per benchmark (the [catalog](catalog.md) lists them); each inherits a family base from "
             "`conf/benchmark/_base/` and sets what differs ([adding a benchmark](adding-a-benchmark.md)).", "",
             "| base | what it is |", "|---|---|"]
    for path in sorted(folder.glob("*.yaml")):
        lines.append(f"| `_base/{path.stem}` | {_cell(file_comments(path)[0])} |")
    lines += ["", "Keys (`benchmark.<key>`):", "", "| key | default | type | meaning |", "|---|---|---|---|"]
    for key, kind, default, note in schema_fields(schema.BenchmarkConfig):
        value = base_values.get(key, default)
        lines.append(f"| `benchmark.{key}` | {_code(value)} | {kind} | {_cell(comments.get(key) or note)} |")
    return lines + _verifier_options()


def _verifier_options() -> list[str]:
    """Each family's `benchmark.verifier.options.*`: the options its Verifier class accepts, with defaults."""
    import importlib

    lines = ["", "### Verifier options", "",
             "`benchmark.verifier.options.<option>` per family (any other option is refused at start-up):", "",
             "| family | option | default | allowed values |", "|---|---|---|---|"]
    for family, target in FAMILIES.items():
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        defaults = {name: choices[0] for name, choices in cls.CHOICES.items()} | dict(cls.OPTIONS)
        for option, default in defaults.items():
            if option.startswith("_"):
                continue
            allowed = ", ".join(f"`{c}`" for c in cls.CHOICES.get(option, ()))
            lines.append(f"| `{family}` | `{option}` | {_code(default)} | {allowed} |")
    return lines




def configuration_page() -> str:
    header, comments = file_comments(CONF_DIR / "config.yaml")
    lines = ["# Configuration reference", "",
             "<!-- generated by tools/docs_pages.py from conf/ and gym/core/schema.py: do not edit, run the tool -->",
             "", "Every knob is a config value: set it on the command line as `key=value` (a task's knobs are "
             "top-level keys, the others sit under their group, e.g. `model.sampling.temperature=0`). "
             "`--cfg job` prints the composed config and `--info defaults-tree` where each value comes from; a key "
             "that does not exist fails in one line with a did-you-mean.", "",
             "## Common keys", "", f"`conf/config.yaml`. {_cell(header)}", "",
             "| key | default | meaning |", "|---|---|---|"]
    for key, value in _values(CONF_DIR / "config.yaml", skip=("defaults", "hydra")).items():
        lines += _section_row(key, comments, seen=lines, columns=2)
        lines.append(f"| `{key}` | {_code(value)} | {_cell(comments.get(key, ''))} |")
    lines += ["", "## Tasks: `task=`", "", "Each task's knobs, from `conf/task/<task>.yaml`; types from the "
              "schema that checks them before the task runs."]
    for path in sorted((CONF_DIR / "task").glob("*.yaml")):
        lines += _task_section(path)
    lines += _group_section("model", "Models", schema.ModelConfig, "openai_compatible")
    lines += _group_section("judge", "Judges", schema.JudgeConfig, "openai_compatible")
    lines += _group_section("user", "Simulated users", schema.UserConfig, "openai_compatible")
    lines += _group_section("tracker", "Experiment trackers", schema.TrackerConfig, None)
    lines += _benchmark_section() + _options_section(CONF_DIR / "hydra" / "launcher", "hydra/launcher", "Sweep launchers")
    for folder in sorted(d for d in CONF_DIR.iterdir() if d.is_dir() and d.name not in DESCRIBED):
        if any(folder.glob("*.yaml")):  # a group without a section of its own yet: its options and their keys
            lines += _options_section(folder)
    return "\n".join(lines) + "\n"


DESCRIBED = ("task", "model", "judge", "user", "tracker", "benchmark", "hydra")  # groups with their own section


def _options_section(folder: Path, group: str | None = None, title: str = "") -> list[str]:
    """A group's options, each with its opening comment and the keys it sets (with their comments)."""
    group = group or folder.name
    prefix = group.replace("/", ".")
    lines = ["", f"## {title + ': ' if title else ''}`{group}=`", "", "| option | what it is | keys |", "|---|---|---|"]
    for path in sorted(folder.glob("*.yaml")):
        header, comments = file_comments(path)
        keys = "; ".join(f"`{prefix}.{k}` = {_code(v)}" + (f": {_cell(comments[k])}" if k in comments else "")
                         for k, v in _values(path).items())
        lines.append(f"| `{group}={path.stem}` | {_cell(header)} | {keys} |")
    return lines


def _summary(obj: Any) -> str:
    """An exported name's first docstring paragraph, or what a constant holds."""
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return (inspect.getdoc(obj) or "").split("\n\n")[0]
    size = f" of {len(obj)}" if isinstance(obj, (dict, list, tuple, set, frozenset)) else ""
    return f"constant: {type(obj).__name__}{size}"


def _call_form(name: str, obj: Any) -> str:
    """`name(arg, arg=default, ...)` for a function or class, the bare name for anything else."""
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return name
    try:
        parameters = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return name
    shown = [p.name if p.default is inspect.Parameter.empty
             else f"{p.name}={p.default!r}" if len(repr(p.default)) <= 24 else f"{p.name}=…"
             for p in parameters if p.name != "self"]
    return f"{name}({', '.join(shown)})"


def prepare_api_page() -> str:
    """docs/prepare-api.md: every name a prepare script may import, face by face (gym.data.PREPARE_FACES)."""
    from gym.data import PREPARE_FACES

    lines = ["# Prepare-script API", "",
             "<!-- generated by tools/docs_pages.py from the faces' __all__ and docstrings: do not edit, "
             "run the tool -->",
             "", "A benchmark's `prepare.py` imports gym only from these modules: `gym.data` for the tools every "
             "benchmark shares, and a few benchmark families' own faces for what only they need. "
             "tests/project/test_architecture.py holds every script in benchmarks/ to this list, so the modules behind a "
             "face can move without breaking a script. See [Adding a benchmark](adding-a-benchmark.md)."]
    for face in PREPARE_FACES:
        module = importlib.import_module(face)
        lines += ["", f"## `{face}`", "", _cell((inspect.getdoc(module) or "").split("\n\n")[0]), "",
                  "| name | what |", "|---|---|"]
        for name in module.__all__:
            obj = getattr(module, name)
            lines.append(f"| `{_call_form(name, obj)}` | {_cell(_summary(obj))} |")
    return "\n".join(lines) + "\n"
