"""Builds the τ²-bench banking_knowledge fixtures (MIT) from a bare git mirror of sierra-research/tau2-bench.

Data files are as they are at the pinned commit: db.json, the prompt templates and components, and a cut
of tasks.json (the tasks in TASKS, in upstream order) and of the documents (those the tasks require plus a
few more, each file unchanged), with GitHub's git-tree listing of the documents folder cut to them. The
source files prepare reads (tools.py, retrieval_mixins.py) are skeletons in upstream's layout: each tool
method's decorator and signature and the module's Literal aliases; a tool's docstring is gym's own
(keeping upstream's argument types), except a discoverable tool's, which is upstream's: it is the
description the agent gets when it unlocks the tool, data prepare ships in the domain file.

    python tools/make_fixtures_banking.py <bare git mirror of sierra-research/tau2-bench>
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from gym.episodes.tau2.banking.prepare import DATA, DOCUMENTS_TREE, SRC, TEMPLATES
from gym.episodes.tau2.prepare import COMMIT

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "upstream"
ROOT = HERE / "raw.githubusercontent.com" / "sierra-research" / "tau2-bench" / COMMIT
TREE = HERE / "api.github.com" / "repos" / "sierra-research" / "tau2-bench" / "git" / "trees" / DOCUMENTS_TREE
TASKS = ("task_001", "task_004", "task_005", "task_010", "task_016", "task_031", "task_035", "task_036", "task_044", "task_046",
         "task_065", "task_072", "task_078", "task_085", "task_090", "task_098", "task_100")
EXTRA_DOCUMENTS = 12  # documents beyond the required ones, the first in file-name order
HEADER = ("# Test fixture in the layout of tau2-bench's {path} (MIT): only what gym's prepare reads from it,\n"
          "# written for gym's tests; prepare reads the real file of the pinned commit.\n")


def show(mirror: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", mirror, "show", f"{COMMIT}:{path}"], capture_output=True,
                          check=True).stdout


def skeleton(source: str, path: str) -> str:
    """Decorated methods of each class with gym's docstrings (argument types kept) and the Literal aliases."""
    tree = ast.parse(source)
    out = [HEADER.format(path=path)]
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)
                and ast.unparse(node.value.value) == "Literal"):
            out.append(ast.unparse(node) + "\n")
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        methods = []
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or not item.decorator_list:
                continue
            decorator = next((d for d in item.decorator_list if isinstance(d, ast.Call)
                              and ast.unparse(d.func) in ("is_tool", "is_discoverable_tool")), None)
            if decorator is None:
                continue
            doc = ast.get_docstring(item) or ""
            if ast.unparse(decorator.func) == "is_discoverable_tool":  # its description is data prepare ships
                body = "\n".join("        " + line if line else "" for line in doc.splitlines())
                methods.append(f"    @{ast.unparse(decorator)}\n    def {item.name}({ast.unparse(item.args)}):\n"
                               f'        """{body.lstrip()}\n        """\n        ...\n')
                continue
            types = dict(re.findall(r"^\s*(\w+)\s*\(([^)]+)\)\s*:", doc, re.MULTILINE))
            args = [a.arg for a in item.args.args[1:]]
            lines = [f"{item.name.replace('_', ' ').capitalize()} (fixture)."]
            if args:
                lines += ["", "Args:"] + [f"    {a}{f' ({types[a]})' if a in types else ''}: The {a.replace('_', ' ')}."
                                          for a in args]
            lines += ["", "Returns:", "    Done."]
            body = "\n".join("        " + line if line else "" for line in lines)
            signature = ast.unparse(item.args)
            returns = f" -> {ast.unparse(item.returns)}" if item.returns else ""
            methods.append(f"    @{ast.unparse(decorator)}\n    def {item.name}({signature}){returns}:\n"
                           f'        """{body.lstrip()}\n        """\n        ...\n')
        if methods:
            out.append(f"\nclass {node.name}:\n" + "\n".join(methods))
    return "\n".join(out)


def write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def main(mirror: str) -> None:
    tasks = [t for t in json.loads(show(mirror, f"{DATA}/tasks.json")) if t["id"] in TASKS]
    write(ROOT / DATA / "tasks.json", json.dumps(tasks, indent=4, ensure_ascii=False))
    write(ROOT / DATA / "db.json", show(mirror, f"{DATA}/db.json"))
    for name in set(TEMPLATES.values()) | {"components/policy_header.md", "components/additional_instructions.md",
                                          "components/shell_instructions.md"}:
        write(ROOT / DATA / "prompts" / name, show(mirror, f"{DATA}/prompts/{name}"))
    for module in ("tools.py", "retrieval_mixins.py"):
        write(ROOT / SRC / module, skeleton(show(mirror, f"{SRC}/{module}").decode(), f"domains/banking_knowledge/{module}"))
    listing = subprocess.run(["git", "--git-dir", mirror, "ls-tree", DOCUMENTS_TREE], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    entries = [dict(zip(("mode", "type", "sha"), line.split("\t")[0].split()), path=line.split("\t")[1])
               for line in listing]
    required = {doc for t in tasks for doc in t.get("required_documents") or []}
    kept = [e for e in entries if e["path"][:-5] in required] + [e for e in entries if e["path"][:-5] not in required][:EXTRA_DOCUMENTS]
    kept.sort(key=lambda e: e["path"])
    for entry in kept:
        write(ROOT / DATA / "documents" / entry["path"], show(mirror, f"{DATA}/documents/{entry['path']}"))
    write(TREE, json.dumps({"sha": DOCUMENTS_TREE, "tree": kept, "truncated": False}, indent=2))
    print(f"{len(tasks)} tasks, {len(kept)} documents")


if __name__ == "__main__":
    main(sys.argv[1])
