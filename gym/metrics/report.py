"""PNG plots (matplotlib, Agg backend) and a one-file HTML report for a reward profile.

The report embeds its plots as base64 and carries its own CSS, so it opens from disk with no server;
every piece of text taken from data (prompts, responses, answers, names) is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from gym.core.images import content_text
from gym.rollouts.row import UNSCORED

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

MAX_TASK_ROWS = 2000  # per-task rows shown in the HTML (the JSONL has them all)
MAX_TEXT = 4000  # characters of a prompt or response shown per sample
COLLAPSE_TASK_ROWS = 100  # a longer task table starts folded
# Click a column header of a sortable table to sort by it (numbers as numbers); click again to reverse.
_SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.style.cursor = 'pointer'; th.title = 'click to sort';
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0], rows = Array.from(body.rows);
    var dir = th.dataset.dir === 'asc' ? -1 : 1; th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    var key = function (r) { var t = r.cells[th.cellIndex].textContent, n = parseFloat(t); return isNaN(n) ? t : n; };
    rows.sort(function (a, b) { var x = key(a), y = key(b);
      return (typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1)) * dir; });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""


def _pyplot():
    # matplotlib's first run builds its font cache and says so ("generated new fontManager", "building the
    # font cache"): housekeeping of the plotting library, not something a run's reader needs
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_pass_rate_hist(profile: "pd.DataFrame", labels: dict[tuple[str, str], str], path: Path) -> Path:
    """Histogram of per-task pass rates (percent), one outline per benchmark/model."""
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    bins = np.linspace(0, 100, 21)
    for (bench, model), part in profile.groupby(["benchmark", "model"], sort=True):
        ax.hist(part["pass_rate"].to_numpy(float), bins=bins, histtype="step", linewidth=1.6,
                label=f"{labels.get((bench, model), bench)} ({len(part)} tasks)")
    ax.set_xlabel("per-task pass rate (%)")
    ax.set_ylabel("tasks")
    ax.set_xlim(0, 100)
    ax.set_title("Per-task pass rate")
    if len(labels) > 0:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_pass_at_k(groups: dict[str, dict[str, Any]], path: Path) -> Path:
    """pass@k against k (log2 axis) with its 95% CI band, one line per benchmark/model."""
    plt = _pyplot()
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    all_ks: set[int] = set()
    for label, summary in groups.items():
        points = sorted((int(k), v) for k, v in summary["pass@k"].items() if v["value"] is not None)
        if not points:
            continue
        ks = [k for k, _ in points]
        all_ks.update(ks)
        ax.plot(ks, [v["value"] for _, v in points], marker="o", label=label)
        if all(v["ci_low"] is not None for _, v in points):
            ax.fill_between(ks, [v["ci_low"] for _, v in points], [v["ci_high"] for _, v in points], alpha=0.2)
    ax.set_xscale("log", base=2)
    if all_ks:
        ax.set_xticks(sorted(all_ks))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k (%)")
    ax.set_ylim(0, 100)
    ax.set_title("pass@k (95% CI over tasks)")
    if groups:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td.l,th.l{text-align:left}img{max-width:100%;border:1px solid #eee;margin:.5em 0}
pre{white-space:pre-wrap;background:#f8f8f8;padding:.6em;border:1px solid #eee;font-size:.8em;
  max-height:24em;overflow:auto}
.sample{border-left:4px solid #999;padding-left:1em;margin:1em 0}.note{color:#666;font-size:.85em}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    try:
        if value != value:  # NaN
            return "-"
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return _e(value)


def _ci(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "-"
    if metric.get("ci_low") is None:
        return _num(metric["value"])
    return f"{_num(metric['value'])} [{_num(metric['ci_low'])}, {_num(metric['ci_high'])}]"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 2, sortable: bool = False) -> str:
    """Cells must already be escaped; the first `left` columns are left-aligned."""
    head = "".join(f'<th class="l">{h}</th>' if i < left else f"<th>{h}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td class="l">{c}</td>' if i < left else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    kind = " class='sortable'" if sortable else ""
    return f"<table{kind}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def report_title(summary: dict[str, Any]) -> str:
    """'<benchmarks> · <models>: gym reward profile', naming at most three of each."""
    groups = summary.get("completion", {}).get("groups") or []

    def names(key: str) -> str:
        found = list(dict.fromkeys(str(g.get(key)) for g in groups if g.get(key) is not None))
        return ", ".join(found[:3]) + (f" +{len(found) - 3} more" if len(found) > 3 else "")

    what = " · ".join(part for part in (names("benchmark"), names("model")) if part)
    return f"{what}: gym reward profile" if what else "gym reward profile"


def _image(path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{_e(Path(path).stem)}" src="data:image/png;base64,{data}">'


def _prompt_text(row: dict[str, Any]) -> str:
    prompt = row.get("prompt")
    if isinstance(prompt, list):
        parts = [f"[{m.get('role', '?')}] {content_text(m.get('content', ''))}" for m in prompt if isinstance(m, dict)]
        return "\n\n".join(parts)
    if isinstance(prompt, str):
        return prompt
    return str(row.get("question") or "")


def _response_text(row: dict[str, Any]) -> str:
    response = row.get("response")
    if isinstance(response, dict):  # NeMo Gym rows carry a Responses API object
        texts = []
        for item in response.get("output") or []:
            for content in (item.get("content") or []) if isinstance(item, dict) else []:
                if isinstance(content, dict) and content.get("text"):
                    texts.append(str(content["text"]))
        return "\n".join(texts)
    return "" if response is None else str(response)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n... [{len(text) - MAX_TEXT} more characters]"


def _adaptive_note(buckets: list[str]) -> str:
    if not {"hard_or_unsolved", "easy_or_solved", "undecided"} & set(buckets):
        return ""
    return (" Tasks of an adaptive run carry the bucket its stopping rule decided, with the rule's edges: "
            "hard_or_unsolved and easy_or_solved where it does not tell unsolved from hard or solved from easy "
            "(adaptive.split_extremes=false), undecided where it had not stopped yet.")


def build_report(summary: dict[str, Any], profile: "pd.DataFrame", samples: list[tuple[dict, dict | None]],
                 plots: Sequence[Path], path: Path) -> Path:
    """Write the self-contained report.html; `samples` pairs a pick (bucket, task, ...) with its raw row."""
    from gym.core.io import write_text_atomic

    title = _e(report_title(summary))
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
           f"<style>{_CSS}</style></head><body>",
           f"<h1>{title}</h1>",
           f"<p class='note'>Generated {_e(datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))} from "
           f"{len(summary['inputs']['files'])} rollout file(s). Scale: percent (0-100); pass rate = mean reward "
           f"of a task's scored rollouts; CI: {_e(summary['ci_method'])}.</p>"]
    files = summary["inputs"]["files"]
    out.append("<p class='note'>" + "<br>".join(_e(f) for f in files[:20]) +
               (f"<br>... and {len(files) - 20} more" if len(files) > 20 else "") + "</p>")

    out.append("<h2>Completion</h2>")
    rows = [[_e(c["benchmark"]), _e(c["model"]), _e(c["expected_repeats"]),
             f"{c['completed_rollouts']}/{c['expected_rollouts']}", _num(c["completion_pct"]), _e(c["tasks"]),
             _e(c["complete_tasks"]), _e(c["partial_tasks"]), _e(c["missing_tasks"]),
             *(_e((c.get("counts") or {}).get(status, 0)) for status in UNSCORED)]
            for c in summary["completion"]["groups"]]
    out.append(_table(["benchmark", "model", "expected repeats", "rollouts", "completion %", "tasks", "complete",
                       "partial", "missing", *(status.replace("_", " ") + "s" for status in UNSCORED)], rows))

    out.append("<h2>Metrics</h2>")
    buckets = list(summary["overall"]["buckets"])
    rows = []
    for label, g in summary["benchmarks"].items():
        top_k = max(g["pass@k"], key=int) if g["pass@k"] else None
        hat = g.get("pass^k") or {}
        rows.append([_e(label), _e(g["tasks"]), _ci(g["pass@1"]),
                     f"pass@{_e(top_k)} {_ci(g['pass@k'][top_k])}" if top_k else "-",
                     f"pass^{_e(top_k)} {_ci(hat[top_k])}" if top_k in hat else "-",
                     _num(g["pass_rate"]["median"]), _num(g["pass_rate"]["std"]),
                     *(_e(g["buckets"].get(b, 0)) for b in buckets), _num(g["tokens"]["completion_mean"], 1)])
    out.append(_table(["benchmark", "tasks", "pass@1 [95% CI]", "pass@k max", "pass^k (all k right)", "median pass rate",
                       "std pass rate", *buckets, "completion tokens"], rows, left=1))
    edges = summary["bucket_edges"]
    out.append(f"<p class='note'>Buckets: unsolved = 0; hard = (0, {edges['hard_max']}]; medium = "
               f"({edges['hard_max']}, {edges['easy_min']}); easy = [{edges['easy_min']}, 1); solved = 1 "
               f"(fractions of 1).{_adaptive_note(buckets)}</p>")
    if summary.get("selection"):
        sel = summary["selection"]
        out.append(f"<p>Selected {_e(sel['selected_tasks'])} task(s) with {_e(sel['rule'])} "
                   f"-> {_e(sel.get('file'))}</p>")

    from gym.metrics.subsets import html_section

    out.append(html_section(summary.get("subsets") or {}, _table, _e, _ci))
    out.append("<h2>Plots</h2>" + "".join(_image(p) for p in plots if Path(p).is_file()))

    out.append("<h2>Tasks</h2>")
    pass_cols = sorted((c for c in profile.columns if c.startswith("pass@")), key=lambda c: int(c[5:]))
    top = pass_cols[-1] if pass_cols else None
    shown = profile.sort_values(["benchmark", "model", "task_index"]).head(MAX_TASK_ROWS)
    rows = [[_e(r["benchmark"]), _e(r["model"]), _e(r["task_index"]), f"{r['rollouts']}/{r['expected_rollouts']}",
             _num(r["pass_rate"]), _num(r["reward_std"], 3), _num(r[top]) if top else "-",
             _num(r["completion_tokens_mean"], 1), _e(r["bucket"])] for r in shown.to_dict("records")]
    table = _table(["benchmark", "model", "task", "rollouts", "pass rate", "reward std",
                    _e(top or "pass@k"), "completion tokens", "bucket"], rows, sortable=True)
    if len(rows) > COLLAPSE_TASK_ROWS:
        table = f"<details><summary>{len(rows)} tasks (click to show; click a header to sort)</summary>{table}</details>"
    out.append(table)
    if len(profile) > MAX_TASK_ROWS:
        out.append(f"<p class='note'>First {MAX_TASK_ROWS} of {len(profile)} tasks; all are in "
                   f"reward_profile.jsonl.</p>")

    out.append("<h2>Sample responses per bucket</h2>")
    if not samples:
        out.append("<p class='note'>No samples.</p>")
    for pick, raw in samples:
        out.append(f"<div class='sample'><b>{_e(pick['bucket'])}</b> &middot; {_e(pick['benchmark'])} / "
                   f"{_e(pick['model'])} &middot; task {_e(pick['task_index'])}, rollout {_e(pick['rollout_index'])}"
                   f" &middot; reward {_num(pick['reward'], 3)} &middot; extracted {_e(pick['extracted_answer'])}")
        if raw is None:
            out.append("<p class='note'>(row no longer readable from its file)</p></div>")
            continue
        out.append(f" &middot; expected {_e(raw.get('expected_answer'))}")
        out.append(f"<pre>{_e(_clip(_prompt_text(raw)))}</pre><pre>{_e(_clip(_response_text(raw)))}</pre></div>")
    out.append(f"<script>{_SORT_JS}</script></body></html>")
    write_text_atomic(path, "\n".join(out))
    return path
