"""Which cluster each rollout's task belongs to, for clustered standard errors (gym.metrics.intervals).

Tasks that share a passage (long-context and reading benchmarks), a repository (SWE-bench), a domain or
persona (τ²) or a document (RAG sets) are not independent draws: their interval must count clusters, not
tasks. The key comes from, in this order:

* `metrics.cluster_by=<row field>`: a column of the rows' `subsets` (`language`, or `subsets.language`)
  or any top-level scalar field of a rollout row (`expected_answer`, ...);
* the benchmark's own `cluster_by:` column, which collect copies into each rollout as `subsets.cluster`.

Without either, every task is its own cluster (the usual interval over tasks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError
from gym.metrics.subsets import CLUSTER, frame_subsets
from gym.rollouts.files import rows_as_loaded

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from gym.rollouts.load import RolloutSet


def _top_level(rollouts: "RolloutSet", field: str) -> "np.ndarray":
    """A top-level scalar field of every row, aligned with the frame (None where absent)."""
    import numpy as np

    frame = rollouts.frame
    out = np.full(len(frame), None, dtype=object)
    sources, ordinals = frame["source"].to_numpy(), frame["ordinal"].to_numpy()
    for source, path in enumerate(rollouts.files):
        values: list[Any] = []
        for row in rows_as_loaded(path):
            value = row.get(field)
            values.append(None if value is None or isinstance(value, (dict, list)) else str(value))
        mask = sources == source
        array = np.asarray(values + [None], dtype=object)
        out[mask] = array[np.minimum(ordinals[mask], len(values))]
    return out


def cluster_labels(rollouts: "RolloutSet", cluster_by: str | None) -> tuple[str | None, "np.ndarray | None"]:
    """(the key used, a label per frame row) or (None, None) when tasks are their own clusters."""
    columns = frame_subsets(rollouts)
    if cluster_by is None:
        return (f"subsets.{CLUSTER}", columns[CLUSTER]) if CLUSTER in columns else (None, None)
    name = cluster_by[len("subsets."):] if cluster_by.startswith("subsets.") else cluster_by
    if name in columns:
        return cluster_by, columns[name]
    if cluster_by.startswith("subsets.") or "." in cluster_by:
        raise GymError(f"metrics.cluster_by={cluster_by}: no rollout carries it (subsets columns: "
                       f"{', '.join(sorted(columns)) or 'none'}); name a subsets column or a top-level row field")
    labels = _top_level(rollouts, cluster_by)
    if all(value is None for value in labels):
        raise GymError(f"metrics.cluster_by={cluster_by}: no rollout row has a field '{cluster_by}' with a "
                       f"scalar value (subsets columns: {', '.join(sorted(columns)) or 'none'})")
    return cluster_by, labels
