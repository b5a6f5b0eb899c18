"""task=profile: per-task reward profile, completion check, task selection, plots and an HTML report.

Files in the run dir: reward_profile.jsonl (one row per task), profile_summary.json,
selected_tasks.jsonl (with select.*), pass_rate_hist.png + pass_at_k.png (plots=true) and
report.html (report=true). See gym.metrics.reward_profiles for the definitions.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from gym.core.config import run_dir
from gym.core.errors import GymError
from gym.core.io import write_json_atomic, write_jsonl_atomic
from gym.core.typed import knobs_of
from gym.metrics.options import PROFILE_KNOBS, profile_options
from gym.metrics.reward_profiles import Selection

log = logging.getLogger("gym.profile")


def _prepared_paths(opts: dict[str, Any], benchmarks: list[str]) -> dict[str, Path | None]:
    given = opts["prepared"]
    if isinstance(given, Path):
        if len(benchmarks) > 1:
            raise GymError(f"prepared=<path> names one file but {len(benchmarks)} benchmarks have selected tasks "
                           f"({', '.join(benchmarks)}); use +prepared.<benchmark>=<path> for each")
        return {b: given for b in benchmarks}
    root = opts["data_root"]
    return {b: given.get(b) or (root / b / f"{b}.jsonl" if root else None) for b in benchmarks}


def _incomplete_error(total: dict[str, Any], completion: list[dict[str, Any]]) -> GymError:
    expected = sorted({c["expected_repeats"] for c in completion})
    unverified = sum((c.get("counts") or {}).get("verifier_error", 0) for c in completion)
    hint = f" (task=reverify re-scores the {unverified} verifier_error rollout(s))" if unverified else ""
    return GymError(
        f"{total['partial_tasks']} of {total['tasks']} task(s) are partial (fewer than "
        f"{'/'.join(map(str, expected))} scored rollouts) and {total['missing_tasks']} have none; "
        f"{total['completed_rollouts']}/{total['expected_rollouts']} rollouts completed "
        f"({total['completion_pct']:.2f}%). Resume the collection{hint}, or add allow_partial=true to profile the "
        "completed rollouts")


def _check_selected_buckets(selection: Selection, profile: Any) -> None:
    """select.buckets must name buckets these rollouts can have: an adaptive run with split_extremes=false
    decided hard_or_unsolved / medium / easy_or_solved, never hard or solved."""
    from gym.metrics.reward_profiles import bucket_names

    names = bucket_names(profile)
    wrong = [name for name in selection.buckets or () if name not in names]
    if wrong:
        raise GymError(f"select.buckets: {', '.join(wrong)} is not a bucket of these rollouts; their buckets: "
                       f"{', '.join(names)} (an adaptive run labels what its rule decided)")


def _labels(profile_frame: Any) -> dict[tuple[str, str], str]:
    pairs = profile_frame[["benchmark", "model"]].drop_duplicates()
    per_bench = pairs.groupby("benchmark")["model"].nunique()
    return {(b, m): (b if per_bench[b] <= 1 else f"{b}@{m}") for b, m in zip(pairs["benchmark"], pairs["model"])}


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.metrics import reward_profiles
    from gym.metrics.compute import CI_METHOD, SCALE
    from gym.rollouts.load import load_rollouts

    opts = profile_options(knobs_of(cfg, PROFILE_KNOBS))
    out_dir = run_dir(cfg)
    out_dir.mkdir(parents=True, exist_ok=True)
    from gym.rollouts.shards import check_shards

    check_shards(opts["rollouts"], opts["allow_partial"])
    rollouts = load_rollouts(opts["rollouts"])
    profile, completion = reward_profiles.task_profile(rollouts.frame, opts["expected_repeats"], opts["edges"])
    total = reward_profiles.completion_totals(completion)
    if (total["partial_tasks"] or total["missing_tasks"]) and not opts["allow_partial"]:
        raise _incomplete_error(total, completion)
    if profile.empty:
        raise GymError("no task has a scored rollout (every row is an infra_error or verifier_error)")

    files: dict[str, str] = {}
    path = out_dir / "reward_profile.jsonl"
    write_jsonl_atomic(path, reward_profiles.profile_records(profile))
    files["reward_profile"] = str(path)

    labels = _labels(profile)
    groups = {labels[(b, m)]: {"benchmark": b, "model": m, **reward_profiles.aggregate_profile(part)}
              for (b, m), part in profile.groupby(["benchmark", "model"], sort=True)}
    summary: dict[str, Any] = {
        "scale": SCALE, "ci_method": CI_METHOD,
        "bucket_edges": {"hard_max": opts["edges"].hard_max, "easy_min": opts["edges"].easy_min},
        "inputs": rollouts.summary(),
        "completion": {"groups": completion, "total": total},
        "benchmarks": groups, "overall": reward_profiles.aggregate_profile(profile), "selection": None, "files": files,
    }
    from gym.metrics.subsets import subset_metrics

    summary["subsets"] = subset_metrics(rollouts)  # per language/subject/...: shown in the report

    selection: Selection = opts["selection"]
    _check_selected_buckets(selection, profile)
    if selection.active:
        chosen = profile[reward_profiles.select_mask(profile, selection)]
        prepared = _prepared_paths(opts, sorted(chosen["benchmark"].unique()))
        rows = reward_profiles.prepared_rows(chosen, prepared) if len(chosen) else []
        path = out_dir / "selected_tasks.jsonl"
        write_jsonl_atomic(path, rows)
        files["selected_tasks"] = str(path)
        summary["selection"] = {"criteria": selection.describe(), "rule": selection.text(), "selected_tasks": len(rows),
                                "prepared": {b: str(p) for b, p in prepared.items()}, "file": str(path)}

    timings: dict[str, float] = {}
    plots: list[Path] = []
    if opts["plots"]:
        from gym.metrics import report

        start = time.perf_counter()
        plots.append(report.plot_pass_rate_hist(profile, labels, out_dir / "pass_rate_hist.png"))
        plots.append(report.plot_pass_at_k(groups, out_dir / "pass_at_k.png"))
        files.update(pass_rate_hist=str(plots[0]), pass_at_k=str(plots[1]))
        timings["plots_s"] = round(time.perf_counter() - start, 3)
    if opts["report"]:
        from gym.metrics import report

        start = time.perf_counter()
        picks = reward_profiles.sample_picks(rollouts.frame, profile, opts["samples_per_bucket"]) \
            if opts["samples_per_bucket"] else profile.iloc[0:0]
        raws = rollouts.raw_rows(picks) if len(picks) else []
        samples = list(zip(picks.to_dict("records"), raws))
        files["report"] = str(out_dir / "report.html")
        report.build_report(summary, profile, samples, plots, out_dir / "report.html")
        timings["report_s"] = round(time.perf_counter() - start, 3)
    summary["timings"] = timings
    write_json_atomic(out_dir / "profile_summary.json", summary)
    files["profile_summary"] = str(out_dir / "profile_summary.json")
    print(summary_text(summary), flush=True)
    return {"tasks": int(len(profile)), "completion_pct": total["completion_pct"],
            "selected": summary["selection"]["selected_tasks"] if summary["selection"] else None, "files": files}


def summary_text(summary: dict[str, Any]) -> str:
    from gym.rollouts.row import UNSCORED
    from gym.metrics.table import display_name, fmt_ci, format_table

    buckets = list(summary["overall"]["buckets"])
    rows = [[label, display_name(g["model"]), g["tasks"], g["complete_tasks"], fmt_ci(g["pass@1"]),
             *(g["buckets"].get(b, 0) for b in buckets)] for label, g in summary["benchmarks"].items()]
    total = summary["completion"]["total"]
    lines = [format_table(["benchmark", "model", "tasks", "complete", "pass@1 [95% CI]", *buckets], rows),
             f"completion: {total['completed_rollouts']}/{total['expected_rollouts']} rollouts "
             f"({total['completion_pct']:.2f}%); tasks: {total['tasks']} total, {total['complete_tasks']} complete, "
             f"{total['partial_tasks']} partial, {total['missing_tasks']} without scored rollouts (dropped)"]
    unscored = {status: sum((g.get("counts") or {}).get(status, 0) for g in summary["completion"]["groups"])
                for status in UNSCORED}
    if any(unscored.values()):
        lines.append("left out of every score: " + ", ".join(f"{n} {status}" for status, n in unscored.items()))
    if summary["selection"]:
        lines.append(f"selected: {summary['selection']['selected_tasks']} task(s) -> {summary['selection']['file']}")
    lines.extend(f"{name}: {path}" for name, path in summary["files"].items())
    return "\n".join(lines)
