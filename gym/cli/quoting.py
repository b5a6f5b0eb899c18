"""Values Hydra's override grammar cannot read as typed: a home path is expanded where the knob is a path,
anything else gets one line saying what is wrong and how to quote it (never the parser's class name)."""

from __future__ import annotations

import os
import re

# Knobs that hold a file or directory (by their last name): `~` there means the home directory, as in a shell.
PATH_KNOBS = {"dir", "root", "mirror", "output", "output_dir", "rollouts", "path", "checked_dir", "prepared", "tasks",
              "tasks_dir", "cache_dir"}
# Characters a value may hold unquoted in Hydra's grammar (besides letters and digits); the rest need quotes.
PLAIN = re.compile(r"[\w\-+./:\\*%$@?|]")


def expand_home(arg: str) -> str:
    """`cache.dir=~/.cache/gym` -> `cache.dir=/home/me/.cache/gym` where the knob is a path; else `arg`."""
    key, sep, value = arg.partition("=")
    if not sep or not value.startswith("~") or key.rsplit(".", 1)[-1].lstrip("+~") not in PATH_KNOBS:
        return arg
    expanded = os.path.expanduser(value)
    if expanded == value:  # ~someone who does not exist: leave it to the message below
        return arg
    return f"{key}={expanded}" if all(PLAIN.match(c) for c in expanded) else f"{key}={quoted(expanded)}"


def quoted(value: str) -> str:
    """A value in Hydra's quotes (a string, whatever it holds)."""
    if "'" not in value:
        return f"'{value}'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unreadable(arg: str, parser_message: str) -> str:
    """One line for an override Hydra's grammar rejects: what is wrong, and the same override quoted."""
    key, sep, value = arg.partition("=")
    if not sep:
        return f"'{arg}' is not an override: gym takes key=value arguments"
    if not key or not re.fullmatch(r"[+~]{0,2}[\w\-./@:]+", key):
        return f"'{arg}': '{key}' is not a key (keys are names joined by dots, e.g. model.base_url)"
    if value.count("[") != value.count("]") or value.count("{") != value.count("}"):
        what = "an unclosed bracket"
    elif value.count("'") % 2 or value.count('"') % 2:
        what = "an unclosed quote"
    else:
        odd = next((c for c in value if not PLAIN.match(c) and c not in " ,[]{}'\"()"), None)
        if odd is None:
            match = re.search(r"input '(.)", parser_message)
            odd = match.group(1) if match else None
        what = f"'{odd}', which a value may hold only inside quotes" if odd else "a value Hydra cannot read"
        if odd == "~" and value.startswith("~"):
            what += f" (a home path: {key} is not a path knob)"
    return f"cannot read {arg}: {what}; quote the value: {shell_quoted(key, value)}"


def shell_quoted(key: str, value: str) -> str:
    """The override with the value in Hydra's quotes, inside shell quotes, ready to paste."""
    if '"' not in value and "'" not in value:
        return "'" + key + '="' + value + '"' + "'"
    if "'" not in value:
        return '"' + key + "='" + value + "'" + '"'
    if '"' not in value:
        return '"' + key + '=\\"' + value + '\\""'
    return f"{key}=" + '"..." with each quote inside escaped by a backslash'
