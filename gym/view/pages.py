"""The viewer's pages as HTML, the same for the server and the static export.

Every page lives at a fixed relative path (`index.html`, `run/<n>/index.html`, `run/<n>/tasks.html`,
`run/<n>/rollout/<benchmark>/<task>_<rollout>.html`, `compare/<a>-<b>.html`) and links to the others with
relative links, so a folder of exported pages opens from disk as the server's pages do. `live` is the
version of the rows a served page was made from (its script polls for a newer one); 0 on a static page.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

from jinja2 import Environment, FileSystemLoader, select_autoescape

from gym.core.errors import GymError
from gym.view import episode as episode_view
from gym.view.runs import Run, Runs
from gym.view.tasks_table import FACETS, rollout_path

TEMPLATES = Path(__file__).resolve().parent / "templates"
_env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{float(value):.2f}"


def _ci(metric: Any) -> str:
    if not isinstance(metric, dict) or metric.get("value") is None:
        return "–"
    low, high = metric.get("ci_low"), metric.get("ci_high")
    return f"{metric['value']:.2f} [{low:.2f}, {high:.2f}]" if low is not None and high is not None \
        else f"{metric['value']:.2f}"


def _value(value: Any, unit: str) -> str:
    """A metric's value as a page shows it: counts and whole numbers whole, percents and others to 2 decimals
    (as their CIs), values under 1 to 3 significant digits (a latency of 0.0668 s)."""
    if value is None:
        return "–"
    number = float(value)
    if unit == "count" or (unit != "percent" and number.is_integer()):
        return str(int(number))
    return f"{number:.2f}" if unit == "percent" or abs(number) >= 1 else f"{number:.3g}"


def metric_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """metrics.csv's rows for a page: each metric once (pass@1 is also the first of pass@k's), its value shown
    as `_value` says."""
    seen: set[str] = set()
    out = []
    for row in rows:
        if row["metric"] not in seen:
            seen.add(row["metric"])
            out.append({**row, "shown": _value(row["value"], row["unit"])})
    return out


def subset_metric_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-subset rows (`subset/<column>=<value>/<metric>`) with their column, value and metric apart."""
    out = []
    for row in metric_rows(rows):
        _, where, name = row["metric"].split("/", 2)
        column, _, value = where.partition("=")
        out.append({**row, "subset": column, "subset_value": value, "metric": name})
    return out


_env.filters.update(pct=_pct, ci=_ci, tojson_pretty=lambda v: json.dumps(v, indent=2, ensure_ascii=False, default=str))


def warm_up() -> None:
    """Compile every template now, so the first request does not pay for it."""
    for path in TEMPLATES.glob("*.html"):
        _env.get_template(path.name)


def render(template: str, root: str, **context: Any) -> str:
    return _env.get_template(template).render(root=root, **context)


# -- runs ------------------------------------------------------------------------------------------------
def run_rows(runs: Runs) -> list[dict[str, Any]]:
    rows = []
    for run in runs:
        figures, info = run.figures(), run.info()
        for label, entry in figures.metrics["benchmarks"].items():
            profiled = [p for p in figures.profile if (p["benchmark"], p["model"]) == (entry["benchmark"], entry["model"])]
            # pass^k as report.html gives it (from the reward profile, every benchmark), else the metrics'
            passhat = (profiled[0].get("pass^k") if profiled else None) or entry.get("pass^k") or {}
            top = max(passhat, key=int) if passhat else None
            rows.append({"run": run.number, "name": run.name, "href": f"run/{run.number}/index.html",
                         "benchmark": entry["benchmark"], "model": entry["model"],
                         "time": info.get("started_at") or info.get("finished_at") or "", "status": run.status(),
                         "tasks": entry["tasks"], "rollouts": entry["rollouts"], "pass1": _ci(entry["pass@1"]),
                         "passhat": f"pass^{top} {_ci(passhat[top])}" if top else "",
                         "infra": entry["counts"].get("infra_error", 0),
                         "verifier": entry["counts"].get("verifier_error", 0)})
        if not figures.metrics["benchmarks"]:
            rows.append({"run": run.number, "name": run.name, "href": f"run/{run.number}/index.html", "benchmark": "",
                         "model": "", "time": "", "status": run.status(), "tasks": 0, "rollouts": 0, "pass1": "–",
                         "passhat": "", "infra": 0, "verifier": 0})
    return rows


def compare_pairs(runs: Runs) -> list[tuple[int, int]]:
    """Pairs of runs that share a benchmark (what a compare page can pair)."""
    benchmarks = {run.number: set(run.index.labels("benchmark")) - {""} for run in runs}
    return [(a, b) for a, b in combinations(sorted(benchmarks), 2) if benchmarks[a] & benchmarks[b]]


