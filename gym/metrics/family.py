"""Family-level metrics that are not means of per-rollout rewards (added by task=aggregate).

Which family a benchmark's rollouts belong to is read from their verifier details (`details.family`,
set by the pairwise, label, translation, long_context and sql verifiers), so user benchmarks built on
these families get the same numbers. Each entry of metrics.json gains a `family_metrics` object:

* pairwise: `win_rate` (percent; ties count half, both judge orders) with a 95% bootstrap CI over
  tasks (2,000 resamples, seed 0), the same per `category`, the share of wins / ties / losses, the
  label distribution of each order and the number of games without a valid label. The reference
  reports no style- or length-controlled win rate, so none is computed here.
* label: accuracy plus, for Yes/No verdicts, precision / recall / F1 of "Yes" pooled over rollouts;
  for 4-way grades, the MAE in IMO points (7/6/1/0) over rollouts with a parsed grade, its count,
  and the Pearson correlation between predicted and gold points.
* translation: corpus BLEU and chrF per language pair, computed per rollout index and then averaged
  (with the population standard deviation across rollout indices, as the reference reports it), and
  the mean over pairs (`xx->xx`). Only `ok` rollouts enter the corpora (a refused request has no text).
  A corpus score is computed from the sum of the segments' statistics the verifier recorded
  (`details.stats`), which is what sacrebleu's corpus_bleu / corpus_chrf compute after tokenizing every
  text again; rollouts without them (older files) are scored from their texts.
* long_context: pass@1 per prompt-size bucket (estimated tokens = characters / 4, buckets up to 4k,
  8k, ..., 1M), each with its 95% CI, task count and the number of `model_error` rollouts (context
  refusals); buckets come from the rollout's own prompt, so refusals are placed too.
* sql: counts of failure kinds (no_sql, error, timeout, row_cap, mismatch) and matches.
* tool_call: per-category accuracy, BFCL's summary figures and the tool-call trouble counts
  (gym.metrics.tool_calls).
* ioi: the contest total (per subtask the best points over its rollouts, summed: the reference's
  total_score), its maximum, the expected total of one attempt, and the same per problem and subtask.
* iheval: IHEval's task-macro scores per setting category and its headline result_score
  (gym.metrics.hierarchy).
* judge_panel (judges=[...]): the judges' agreement, Cohen's κ per pair and Krippendorff's α, and the
  items they disagree on (gym.metrics.agreement).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any, Callable

from gym.core.images import content_text
from gym.metrics.estimators import mean_ci

from gym.rollouts.row import SCORED

if TYPE_CHECKING:  # pragma: no cover
    from gym.rollouts.load import RolloutSet

BOOTSTRAP_SAMPLES = 2000
BUCKETS = ((4_000, "<=4k"), (8_000, "<=8k"), (16_000, "<=16k"), (32_000, "<=32k"), (64_000, "<=64k"),
           (128_000, "<=128k"), (256_000, "<=256k"), (512_000, "<=512k"), (1_000_000, "<=1M"))


def bootstrap_ci(values: list[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict[str, float | None]:
    """{"value", "ci_low", "ci_high"} in percent: the mean of per-task values in [0, 1], percentile bootstrap.

    A resample of T tasks is drawn as multinomial counts over the distinct per-task values, which has the
    same distribution as drawing T tasks with replacement and costs O(samples x distinct values)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return {"value": None, "ci_low": None, "ci_high": None}
    mean = float(arr.mean())
    if arr.size < 2:
        return {"value": round(100 * mean, 4), "ci_low": None, "ci_high": None}
    distinct, counts = np.unique(arr, return_counts=True)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(arr.size, counts / arr.size, size=samples)
    means = draws @ distinct / arr.size
    low, high = np.percentile(means, [2.5, 97.5])
    return {"value": round(100 * mean, 4), "ci_low": round(100 * float(low), 4), "ci_high": round(100 * float(high), 4)}


