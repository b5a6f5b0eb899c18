"""Every `python -m gym ...` line in the code blocks of README.md and docs/**/*.md, as a user types it.

1. Each goes through gym's own command-line checks (gym.cli.overrides.check_argv, what main() runs
   before Hydra), placeholders filled (`<time>`, `<date>`, other `<...>`), `...` dropped, continuations
   joined; a single run (not a sweep) is then composed by Hydra and its task's knobs type-checked.
2. Those a user can run here run for real through `python -m gym` in a scratch dir: offline ones
   (model=mock, user=mock, judge=mock, fixtures through data.mirror=), and those that need an endpoint
   (model=vllm, user=vllm, judge=vllm) against gym's reference server started on its own
   (`python -m gym.mock`) on 127.0.0.1, one for the agent and one serving the user and judge model.
   Runs are kept small (limit, num_repeats capped); exit code and output are checked.

Pages are discovered, not listed: a new docs page is covered as soon as it exists.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gym.cli.help import HELP_ARGS, help_text
from gym.cli.overrides import check_argv, split_argv
from gym.core.config import compose
from gym.core.task_knobs import check_task_knobs

from conftest import REAL_DATA, ROOT, UPSTREAM

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^\s*(```|~~~)")
COMMAND = re.compile(r"^(?:\$\s+)?(?:\w+=\S+\s+)*(?:\S*/)?python3?\s+-m\s+gym(?:\s|$)")
PLACEHOLDERS = {"<time>": "2026-01-01_00-00-00", "<date>": "2026-01-01"}
USER_MODEL = "Qwen/Qwen3-32B"  # the user and judge server's model id, as the docs name it
SHELL_OPERATORS = {"&&", "||", ";", "|"}


@dataclass(frozen=True)
class Documented:
    page: str  # path relative to the checkout
    line: int
    text: str  # the command as the page shows it (continuations joined)
    argv: tuple[str, ...]  # what `python -m gym` receives, placeholders filled, `...` dropped

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def code_lines(text: str):
    """(line number, line) of the lines in fenced code blocks, continuation lines joined onto the first."""
    inside, pending, first = False, "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            inside, pending = not inside, ""
            continue
        if not inside:
            continue
        if not pending:
            first = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield first, (pending + line).strip()
        pending = ""


def gym_argv(line: str) -> list[str] | None:
    """The arguments after `python -m gym` in a shell line (comment, quotes and what follows `&&` removed)."""
    if not COMMAND.match(line):
        return None
    words = shlex.split(line, comments=True)
    start = next(i for i in range(len(words) - 2) if words[i].endswith(("python", "python3"))
                 and words[i + 1:i + 3] == ["-m", "gym"]) + 3
    argv = []
    for word in words[start:]:
        if word in SHELL_OPERATORS:
            break
        argv.append(word)
    return argv


GROUP_FILLS = {"task": "search", "benchmark": "gsm8k", "model": "mock", "judge": "mock", "user": "mock", "tracker": "none"}


def fill(word: str) -> str:
    """A placeholder replaced by a value that parses: a time or date, a number for one letter (`<n>`; `<i>`
    is 0), a URL, an option of the group a key picks (`benchmark=<name>`), else a plain word."""
    for placeholder, value in PLACEHOLDERS.items():
        word = word.replace(placeholder, value)
    key, equals = word.split("=", 1)[0], word.find("=")
    group = GROUP_FILLS.get(key.lstrip("+~"))

    def value(match: re.Match) -> str:
        inside = match.group(1).strip().lower()
        if equals < 0 or match.start() < equals:  # in a key: a name
            return "x"
        if len(inside) == 1 or inside in ("number", "count"):
            return "0" if inside == "i" else "1"
        if "url" in inside:
            return "http://127.0.0.1:8000/v1"
        return group if group and match.start() == equals + 1 else "x"

    return re.sub(r"<([^<>]*)>", value, word)


def documented_commands() -> list[Documented]:
    found = []
    for page in PAGES:
        for number, line in code_lines(page.read_text(encoding="utf-8")):
            argv = gym_argv(line)
            if argv is None:
                continue
            kept = tuple(fill(word) for word in argv if word != "..." and not word.endswith("=..."))
            found.append(Documented(str(page.relative_to(ROOT)), number, line.split("  #")[0].strip(), kept))
    return found


COMMANDS = documented_commands()


LIMIT, REPEATS = 2, 2  # caps for real runs: a few tasks, a few repeats
ADAPTIVE_REPEATS = 4  # an adaptive run's cap: it starts with 4 repeats (adaptive.min_repeats)
NOT_HERE = {  # what a command needs that the suite has not: the reason it only goes through the checks
    "model=local": "a model on this machine (tests/model/test_local_servers.py runs it)",
    "model=vllm_local": "vLLM on a GPU",
    "model=openai": "OpenAI's API", "user=openai": "OpenAI's API", "judge=openai": "OpenAI's API",
    "judge=nvidia": "NVIDIA's API",
    "tracker=wandb": "a W&B account (tests/metrics/test_trackers.py runs it offline)",
    "tracker=mlflow": "an MLflow server (tests/metrics/test_trackers.py runs it)",
    "hydra/launcher=slurm": "a SLURM cluster",
    "benchmarks=all": "every benchmark's data (tests/benchmarks/test_benchmarks_e2e.py prepares each)",
    "benchmark=glob(*)": "the whole catalog (tests/benchmarks/test_catalog_dry_run.py, tests/benchmarks/test_benchmarks_e2e.py)",
    "benchmark=glob(*,exclude=[terminal_bench_2,swebench_*])": "the README's whole-catalog dry run: "
                                                               "tests/benchmarks/test_catalog_smoke.py runs it as typed",
    "benchmark.dataset.prepare_args.environment=build": "PyPI and a few GB of libraries",
    "benchmark.dataset.prepare_args.split=full": "BigCodeBench's full file (the fixture holds the hard subset)",
    "agent=oracle": "containers (tests/benchmarks/test_containers.py runs the oracle, nop and terminal agents in podman)",
    "agent=nop": "containers (tests/benchmarks/test_containers.py runs them)",
    "agent=terminal": "containers (tests/benchmarks/test_containers.py runs them)",
    "benchmark=swebench_verified": "containers and an image build per instance (tests/benchmarks/test_swebench_containers.py runs them)",
    "benchmark=swebench_lite": "containers and an image build per instance (its containers are Verified's, tested there)",
}
PREPARED_HERE = {"benchmark=swebench_verified", "benchmark=swebench_lite"}  # their task=prepare runs from the fixtures
HUB_NAME = re.compile(r"[\w.-]+/[\w.-]+")  # a Hugging Face model name, not a path
API_KEY_PREFIX = re.compile(r"^\s*[A-Z][A-Z0-9_]*_API_KEY=")  # `OPENAI_API_KEY=... python -m gym ...`
HOST_URL = re.compile(r"https?://[\w.-]+:\d+/v1")


# tasks that finish on their own; any other (a server, a viewer) only goes through the checks here
FINITE_TASKS = {"search", "prepare", "collect", "aggregate", "profile", "e2e", "reverify", "export", "noise"}


def why_not_here(command: Documented) -> str | None:
    if API_KEY_PREFIX.match(command.text):
        return "a provider's API key (the tests drive an OpenAI-compatible endpoint with a key instead)"
    for word in command.argv:
        if word in NOT_HERE and not (word in PREPARED_HERE and "task=prepare" in command.argv):
            return NOT_HERE[word]
        key, _, value = word.partition("=")
        if key.lstrip("+").endswith("prepare_args.tokenizer") and HUB_NAME.fullmatch(value) \
                and not (UPSTREAM / "huggingface.co" / value / "resolve" / "main" / "tokenizer.json").is_file():
            return "a tokenizer from the Hugging Face Hub (the long-context tests use a fixture's)"
        if word.startswith("task=") and not set(word[5:].split(",")) <= FINITE_TASKS:
            return f"{word} keeps running (its own tests drive it)"
    return None


# Every page's commands that can run here run for real, one after another in one workspace (one data dir:
# what an earlier command prepared is there for the later ones, as for a user following the pages).
RUNNABLE = [c for c in COMMANDS if why_not_here(c) is None]


def test_the_docs_hold_commands():
    pages = {command.page for command in COMMANDS}
    assert "README.md" in pages and "docs/agent-commands.md" in pages, pages
    agent = [c for c in COMMANDS if "user=vllm" in c.argv and any(w.startswith("user.base_url=") for w in c.argv)
             and any(w.startswith("user.name=") for w in c.argv)]
    assert agent, "the agent command line with a user simulator endpoint"


@pytest.mark.parametrize("command", COMMANDS, ids=[c.where for c in COMMANDS])
def test_documented_command_passes_the_checks(command):
    argv = list(command.argv)
    if argv in [list(args) for args in HELP_ARGS]:
        assert "task=" in help_text()
        return
    checked = check_argv(argv)  # a GymError here is what the user would get, in one line
    flags, _, overrides = split_argv(checked)
    if flags or command in RUNNABLE:
        return  # a sweep or a Hydra flag (Hydra composes per job), or a command the suite runs for real below
    check_task_knobs(compose(overrides))  # what Hydra and the task's first check make of it


def test_leaderboard_settings_in_descriptions_pass_the_checks():
    """The τ² descriptions name the leaderboard's setting as overrides; those must be accepted as typed."""
    named = 0
    for path in sorted((ROOT / "conf" / "benchmark").glob("tau2_*.yaml")):
        description = compose(["task=search", f"benchmark={path.stem}"]).benchmark.description
        match = re.search(r"Leaderboard setting: ([^,\"]+)", description)
        if path.stem == "tau2_mock":
            assert match is None and "not on the leaderboard" in description
            continue
        assert match, (path.stem, description)
        overrides = match.group(1).split()
        assert "+prepare_args.split=base" in overrides and "num_repeats=4" in overrides
        check_argv(["task=e2e", f"benchmark={path.stem}", *overrides])
        named += 1
    assert named == 4
    tasks = json.loads((REAL_DATA / "tau2-bench" / "retail" / "tasks.json").read_text())
    judged = [t for t in tasks if "NL_ASSERTION" in t["evaluation_criteria"]["reward_basis"]]
    assert (len(judged), len(tasks)) == (112, 114)  # the count the retail description gives