def runs_page(runs: Runs, live: int) -> str:
    return render("runs.html", "", title="runs", rows=run_rows(runs), live=live,
                  pairs=[{"a": a, "b": b, "href": f"compare/{a}-{b}.html", "name_a": runs[a].name,
                          "name_b": runs[b].name} for a, b in compare_pairs(runs)])


# -- one run ---------------------------------------------------------------------------------------------
def run_page(run: Run, live: int) -> str:
    from gym.metrics.output import ci_footnote, csv_rows, error_bar_notes
    from gym.metrics.subsets import csv_rows as subset_rows

    figures = run.figures()
    metrics = figures.metrics
    noise = run.noise()
    entries = []
    for label, entry in metrics["benchmarks"].items():
        rows = metric_rows(csv_rows({"benchmarks": {label: entry}}))
        entries.append({"label": label, "entry": entry, "rows": rows,
                        "notes": error_bar_notes(label, entry).splitlines(),
                        "explain_avg": any("[avg-of-" in row["metric"] for row in rows),
                        "subsets": subset_metric_rows(subset_rows({"benchmarks": {label: entry}})),
                        "family": entry.get("family_metrics") or {},
                        "panel": judge_panel_view(entry["benchmark"], entry.get("family_metrics") or {}),
                        "noise": noise_view(noise, label),
                        "profile": [p for p in figures.profile if p["benchmark"] == entry["benchmark"]
                                    and p["model"] == entry["model"]]})
    return render("run.html", "../../", title=run.name, run=run, entries=entries, plots=run.plots(),
                  histogram=histogram(figures.pass_rates), status=run.status(), live=live,
                  notes=ci_footnote(metrics), inputs=metrics.get("inputs") or {})


def judge_panel_view(benchmark: str, family: dict[str, Any]) -> dict[str, Any] | None:
    """A judge panel's agreement and its listed disagreements as tables (None for other families): one row
    per split item, a column per judge, linked to the item's rollout page."""
    if family.get("family") != "judge_panel" or not family.get("items"):
        return None
    judges = family.get("judges") or []
    return {"judges": judges, "rule": family.get("rule"), "graded": family["items"],
            "agreement_percent": family.get("agreement_percent"), "alpha": family.get("krippendorff_alpha"),
            "kappas": list((family.get("cohen_kappa") or {}).items()), "disagreements": family.get("disagreements", 0),
            "rows": [{"task": d["task_index"], "rollout": d["rollout_index"], "verdicts": d["verdicts"],
                      "href": rollout_path(benchmark, d["task_index"], d["rollout_index"])}
                     for d in family.get("disagreements_listed") or []]}


def noise_view(noise: dict[str, Any], label: str) -> dict[str, Any] | None:
    """task=noise's figures for benchmark `label` (None when noise.json has none): the floor sentence and a
    row per part (every seed varying, then each held-side replay where noise.json has them): what varies,
    its within-task variance, flip rate, floor and share of the all-varying variance; the judge's part."""
    entry = (noise.get("benchmarks") or {}).get(label)
    if not isinstance(entry, dict):
        return None
    if "why_not" in entry:
        return {"why_not": entry["why_not"]}
    parts = (noise.get("parts") or {}).get(label) or {}
    rows = [{"part": "both", "what": "every seed varies (the run's repeats)", "variance": entry["within_task_variance"],
             "flip_rate": entry.get("flip_rate_percent"), "floor": entry["noise_floor"],
             "share": 1.0 if entry["within_task_variance"] else None}]
    rows += [{"part": side, "what": part["what"], "variance": part["within_task_variance"],
              "flip_rate": part.get("flip_rate_percent"), "floor": part["noise_floor"], "share": part.get("share_of_both")}
             for side, part in parts.items() if side != "judge"]
    return {"tasks": entry["tasks"], "repeats": entry["repeats_per_task"], "floor": entry["noise_floor"],
            "floor_one_repeat": entry["noise_floor_one_repeat"], "rows": rows,
            "judge": parts.get("judge") or entry.get("judges"), "method": noise.get("method") or entry.get("method")}


def histogram(rates: list[float], bins: int = 10) -> list[dict[str, Any]]:
    """Per-task pass rates (percent) in `bins` bars: [{label, count, height}] for the page's SVG."""
    counts = [0] * bins
    for rate in rates:
        counts[min(bins - 1, int(rate / (100 / bins)))] += 1
    top = max(counts) or 1
    return [{"label": f"{int(i * 100 / bins)}–{int((i + 1) * 100 / bins)}", "count": c, "height": round(100 * c / top)}
            for i, c in enumerate(counts)]


