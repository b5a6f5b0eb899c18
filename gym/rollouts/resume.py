"""Interrupt and resume: signals as interrupts, the exact resume command, finding the run to continue.

SIGTERM (SLURM pre-emption, `timeout`, Docker, Kubernetes) and SIGHUP (a closed terminal, SLURM's
warning) stop a run like Ctrl-C: rows finished so far are already on disk, run.json says
"interrupted", the exact command that continues the run is printed, and the exit code is 128 + the
signal number (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).

Inside a SLURM job (gym.cluster submits sweeps as job arrays) the signal SLURM sends before a pre-emption
or the time limit (submitit's, USR2 unless SUBMITIT_PREEMPT_SIGNAL says otherwise) stops the run the same
way, then goes on to submitit, which requeues the job; a requeued job finds its rollouts in its job dir
and continues them, and run.json counts its requeues and the rollouts it found done each time.

`resume=true` with `output=<file>` continues that file (it must exist); without `output=` it continues
the newest unfinished run of the same task, benchmark and model found beside this run's directory.
When the file sits in a run directory (one with a run.json), that directory stays the run's home:
run.json, metrics and reports of the resumed run go there too.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.core.runlog import to_file
from gym.core.typed import RunConfig

log = logging.getLogger("gym.rollouts.resume")
UNFINISHED = ("running", "interrupted", "incomplete")
HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; `hint` is the command that continues it."""

    def __init__(self, signum: int = signal.SIGINT, hint: str | None = None):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        self.hint = hint


def preemption_signal() -> signal.Signals | None:
    """The signal a submitit job gets before it is pre-empted or reaches its time limit; None outside one."""
    if os.environ.get("SUBMITIT_EXECUTOR") not in ("slurm", "local"):
        return None
    name = os.environ.get("SUBMITIT_PREEMPT_SIGNAL", "USR2").upper()
    return getattr(signal.Signals, name if name.startswith("SIG") else f"SIG{name}", None)


def hand_on(signum: int) -> int | None:
    """Give a pre-emption signal to whoever handled it before gym (submitit: checkpoint and requeue the job);
    the exit code it asked for (submitit's local executor reads it), or None."""
    handler = signal.getsignal(signum)
    if not callable(handler) or signum != preemption_signal():
        return None
    try:
        handler(signum, None)
    except SystemExit as exc:  # submitit exits once the job is requeued
        return exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # e.g. timed out too many times: the job is not requeued
        print(f"gym: error: SLURM job not requeued: {str(exc).strip().splitlines()[0]}", file=sys.stderr, flush=True)
    return None


def slurm_job() -> dict[str, Any] | None:
    """The SLURM job this process runs in: its id (an array's task as <array id>_<index>), how many times it
    was requeued, its node; None outside SLURM."""
    job_id = os.environ.get("SLURM_JOB_ID")
    if not job_id:
        return None
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    return {"job_id": f"{array}_{task}" if array and task else job_id,
            "requeued": int(os.environ.get("SLURM_RESTART_COUNT") or 0), "node": os.environ.get("SLURMD_NODENAME")}


def resumes(run_dir: Path, done: int, at: str) -> list[dict[str, Any]]:
    """The run's resumes: those its run.json lists and this one (when, rollouts already done, the SLURM
    requeue behind it)."""
    try:
        earlier = json.loads((run_dir / "run.json").read_text()).get("resumes") or []
    except (OSError, ValueError, AttributeError):
        earlier = []
    job = slurm_job()
    this = {"at": at, "rollouts_done": done, **({"slurm_requeue": job["requeued"]} if job else {})}
    return [*earlier, this] if isinstance(earlier, list) else [this]


@contextmanager
def stops_marked(run: RunConfig, rollouts: Path) -> Iterator[None]:
    """Within the block, a GymError marks run.json "failed"; Ctrl-C or a signal marks it "interrupted", keeps what
    continues the run (whose rollouts are in `rollouts`: the exact command, or submitit's requeue) in the run log
    and raises it as Interrupted."""
    marked: dict[str, Any] = {}  # what run.json says of a run that stopped early
    logged = ""
    try:
        yield
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", 2)
        then = ("submitit requeues the job and it continues them" if signum == preemption_signal()
                else f"continue with: {resume_command(run, rollouts)}")
        marked = {"status": "interrupted", "signal": signum}
        logged = f"interrupted by {signal.Signals(signum).name}; {then}"
        raise Interrupted(signum, f"finished rollouts are in {rollouts}; {then}") from None
    except GymError as exc:
        marked = {"status": "failed", "error": str(exc)}
        raise
    finally:
        if marked:
            mark_run(run.home, **marked)
        if logged:
            to_file(logging.WARNING, logged)