def _per_task(rows: list[dict], key: Callable[[dict], Any] = lambda r: None) -> dict[Any, list[float]]:
    """{group: [per-task mean reward]} over scored rows (model_error scores 0)."""
    import pandas as pd

    if not rows:
        return {}
    groups = (key(r) for r in rows)
    frame = pd.DataFrame({"group": ["" if g is None else str(g) for g in groups],
                          "task": [r["task_index"] for r in rows],
                          "reward": [float(r.get("reward") or 0.0) for r in rows]})
    means = frame.groupby(["group", "task"], sort=True)["reward"].mean()
    return {(None if group == "" else group): list(values.to_numpy())
            for group, values in means.groupby(level="group", sort=True)}


def _details(row: dict) -> dict:
    return row.get("verifier") if isinstance(row.get("verifier"), dict) else {}


def pairwise(rows: list[dict]) -> dict[str, Any]:
    ok = [r for r in rows if r["status"] == "ok"]
    outcomes = Counter(_details(r).get("outcome") for r in ok)
    first = Counter(_details(r).get("label_model_first") or "invalid" for r in ok if _details(r).get("games"))
    second = Counter(_details(r).get("label_model_second") or "invalid" for r in ok if _details(r).get("games"))
    by_category = _per_task(rows, lambda r: _details(r).get("category") or "-")
    return {
        "win_rate": bootstrap_ci(_per_task(rows)[None]),
        "win_rate_by_category": {str(c): {**bootstrap_ci(v), "tasks": len(v)} for c, v in sorted(by_category.items())},
        "outcomes": {name: outcomes.get(name, 0) for name in ("win", "tie", "loss")},
        "labels_model_as_a": dict(first), "labels_model_as_b": dict(second),
        "invalid_games": sum(2 - int(_details(r).get("valid_games", 2)) for r in ok if _details(r).get("games")),
        "method": "ties count half; both judge orders; 95% percentile bootstrap over tasks",
    }


def _pearson(pairs: list[tuple[float, float]]) -> float | None:
    if len(pairs) < 2:
        return None
    xs, ys = zip(*pairs)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return round(sum((x - mx) * (y - my) for x, y in pairs) / math.sqrt(sxx * syy), 4)


def label(rows: list[dict]) -> dict[str, Any]:
    ok = [r for r in rows if r["status"] == "ok"]
    out: dict[str, Any] = {"accuracy": mean_ci(_per_task(rows)[None])}
    if any(_details(r).get("mode") == "grade" for r in ok):
        gaps = [float(_details(r)["points_gap"]) for r in ok if _details(r).get("points_gap") is not None]
        points = [tuple(_details(r)["points"]) for r in ok if _details(r).get("points")]
        out.update(mae=round(sum(gaps) / len(gaps), 4) if gaps else None, mae_count=len(gaps),
                   pearson_points=_pearson(points), unit="IMO points (correct 7, almost 6, partial 1, incorrect 0)")
        return out
    counts = Counter()
    for r in rows:
        predicted = _details(r).get("predicted") if r["status"] == "ok" else None
        gold = _details(r).get("gold")
        counts["tp"] += predicted == "Yes" and gold == "Yes"
        counts["fp"] += predicted == "Yes" and gold == "No"
        counts["fn"] += predicted != "Yes" and gold == "Yes"
        counts["tn"] += predicted == "No" and gold == "No"
    precision = counts["tp"] / (counts["tp"] + counts["fp"]) if counts["tp"] + counts["fp"] else None
    recall = counts["tp"] / (counts["tp"] + counts["fn"]) if counts["tp"] + counts["fn"] else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if precision is not None
                                                                                   and recall is not None else None)
    pct = (lambda v: None if v is None else round(100 * v, 4))
    out.update(precision=pct(precision), recall=pct(recall), f1=pct(f1), confusion=dict(counts),
               positive_label="Yes")
    return out


def _mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = sum(values) / len(values)
    return round(mean, 4), round(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)), 4)


