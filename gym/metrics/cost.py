"""What a run cost: tokens per role and US dollars, per metrics.json entry (`cost`).

Tokens come from each row's usage per role (gym.rollouts.cost.role_usage: policy, judge, user simulator);
dollars from the rows' `cost_usd`, which collect writes when a price is set (model.price.*, judge.price.*,
user.price.*), so aggregate needs no price table. Rows are the frame's (after de-duplication): a resumed
or retried rollout is paid for once here, as it is kept once.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gym.rollouts.load import RolloutSet

_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens")
_MARKERS = (b'"cost_usd"', b'"judge_usage"', b'"user_usage"')
_FIRST_ROWS = 1000


def _has_side_usage(path: Path) -> bool:
    """Whether the file's first rows carry a cost or a judge's or user's usage (else its frame columns say all)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle):
            if number >= _FIRST_ROWS:
                return False
            if any(marker in raw for marker in _MARKERS):
                return True
    return False


def _fast(path: Path) -> dict[str, "np.ndarray"] | None:
    """Per line: cost_usd and the judge's and user's tokens, read by pyarrow with an explicit schema (None:
    use the slow path)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    from gym.core.io import complete_end, count_lines

    end, torn = complete_end(path)
    if torn or not end:
        return None
    usage = pa.struct([(name, pa.int64()) for name in _USAGE])
    schema = pa.schema([("cost_usd", pa.float64()), ("verifier", pa.struct([("judge_usage", usage)])),
                        ("episode", pa.struct([("user_usage", usage)]))])
    try:
        with pa.OSFile(str(path)) as source:
            table = pj.read_json(source, read_options=pj.ReadOptions(block_size=16 << 20),
                                 parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if table.num_rows != count_lines(path, end):
        return None

    def total(struct: Any) -> "np.ndarray":
        prompt, completion, whole = (pc.struct_field(struct, [i]) for i in range(3))
        summed = pc.add(pc.fill_null(prompt, 0), pc.fill_null(completion, 0))
        return pc.fill_null(pc.coalesce(whole, summed), 0).to_numpy(zero_copy_only=False).astype(float)

    return {"cost_usd": pc.fill_null(table.column("cost_usd"), float("nan")).to_numpy(zero_copy_only=False),
            "judge": total(pc.struct_field(table.column("verifier"), [0])),
            "user": total(pc.struct_field(table.column("episode"), [0]))}


def _slow(path: Path) -> dict[str, "np.ndarray"]:
    import numpy as np

    from gym.rollouts.cost import role_usage, tokens
    from gym.rollouts.files import rows_as_loaded

    out: dict[str, list] = {"cost_usd": [], "judge": [], "user": []}
    for row in rows_as_loaded(path):
        usage = role_usage(row)
        cost = row.get("cost_usd")
        out["cost_usd"].append(float(cost) if isinstance(cost, (int, float)) else np.nan)
        for role in ("judge", "user"):
            out[role].append(tokens(usage[role]) if role in usage else 0)
    return {name: np.asarray(values, dtype=float) for name, values in out.items()}


def frame_costs(rollouts: "RolloutSet") -> dict[str, "np.ndarray"]:
    """{cost_usd, policy, judge, user}: arrays aligned with rollouts.frame (NaN cost where a row has none). The
    policy's tokens are the frame's; files whose first rows carry no cost and no judge or user usage are not
    read again."""
    import numpy as np

    frame = rollouts.frame
    policy = np.nan_to_num(frame["prompt_tokens"].to_numpy(dtype=float)) + \
        np.nan_to_num(frame["completion_tokens"].to_numpy(dtype=float))
    out = {"cost_usd": np.full(len(frame), np.nan), "policy": policy, "judge": np.zeros(len(frame)),
           "user": np.zeros(len(frame))}
    sources, ordinals = frame["source"].to_numpy(), frame["ordinal"].to_numpy()
    for source, path in enumerate(rollouts.files):
        if not _has_side_usage(Path(path)):
            continue
        columns = _fast(Path(path))
        columns = columns if columns is not None else _slow(Path(path))
        mask = sources == source
        for name, values in columns.items():
            padded = np.append(values, np.nan if name == "cost_usd" else 0.0)  # an ordinal past the end reads nothing
            out[name][mask] = padded[np.minimum(ordinals[mask], len(values))]
    return out


def add_costs(metrics: dict[str, Any], rollouts: "RolloutSet") -> None:
    """Each entry's `cost`: tokens per role and, when the rows were priced, US dollars (total, per task)."""
    import numpy as np

    if not len(rollouts.frame):
        return
    costs = frame_costs(rollouts)
    frame = rollouts.frame
    models = frame.groupby("benchmark", observed=True)["model"].nunique()
    for (bench, model), rows in frame.groupby(["benchmark", "model"], observed=True, sort=True).indices.items():
        label = str(bench) if models[bench] <= 1 else f"{bench}@{model}"
        if label not in metrics["benchmarks"]:
            continue
        entry = metrics["benchmarks"][label]
        cost: dict[str, Any] = {"tokens": {role: int(np.nansum(costs[role][rows])) for role in ("policy", "judge", "user")}}
        priced = costs["cost_usd"][rows]
        if not np.isnan(priced).all():
            usd = float(np.nansum(priced))
            cost.update(usd=round(usd, 6), usd_per_task=round(usd / max(1, entry["tasks"]), 6),
                        priced_rollouts=int((~np.isnan(priced)).sum()))
        entry["cost"] = cost


def cost_line(label: str, cost: dict[str, Any]) -> str:
    """One line under the table: tokens per role, and dollars when priced."""
    roles = ", ".join(f"{role} {count:,}" for role, count in cost["tokens"].items() if count)
    money = f"; ${cost['usd']:.4f} (${cost['usd_per_task']:.5f} a task)" if "usd" in cost else ""
    return f"{label}: tokens {roles or '0'}{money}\n"