# -- real runs --------------------------------------------------------------------------------------

COMMAND_BOUND = 240  # s: a command that never answers fails its own test (below pytest's timeout), not the next


@dataclass(eq=False)
class Workspace:
    root: Path
    env: dict
    agent_url: str
    user_url: str
    runner: subprocess.Popen | None = None  # tests/gym_command_runner.py: runs `python -m gym` lines in one process
    answers: dict = field(default_factory=dict)  # argv -> the answer of its run here

    def start_runner(self) -> None:
        full_env = {key: value for key, value in os.environ.items() if key != "HYDRA_FULL_ERROR"}
        self.runner = subprocess.Popen([sys.executable, str(ROOT / "tests" / "gym_command_runner.py")], cwd=self.root,
                                       env={**full_env, **self.env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)

    def stop_runner(self) -> None:
        if self.runner is not None:
            self.runner.stdin.close()
            self.runner.wait(timeout=60)

    def gym(self, argv: list[str]) -> dict:
        """{code, stdout, stderr} of `python -m gym <argv>` in the workspace. Commands run one after another
        in one runner, each answered by one line: a command still running after the bound would leave its
        reply to be read as the next command's, so the runner is killed, a new one started, and this one fails."""
        self.runner.stdin.write(json.dumps(argv) + "\n")
        self.runner.stdin.flush()
        ready, _, _ = select.select([self.runner.stdout], [], [], COMMAND_BOUND)
        if not ready:
            self.runner.kill()
            self.runner.wait()
            self.start_runner()
            raise AssertionError(f"python -m gym {' '.join(argv)}: no answer in {COMMAND_BOUND} s")
        reply = self.runner.stdout.readline()
        assert reply, "the command runner stopped"
        return json.loads(reply)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A scratch dir as a user's: `tests` (for data.mirror=tests/fixtures/upstream) and a GSM8K-layout
    train.jsonl (real rows) in it; the data the endpoint runs ask about prepared; two reference servers
    on their own (the agent's, and one serving the user and judge model)."""
    root = tmp_path_factory.mktemp("user")
    (root / "tests").symlink_to(ROOT / "tests")
    (root / "home").mkdir()
    (root / "train.jsonl").write_text("".join(REAL_DATA.joinpath("gsm8k", "test.jsonl").read_text().splitlines(True)[:20]))
    env = {"GYM_DATA_DIR": str(root / "data"), "HOME": str(root / "home"), "XDG_CACHE_HOME": str(root / "home/.cache")}
    ws = Workspace(root, env, "", "")
    ws.start_runner()
    servers = []
    try:
        served = prepare_served_data(ws)
        servers = [start_server(served, [], root / "agent.log"),
                   start_server(served, ["--model-name", USER_MODEL], root / "user.log")]
        ws.agent_url, ws.user_url = servers[0][1], servers[1][1]
        yield ws
    finally:
        ws.stop_runner()
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=30)


def prepare_served_data(ws: Workspace) -> list[Path]:
    """Prepare what the runs against endpoints will ask about, so the reference servers know the tasks;
    returns the prepared files."""
    names = set()
    for command in RUNNABLE:
        if any(w in command.argv for w in ("model=vllm", "user=vllm", "judge=vllm")):
            names.update(v for w in command.argv if w.startswith("benchmark=") for v in w[10:].split(","))
    names.discard("local")
    for argv in (["task=prepare", f"benchmarks=[{','.join(sorted(names))}]", f"data.mirror={UPSTREAM}"],
                 ["task=prepare", "benchmark=local", "benchmark.dataset.path=train.jsonl", "benchmark.verifier.family=math"]):
        result = ws.gym([*argv, f"hydra.run.dir={ws.root / 'served'}"])
        assert result["code"] == 0, result["stderr"][-3000:]
    return [ws.root / "data" / name / f"{name}.jsonl" for name in sorted(names)] + \
        sorted((ws.root / "data" / "local").glob("*.jsonl"))


def start_server(data: list[Path], extra: list[str], log: Path) -> tuple[subprocess.Popen, str]:
    args = [sys.executable, "-m", "gym.mock", "--port", "0", "--accuracy", "1.0", *extra]
    for path in data:
        args += ["--data", str(path)]
    with open(log, "w") as errors:
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=errors, text=True)
    url = process.stdout.readline().strip()  # the server prints its URL once it listens
    assert url.startswith("http://127.0.0.1:"), log.read_text()
    return process, url