def translation(rows: list[dict]) -> dict[str, Any]:
    from gym.verifiers.translation import corpus_scores, corpus_scores_from_stats

    runs: dict[str, dict[int, list[tuple[int, str, str, Any]]]] = defaultdict(lambda: defaultdict(list))
    tokenize: dict[str, str] = {}
    for r in rows:
        d = _details(r)
        if r["status"] != "ok" or "pair" not in d:
            continue
        runs[d["pair"]][int(r["rollout_index"])].append((int(r["task_index"]), d.get("hypothesis") or "",
                                                        d.get("reference") or "", d.get("stats")))
        tokenize[d["pair"]] = d.get("tokenize") or "13a"
    pairs: dict[str, Any] = {}
    per_run: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for pair, by_run in sorted(runs.items()):
        bleus, chrfs = [], []
        for index, segments in sorted(by_run.items()):
            if all(isinstance(s[3], dict) for s in segments):  # the verifier's statistics: a sum, no re-tokenizing
                bleu, chrf = corpus_scores_from_stats([s[3] for s in segments])
            else:  # rollouts from before the statistics were recorded
                segments.sort(key=lambda s: s[0])
                bleu, chrf = corpus_scores([s[1] for s in segments], [s[2] for s in segments], tokenize[pair])
            bleus.append(bleu)
            chrfs.append(chrf)
            per_run[index].append((bleu, chrf))
        (bleu, bleu_sd), (chrf, chrf_sd) = _mean_std(bleus), _mean_std(chrfs)
        pairs[pair] = {"bleu": bleu, "bleu_std_across_runs": bleu_sd, "chrf": chrf, "chrf_std_across_runs": chrf_sd,
                       "runs": len(bleus), "segments": len(next(iter(by_run.values()))), "tokenize": tokenize[pair]}
    overall_bleu = [sum(b for b, _ in v) / len(v) for v in per_run.values() if len(v) == len(pairs)]
    overall_chrf = [sum(c for _, c in v) / len(v) for v in per_run.values() if len(v) == len(pairs)]
    (bleu, bleu_sd), (chrf, chrf_sd) = _mean_std(overall_bleu), _mean_std(overall_chrf)
    return {"xx->xx": {"bleu": bleu, "bleu_std_across_runs": bleu_sd, "chrf": chrf, "chrf_std_across_runs": chrf_sd},
            "pairs": pairs, "scale": "0-100, corpus level (sacrebleu)"}


def prompt_bucket(row: dict) -> str:
    prompt = row.get("prompt")
    messages = prompt if isinstance(prompt, list) else [{"content": prompt}]
    chars = sum(len(content_text(m.get("content"))) if isinstance(m, dict) else len(str(m)) for m in messages)
    tokens = chars / 4
    return next((name for edge, name in BUCKETS if tokens <= edge), ">1M")


def long_context(rows: list[dict]) -> dict[str, Any]:
    order = {name: i for i, (_, name) in enumerate(BUCKETS)}
    by_bucket = _per_task(rows, prompt_bucket)
    refusals = Counter(prompt_bucket(r) for r in rows if r["status"] == "model_error")
    buckets = {}
    for name in sorted(by_bucket, key=lambda n: order.get(n, len(order))):
        buckets[name] = {**mean_ci(by_bucket[name]), "tasks": len(by_bucket[name]), "model_error": refusals.get(name, 0)}
    return {"by_prompt_size": buckets, "bucket_rule": "estimated tokens = prompt characters / 4"}


def sql(rows: list[dict]) -> dict[str, Any]:
    failures = Counter(_details(r).get("failure") or "match" for r in rows if r["status"] == "ok")
    return {"outcomes": dict(sorted(failures.items()))}


def tool_call(rows: list[dict]) -> dict[str, Any]:
    from gym.metrics.tool_calls import tool_call as metrics

    return metrics(rows, _per_task, bootstrap_ci)


def episode(rows: list[dict]) -> dict[str, Any]:
    from gym.episodes.metrics import episode_metrics

    return episode_metrics(rows, mean_ci)


