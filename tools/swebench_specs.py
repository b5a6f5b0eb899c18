"""Write gym/swebench/specs_v4.1.0.json: SWE-bench's per-repository environment facts at tag v4.1.0.

SWE-bench 5.x dropped the install specifications its images were built from; v4.1.0 holds them in
swebench/harness/constants/python.py (a module of plain dicts) and names each repository's log parser in
swebench/harness/log_parsers/python.py. This reads those files from a git checkout of SWE-bench/SWE-bench
(`git show v4.1.0:<path>`), evaluates the constants module alone (it imports nothing) and writes the facts
gym builds environments from. SWE-bench is MIT-licensed; the licence travels with the file.

    python tools/swebench_specs.py /path/to/SWE-bench.git [--tag v4.1.0]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "gym" / "swebench" / "specs_v4.1.0.json"


def show(repo: Path, tag: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{tag}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a git checkout (or bare mirror) of SWE-bench/SWE-bench")
    parser.add_argument("--tag", default="v4.1.0")
    args = parser.parse_args()
    constants: dict = {}
    exec(compile(show(args.repo, args.tag, "swebench/harness/constants/python.py"), "constants/python.py", "exec"),
         constants)
    shared = show(args.repo, args.tag, "swebench/harness/constants/__init__.py")
    non_test = re.search(r"NON_TEST_EXTS = (\[.*?\])", shared, re.S).group(1)
    parsers = show(args.repo, args.tag, "swebench/harness/log_parsers/python.py")
    table = re.search(r"MAP_REPO_TO_PARSER_PY = \{(.*?)\}", parsers, re.S).group(1)
    specs = {repo: versions for repo, versions in constants["MAP_REPO_VERSION_TO_SPECS_PY"].items()
             if repo != "swe-bench/humaneval"}
    facts = {
        "source": f"SWE-bench/SWE-bench {args.tag}: swebench/harness/constants/python.py, "
                  "swebench/harness/constants/__init__.py, swebench/harness/log_parsers/python.py",
        "license": show(args.repo, args.tag, "LICENSE").strip(),
        "start_test_output": re.search(r'START_TEST_OUTPUT = "(.*)"', shared).group(1),
        "end_test_output": re.search(r'END_TEST_OUTPUT = "(.*)"', shared).group(1),
        "non_test_exts": eval(non_test),  # a literal list of strings
        "parsers": dict(re.findall(r'"([^"]+)": (parse_log_\w+)', table)),
        "requirements_paths": constants["MAP_REPO_TO_REQS_PATHS"],
        "environment_yml_paths": constants["MAP_REPO_TO_ENV_YML_PATHS"],
        "repo_install": constants["MAP_REPO_TO_INSTALL_PY"],
        "specs": specs,
    }
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(specs)} repositories, {sum(len(v) for v in specs.values())} versions")


if __name__ == "__main__":
    main()
