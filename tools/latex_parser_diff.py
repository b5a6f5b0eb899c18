"""Where latex2sympy2_extended's ANTLR 4.9.3 parser differs from its 4.13.2 parser, rule by rule.

The package ships one generated parser per ANTLR runtime and picks the one matching the installed runtime
(Hydra pins 4.9). Each runtime can only load its own parser, so each side runs in a process of its own
(4.13.2 from the wheel gym ships for its math workers) and prints, per grammar rule, its transitions
(kind and token set, or the rule it calls); this script compares the two. It also lists the accessor
methods of the parse-tree context classes that one side lacks: the converter calls them by name, so a
missing one is an AttributeError at run time.

    .venv/bin/python tools/latex_parser_diff.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

_DUMP = r"""
import importlib, inspect, json
from importlib.metadata import version
gen = "antlr4_13_2" if version("antlr4-python3-runtime").startswith("4.13") else "antlr4_9_3"
out = {"version": version("antlr4-python3-runtime")}
for kind in ("PSParser", "PSLexer"):
    cls = getattr(importlib.import_module(f"latex2sympy2_extended.gen.{gen}.{kind}"), kind)
    names, rules = cls.ruleNames, {}
    for state in cls.atn.states:
        if state is None:
            continue
        rule = names[state.ruleIndex] if 0 <= state.ruleIndex < len(names) else "(start)"
        for t in state.transitions:
            called = names[t.target.ruleIndex] if type(t).__name__ == "RuleTransition" else None
            label = getattr(t, "label", None)
            rules.setdefault(rule, []).append([type(t).__name__, called or (sorted(label) if label else None)])
    out[kind] = {rule: sorted(map(json.dumps, items)) for rule, items in rules.items()}
parser = importlib.import_module(f"latex2sympy2_extended.gen.{gen}.PSParser").PSParser
out["accessors"] = {name: sorted(m for m in vars(c) if not m.startswith("_")) for name, c in vars(parser).items()
                    if inspect.isclass(c) and name.endswith("Context")}
print(json.dumps(out))
"""


def _dump(extra_path: str | None) -> dict:
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_path, env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, "-c", _DUMP], env=env, capture_output=True, text=True, check=True,
                          timeout=300)
    return json.loads(done.stdout)


def differences() -> dict:
    """{"runtimes": (old, new), "rules": {rule: {"only_old": n, "only_new": n}}, "accessors": {...}}."""
    from gym.verifiers.math import ANTLR_WHEEL

    old, new = _dump(None), _dump(ANTLR_WHEEL)
    rules = {}
    for kind in ("PSParser", "PSLexer"):
        for rule in sorted((set(old[kind]) | set(new[kind])) - {"(start)"}):  # start states differ by version
            a, b = Counter(old[kind].get(rule, [])), Counter(new[kind].get(rule, []))
            if a != b:
                rules[f"{kind}.{rule}"] = {"only_old": sorted((a - b).elements()), "only_new": sorted((b - a).elements())}
    accessors = {}
    for name in sorted(set(old["accessors"]) | set(new["accessors"])):
        missing = sorted(set(new["accessors"].get(name, [])) - set(old["accessors"].get(name, [])))
        if missing:
            accessors[name] = missing
    return {"runtimes": (old["version"], new["version"]), "rules": rules, "missing_in_old": accessors}


if __name__ == "__main__":
    print(json.dumps(differences(), indent=2))