def ioi(rows: list[dict]) -> dict[str, Any]:
    """The contest total as the reference reports it: per subtask the best points over its rollouts, summed
    per problem and over problems; beside it the expected total of one attempt (mean points per subtask)."""
    best: dict[str, dict[str, float]] = defaultdict(dict)
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    caps: dict[tuple[str, str], float] = {}
    for row in rows:
        details = _details(row)
        problem, subtask = str(details.get("problem_id") or ""), str(details.get("subtask") or "")
        if not problem:
            continue
        score = float(details.get("points") or 0.0) if row["status"] == "ok" else 0.0
        best[problem][subtask] = max(best[problem].get(subtask, 0.0), score)
        points[(problem, subtask)].append(score)
        caps[(problem, subtask)] = float(details.get("max_points") or 0.0)
    problems = {problem: {"score": round(sum(subs.values()), 4),
                          "max_score": round(sum(caps[(problem, st)] for st in subs), 4),
                          "subtasks": {st: {"score": value, "max_score": caps[(problem, st)]}
                                       for st, value in sorted(subs.items())}}
                for problem, subs in sorted(best.items())}
    return {"total_score": round(sum(p["score"] for p in problems.values()), 4),
            "max_score": round(sum(caps.values()), 4),
            "mean_total_score": round(sum(sum(v) / len(v) for v in points.values()), 4), "problems": problems}


def iheval(rows: list[dict]) -> dict[str, Any]:
    from gym.metrics.hierarchy import iheval as metrics

    return metrics(rows)


def judge_panel(rows: list[dict]) -> dict[str, Any]:
    from gym.metrics.agreement import judge_panel as metrics

    return metrics(rows)


FAMILIES: dict[str, Callable[[list[dict]], dict[str, Any]]] = {
    "pairwise": pairwise, "label": label, "translation": translation, "long_context": long_context, "sql": sql,
    "tool_call": tool_call, "episode": episode, "ioi": ioi, "iheval": iheval, "judge_panel": judge_panel}


def add_family_metrics(metrics: dict[str, Any], rollouts: "RolloutSet") -> None:
    """Add `family_metrics` to each metrics.json entry whose rollouts come from a family listed above."""
    frame = rollouts.frame
    if frame.empty or not len(metrics.get("benchmarks", {})):
        return
    import numpy as np

    scored, places = frame["status"].isin(SCORED).to_numpy(), ["source", "ordinal", "key"]  # what raw_rows reads
    is_ok = (frame["status"] == "ok").to_numpy()
    for entry in metrics["benchmarks"].values():
        mask = scored & (frame["benchmark"] == entry["benchmark"]).to_numpy() & (frame["model"] == entry["model"]).to_numpy()
        ok = np.flatnonzero(mask & is_ok)
        if not len(ok):
            continue
        first_ok = ok[0]  # the earliest ok row by file and line: load_rollouts keeps rows in that order
        first = rollouts.raw_rows(frame.iloc[[first_ok]][places])[0] or {}
        family = _details(first).get("family")
        if family not in FAMILIES:
            continue
        rows = [row for row in rollouts.raw_rows(frame.loc[mask, places]) if row is not None]
        entry["family_metrics"] = {"family": family, **FAMILIES[family](rows)}
        if family == "episode":  # pass^k is a headline beside pass@k, not a detail
            entry["pass^k"] = entry["family_metrics"].pop("pass^k")
            entry["pass^k_method"] = entry["family_metrics"].pop("pass^k_method", None)
    _episode_macro(metrics)


def _episode_macro(metrics: dict[str, Any]) -> None:
    """Over several episode benchmarks (one per τ² domain), their pass^k macro average."""
    from gym.episodes.metrics import macro_average

    macro = macro_average([e for e in metrics["benchmarks"].values() if "pass^k" in e])
    if macro is not None:
        metrics["pass^k_macro_average"] = macro


def _ci(metric: dict | None) -> str:
    if not metric or metric.get("value") is None:
        return "-"
    if metric.get("ci_low") is None:
        return f"{metric['value']:.2f}"
    return f"{metric['value']:.2f} [{metric['ci_low']:.2f}, {metric['ci_high']:.2f}]"


