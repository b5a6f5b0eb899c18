"""gym's command line: one Hydra app; `task=<name>` picks a module from the registry in gym.tasks.

Start-up stays light: plain help is printed without importing Hydra, and the command line is checked
(gym.cli.overrides) before Hydra composes anything or makes a run dir.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# Hydra versions whose internal `run_and_report` (how Hydra reports a failed composition) gym wraps to
# print one line; with any other version gym leaves Hydra's own reporting alone.
HYDRA_REPORT_VERSIONS = ("1.3.",)
# What a run dir holds before a task writes anything: these alone do not make a run worth keeping
# (a search, a run refused at the start); a run that wrote results keeps them and its gym.log.
RUN_DIR_BOOKKEEPING = {".hydra", "gym.log"}


def _is_multirun() -> bool:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def run_task(cfg: Any) -> Any:
    """Run the chosen task; a GymError becomes one line on stderr and a non-zero exit."""
    import json
    import logging

    from gym.cli.callbacks import JOB_STATUS_FILE
    from gym.core.config import offline_user, run_dir
    from gym.core.errors import GymError
    from gym.core.io import write_json_atomic
    from gym.core.runlog import to_file
    from gym.core.task_knobs import check_task_knobs
    from gym.rollouts import resume
    from gym.tasks import run_task as run_registered

    log = logging.getLogger("gym")
    multirun = _is_multirun()
    status: dict[str, Any] = {"task": cfg.task.name, "status": "ok"}
    try:
        offline_user(cfg)
        skipped = own_data_missing(cfg) if multirun else None
        if skipped:  # a sweep over the catalog (benchmark=glob(*)) goes on past your-own-data benchmarks
            print(f"gym: skipped: {skipped}", file=sys.stderr, flush=True)
            status.update(status="skipped", error=skipped)
            return None
        check_task_knobs(cfg)
        check_output_path(cfg)
        result = run_registered(cfg.task.name, cfg)
        if isinstance(result, dict):
            status["summary"] = result
        return result
    except GymError as exc:
        print(f"gym: error: {exc}", file=sys.stderr, flush=True)
        to_file(logging.ERROR, f"error: {exc}")
        status.update(status="failed", error=str(exc))
        if not multirun:
            sys.exit(exc.exit_code)
        return None
    except BrokenPipeError:
        quiet_exit_on_closed_pipe()
    except SystemExit:  # e.g. submitit leaving a job it requeued: the run did not finish
        status.update(status="interrupted")
        raise
    except OSError as exc:  # the file system said no: a path the user gave, not a bug
        message = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        print(f"gym: error: {message}", file=sys.stderr, flush=True)
        to_file(logging.ERROR, f"error: {message}")
        status.update(status="failed", error=message)
        if not multirun:
            sys.exit(1)
        return None
    except Exception as exc:
        if not multirun:
            raise  # a bug: show the traceback
        log.exception("job failed")
        print(f"gym: error: {exc.__class__.__name__}: {exc}", file=sys.stderr, flush=True)
        status.update(status="failed", error=f"{exc.__class__.__name__}: {exc}")
        return None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP turned into gym.rollouts.resume.Interrupted
        status.update(status="interrupted")
        if multirun:
            write_json_atomic(run_dir(cfg) / JOB_STATUS_FILE, status)
        message = f"gym: interrupted; {getattr(exc, 'hint', None) or 'rerun with resume=true to continue'}"
        print(message, file=sys.stderr, flush=True)
        to_file(logging.WARNING, message)
        sys.stdout.flush()
        handed = resume.hand_on(getattr(exc, "signum", 2))  # a SLURM job's pre-emption signal: submitit requeues it
        # Everything finished is already on disk (rows are flushed as they complete); exit now rather than
        # wait for requests still in flight, which can take up to the model timeout.
        os._exit(handed if handed is not None else getattr(exc, "exit_code", 130))
    finally:
        if multirun:
            write_json_atomic(run_dir(cfg) / JOB_STATUS_FILE, json.loads(json.dumps(status, default=str)))
        else:
            remove_run_dir_without_results(run_dir(cfg), cfg.task.name)


def own_data_missing(cfg: Any) -> str | None:
    """Why a sweep job is skipped: a benchmark that runs the user's own file (benchmark=local) was given none."""
    from gym.core.typed import is_local, own_file_given

    bench = cfg.get("benchmark")
    if bench is not None and bench.get("environment") == "harbor" and "tasks" in (bench.dataset.get("prepare_args") or {}):
        if bench.dataset.get("tasks") is None:
            return f"benchmark={bench.name} runs your own folder of Harbor tasks and none was given (benchmark.dataset.tasks=<dir>)"
        return None
    if not is_local(bench) or own_file_given(bench):
        return None
    return (f"benchmark={bench.name} runs your own file and none was given "
            "(benchmark.dataset.path=train.jsonl benchmark.verifier.family=math)")


