"""hydra/launcher=slurm: a sweep's jobs as one SLURM array (submitit), followed until each has ended.

What the user sees: one line when the jobs are submitted (the array's id and where the logs are), a line
for each job requeued or failed, then gym's sweep summary. `hydra.launcher.dry_run=true` prints the sbatch
script and each job's overrides and job dir instead, and submits nothing. A job that ends without a result
(cancelled, killed at its time limit, out of memory, a node lost) gets a job_status.json saying so, so the
sweep summary names it with its SLURM id, its log and the error. Each job runs gym's task in its own job
dir; a requeued one finds its rollouts there and continues them (gym.rollouts.resume).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, Sequence

from gym.cluster.follow import ENDED, Followed, Follower
from gym.core.io import write_json_atomic
from gym.core.paths import JOB_STATUS_FILE


@contextmanager
def _srun_not_needed() -> Iterator[None]:
    """submitit's SLURM executor looks for srun when it is made; a dry run only writes the sbatch script,
    which a laptop or a login node without SLURM can show (submitit has no switch for this)."""
    from submitit.slurm.slurm import SlurmExecutor

    found = SlurmExecutor.__dict__["affinity"]
    SlurmExecutor.affinity = classmethod(lambda cls: 1)
    try:
        yield
    finally:
        SlurmExecutor.affinity = found


def make_executor(params: dict[str, Any], preview: bool = False) -> Any:
    """submitit's SLURM executor with the launcher's settings (the same mapping as Hydra's submitit launcher:
    its generic names as they are, the others as slurm_<name>); `preview`: for a dry run, without SLURM."""
    import submitit
    from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf

    params = dict(params)
    folder = params.pop("submitit_folder")
    timeouts = params.pop("max_num_timeout", 0)
    generic = {f.name for f in dataclasses.fields(BaseQueueConf)}
    try:
        with _srun_not_needed() if preview else nullcontext():
            executor = submitit.AutoExecutor(folder=folder, cluster="slurm", slurm_max_num_timeout=timeouts)
    except RuntimeError as exc:  # no srun here
        raise Refused(f"hydra/launcher=slurm needs SLURM's commands (sbatch, srun) on this machine: {exc} "
                      "(hydra.launcher.dry_run=true shows the jobs without them)") from None
    executor.update_parameters(**{key if key in generic else f"slurm_{key}": value for key, value in params.items()})
    return executor


def sbatch_script(executor: Any, count: int) -> str:
    """The sbatch script submitit writes for `count` jobs (an array when there are several)."""
    import submitit

    slurm = executor._executor
    if count > 1:  # as submitit's array submission builds it: a copy of the executor with the array's size
        slurm = submitit.SlurmExecutor(slurm.folder, slurm.max_num_timeout)
        slurm.update_parameters(**executor._executor.parameters)
        slurm.parameters["map_count"] = count
    return slurm._make_submission_file_text(slurm._submitit_command_str, "dry-run")


def job_dir(launcher: Any, overrides: Sequence[str], num: int) -> Path:
    """The job's directory, as the job itself will make it (hydra.sweep.dir / hydra.sweep.subdir)."""
    from omegaconf import open_dict

    cfg = launcher.hydra_context.config_loader.load_sweep_config(launcher.config, list(overrides))
    with open_dict(cfg.hydra.job):
        cfg.hydra.job.num = num
    return Path(str(cfg.hydra.sweep.dir)) / str(cfg.hydra.sweep.subdir)


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[Any]:
    from hydra.core.singleton import Singleton
    from hydra.core.utils import filter_overrides

    sweep_dir = Path(str(launcher.config.hydra.sweep.dir))
    try:
        executor = make_executor(launcher.params, preview=launcher.dry_run)
    except Refused as exc:
        _forget(sweep_dir)
        _fail(str(exc))
    nums = [initial_job_idx + i for i in range(len(job_overrides))]
    if launcher.dry_run:
        with _srun_not_needed():
            print(dry_run_text(launcher, executor, job_overrides, nums), flush=True)
        _forget(sweep_dir)
        return []
    sweep_dir.mkdir(parents=True, exist_ok=True)
    state = Singleton.get_state()
    params = [(list(o), "hydra.sweep.dir", num, f"job_id_for_{num}", state) for o, num in zip(job_overrides, nums)]
    try:
        jobs = executor.map_array(launcher, *zip(*params))
    except Exception as exc:  # sbatch refused the script: a partition, account or resource this cluster lacks
        _fail(f"sbatch refused the {len(params)} job(s): {_first_line(exc)}")
    logs = Path(str(jobs[0].paths.stderr)).parent.parent
    ids = jobs[0].job_id.split("_")[0] + (f"_[0-{len(jobs) - 1}]" if len(jobs) > 1 else "")
    print(f"gym: submitted {len(jobs)} SLURM job(s) {ids} (logs in {logs}/<job id>/)", flush=True)
    followed = [Followed(job.job_id, _namer(launcher, o, num), job.paths.result_pickle)
                for job, o, num in zip(jobs, job_overrides, nums)]
    try:
        Follower(followed).run()
    except KeyboardInterrupt:
        print(f"\ngym: stopped following; the SLURM jobs keep running (squeue -j {ids.split('_')[0]}; scancel "
              f"{ids.split('_')[0]} stops them)", file=sys.stderr, flush=True)
        sys.exit(130)
    return [_outcome(launcher, job, f, list(o), num, filter_overrides(o))
            for job, f, o, num in zip(jobs, followed, job_overrides, nums)]


