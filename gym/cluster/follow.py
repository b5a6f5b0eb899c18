"""Following submitted SLURM jobs until each has ended: a result file per job, states from squeue.

submitit follows jobs with sacct, which needs SLURM's accounting database; many small clusters have none,
and then every poll warns and a job that dies without writing its result is waited on for ever. gym asks
squeue instead (the controller itself, accounting or not; `--states=all` keeps an ended job's state for
MinJobAge, 300 s by default) and checks each job's result file every second. sacct is asked only about a
job that left the queue without a result; a cluster without accounting is then said once, in one line.
A requeued job (pre-emption, its time-limit signal, `scontrol requeue`) is said in one line when seen.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

# States in which a job is over (squeue's names); any other state (PENDING, RUNNING, REQUEUED, COMPLETING,
# SUSPENDED, PREEMPTED while it is requeued, ...) means it may still run.
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
         "SPECIAL_EXIT", "REVOKED"}
RESULT_GRACE_S = 15.0  # a COMPLETED job's result file may show up late on a network file system
POLL_S = (1.0, 10.0)  # squeue every second at first, backing off to every 10 s while nothing changes


@dataclass
class Followed:
    """One job: its SLURM id, what to call it in messages, and where its result will appear."""
    job_id: str
    name: Callable[[], str]  # the job's dir name, made only when a message needs it
    result_file: Any  # pathlib.Path
    state: str = "PENDING"
    requeues: int = 0  # times requeued, as squeue counts them (the job counts its own in run.json)
    ended_at: float | None = None
    done: bool = False
    missing: int = 0  # squeue polls in a row that did not list it


def squeue_states(job_ids: list[str]) -> dict[str, tuple[str, int]] | None:
    """Job id (array tasks as <array>_<index>) -> (state, times requeued), for every job squeue still knows;
    None if squeue failed."""
    bases = sorted({job.split("_")[0] for job in job_ids})
    try:
        done = subprocess.run(["squeue", "--noheader", "--array", "--states=all", f"--jobs={','.join(bases)}",
                               "--Format=JobArrayID:|,State:|,RestartCnt:"], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        # squeue refuses ids it no longer knows at all ("Invalid job id"): none of them is in the queue
        return {} if "invalid job id" in (done.stderr or "").lower() else None
    states = {}
    for line in done.stdout.splitlines():
        job, state, restarts = (line.split("|") + ["", ""])[:3]
        if job.strip():
            states[job.strip()] = (state.strip(), int(restarts) if restarts.strip().isdigit() else 0)
    return states


def sacct_state(job_id: str) -> tuple[str | None, str | None]:
    """(final state, None) from accounting, or (None, why sacct could not say)."""
    try:
        done = subprocess.run(["sacct", "--noheader", "--parsable2", "--format=JobID,State", f"--jobs={job_id}"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    if done.returncode != 0:
        return None, (done.stderr or done.stdout).strip().splitlines()[0] if (done.stderr or done.stdout).strip() else "no answer"
    for line in done.stdout.splitlines():
        job, _, state = line.partition("|")
        if job == job_id and state:
            return state.split()[0], None
    return None, "it has no record of the job"


class Follower:
    """Waits for every job to end, saying requeues and jobs that left the queue as they happen."""

    def __init__(self, jobs: list[Followed], say: Callable[[str], None] = print):
        self.jobs, self.say = jobs, say
        self.no_accounting_said = False
        self._wake = threading.Event()

    def run(self) -> None:
        from tqdm import tqdm

        interval, next_poll = POLL_S[0], 0.0
        with tqdm(total=len(self.jobs), desc="SLURM jobs", unit="job", disable=None, file=sys.stderr) as bar:
            while not all(job.done for job in self.jobs):
                changed = self._check_results()
                if time.monotonic() >= next_poll:
                    changed = self._poll() or changed
                    interval = POLL_S[0] if changed else min(interval * 1.25, POLL_S[1])
                    next_poll = time.monotonic() + interval
                bar.n = sum(job.done for job in self.jobs)
                bar.refresh()
                if not all(job.done for job in self.jobs):
                    self._wake.wait(1.0)

    def _check_results(self) -> bool:
        changed = False
        for job in self.jobs:
            if not job.done and job.result_file.exists():
                job.done, changed = True, True
        return changed

    def _poll(self) -> bool:
        waiting = [job for job in self.jobs if not job.done]
        states = squeue_states([job.job_id for job in waiting])
        if states is None:  # the controller did not answer: the result files still count
            return False
        changed = False
        for job in waiting:
            state = states.get(job.job_id)
            if state is None:
                job.missing += 1
                if job.missing >= 2:  # not a job squeue has not listed yet: it left the queue
                    self._left_queue(job)
                    changed = True
                continue
            job.missing = 0
            changed = self._update(job, *state) or changed
        return changed

    def _update(self, job: Followed, state: str, restarts: int) -> bool:
        previous, job.state = job.state, state
        if restarts > job.requeues:
            job.requeues = restarts
            self.say(f"gym: SLURM job {job.job_id} ({job.name()}) was requeued ({restarts}×); it continues its "
                     "rollouts when it runs again")
        if state in ENDED:
            job.ended_at = job.ended_at or time.monotonic()
            if state != "COMPLETED" or time.monotonic() - job.ended_at > RESULT_GRACE_S:
                job.done = True
        return state != previous

    def _left_queue(self, job: Followed) -> None:
        if job.result_file.exists():
            job.done = True
            return
        state, why = sacct_state(job.job_id)
        if state is None and not self.no_accounting_said:
            self.no_accounting_said = True
            self.say(f"gym: SLURM accounting could not say how job {job.job_id} ended (sacct: {why}); "
                     "jobs that leave the queue without a result count as failed")
        job.state, job.done = state or "UNKNOWN", True