def check_output_path(cfg: Any) -> None:
    """`output=` (the rollouts file) must be a file path gym can write: say so before any work starts."""
    from gym.core.errors import GymError

    output = cfg.get("output") if cfg.task.name in ("collect", "e2e") else None
    if not output:
        return
    path = Path(str(output)).expanduser()
    if path.is_dir():
        raise GymError(f"output={output} is a directory; give the rollouts file, e.g. output={path / 'rollouts.jsonl'}")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise GymError(f"output={output} cannot be written: {parent} is not a writable directory")


def remove_run_dir_without_results(path: Path, task: str) -> None:
    """A run that wrote no results leaves no run dir (only Hydra's saved config and gym.log were there)."""
    if not path.is_dir() or not {p.name for p in path.iterdir()} <= RUN_DIR_BOOKKEEPING:
        return
    hydra_dir = path / ".hydra"
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        (hydra_dir / name).unlink(missing_ok=True)
    (path / "gym.log").unlink(missing_ok=True)
    for folder in (hydra_dir, path):
        try:
            folder.rmdir()
        except OSError:  # something else is in there: leave it
            return
    # the default layout, outputs/<task>/<time>: outputs/<task>/ and outputs/ go too when left empty
    parent = path.parent
    for name in (task, "outputs"):
        if parent.name != name:
            return
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent


def quiet_exit_on_closed_pipe() -> None:
    """stdout went to a reader that stopped (`| head`): exit quietly, as command-line tools do."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
    except OSError:
        pass
    os._exit(141)  # 128 + SIGPIPE, what a shell reports for a writer stopped by a closed pipe


def compact_hydra_errors() -> bool:
    """Show Hydra's config errors (bad override, schema violation, missing value) as one line.

    Hydra prints them over several lines with its search path and a HYDRA_FULL_ERROR hint; the first
    lines and the OmegaConf cause are what a user needs. HYDRA_FULL_ERROR=1 still gives the full story.
    Hydra has no public hook for this, so its internal `run_and_report` is wrapped, on the Hydra versions
    gym is tested with only; returns whether the wrapper is in place.
    """
    import hydra

    if not hydra.__version__.startswith(HYDRA_REPORT_VERSIONS):
        return False
    from hydra._internal import utils as hydra_utils
    from hydra.errors import CompactHydraException

    original = getattr(hydra_utils, "run_and_report", None)
    if original is None:
        return False
    if getattr(original, "_gym", False):
        return True

    def run_and_report(func: Any) -> Any:
        def guarded() -> Any:
            try:
                return func()
            except CompactHydraException as exc:
                if os.environ.get("HYDRA_FULL_ERROR") == "1":
                    raise
                print(f"gym: error: {_one_line(exc)}", file=sys.stderr, flush=True)
                sys.exit(2)
        return original(guarded)

    run_and_report._gym = True  # type: ignore[attr-defined]
    hydra_utils.run_and_report = run_and_report
    return True


def _one_line(exc: BaseException) -> str:
    lines = []
    for line in str(exc).splitlines():
        line = line.strip()
        if line.startswith(("Config search path", "Set the environment variable")):
            break
        if line:
            lines.append(line)
    cause = exc.__cause__
    if cause is not None and str(cause).strip():
        first = str(cause).strip().splitlines()[0]
        if first not in lines:
            lines.append(first)
    text = ""
    for line in lines:  # sentences run on; bare fragments are separated with semicolons
        text += line if not text else (" " if text.endswith(".") else "; ") + line
    return text


def _hydra_app() -> Any:
    import hydra

    from gym.core import config as _config  # noqa: F401  (schemas + resolvers)
    from gym.core.paths import CONF_DIR

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def _hydra_entry(cfg: Any) -> Any:
        return run_task(cfg)

    return _hydra_entry


def main() -> None:
    from gym.cli.help import HELP_ARGS

    argv = sys.argv[1:]
    if argv in HELP_ARGS:
        from gym.cli.help import help_text

        try:
            print(help_text(), flush=True)
        except BrokenPipeError:
            quiet_exit_on_closed_pipe()
        return
    from gym.core.errors import GymError
    from gym.cli.overrides import check_argv

    try:
        sys.argv[1:] = check_argv(argv)
    except GymError as exc:
        print(f"gym: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    compact_hydra_errors()
    _hydra_app()()


