"""Write gym/swebench/environments_v4.1.0.json: the packages of SWE-bench's own images, per Verified instance.

SWE-bench keeps the conda environment exported from each of its original images (the 500 Verified instances)
at swebench/resources/swebench-og/<owner>__<name>/<number>/environment.yml; its harness (v4.1.0's
load_cached_environment_yml) maps an instance id to that file by splitting the id at its last "-". Each file
is `conda env export` of the env `testbed`: conda entries `name=version=build` and a `pip:` section of
`name==version`. This reads them from a git checkout of SWE-bench/SWE-bench (`git show <tag>:<path>`) and
keeps what a pip stand-in can use: `pins`, the pip section and the conda entries that are Python packages
(a `py…` build), as pip requirement strings; `conda_only`, the rest (the interpreter, compiled libraries) by
name and version. Identical environments are stored once. SWE-bench is MIT-licensed; the licence travels
with the file.

    python tools/swebench_environments.py /path/to/SWE-bench.git [--tag v4.1.0]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "gym" / "swebench" / "environments_v4.1.0.json"
ROOT = "swebench/resources/swebench-og"
TOOLS = {"pip", "setuptools", "wheel"}  # the venv's own installers: never constrained


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def split(exported: dict) -> dict:
    """One exported environment as {"python", "pins", "conda_only"}."""
    pins, conda_only, python = [], [], None
    for entry in exported.get("dependencies") or []:
        if isinstance(entry, dict):
            pins += [str(item).strip() for item in entry.get("pip") or []]
            continue
        name, version, build = (str(entry).split("=") + ["", ""])[:3]
        if name == "python":
            python = version
        elif name in TOOLS:
            continue
        elif build.startswith("py"):  # a Python package conda installed (py39h…, pyhd…, py_0)
            pins.append(f"{name}=={version}")
        else:
            conda_only.append(f"{name}={version}")
    return {"python": python, "pins": sorted(pins, key=str.lower), "conda_only": sorted(conda_only)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a git checkout (or bare mirror) of SWE-bench/SWE-bench")
    parser.add_argument("--tag", default="v4.1.0")
    args = parser.parse_args()
    paths = [p for p in git(args.repo, "ls-tree", "-r", "--name-only", args.tag, ROOT).split()
             if p.endswith("/environment.yml")]
    environments: list[dict] = []
    seen: dict[str, int] = {}
    instances: dict[str, int] = {}
    for path in paths:
        repo_dir, number = path.split("/")[-3:-1]
        found = split(yaml.safe_load(git(args.repo, "show", f"{args.tag}:{path}")))
        key = json.dumps(found, sort_keys=True)
        if key not in seen:
            seen[key] = len(environments)
            environments.append(found)
        instances[f"{repo_dir}-{number}"] = seen[key]
    facts = {
        "source": f"SWE-bench/SWE-bench {args.tag}: {ROOT}/<owner>__<name>/<number>/environment.yml",
        "license": git(args.repo, "show", f"{args.tag}:LICENSE").strip(),
        "environments": environments,
        "instances": dict(sorted(instances.items())),
    }
    OUT.write_text(json.dumps(facts, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(instances)} instances, {len(environments)} distinct environments")


if __name__ == "__main__":
    main()
