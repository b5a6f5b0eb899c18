"""Agreement of several judges on the same items (judges=[...], family `judge_panel`).

* Cohen's κ for each pair of judges (statsmodels' cohens_kappa on their verdict table): agreement beyond
  what each judge's own verdict rates would give by chance; 1 = always agree, 0 = chance, < 0 = worse.
* Krippendorff's α over all judges, nominal verdicts (the `krippendorff` package): the same idea for any
  number of judges, with a small-sample correction; for two judges it is close to κ.
* Disagreements: the items whose judges did not all give the same verdict, listed (task, rollout,
  verdicts) so a person can read them in the viewer.

Only `ok` rollouts that every judge graded enter (a judge_error row is unscored and has no verdicts).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

SHOWN = 50  # disagreements listed in metrics.json


def cohen_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's κ of two judges' verdicts on the same items (None when undefined: one category only)."""
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    categories = sorted(set(first) | set(second))
    if len(categories) < 2:
        return None
    index = {name: i for i, name in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)))
    for a, b in zip(first, second):
        table[index[a], index[b]] += 1
    return round(float(cohens_kappa(table, return_results=False)), 4)


def krippendorff_alpha(ratings: list[list[str]]) -> float | None:
    """Krippendorff's α (nominal) of judges x items (None when every verdict is the same)."""
    import numpy as np
    import krippendorff

    categories = sorted({v for item in ratings for v in item})
    if len(categories) < 2:
        return None
    index = {name: i for i, name in enumerate(categories)}
    data = np.array([[index[v] for v in item] for item in ratings], dtype=float).T  # judges x items
    return round(float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")), 4)


def judge_panel(rows: list[dict]) -> dict[str, Any]:
    """The family metrics of a panel-judged benchmark."""
    items = []
    for row in rows:
        details = row.get("verifier") or {}
        votes = details.get("judges") if row.get("status") == "ok" else None
        if isinstance(votes, list) and votes:
            items.append((row, [str(v.get("verdict")) for v in votes], [str(v.get("model")) for v in votes]))
    if not items:
        return {"judges": [], "items": 0}
    width = max(len(verdicts) for _, verdicts, _ in items)
    items = [item for item in items if len(item[1]) == width]
    models = items[0][2]
    ratings = [verdicts for _, verdicts, _ in items]
    pairs = {f"{models[i]} vs {models[j]}" if models[i] != models[j] else f"judge {i} vs judge {j}":
             cohen_kappa([r[i] for r in ratings], [r[j] for r in ratings]) for i, j in combinations(range(width), 2)}
    split = [{"task_index": int(row["task_index"]), "rollout_index": int(row["rollout_index"]), "verdicts": verdicts}
             for row, verdicts, _ in items if len(set(verdicts)) > 1]
    return {"judges": models, "rule": (items[0][0].get("verifier") or {}).get("judges_rule"), "items": len(items),
            "agreement_percent": round(100.0 * (len(items) - len(split)) / len(items), 4),
            "cohen_kappa": pairs, "krippendorff_alpha": krippendorff_alpha(ratings),
            "disagreements": len(split), "disagreements_listed": split[:SHOWN],
            "method": "Cohen's kappa per pair (statsmodels), Krippendorff's alpha nominal over all judges (krippendorff)"}


def panel_line(fm: dict[str, Any]) -> str:
    """The aggregate table's line for a panel-judged benchmark."""
    if not fm.get("items"):
        return "judges: no item graded by every judge"
    kappas = ", ".join(f"{pair} {'-' if k is None else f'{k:.3f}'}" for pair, k in fm["cohen_kappa"].items())
    alpha = fm["krippendorff_alpha"]
    shown = ", ".join(f"{d['task_index']}/{d['rollout_index']}" for d in fm["disagreements_listed"][:10])
    return (f"{len(fm['judges'])} judges ({fm['rule']}): agree on {fm['agreement_percent']:.1f}% of {fm['items']} items; "
            f"Cohen's kappa {kappas}; Krippendorff's alpha {'-' if alpha is None else f'{alpha:.3f}'}; "
            f"{fm['disagreements']} disagreement(s)" + (f" (task/rollout {shown}{' ...' if fm['disagreements'] > 10 else ''})"
                                                      if shown else ""))
