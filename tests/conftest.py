"""Shared test fixtures: a real loopback HTTP server for upstream fixture files, and a CLI runner."""

from __future__ import annotations

import atexit
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
UPSTREAM = FIXTURES / "upstream"  # laid out as a download mirror: <host>/<path>
REAL_DATA = FIXTURES / "real"  # exact copies of public upstream files, each with its licence
# environment of a command run as on a machine without internet: every download goes to a closed port
NO_NETWORK = {name: "http://127.0.0.1:9" for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")} | {
    "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def wait_until(condition: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    """Poll `condition` until it holds: tests wait for a state, never for a fixed time; the bound only
    turns a hang into a failure that says what never happened."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.01)


def children_of_this_process() -> set[int]:
    """PIDs of this process's children, over all its threads."""
    pids = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                pids.update(int(pid) for pid in handle.read().split())
        except FileNotFoundError:  # a thread (e.g. another test's server) ended since the listing
            continue
    return pids


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


def serve_directory(directory: Path):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="session")
def mirror_url():
    """URL of a loopback server that serves tests/fixtures/upstream like a `wget -x` mirror."""
    server, url = serve_directory(UPSTREAM)
    yield url
    server.shutdown()


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "data"
    monkeypatch.setenv("GYM_DATA_DIR", str(path))
    return path


@functools.lru_cache(maxsize=None)
def _composed(overrides: tuple[str, ...]):
    from gym.core.config import compose

    return compose(overrides)


def composed(*overrides: str):
    """gym.core.config.compose(overrides), composed once per test process (Hydra takes a good part of a
    second each time) and handed out as a copy each test may change."""
    import copy

    return copy.deepcopy(_composed(overrides))


@pytest.fixture(scope="session")
def viewer_runs(tmp_path_factory) -> dict[str, Path]:
    """The viewer's runs (tests/view_helpers.py), made once for tests/view/test_view.py and test_view_browser.py."""
    from tests.view_helpers import make_runs

    return make_runs(tmp_path_factory.mktemp("view"))


@pytest.fixture(scope="session")
def viewer_export(viewer_runs, tmp_path_factory):
    """`python -m gym task=view rollouts=<the viewer's runs> view.export=<site>` once: (site, its result); read
    only (a test that writes over an export copies the site first)."""
    from tests.view_helpers import data_env

    site = tmp_path_factory.mktemp("export") / "site"
    result = run_gym("task=view", f"rollouts={viewer_runs['gsm'].parent}", f"view.export={site}", "view.progress=false",
                     env=data_env(viewer_runs))
    assert result.returncode == 0, result.stderr
    return site, result


CATALOG_RUN = ("task=e2e", "model=mock", "judge=mock")  # a benchmark as the whole-catalog dry run composes it


_RUN_DIRS: Path | None = None


def off_checkout_run_dirs(args: tuple[str, ...]) -> list[str]:
    """Hydra's run and sweep dirs under a temp dir, unless the caller names them: a run from the checkout
    would otherwise leave outputs/ in it."""
    global _RUN_DIRS
    if not args or {"-h", "--help"} & set(args) or any(arg.startswith(("hydra.run.dir=", "hydra.sweep.dir="))
                                                         for arg in args):
        return []  # help runs nothing (and plain help must stay the fast path)
    if _RUN_DIRS is None:
        _RUN_DIRS = Path(tempfile.mkdtemp(prefix="gym-test-runs-"))
        atexit.register(shutil.rmtree, _RUN_DIRS, True)
    run = Path(tempfile.mkdtemp(dir=_RUN_DIRS))
    return [f"hydra.run.dir={run / 'run'}", f"hydra.sweep.dir={run / 'sweep'}"]


