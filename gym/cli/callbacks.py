"""Hydra callback: one combined table for a whole sweep, written to the sweep dir; non-zero exit if a job failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from gym.core.paths import JOB_STATUS_FILE


def collect_jobs(sweep_dir: Path) -> list[dict[str, Any]]:
    jobs = []
    for status_file in sorted(sweep_dir.glob(f"*/{JOB_STATUS_FILE}"), key=lambda p: _job_num(p.parent.name)):
        try:
            status = json.loads(status_file.read_text())
        except (OSError, json.JSONDecodeError):
            status = {"status": "failed", "error": "unreadable job status"}
        summary = status.get("summary") or {}
        headline = summary.get("headline") or {}
        slurm = {**(summary.get("slurm") or {}), **(status.get("slurm") or {})}  # the job's own, the launcher's
        jobs.append({
            "job": status_file.parent.name,
            "task": status.get("task"),
            "status": status.get("status"),
            "benchmark": summary.get("benchmark") or headline.get("benchmark"),
            "model": summary.get("model") or headline.get("model"),
            "pass@1": headline.get("pass@1"),
            "ci95": headline.get("ci95"),
            "error": status.get("error"),
            "dir": str(status_file.parent),
            **({"slurm": slurm, "resumed_with": [r.get("rollouts_done") for r in summary.get("resumes") or []]}
               if slurm else {}),
        })
    return jobs


def _job_num(name: str) -> int:
    head = name.split("_", 1)[0]
    return int(head) if head.isdigit() else 1 << 30


def format_jobs(jobs: list[dict[str, Any]]) -> str:
    from gym.metrics.table import format_table

    rows = []
    on_slurm = any(job.get("slurm") for job in jobs)
    for job in jobs:
        p1 = "" if job["pass@1"] is None else f"{job['pass@1']:.2f}"
        ci = "" if not job["ci95"] or None in job["ci95"] else f"[{job['ci95'][0]:.2f}, {job['ci95'][1]:.2f}]"
        note = job["error"] or " ".join(str(v) for v in (job["benchmark"], job["model"]) if v)
        rows.append([job["job"], job["status"] or "?", *([slurm_note(job)] if on_slurm else []), p1, ci, note])
    headers = ["job", "status", *(["SLURM job"] if on_slurm else []), "pass@1", "95% CI", "note"]
    return format_table(headers, rows, right=(3, 4) if on_slurm else (2, 3))


def slurm_note(job: dict[str, Any]) -> str:
    """`<job id>`, and for a requeued job how often and how many rollouts it found done each time."""
    slurm = job.get("slurm") or {}
    text = str(slurm.get("job_id") or "")
    if slurm.get("requeued"):
        done = ", ".join(str(n) for n in job.get("resumed_with") or [])
        text += f" requeued {slurm['requeued']}×" + (f" (resumed with {done} done)" if done else "")
    return text


def failure_lines(jobs: list[dict[str, Any]]) -> list[str]:
    """One line per failed SLURM job (its id, dir, error and log), then how many of the sweep's jobs failed."""
    failed = [j for j in jobs if j["status"] not in ("ok", "skipped")]  # skipped: a reason, not a failure
    lines = [f"gym: error: SLURM job {j['slurm'].get('job_id')} ({j['job']}) {j['status'] or 'failed'}: "
             f"{j['error'] or 'no error recorded'}; log: {j['slurm'].get('log')}" for j in failed if j.get("slurm")]
    if failed:
        lines.append(f"gym: error: {len(failed)} of {len(jobs)} sweep jobs failed: {', '.join(j['job'] for j in failed)}")
    return lines


class SweepSummary(Callback):
    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        jobs = collect_jobs(sweep_dir)
        if not jobs:
            return
        from gym.core.io import write_json_atomic, write_text_atomic

        table = format_jobs(jobs)
        write_json_atomic(sweep_dir / "summary.json", {"jobs": jobs})
        write_text_atomic(sweep_dir / "summary.txt", table + "\n")
        print(f"\nSweep summary ({sweep_dir}):\n{table}", flush=True)
        lines = failure_lines(jobs)
        if lines:
            print("\n".join(lines), file=sys.stderr, flush=True)
            sys.exit(1)