def real_argv(command: Documented, ws: Workspace) -> list[str] | None:
    """The command as run here: endpoints pointed at the reference servers, fixtures through data.mirror=,
    limit and num_repeats capped, runs of earlier commands for `<time>` and a dropped `rollouts=...`;
    None when it names files of the user's own."""
    argv, keys = [], set()
    for word in command.argv:
        key, _, value = word.partition("=")
        bare = key.lstrip("+")
        keys.add(bare)
        if (bare == "limit" or bare.endswith("num_repeats")) and value.isdigit():
            cap = LIMIT if bare == "limit" else ADAPTIVE_REPEATS if "adaptive.enabled=true" in command.argv else REPEATS
            word = f"{key}={min(int(value), cap)}"
        elif bare in ("model.base_url", "user.base_url", "judge.base_url"):
            word = HOST_URL.sub(ws.agent_url if bare == "model.base_url" else ws.user_url, word)
        elif bare in ("rollouts", "output") and PLACEHOLDERS["<time>"] in value:
            word = f"{key}={earlier_run(ws, value.split(PLACEHOLDERS['<time>'])[0], value)}"
        elif bare == "compare":  # two runs of one benchmark, from the commands before
            runs = [run for run in earlier_runs(ws, "outputs") if run[1] == "gsm8k"][-2:]
            if len(runs) < 2:
                return None
            word = f"{key}=[{','.join(run for run, _ in runs)}]"
        argv.append(word)
    task = next((w.split("=", 1)[1] for w in argv if w.startswith("task=")), None)
    if task in ("aggregate", "profile", "reverify", "export") and not keys & {"rollouts", "compare"}:
        argv.append(f"rollouts={earlier_run(ws, 'outputs', '')}")  # `rollouts=...` on the page
    for word in argv:
        key, _, value = word.partition("=")
        if (key == "rollouts" or key.endswith(".source_dir")) and not (ws.root / value).exists():
            return None
    if task in ("collect", "e2e"):
        argv += [f"limit={LIMIT}"] * ("limit" not in keys) + ["progress=false"] * ("progress" not in keys)
    if task in ("prepare", "e2e", "noise") and "data.mirror" not in keys:
        argv.append(f"data.mirror={UPSTREAM}")
    for side, url in (("model", ws.agent_url), ("user", ws.user_url), ("judge", ws.user_url)):
        if f"{side}=vllm" in argv and f"{side}.base_url" not in keys:  # a dropped `...` held the endpoint
            argv.append(f"{side}.base_url={url}")
    return argv