def run_gym(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 180,
            off_checkout: bool | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI (`python -m gym ...`) in a subprocess. Without a `cwd` (or with `off_checkout=True`)
    the run dir goes under a temp dir unless the args name one."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("HYDRA_FULL_ERROR", None)
    extra = off_checkout_run_dirs(args) if (cwd is None if off_checkout is None else off_checkout) else []
    return subprocess.run([sys.executable, "-m", "gym", *args, *extra], cwd=cwd or ROOT, env=full_env, text=True,
                          capture_output=True, timeout=timeout)


def assert_clean_failure(result: subprocess.CompletedProcess, *needles: str) -> None:
    """Non-zero exit, no traceback, and the message names what went wrong."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


# -- how the suite spreads over pytest-xdist's workers (--dist loadfile --no-loadscope-reorder) -------------
# A test file is a unit of work, run on one worker, so its module-scoped fixtures (a SLURM cluster, a browser,
# a prepared workspace) are made once; files that share a session fixture or a cache form one unit (SHARED);
# long files without module fixtures are handed out a test at a time (SPREAD). Units go out in collection
# order, the longest first (LONGEST_FIRST), so the workers finish together instead of one running a long
# file alone at the end.
SHARED = {"test_view.py": "viewer", "test_view_browser.py": "viewer", "test_view_run_page.py": "viewer",  # viewer_runs
          "test_configs.py": "catalog", "test_benchmarks_e2e.py": "catalog", "test_catalog_dry_run.py": "catalog"}
SPREAD = {"test_local_servers.py", "test_interrupt_resume.py", "test_e2e_cli.py", "test_cli_mistakes.py",
          "test_prepare_task.py", "test_trackers.py", "test_reverify.py", "test_shards.py", "test_collect.py",
          "test_iheval_and_judges.py", "test_local_data.py", "test_local_answers.py", "test_serve_tokens.py",
          "test_serve_docs.py", "test_adaptive.py", "test_judge.py"}
LONGEST_FIRST = ("test_containers.py", "test_swebench_containers.py", "test_catalog_smoke.py", "test_documented_commands.py", "test_view_browser.py",
                 "test_view.py", "test_humaneval_plus_canonical.py", "test_slurm.py", "test_ioi.py",
                 "test_local_servers.py", "test_hle_vision.py", "test_fresh_clone.py", "test_benchmarks_e2e.py",
                 "test_interrupt_resume.py", "test_scicode.py", "test_serve_parity.py", "test_trackers.py",
                 "test_reverify.py", "test_shards.py", "test_serve.py", "test_sandbox_hostile.py",
                 "test_tau2_parity.py")


CONTAINER_TOOLS = ("podman", "mmdebstrap")  # without them the container tests are skipped (test_containers.py)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto` (addopts): a worker per core of the 2-core CI machine, and a third where the container tests
    run: their two files (first out, LONGEST_FIRST) spend most of their minutes waiting on the Debian archive,
    PyPI and podman (16-45% of their wall time on the CPU, docs/performance.md), which a third worker fills."""
    return 3 if all(shutil.which(tool) for tool in CONTAINER_TOOLS) else 2


def work_unit(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    name = path.rsplit("/", 1)[-1]
    return SHARED.get(name) or (nodeid if name in SPREAD else path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SuiteScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return SuiteScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# -- the suite leaves the checkout as it found it: what a test writes goes under its tmp_path ----------------
_CHECKOUT_BEFORE: set[str] | None = None


def checkout_leftovers() -> set[str] | None:
    """The checkout's untracked and ignored entries as git lists them (caches and the venv left out); None
    where git cannot say (not a git checkout)."""
    try:
        listed = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=ROOT, capture_output=True,
                                text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode != 0:
        return None
    entries = {line[3:] for line in listed.stdout.splitlines() if line[:2] in ("??", "!!")}
    return {entry for entry in entries if "__pycache__" not in entry and not entry.startswith((".venv", "venv/"))}


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # once, before the workers start
        compile_gym()


def compile_gym() -> None:
    """gym's byte code, written once per run into its __pycache__ folders (which git ignores): where
    PYTHONDONTWRITEBYTECODE is set (as on the development machine), every `python -m gym` the tests start
    (hundreds) would otherwise compile the modules it imports anew: 0.2 CPU-s of a small e2e run's 2."""
    import compileall

    for package in ("gym", "hydra_plugins"):
        compileall.compile_dir(ROOT / package, quiet=1)


def pytest_sessionstart(session):
    global _CHECKOUT_BEFORE
    if not hasattr(session.config, "workerinput"):  # once, in the process that runs or hands out the tests
        _CHECKOUT_BEFORE = checkout_leftovers()


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput") or _CHECKOUT_BEFORE is None:
        return
    new = sorted((checkout_leftovers() or set()) - _CHECKOUT_BEFORE)
    if new:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the tests left files in the checkout (write them under tmp_path): {', '.join(new)}"
        if reporter is not None:
            reporter.write_sep("=", message, red=True)
        else:
            print(message, file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