def mark_run(home: Path, status: str, **extra: Any) -> None:
    """Update the status in an existing run.json that says "running" (a run that failed before writing one
    leaves none)."""
    path = home / "run.json"
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if info.get("status") == "running":
        write_json_atomic(path, {**info, "status": status, **extra})


@contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP (and in a submitit job its pre-emption signal) raise Interrupted
    in the main thread (as Ctrl-C does)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupted(signum: int, frame: Any) -> None:
        raise Interrupted(signum)

    previous = {}
    for signum in (*HANDLED, *filter(None, [preemption_signal()])):
        try:
            previous[signum] = signal.signal(signum, raise_interrupted)
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def identity(run: RunConfig) -> dict[str, Any]:
    """What makes two runs the same experiment for `resume=true` without output=."""
    model = run.model
    shard = {"shard": str(run.knobs["shard"])} if run.knobs.get("shard") else {}  # each shard resumes its own run
    return {**shard, "benchmark": run.benchmark.name if run.benchmark is not None else None,
            "model": {"kind": str(model.kind), "name": model.name, "path": model.path,
                      "base_url": model.base_url if model.kind == "openai_compatible" else None,
                      "api": model.api}}


def resume_command(run: RunConfig, output: Path | str) -> str:
    """The command line that continues this run: the same overrides plus resume=true output=<file>."""
    overrides: list[str] = []
    try:
        from hydra.core.hydra_config import HydraConfig

        if HydraConfig.initialized():
            overrides = list(HydraConfig.get().overrides.task)
    except Exception:  # outside a Hydra app (tests, notebooks): rebuild from the config
        overrides = []
    if not overrides:
        overrides = [f"task={_task_name(run)}"]
        if run.benchmark is not None:
            overrides.append(f"benchmark={run.benchmark.name}")
    kept = [o for o in overrides if o.lstrip("+~").split("=", 1)[0] not in ("resume", "output", "run_dir")]
    return " ".join(["python -m gym", *map(shlex.quote, kept), "resume=true", shlex.quote(f"output={output}")])


def _task_name(run: RunConfig) -> str:
    return str((run.knobs.get("task") or {}).get("name") or "collect")


def resolve(run: RunConfig, rollouts_name: str = "rollouts.jsonl") -> RunConfig:
    """The run with `output` (and `run_dir`, when resuming inside a run directory) fixed for a resume.

    Unchanged when resume is false. GymError when output= does not exist, or when nothing is left
    to resume."""
    if not run.knobs.get("resume"):
        return run
    output = run.knobs.get("output")
    if output:
        path = Path(str(output))
        if not path.is_file():
            raise GymError(f"resume=true but output={path} does not exist; give the rollouts file of the run to "
                           "continue, or drop resume=true to start a new run")
    elif (run.home / rollouts_name).is_file():  # this run's own directory already holds its rollouts
        return run
    else:
        found = newest_unfinished(run, rollouts_name)
        if found is None:
            raise GymError(f"resume=true: no unfinished {_task_name(run)} run of "
                           f"{identity(run)['benchmark']} with this model under {run.home.parent}; "
                           "give output=<rollouts file>, or drop resume=true to start a new run")
        path = found
        print(f"gym: resuming {path.parent} (newest unfinished run of the same benchmark and model)", flush=True)
        log.info("resuming %s", path.parent)
    if (path.parent / "run.json").is_file():  # resumed inside a run directory: it stays the run's home
        return replace(run, knobs={**run.knobs, "output": str(path), "run_dir": str(path.parent)}, home=path.parent)
    return replace(run, knobs={**run.knobs, "output": str(path)})


def newest_unfinished(run: RunConfig, rollouts_name: str) -> Path | None:
    """The rollouts file of the newest unfinished run with the same identity beside this run's directory."""
    here = run.home.resolve()
    wanted = identity(run)
    best: tuple[str, Path] | None = None
    for run_json in here.parent.glob("*/run.json"):
        if run_json.parent.resolve() == here:
            continue
        try:
            info = json.loads(run_json.read_text())
        except (OSError, ValueError):
            continue
        rollouts = run_json.parent / rollouts_name
        if info.get("status") in UNFINISHED and info.get("identity") == wanted and rollouts.is_file():
            stamp = str(info.get("started_at") or run_json.parent.name)
            if best is None or stamp > best[0]:
                best = (stamp, rollouts)
    return best[1] if best else None