def earlier_runs(ws: Workspace, under: str) -> list[tuple[str, str]]:
    """(run dir relative to the workspace, its benchmark) of the runs so far under `under`, oldest first."""
    runs = sorted((p.parent for p in (ws.root / under).rglob("rollouts.jsonl")), key=lambda p: p.stat().st_mtime)
    found = []
    for run in runs:
        with open(run / "rollouts.jsonl") as handle:
            first = handle.readline()
        if first.strip():
            found.append((str(run.relative_to(ws.root)), json.loads(first)["benchmark"]))
    return found


def earlier_run(ws: Workspace, under: str, value: str) -> str:
    """The newest run under `under` (e.g. outputs/collect/), put in place of the page's `.../<time>`."""
    runs = earlier_runs(ws, under.rstrip("/") or ".")
    if not runs:
        return value
    if not value:
        return runs[-1][0]
    prefix = value.split(PLACEHOLDERS["<time>"])[0] + PLACEHOLDERS["<time>"]
    return value.replace(prefix, runs[-1][0])


@pytest.mark.slow
@pytest.mark.parametrize("command", RUNNABLE, ids=[c.where for c in RUNNABLE])
def test_documented_command_runs(command, workspace):
    argv = real_argv(command, workspace)
    if argv is None:
        pytest.skip(f"{command.text}: names the user's own files")
    ran = tuple(argv) not in workspace.answers  # the same command on another page (or twice on one): run once
    result = workspace.answers.setdefault(tuple(argv), workspace.gym(argv) if ran else None)
    said = result["stdout"] + result["stderr"]
    assert result["code"] == 0, f"{command.where}: {' '.join(argv)}\n{result['stderr'][-3000:]}"
    assert "Traceback" not in said and "gym: error" not in said, said[-3000:]
    assert result["stdout"].strip() or "task=prepare" in argv, "a command says what it did"
    task = next((w.split("=", 1)[1] for w in argv if w.startswith("task=")), None)
    if task in ("collect", "e2e"):
        assert re.search(r"infra_error 0|pass@1", result["stdout"]), result["stdout"][-2000:]
    if not ran:  # its run's files were checked when it ran
        return
    if task in ("collect", "e2e") and "-m" not in argv and "user=vllm" in argv:  # the user simulator was asked
        run = Path(earlier_run(workspace, "outputs", ""))
        endpoint = json.loads((workspace.root / run / "run.json").read_text())["endpoint"]["user"]
        assert (endpoint["base_url"], endpoint["model"]) == (workspace.user_url, USER_MODEL), endpoint
        for word in argv:  # what the user typed for the user's sampling is what was sent
            key, _, value = word.lstrip("+").partition("=")
            if key.startswith("user.sampling."):
                sent = endpoint["sampling_sent"]
                for part in key.split(".")[2:]:
                    sent = sent[part]
                assert str(sent) == value, (key, endpoint["sampling_sent"])
    if task in ("collect", "e2e") and "benchmark.verifier.options.nl_assertions=judge" in argv:  # judged, not skipped
        rows = (workspace.root / earlier_run(workspace, "outputs", "") / "rollouts.jsonl").read_text().splitlines()
        judged = [json.loads(row)["verifier"].get("breakdown", {}).get("NL_ASSERTION") for row in rows]
        assert "benchmark=tau2_mock" in argv or 1.0 in judged, judged
