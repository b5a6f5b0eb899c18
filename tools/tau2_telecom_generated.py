"""Telecom parity beyond the fixture. Upstream's tasks.json (over 4 MiB) is not in the fixture, but upstream's
own task generator (src/tau2/domains/telecom/tasks) rebuilds its tasks at the pinned commit; this lays them
out as a download mirror, and compares gym's episodes with upstream's expected values on any split. The
rebuilt tasks.json is upstream's file byte for byte: the generator's tasks that its `full` split names, in
the generator's order, without the three fields (issues, required_documents, user_tools) the Task model
gained after the file was written (None on every telecom task), dumped with indent=2; generate checks its
git blob id against the pinned tree's before writing.

    # 1. upstream's python (its checkout's src/ and dependencies): the mirror, from the fixtures and the
    #    generated tasks, with the real split_tasks.json of the pinned commit (read from a bare git mirror)
    TAU2_DATA_DIR=tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \
        PYTHONPATH=<checkout>/src <upstream python> tools/tau2_telecom_generated.py generate <git mirror> <out>
    # 2. upstream's expected values for a split (base: 114 tasks, about 2 minutes; full: 2,285)
    TAU2_DATA_DIR=<out>/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \
        PYTHONPATH=<checkout>/src <upstream python> tools/tau2_expected.py telecom base > <out>/expected.json
    # 3. gym's outputs, rewards and hashes against them (prints the counts that agree)
    .venv/bin/python tools/tau2_telecom_generated.py compare <out> base
`compare <out> <split> <domain>` does step 3 for another domain, e.g. retail with its whole database and
all 114 tasks laid over a copy of the fixtures (upstream's expected values from tools/tau2_expected.py).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "upstream"
REPO_DIR = Path("raw.githubusercontent.com") / "sierra-research" / "tau2-bench"
TELECOM = "data/tau2/domains/telecom"
LATER_FIELDS = ("issues", "required_documents", "user_tools")  # Task fields newer than upstream's tasks.json


def commit() -> str:
    (only,) = [path.name for path in (FIXTURES / REPO_DIR).iterdir() if path.is_dir()]
    return only


def generate(git_mirror: str, out: Path) -> None:
    from tau2.domains.telecom.tasks.mms_issues import mms_issue_task_manager
    from tau2.domains.telecom.tasks.mobile_data_issues import mobile_data_task_manager
    from tau2.domains.telecom.tasks.service_issues import service_issues_task_manager

    tasks = [task.model_dump() for manager in (mobile_data_task_manager, service_issues_task_manager,
                                               mms_issue_task_manager) for task in manager.create_tasks(save_tasks=False)]
    git = lambda *args: subprocess.run(["git", "--git-dir", git_mirror, *args], check=True,  # noqa: E731
                                       capture_output=True).stdout
    splits = git("show", f"{commit()}:{TELECOM}/split_tasks.json")
    full = set(json.loads(splits)["full"])
    kept = [{k: v for k, v in task.items() if not (k in LATER_FIELDS and v is None)} for task in tasks if task["id"] in full]
    data = json.dumps(kept, indent=2).encode()
    want = git("ls-tree", commit(), f"{TELECOM}/tasks.json").split()[2].decode()
    got = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    if got != want:
        sys.exit(f"rebuilt tasks.json differs from upstream's: blob {got}, the pinned tree has {want}")
    shutil.copytree(FIXTURES, out, dirs_exist_ok=True)
    domain = out / REPO_DIR / commit() / TELECOM
    (domain / "tasks.json").write_bytes(data)
    (domain / "split_tasks.json").write_bytes(splits)
    print(f"{len(tasks)} tasks generated, {len(kept)} in upstream's tasks.json (blob {got}, as the pinned tree's)")


def compare(out: Path, split: str, domain: str = "telecom") -> None:
    sys.path.insert(0, str(ROOT))
    from gym.data.prepare_context import PrepareContext
    from gym.episodes.tau2.env import Tau2Environment
    from gym.episodes.tau2.prepare import DOMAINS, prepare_domain
    from gym.episodes.tau2.state import replay
    from tests.episodes.test_tau2_parity import play

    ctx = PrepareContext(name=f"tau2_{domain}", output_path=out / "prepared" / split / f"tau2_{domain}.jsonl",
                         mirror=str(out), offline=True, progress=False)
    path = prepare_domain(ctx, DOMAINS[domain], split=split)
    rows = {row["task_id"]: row for row in map(json.loads, path.read_text().splitlines())}
    env, counts, differ = Tau2Environment(path), Counter(), []
    for task_id, cases in json.loads((out / "expected.json").read_text())["tasks"].items():
        for case, want in cases.items() if task_id in rows else ():
            if case == "solo":  # solo mode has its own parity test
                continue
            trajectory, hashes, state = play(env, rows[task_id], want)
            score = env.score(rows[task_id], trajectory, "user_stop", state)
            replayed = env._fresh(rows[task_id])
            replay(replayed, trajectory)
            want_hashes = [want.get("db_hash"), want.get("user_db_hash")]
            checks = {"outputs": hashes == want["tool_output_sha256"],
                      "reward": score.reward == want.get("reward") and score.details["breakdown"] == want.get("breakdown"),
                      "hashes": list(state.hashes()) == want_hashes, "replayed_hashes": list(replayed.hashes()) == want_hashes}
            counts["episodes"] += 1
            counts.update(name for name, agree in checks.items() if agree)
            differ += [(task_id, case, name) for name, agree in checks.items() if not agree]
    print(json.dumps({"split": split, "agree": dict(counts), "differ": differ[:20]}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["generate"]:
        generate(sys.argv[2], Path(sys.argv[3]))
    elif sys.argv[1:2] == ["compare"]:
        compare(Path(sys.argv[2]), *sys.argv[3:5])
    else:
        sys.exit(__doc__)
