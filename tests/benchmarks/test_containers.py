"""Container tasks end to end: real Terminal-Bench 2 tasks (tests/fixtures/harbor, Apache-2.0) run through
`python -m gym task=e2e benchmark=harbor ...` in podman, as a user types it.

The suite builds the one stand-in base these tasks need once (a Debian trixie root filesystem from the
archive with its Python 3.13; `runtime.images` maps the tasks' python:3.13-slim-bookworm to it, so no
CPython is compiled here) and removes the images it made at the end. Without podman, mmdebstrap or the
Debian archive the tests are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import CONTAINER_TOOLS, ROOT, run_gym, wait_until

TASKS = ROOT / "tests" / "fixtures" / "harbor" / "terminal-bench-2"
NAMES = ("log-summary-date-ranges", "sqlite-db-truncate")
STAND_IN = "python:3.13-slim-bookworm=python:3.13-slim-trixie"  # trixie's own Python 3.13: no compile


def _ca_bundle() -> str | None:
    """The host's trust store (it trusts an intercepting proxy's CA where there is one)."""
    path = os.environ.get("SSL_CERT_FILE") or ssl.get_default_verify_paths().cafile
    return path if path and Path(path).is_file() else None


def _why_not() -> str | None:
    for tool in CONTAINER_TOOLS:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs it with apt-get)"
    try:
        urllib.request.urlopen("http://deb.debian.org/debian/dists/trixie/Release", timeout=15).close()
    except OSError as exc:
        return f"the Debian archive is unreachable ({exc})"
    return None


@pytest.fixture(scope="session")
def harbor(tmp_path_factory):
    """Knobs and environment every run here shares; the stand-in base built once; images pruned after."""
    why = _why_not()
    if why:
        pytest.skip(why)
    home = tmp_path_factory.mktemp("harbor")
    before = set(_images())
    knobs = ["benchmark=harbor", f"benchmark.dataset.tasks={TASKS}", f"runtime.images=['{STAND_IN}']",
             f"runtime.cache_dir={home / 'runtime-cache'}", "runtime.max_parallel=2", "progress=false"]
    bundle = _ca_bundle()
    if bundle:
        knobs.append(f"runtime.extra_ca_certs=[{bundle}]")
    env = {"GYM_DATA_DIR": str(home / "data")}
    built = run_gym("task=prepare", *knobs[:2], f"hydra.run.dir={home / 'prepare'}", env=env, timeout=120)
    assert built.returncode == 0, built.stderr
    yield {"knobs": knobs, "env": env, "home": home}
    # only what these tests made: their tasks' images and the stand-in they needed (others' images stay)
    ours = tuple("/gym-task/" + name + ":" for name in NAMES)
    made = [image for image in _images() if image not in before and (
        any(image.split("localhost")[-1].startswith(prefix) for prefix in ours)
        or "/gym-standin/python-3.13-slim-trixie:" in image or "/gym-base/debian:trixie-" in image)]
    for image in made:
        subprocess.run(["podman", "rmi", image], capture_output=True)


def _images() -> list[str]:
    out = subprocess.run(["podman", "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True, text=True)
    return out.stdout.split()


def _containers(label: str) -> list[str]:
    out = subprocess.run(["podman", "ps", "-aq", "--filter", f"label={label}"], capture_output=True, text=True)
    return out.stdout.split()


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines() if line.strip()]


def _e2e(harbor, tmp_path, *extra: str, timeout: float = 900) -> tuple[subprocess.CompletedProcess, list[dict]]:
    run_dir = tmp_path / "run"
    result = run_gym("task=e2e", *harbor["knobs"], *extra, f"hydra.run.dir={run_dir}", env=harbor["env"],
                     timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result, _rows(run_dir)


def _by_task(rows: list[dict]) -> dict[str, dict]:
    return {row["trajectory"][1]["content"][:60]: row for row in rows}


def test_nop_scores_zero_on_every_task(harbor, tmp_path):
    result, rows = _e2e(harbor, tmp_path, "agent=nop", "model=mock")
    assert [row["status"] for row in rows] == ["ok"] * len(NAMES)
    assert [row["reward"] for row in rows] == [0.0] * len(NAMES)
    assert all("passed" in row["verifier"]["test_output"] or "failed" in row["verifier"]["test_output"]
               for row in rows)  # the tests ran and said so: a 0 from the tests, not from a failure


def test_terminal_agent_against_the_reference_server_reaches_one(harbor, tmp_path):
    # model=mock plays gym's terminal agent by issuing the oracle's commands through the shell tool
    result, rows = _e2e(harbor, tmp_path, "agent=terminal", "model=mock", "limit=1")
    (row,) = rows
    assert row["status"] == "ok" and row["reward"] == 1.0, row.get("error")
    calls = [m for m in row["trajectory"] if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "shell"
    assert any(m["role"] == "tool" and m["content"].startswith("exit code: 0") for m in row["trajectory"])
    assert row["episode"]["termination"] == "agent_stop"


def test_oracle_scores_one_on_every_task_through_a_killed_and_resumed_run(harbor, tmp_path):
    # killed outright (SIGKILL) once its first container runs, then resumed: every task once, each scoring 1
    out = tmp_path / "run" / "rollouts.jsonl"
    args = ["task=collect", *harbor["knobs"], "agent=oracle", "model=mock", f"output={out}"]
    process = subprocess.Popen([sys.executable, "-m", "gym", *args, f"hydra.run.dir={tmp_path / 'run'}"], cwd=ROOT,
                               env={**os.environ, **harbor["env"]}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    owner = f"gym.owner={os.uname().nodename}:{process.pid}"
    try:
        wait_until(lambda: _containers(owner), "the run's first container", seconds=600)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    resumed = run_gym(*args, "resume=true", f"hydra.run.dir={tmp_path / 'run'}", env=harbor["env"], timeout=900)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert not _containers(owner), "the killed run's container outlived it"
    rows = _rows(tmp_path / "run")
    assert sorted(row["key"] for row in rows) == sorted({row["key"] for row in rows})  # no duplicates
    assert len(rows) == len(NAMES)
    for row in rows:
        assert row["status"] == "ok" and row["reward"] == 1.0, (row.get("error"), row["verifier"].get("test_output"))
        record = row["verifier"]
        assert record["trial_status"] == "ok"
        assert record["substitutions"][0]["image"] == "python:3.13-slim-bookworm"  # the stand-in is on record
        assert "runtime.images -> python:3.13-slim-trixie" in record["substitutions"][0]["how"]
        assert record["build_seconds"] >= 0 and record["verifier_seconds"] > 0
    # the viewer's page of a trial: the instruction, each command and its output, the tests' output, the reward
    site = tmp_path / "site"
    shown = run_gym("task=view", f"rollouts={tmp_path / 'run'}", f"view.export={site}", "view.progress=false",
                    env=harbor["env"])
    assert shown.returncode == 0, shown.stderr
    pages = [p.read_text() for p in site.rglob("*.html") if 'id="trial"' in p.read_text()]
    assert len(pages) == len(NAMES)
    assert any("log_generator" in page or "summary" in page for page in pages)  # an instruction
    assert all("solve.sh" in page and 'id="test-output"' in page and "passed" in page for page in pages)
    assert all("<th>reward</th><td>1.0</td>" in page for page in pages)


def test_sigterm_removes_the_runs_containers(harbor, tmp_path):
    args = ["task=collect", *harbor["knobs"], "agent=nop", "model=mock", f"output={tmp_path / 'r.jsonl'}",
            f"hydra.run.dir={tmp_path}"]
    process = subprocess.Popen([sys.executable, "-m", "gym", *args], cwd=ROOT, env={**os.environ, **harbor["env"]},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    owner = f"gym.owner={os.uname().nodename}:{process.pid}"
    wait_until(lambda: _containers(owner), "the run's first container", seconds=600)
    # labelled with the run's directory: read in one listing, as a second container may start between two
    listed = subprocess.run(["podman", "ps", "-a", "--format", '{{.ID}} {{index .Labels "gym.owner"}} '
                             '{{index .Labels "gym.run"}}'], capture_output=True, text=True).stdout.split("\n")
    labels = [line.split(" ", 2) for line in listed if line.strip()]
    ours = {ident for ident, who, _ in labels if f"gym.owner={who}" == owner}
    assert ours and ours == {ident for ident, _, run in labels if run == str(tmp_path.resolve())}
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 143, stderr[-2000:]
    assert "Traceback" not in stderr
    assert not _containers(owner)


def test_search_shows_which_tasks_run_here(harbor):
    result = run_gym("task=search", *harbor["knobs"][:2], env=harbor["env"])
    assert result.returncode == 0, result.stderr
    for name in NAMES:
        assert name in result.stdout
    assert "runs here" in result.stdout


# -- without containers: the format, the scan, stand-ins, prepare from a mirror, the one-line errors --------

def test_stand_ins_keep_the_release_and_the_python_minor():
    from gym.runtime.bases import stand_in_for

    assert stand_in_for("debian:13.0-slim").release == "trixie"
    assert stand_in_for("debian:bullseye-slim").release == "bullseye"
    assert (stand_in_for("ubuntu:24.04").distro, stand_in_for("ubuntu:24.04").release) == ("ubuntu", "noble")
    bookworm = stand_in_for("python:3.13-slim-bookworm")
    assert (bookworm.release, bookworm.python, bookworm.python_from) == ("bookworm", "3.13", "source")
    trixie = stand_in_for("python:3.13-slim-trixie")
    assert (trixie.release, trixie.python_from) == ("trixie", "archive")
    assert stand_in_for("python:3.11").slim is False and stand_in_for("python:3.11").release == "trixie"
    assert stand_in_for("python:3.10-slim-bookworm") is None  # no Debian release carries 3.10
    assert stand_in_for("nvidia/cuda:12.4") is None
    uv = stand_in_for("ghcr.io/astral-sh/uv:0.8.14")  # uv's own image: that version's uv, no distribution
    assert (uv.uv, uv.python) == ("0.8.14", None) and "PyPI wheel" in uv.describe()
    assert stand_in_for("ghcr.io/astral-sh/uv:latest") is None and stand_in_for("ghcr.io/astral-sh/uv:0.8-alpine") is None


def test_the_scan_names_what_cannot_run_here(tmp_path):
    from gym.episodes.harbor.prepare import DEFAULT_REACHABLE, can_stand_in
    from gym.episodes.harbor.task import read_task, scan

    for name in NAMES:
        assert scan(read_task(TASKS / name), set(DEFAULT_REACHABLE), can_stand_in) is None
    task = tmp_path / "clones"
    shutil.copytree(TASKS / NAMES[0], task)
    (task / "environment" / "setup.sh").write_text("git clone https://github.com/o/r.git\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == "build downloads from github.com (unreachable here)"
    (task / "environment" / "setup.sh").write_text("# see https://github.com/o/r for why\n")  # a comment fetches nothing
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None
    # a URL in an ARG default that a RUN line uses (Terminal-Bench 2's bn-fit-modify)
    dockerfile = (task / "environment" / "Dockerfile").read_text()
    (task / "environment" / "Dockerfile").write_text(
        dockerfile + 'ARG DATA_URL=https://raw.githubusercontent.com/o/r/main/x.csv\nRUN curl -fsSL "${DATA_URL}" -o x.csv\n')
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == (
        "build downloads from raw.githubusercontent.com (unreachable here)")
    # a Hugging Face Hub id given to a loader downloads from huggingface.co (count-dataset-tokens); a path does not
    (task / "environment" / "Dockerfile").write_text(dockerfile)
    (task / "environment" / "setup.sh").write_text('python -c "AutoTokenizer.from_pretrained(\'/app/model\')"\n')
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None
    (task / "environment" / "setup.sh").write_text('python -c "AutoTokenizer.from_pretrained(\'Qwen/Qwen2.5-1.5B\')"\n')
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == "build downloads from huggingface.co (unreachable here)"
    (task / "environment" / "setup.sh").unlink()
    # ... also where the id is on the line after the loader's name (reshard-c4-data's setup.py)
    (task / "environment" / "setup.py").write_text('dataset = load_dataset(\n    "allenai/c4",\n    split="train",\n)\n')
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == "build downloads from huggingface.co (unreachable here)"
    (task / "environment" / "setup.py").unlink()
    # ... or through a name bound to a Hub id, with or without an org (hf-model-inference's solution)
    (task / "solution" / "fetch.py").write_text("name = 'distilbert-base-uncased-finetuned-sst-2-english'\n"
                                                "model = AutoModel.from_pretrained(name)\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == "solution downloads from huggingface.co (unreachable here)"
    (task / "solution" / "fetch.py").write_text("path = '/app/model_cache/model'\nmodel = AutoModel.from_pretrained(path)\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None
    (task / "solution" / "fetch.py").unlink()
    # a URL bound to a name that a fetching line uses, in a test module beside test.sh (filter-js-from-html)
    (task / "tests" / "test_fetch.py").write_text('url = "https://github.com/o/r/archive/master.zip"\n'
                                                  "urllib.request.urlretrieve(url, zip_path)\n"
                                                  'requests.get("http://0.0.0.0:5000")\n')
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == "tests downloads from github.com (unreachable here)"
    (task / "tests" / "test_fetch.py").write_text('requests.get("http://0.0.0.0:5000/x")\n')  # the task's own server
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None
    (task / "tests" / "test_fetch.py").unlink()
    # a checksum file whose file the snapshot left out (sqlite-with-gcov's vendor/sqlite-fossil-release.tar.gz)
    (task / "environment" / "src.tar.gz.sha256").write_text("7c02b6cc  src.tar.gz\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == (
        "files missing from the task folder: environment/src.tar.gz")
    (task / "environment" / "src.tar.gz").write_bytes(b"")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None
    # a file copied from a registry image, not from a stage: uv's image has a stand-in (its PyPI wheel), others none
    (task / "environment" / "Dockerfile").write_text(
        dockerfile + "COPY --from=ghcr.io/astral-sh/uv:0.8.14 /uv /uvx /bin/\nRUN uv run /app/x.py\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None  # python:3.13 has a Python for uv
    (task / "environment" / "Dockerfile").write_text(
        dockerfile + "COPY --from=ghcr.io/astral-sh/uv:latest /uv /uvx /bin/\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == (
        "copies from image ghcr.io/astral-sh/uv:latest: no registry here and no stand-in")  # which uv is unknown
    # uv in an image without Python downloads a CPython from GitHub (financial-document-processor's ubuntu:24.04)
    uv_on_ubuntu = ("FROM ubuntu:24.04 as build\nCOPY --from=ghcr.io/astral-sh/uv:0.8.14 /uv /uvx /bin/\n"
                    "RUN uv run /root/randomize_filenames.py\nFROM ubuntu:24.04 AS target\n")
    (task / "environment" / "Dockerfile").write_text(uv_on_ubuntu)
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) == (
        "build runs uv in an image without Python: uv downloads one from github.com (unreachable here)")
    assert scan(read_task(task), {*DEFAULT_REACHABLE, "github.com"}, can_stand_in) is None
    (task / "environment" / "Dockerfile").write_text(uv_on_ubuntu.replace(
        "RUN uv run", "RUN apt-get update && apt-get install -y python3\nFROM build AS again\nRUN uv run"))
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None  # the stage it builds on has python3
    (task / "environment" / "Dockerfile").write_text("FROM python:3.13-slim-bookworm AS build\nFROM build\n"
                                                     "COPY --from=build /a /b\nCOPY --from=0 /a /c\n")
    assert scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in) is None  # stages are no images
    (task / "environment" / "Dockerfile").write_text("FROM python:3.10-slim-bookworm\n")
    assert "no stand-in" in scan(read_task(task), set(DEFAULT_REACHABLE), can_stand_in)


def test_task_toml_is_honoured_with_harbors_defaults(tmp_path):
    from gym.episodes.harbor.task import read_task

    task = read_task(TASKS / "sqlite-db-truncate")
    assert (task.agent_timeout, task.verifier_timeout, task.cpus, task.memory) == (900.0, 900.0, 1.0, "2G")
    assert task.allow_internet is True  # Harbor's default
    folder = tmp_path / "t"
    shutil.copytree(TASKS / "sqlite-db-truncate", folder)
    (folder / "task.toml").write_text('[environment]\nmemory_mb = 512\nallow_internet = false\n[agent]\ntimeout_sec = 5\n')
    task = read_task(folder)
    assert (task.memory, task.allow_internet, task.agent_timeout, task.verifier_timeout) == ("512m", False, 5.0, 600.0)


def test_terminal_bench_2_prepares_from_a_mirror_of_its_snapshot(tmp_path):
    # the snapshot archive in the loopback mirror's layout (tools/make_fixtures_harbor.py)
    result = run_gym("task=prepare", "benchmark=terminal_bench_2", f"data.mirror={ROOT / 'tests' / 'fixtures' / 'upstream'}",
                     "data.offline=true", f"hydra.run.dir={tmp_path / 'run'}", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (tmp_path / "data" / "terminal_bench_2" / "terminal_bench_2.jsonl").open()]
    assert sorted(row["id"] for row in rows) == sorted(NAMES)
    assert all(row["task"]["evaluation_criteria"]["actions"][0]["name"] == "shell" for row in rows)
    listing = json.loads((tmp_path / "data" / "terminal_bench_2" / "runnable.json").read_text())
    assert [item["runs_here"] for item in listing] == [True] * len(NAMES)
    # a task a run showed cannot run here (prepare_args.unrunnable) is kept, unscorable, with the reason
    again = run_gym("task=prepare", "benchmark=terminal_bench_2", f"data.mirror={ROOT / 'tests' / 'fixtures' / 'upstream'}",
                    "data.offline=true", "prepare.force=true", f"prepare_args.unrunnable={{{NAMES[0]}: archive drift}}",
                    f"hydra.run.dir={tmp_path / 'prepare-again'}", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert again.returncode == 0, again.stderr
    rows = {row["id"]: row for row in map(json.loads, (tmp_path / "data" / "terminal_bench_2" / "terminal_bench_2.jsonl").open())}
    assert rows[NAMES[0]]["unscorable"] == "cannot run here: archive drift" and "unscorable" not in rows[NAMES[1]]


def test_a_missing_container_cli_is_one_line(tmp_path):
    result = run_gym("task=e2e", "benchmark=harbor", f"benchmark.dataset.tasks={TASKS}", "agent=oracle", "model=mock",
                     "runtime.binary=/nonexistent/podman", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "runtime=podman: /nonexistent/podman is not on PATH" in result.stderr


def test_harbor_without_its_folder_says_so(tmp_path):
    result = run_gym("task=prepare", "benchmark=harbor", f"hydra.run.dir={tmp_path / 'run'}", env={"GYM_DATA_DIR": str(tmp_path)})
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "benchmark.dataset.tasks" in result.stderr


def test_serve_gives_each_session_its_own_container_and_removes_it(harbor, tmp_path):
    # task=serve's reset/step for a trainer: one container per session, gone once graded or closed
    import requests

    from gym.episodes.harbor.prepare import gold_command
    from gym.toolcalls import ToolCall
    from tests.serve_helpers import served

    def post(url: str, path: str, body: dict) -> requests.Response:  # a reset may build the task's image
        return requests.post(url + path, json=body, timeout=900)

    knobs = [k for k in harbor["knobs"] if not k.startswith("progress=")]
    trial = "gym.trial=log-summary-date-ranges-4242"  # the session's seed names its container
    with served(tmp_path / "serve", Path(harbor["env"]["GYM_DATA_DIR"]), *knobs, "agent=terminal") as url:
        reset = post(url, "/harbor/reset", {"task_index": 0, "seed": 4242}).json()
        assert {tool["name"] for tool in reset["tools"]} == {"shell", "done"}, reset
        assert len(_containers(trial)) == 1
        command = gold_command(TASKS / "log-summary-date-ranges")
        for number, call in enumerate([ToolCall("shell", {"command": command}), ToolCall("done", {})]):
            message = {"role": "assistant", "content": None, "tool_calls": [call.to_chat(number)]}
            step = post(url, "/harbor/step", {"session_id": reset["session_id"], "message": message}).json()
        assert (step["reward"], step["info"]["termination"]) == (1.0, "agent_stop"), step
        assert not _containers(trial)  # graded: removed
        again = post(url, "/harbor/reset", {"task_index": 0, "seed": 4242}).json()
        assert len(_containers(trial)) == 1
        assert post(url, "/harbor/close", {"session_id": again["session_id"]}).status_code == 200
        assert not _containers(trial)  # closed unfinished: removed
