"""The runs a viewer shows: one per rollouts file a `rollouts=` spec names (a sweep's jobs and shards each
a row), with what the run dir beside it says (run.json's status, plots) and its figures, computed by
gym.metrics on the file as task=aggregate and task=profile compute them, again when rows land."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gym.core.errors import GymError
from gym.rollouts.files import REVERIFIED, find_rollout_files
from gym.view.index import RunFile

log = logging.getLogger("gym.view")

PLOTS = ("pass_rate_hist.png", "pass_at_k.png")
SUBPROCESS_ROWS = 200_000  # runs with more rows than this get their figures from a child process
# run.json's status -> what the runs table says
STATUS_WORDS = {"running": "running", "done": "finished", "incomplete": "finished", "interrupted": "interrupted",
                "failed": "interrupted"}


@dataclass
class Figures:
    version: int  # the index version they were computed on
    metrics: dict[str, Any]
    buckets: dict[tuple[str, int], str]  # (benchmark, task_index) -> profile bucket
    profile: list[dict[str, Any]]  # task=profile's completion summary with bucket counts, per benchmark/model
    pass_rates: list[float]  # each task's pass rate (percent), for the run page's histogram


class Run:
    def __init__(self, path: Path, number: int, root: Path | None):
        self.path, self.number = path, number
        self.index = RunFile(path, number)
        self.name = _display_name(path, root)
        self._figures: Figures | None = None
        self._computed_at, self._took = 0.0, 0.0
        self._bucket_codes: tuple | None = None
        self._lock = threading.RLock()

    @property
    def dir(self) -> Path:
        return self.path.parent

    def info(self) -> dict[str, Any]:
        """run.json beside the file (collect writes it), or {}."""
        try:
            info = json.loads((self.dir / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        own = self.path.name.replace(REVERIFIED, ".jsonl")  # run.json names the file that was re-verified
        if isinstance(info, dict) and Path(str(info.get("rollouts", self.path))).name != own:
            return {}  # run.json of another file in the same dir
        return info if isinstance(info, dict) else {}

    def status(self) -> str:
        return STATUS_WORDS.get(str(self.info().get("status")), "finished")

    def plots(self) -> list[str]:
        return [name for name in PLOTS if (self.dir / name).is_file()]

    def noise(self) -> dict[str, Any]:
        """task=noise's noise.json for this run, or {}: beside the rollouts file (task=noise rollouts=<dir>
        run_dir=<dir>), or one level up for the replays task=noise benchmark=<name> plays into sub-folders."""
        from gym.metrics.noise import REPLAYS

        for where in (self.dir, *((self.dir.parent,) if self.dir.name in REPLAYS else ())):
            try:
                found = json.loads((where / "noise.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(found, dict) and isinstance(found.get("benchmarks"), dict):
                return found
        return {}

    def figures(self) -> Figures:
        """The metrics and the profile of the rows indexed so far. When rows landed they are computed again,
        at most every few seconds (a big run's figures take a while), and the last ones are shown meanwhile."""
        self.index.refresh()
        with self._lock:
            figures = self._figures
            due = figures is None or (figures.version != self.index.version
                                      and time.monotonic() - self._computed_at > max(2.0, 5 * self._took))
            if due:
                started = time.monotonic()
                self._figures = figures = compute_figures(self.path, self.index.version, self._big()) \
                    if len(self.index) else Figures(self.index.version, {"benchmarks": {}}, {}, [], [])  # a run just started
                self._computed_at, self._took = time.monotonic(), time.monotonic() - started
                self._bucket_codes = None
            return figures  # type: ignore[return-value]

    def _big(self) -> bool:
        return self.index.rows_read >= SUBPROCESS_ROWS

    def bucket_codes(self) -> tuple[np.ndarray, list[str]]:
        """The profile bucket of each live row's task (codes into the labels)."""
        figures = self.figures()
        with self._lock:
            cached = self._bucket_codes
            if cached is not None and cached[0] == (figures.version, self.index.version):
                return cached[1], cached[2]
            labels = [""] + sorted(set(figures.buckets.values()))
            bench_labels = self.index.labels("benchmark")
            tasks = self.index.column("task_index")
            table = np.zeros((len(bench_labels), int(tasks.max(initial=0)) + 1), np.int8)
            for (bench, task), bucket in figures.buckets.items():
                if bench in bench_labels and task < table.shape[1]:
                    table[bench_labels.index(bench), task] = labels.index(bucket)
            codes = table[self.index.column("benchmark"), tasks].astype(np.int64) if len(tasks) else np.zeros(0, np.int64)
            self._bucket_codes = ((figures.version, self.index.version), codes, labels)
            return codes, labels


def compute_figures(path: Path, version: int, in_subprocess: bool = False) -> Figures:
    """Figures by gym.metrics; for a big run in a child process, so the loader's peak memory (a frame of
    every row) is not the server's."""
    if in_subprocess:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(compute_figures, path, version).result()
    from gym.metrics.output import metrics_for
    from gym.metrics.reward_profiles import BucketEdges, aggregate_profile, task_profile

    metrics, rollouts = metrics_for(str(path))
    profile, completion = task_profile(rollouts.frame, None, BucketEdges())
    buckets: dict[tuple[str, int], str] = {}
    if len(profile):
        for bench, task, bucket in zip(profile["benchmark"], profile["task_index"], profile["bucket"]):
            buckets[(str(bench), int(task))] = str(bucket)
        for entry in completion:  # buckets in the CLI's order (unsolved -> solved), pass^k as report.html has it
            mine = profile[(profile["benchmark"] == entry["benchmark"]) & (profile["model"] == entry["model"])]
            summary = aggregate_profile(mine)
            entry.update(buckets=summary["buckets"], **{"pass^k": summary["pass^k"]})
    rates = [float(r) for r in profile["pass_rate"]] if len(profile) else []
    return Figures(version, metrics, buckets, completion, rates)


def _display_name(path: Path, root: Path | None) -> str:
    """A run dir's name for its rollouts.jsonl (or the rollouts.reverified.jsonl an older gym's reverify put
    beside it, read in its place), else the file's own name."""
    named_by_dir = path.name in ("rollouts.jsonl", "rollouts" + REVERIFIED)
    if root is not None:
        try:
            rel = path.relative_to(root)
            return str(rel.parent) if named_by_dir and str(rel.parent) != "." else str(rel)
        except ValueError:
            pass
    return str(path.parent.name + "/" + path.name) if path.name == "rollouts.jsonl" else path.name


class Runs:
    """Every run a spec names, indexed once; `refresh()` picks up rows and new files of a sweep."""

    def __init__(self, spec: Any):
        self.spec = spec
        files, _ = find_rollout_files(spec)
        self.root = _common_root(files)
        started = time.perf_counter()
        self.runs = [Run(path, number, self.root) for number, path in enumerate(files)]
        for run in self.runs:  # part of the one-time index: the first page shows them at once
            run.figures()
        log.info("indexed %d run(s), %d row(s) in %.1fs", len(self.runs), sum(len(r.index) for r in self.runs),
                 time.perf_counter() - started)

    def __getitem__(self, number: int) -> Run:
        if not 0 <= number < len(self.runs):
            raise GymError(f"no run {number} (there are {len(self.runs)})")
        return self.runs[number]

    def __iter__(self):
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def refresh(self) -> None:
        try:
            files, _ = find_rollout_files(self.spec)
        except GymError:
            files = []
        known = {run.path for run in self.runs}
        for path in files:
            if path not in known:
                self.runs.append(Run(path, len(self.runs), self.root))
        for run in self.runs:
            run.index.refresh()


def _common_root(files: list[Path]) -> Path | None:
    if not files:
        return None
    parents = [p.parent for p in files]
    root = parents[0]
    while any(root not in (p, *p.parents) for p in parents):
        root = root.parent
    return root.parent if len(files) == 1 else root