def tasks_page(run: Run, live: int) -> str:
    return render("tasks.html", "../../", title=f"{run.name}: tasks", run=run, facets=FACETS, live=live)


# -- one rollout -----------------------------------------------------------------------------------------
def find_rollout(run: Run, benchmark: str, task: int, rollout: int) -> int:
    number = run.index.find(task, rollout, benchmark)
    if number is None:
        raise GymError(f"run {run.number} has no rollout {rollout} of task {task} of {benchmark}")
    return number


def rollout_page(run: Run, number: int, task_row_of: Callable[[dict, Path], tuple[dict, str, str]] | None) -> str:
    """The page of live row `number`: an episode page for rows with a trajectory, else a rollout page."""
    row = run.index.row(number)
    benchmark, task, rollout = str(row["benchmark"]), int(row["task_index"]), int(row["rollout_index"])
    root = "../../../../"
    common = {"root": root, "run": run, "row": row, "line": run.index.line_of(number),
              "tasks_href": f"{root}run/{run.number}/tasks.html", "run_href": f"{root}run/{run.number}/index.html",
              "siblings": _siblings(run, benchmark, task), "extracted": episode_view.shown_answer(row),
              "verifier_json": json.dumps(row.get("verifier") or {}, indent=2, ensure_ascii=False, default=str)}
    if row.get("trajectory"):
        return _env.get_template("episode.html").render(
            title=f"{benchmark} task {task} #{rollout}", turns=episode_view.turns(row["trajectory"]),
            checks=episode_view.checks(row.get("verifier") or {}), counters=row.get("episode") or {},
            trial=episode_view.trial(row),
            diff=episode_view.database_diff(row, None if task_row_of is None else lambda r: task_row_of(r, run.path)), **common)
    messages = [{"role": m.get("role"), "content": episode_view.content_text(m.get("content"))}
                for m in row.get("prompt") or [] if isinstance(m, dict)]
    tool_calls = [{"name": c.get("name"), "arguments": episode_view.pretty(c.get("arguments"))}
                  for c in row.get("tool_calls") or [] if isinstance(c, dict)]
    return _env.get_template("rollout.html").render(title=f"{benchmark} task {task} #{rollout}", messages=messages,
                                                   tool_calls=tool_calls, **common)


def _siblings(run: Run, benchmark: str, task: int) -> list[dict[str, Any]]:
    """The task's other rollouts, for links between them."""
    import numpy as np

    index = run.index
    mask = (index.column("task_index") == task) & (index.column("benchmark") == index.codes["benchmark"].get(benchmark))
    out = []
    for number in np.flatnonzero(mask):
        rollout = int(index.column("rollout_index")[number])
        reward = index.column("reward")[number]
        out.append({"rollout": rollout, "href": rollout_path(benchmark, task, rollout).split("/")[-1],
                    "reward": None if reward != reward else float(reward)})
    return sorted(out, key=lambda s: s["rollout"])


# -- compare ---------------------------------------------------------------------------------------------
def compare_page(runs: Runs, a: int, b: int, cache: dict, target_delta: float | None = None,
                 served: bool = False) -> str:
    """B − A per shared benchmark, as `task=aggregate compare=[A,B]` prints it: the paired table, McNemar's
    test, the power statement (with `target_delta`, the served page's ?target_delta=, what detecting it
    takes; `served` pages carry the form that asks for it, a static export has no server to answer it)."""
    from gym.metrics.compare import compare
    from gym.metrics.paired import mcnemar_line, power_line

    run_a, run_b = runs[a], runs[b]
    key = (a, b, run_a.index.version, run_b.index.version, target_delta)
    if key not in cache:
        cache.clear()
        cache[key] = compare(str(run_a.path), str(run_b.path), target_delta=target_delta)
    result = cache[key]
    tests = {bench: {"mcnemar": mcnemar_line(entry["mcnemar"]) if entry.get("mcnemar") else None,
                     "power": power_line(bench, entry["power"]) if entry.get("power") else None}
             for bench, entry in result["benchmarks"].items()}
    flips = []
    for bench, entry in result["benchmarks"].items():
        for label, tasks in (("passed in A, fails in B", entry["flipped"]["solved_in_a_only"]),
                             ("fails in A, passes in B", entry["flipped"]["solved_in_b_only"])):
            flips.append({"benchmark": bench, "label": label, "tasks": [
                {"task": t, "a": f"../run/{a}/{rollout_path(bench, t, 0)}", "b": f"../run/{b}/{rollout_path(bench, t, 0)}"}
                for t in tasks]})
    return render("compare.html", "../", title=f"compare {run_a.name} and {run_b.name}", a=run_a, b=run_b,
                  result=result, flips=flips, tests=tests, target_delta=target_delta, served=served)
