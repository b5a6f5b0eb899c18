"""gym's command line: one Hydra app; `task=<name>` picks a module from TASKS."""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
from typing import Any

import hydra
from omegaconf import DictConfig

from gym import config as _config  # noqa: F401  (schemas + resolvers)
from gym.errors import GymError, did_you_mean, unknown_benchmark
from gym.paths import CONF_DIR

log = logging.getLogger("gym")

# task name -> module with `run(cfg)`; imported only when chosen, so heavy imports stay off start-up.
TASKS = {
    "search": "gym.tasks.search",
    "prepare": "gym.tasks.prepare",
    "collect": "gym.tasks.collect",
    "aggregate": "gym.tasks.aggregate",
    "profile": "gym.tasks.profile",
    "e2e": "gym.tasks.e2e",
    "reverify": "gym.tasks.reverify",
    "export": "gym.tasks.export",
}

LAUNCHER_EXTRAS = {"local": ("hydra_plugins.hydra_joblib_launcher", "parallel"),
                   "joblib": ("hydra_plugins.hydra_joblib_launcher", "parallel"),
                   "slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
                   "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
                   "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "slurm")}

_INFO_FLAGS = {"--help", "-h", "--hydra-help", "--info", "-i", "--cfg", "-c", "--shell-completion", "-sc", "--version"}


def _extra_config_dirs(argv: list[str]) -> list[str]:
    dirs: list[str] = []
    for i, arg in enumerate(argv):
        if arg in ("--config-dir", "-cd") and i + 1 < len(argv):
            dirs.append(argv[i + 1])
        elif arg.startswith("--config-dir="):
            dirs.append(arg.split("=", 1)[1])
        elif arg.startswith("hydra.searchpath="):
            for item in arg.split("=", 1)[1].strip("[]").split(","):
                item = item.strip().strip("'\"")
                if item.startswith("file://"):
                    dirs.append(item[len("file://"):])
    return dirs


def _sweep_values(value: str) -> list[str]:
    """Names in a CLI value: `a`, `a,b`, `[a,b]`; sweep functions such as glob() are left to Hydra."""
    if "(" in value:
        return []
    return [v.strip().strip("'\"") for v in value.strip("[]").split(",") if v.strip()]


def precheck(argv: list[str]) -> list[str]:
    """Catch the common mistakes before Hydra does, with one line and a did-you-mean."""
    if not any(a.startswith("task=") for a in argv) and not any(a.split("=")[0] in _INFO_FLAGS for a in argv):
        return ["--help"]
    from gym.catalog import benchmark_files, config_dirs

    names = None
    for arg in argv:
        key, sep, value = arg.partition("=")
        if not sep:
            continue
        key = key.lstrip("+~")
        if key == "task":
            for task in _sweep_values(value):
                if task not in TASKS:
                    raise GymError(f"unknown task '{task}'{did_you_mean(task, TASKS)}; tasks: {', '.join(TASKS)}")
        elif key in ("benchmark", "benchmarks"):
            names = names or benchmark_files(config_dirs(_extra_config_dirs(argv)))
            for bench in _sweep_values(value):
                if bench not in names and not (key == "benchmarks" and bench == "all") and bench != "null":
                    raise unknown_benchmark(bench, names)
        elif key in ("model", "judge"):
            dirs = config_dirs(_extra_config_dirs(argv))
            options = {path.stem for d in dirs for path in (d / key).glob("*.yaml")}
            for option in _sweep_values(value):
                if options and option not in options and option != "null":
                    raise GymError(f"unknown {key} '{option}'{did_you_mean(option, options)}; "
                                   f"{key}s: {', '.join(sorted(options))}")
        elif key == "hydra/launcher" and value in LAUNCHER_EXTRAS:
            module, extra = LAUNCHER_EXTRAS[value]
            try:
                importlib.import_module(module)
            except ImportError:
                raise GymError(f"hydra/launcher={value} needs the '{extra}' extra: pip install 'gym[{extra}]'") from None
    return argv


def _is_multirun() -> bool:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def run_task(cfg: DictConfig) -> Any:
    """Run the chosen task; a GymError becomes one line on stderr and a non-zero exit."""
    from gym.callbacks import JOB_STATUS_FILE
    from gym.config import run_dir
    from gym.io import write_json_atomic
    from gym.schema import check_task_knobs

    module = importlib.import_module(TASKS[cfg.task.name])
    status: dict[str, Any] = {"task": cfg.task.name, "status": "ok"}
    try:
        check_task_knobs(cfg)
        result = module.run(cfg)
        if isinstance(result, dict):
            status["summary"] = result
        return result
    except GymError as exc:
        print(f"gym: error: {exc}", file=sys.stderr, flush=True)
        status.update(status="failed", error=str(exc))
        if not _is_multirun():
            sys.exit(exc.exit_code)
        return None
    except Exception as exc:
        if not _is_multirun():
            raise  # a bug: show the traceback
        log.exception("job failed")
        print(f"gym: error: {exc.__class__.__name__}: {exc}", file=sys.stderr, flush=True)
        status.update(status="failed", error=f"{exc.__class__.__name__}: {exc}")
        return None
    except KeyboardInterrupt:
        status.update(status="interrupted")
        if _is_multirun():
            write_json_atomic(run_dir(cfg) / JOB_STATUS_FILE, status)
        print("gym: interrupted; rerun with resume=true to continue", file=sys.stderr, flush=True)
        sys.stdout.flush()
        # Everything finished is already on disk (rows are flushed as they complete); exit now rather than
        # wait for requests still in flight, which can take up to the model timeout.
        os._exit(130)
    finally:
        if _is_multirun():
            write_json_atomic(run_dir(cfg) / JOB_STATUS_FILE, json.loads(json.dumps(status, default=str)))


def compact_hydra_errors() -> None:
    """Show Hydra's config errors (bad override, schema violation, missing value) as one line.

    Hydra prints them over several lines with its search path and a HYDRA_FULL_ERROR hint; the first
    lines and the OmegaConf cause are what a user needs. HYDRA_FULL_ERROR=1 still gives the full story.
    """
    try:
        from hydra._internal import utils as hydra_utils
        from hydra.errors import CompactHydraException
    except ImportError:  # a Hydra without these internals: keep its own reporting
        return
    original = hydra_utils.run_and_report
    if getattr(original, "_gym", False):
        return

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


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def _hydra_entry(cfg: DictConfig) -> Any:
    return run_task(cfg)


def main() -> None:
    try:
        sys.argv[1:] = precheck(sys.argv[1:])
    except GymError as exc:
        print(f"gym: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    compact_hydra_errors()
    _hydra_entry()


if __name__ == "__main__":
    main()