def dry_run_text(launcher: Any, executor: Any, job_overrides: Sequence[Sequence[str]], nums: list[int]) -> str:
    from hydra.core.utils import filter_overrides

    lines = [f"gym: dry run, nothing submitted: {len(nums)} job(s)"
             + (" as one SLURM array" if len(nums) > 1 else "") + ", each with its overrides and job dir:"]
    for overrides, num in zip(job_overrides, nums):
        shown = re.sub(r"\\(.)", r"\1", " ".join(filter_overrides(overrides)))  # as typed, without Hydra's escapes
        lines.append(f"  #{num} {shown}")
        lines.append(f"      dir {job_dir(launcher, overrides, num)}")
    lines += ["", "sbatch script:", sbatch_script(executor, len(nums)).rstrip()]
    return "\n".join(lines)


def _namer(launcher: Any, overrides: Sequence[str], num: int):
    return lambda: job_dir(launcher, overrides, num).name


def _outcome(launcher: Any, job: Any, followed: Followed, overrides: list[str], num: int, shown: list[str]) -> Any:
    """The job's JobReturn for Hydra; a job that ended without one is recorded as failed in its job dir."""
    from hydra.core.utils import JobReturn, JobStatus
    from omegaconf import OmegaConf

    state = followed.state if followed.state in ENDED or not job.paths.result_pickle.exists() else "COMPLETED"
    slurm = {"job_id": job.job_id, "state": state, "log": str(job.paths.stderr), "stdout": str(job.paths.stdout)}
    returned, error = None, None
    if job.paths.result_pickle.exists():
        try:
            returned = job.results()[0]
        except Exception as exc:  # the job's own Python failed outside gym's task (submitit's trace)
            error = _first_line(exc, last=True)
    hydra_cfg = getattr(returned, "hydra_cfg", None)
    ran_in = OmegaConf.select(hydra_cfg, "hydra.runtime.output_dir") if hydra_cfg is not None else None
    home = Path(ran_in) if ran_in else job_dir(launcher, overrides, num)  # composing again only when it never ran
    status = _read_status(home)
    if returned is None and error is None:
        error = f"SLURM state {slurm['state']}" + (f": {tail}" if (tail := _log_error(job.paths.stderr)) else "")
    if error is not None or returned is None or getattr(returned, "status", None) == JobStatus.FAILED:
        failure = error or _first_line(getattr(returned, "_return_value", "failed"))
        if status.get("status") != "failed":
            status = {**status, "status": "failed", "error": failure}
        returned = JobReturn(overrides=shown, working_dir=str(home), task_name=launcher.config.hydra.job.name,
                             status=JobStatus.COMPLETED, _return_value=None)
    status.setdefault("task", launcher.config.task.name if "task" in launcher.config else None)
    home.mkdir(parents=True, exist_ok=True)
    write_json_atomic(home / JOB_STATUS_FILE, {**status, "slurm": slurm})
    return returned


def _read_status(home: Path) -> dict[str, Any]:
    try:
        status = json.loads((home / JOB_STATUS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return status if isinstance(status, dict) else {}


def _log_error(path: Any) -> str:
    """The line of a job's error log that says what went wrong: gym's own error line, else the last line
    that mentions an error, else the last line."""
    try:
        lines = [line.strip() for line in Path(str(path)).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    for line in reversed(lines):
        if line.startswith("gym: error:"):
            return line[len("gym: error:"):].strip()
    return next((line for line in reversed(lines) if "error" in line.lower()), lines[-1] if lines else "")


def _first_line(exc: Any, last: bool = False) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not set(line.strip()) <= {"-"}]
    if not lines:
        return exc.__class__.__name__
    if last:  # a traceback: its last line is the exception
        trace = [line for line in lines if not line.startswith(("You can check", "or at paths", "- /"))]
        return trace[-1] if trace else lines[0]
    return lines[0]


class Refused(Exception):
    """The sweep cannot be launched here; said in one line."""


def _forget(sweep_dir: Path) -> None:
    """A dry run or a refused sweep leaves nothing: Hydra wrote multirun.yaml before the launcher ran, in
    outputs/<task>/multirun/<time> by default (those folders go too when nothing else is in them)."""
    (sweep_dir / "multirun.yaml").unlink(missing_ok=True)
    folder = sweep_dir
    for name in (None, "multirun", None, "outputs"):
        if name is not None and folder.name != name:
            return
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _fail(message: str) -> None:
    print(f"gym: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)