def family_lines(metrics: dict[str, Any]) -> str:
    """One line per benchmark with family metrics, for the aggregate table."""
    lines = []
    for label_, entry in metrics["benchmarks"].items():
        fm = entry.get("family_metrics")
        if not fm:
            continue
        family = fm["family"]
        if family == "pairwise":
            text = f"win rate vs baseline {_ci(fm['win_rate'])} (ties half, bootstrap CI)"
        elif family == "label" and "mae" in fm:
            text = f"MAE {fm['mae']} points over {fm['mae_count']} grades, pearson {fm['pearson_points']}"
        elif family == "label":
            text = f"precision {fm['precision']}, recall {fm['recall']}, F1 {fm['f1']} (positive: Yes)"
        elif family == "translation":
            text = f"corpus BLEU {fm['xx->xx']['bleu']}, chrF {fm['xx->xx']['chrf']} (mean over {len(fm['pairs'])} pair(s))"
        elif family == "long_context":
            text = "by prompt size: " + ", ".join(f"{name} {_ci(b)} (n={b['tasks']}, model_error {b['model_error']})"
                                                  for name, b in fm["by_prompt_size"].items())
        elif family == "tool_call":
            from gym.metrics.tool_calls import summary_line

            text = summary_line(fm)
        elif family == "episode":
            text = episode_text(entry)
        elif family == "ioi":
            text = (f"contest total {fm['total_score']:g} of {fm['max_score']:g} points (best rollout per subtask), "
                    f"{fm['mean_total_score']:g} expected from one attempt")
        elif family == "iheval":
            from gym.metrics.hierarchy import summary_line as iheval_line

            text = iheval_line(fm)
        elif family == "judge_panel":
            from gym.metrics.agreement import panel_line

            text = panel_line(fm)
        else:
            text = "outcomes: " + ", ".join(f"{k} {v}" for k, v in fm["outcomes"].items())
        lines.append(f"{label_}: {text}\n")
    macro = metrics.get("pass^k_macro_average")
    if macro:
        lines.append(f"pass^k macro average over {macro['domains']} episode benchmarks: "
                     + ", ".join(f"pass^{k} {v:.2f}" for k, v in macro["pass^k"].items()) + "\n")
    return "".join(lines)


def _percent(value: float | None) -> str:
    """A rate for the family line: two decimals, or "n/a" where no episode had the check."""
    return "n/a" if value is None else f"{value:.2f}%"


def episode_text(entry: dict[str, Any]) -> str:
    fm = entry["family_metrics"]
    per = fm["per_episode"]
    parts = [", ".join(f"pass^{k} {_ci(m)}" for k, m in (entry.get("pass^k") or {}).items()),
             "ended by " + ", ".join(f"{name} {t['percent']}%" for name, t in fm["terminations"].items())]
    if fm.get("db_match_rate") is not None or fm.get("communicate_rate") is not None:
        parts.append(f"DB match {_percent(fm['db_match_rate'])}, communicate {_percent(fm['communicate_rate'])}")
    if fm.get("bfcl"):
        parts.append(f"BFCL overall accuracy {fm['bfcl']['overall_accuracy']}% (mean of "
                     + ", ".join(f"{name} {value}%" for name, value in fm["bfcl"]["accuracy_by_category"].items()) + ")")
    if fm.get("scicode"):
        sc = fm["scicode"]
        parts.append(f"sub-step accuracy {sc['subtask_accuracy']}% ({sc['steps_passed']}/{sc['steps_total']} steps, "
                     f"pooled), main-problem accuracy {sc['problem_accuracy']}%")
    parts += [f"per episode: {per['steps']} steps, {per['tool_calls']} tool calls, {per['tool_errors']} tool errors",
              f"transfers {_percent(fm['transfer_rate'])}", f"user {', '.join(fm['user_models'])} ({fm['user_tokens']['total']} tokens)"]
    if fm.get("nl_assertions_skipped"):
        parts.append(f"NL assertions skipped in {fm['nl_assertions_skipped']} episodes (nl_assertions=skip)")
    return "; ".join(parts)
