"""SciCode's test targets from test_data.h5: group `<step>/test<n>`, one value or a tuple of its variables.

Layout (upstream's test_data.h5): a variable is a dataset (bytes decode to str) or a group holding `list`
(a list of its datasets in key order), `sparse_matrix` (data, shape and row/col: COO; blocksize: BSR; else
CSR) or a dict (keys that read as numbers become floats; a subgroup is a sparse matrix). h5py is optional
(pip install 'gym-eval-harness[scicode]'): only grading needs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gym.core.errors import GymError


def h5py_module() -> Any:
    try:
        import h5py
    except ImportError:
        raise GymError("scicode: grading reads test_data.h5 with h5py: "
                       "pip install 'gym-eval-harness[scicode]'") from None
    return h5py


def _dataset(item: Any) -> Any:
    value = item[()]
    return value.decode("utf-8", errors="strict") if isinstance(value, bytes) else value


def _sparse(group: Any) -> Any:
    import scipy.sparse

    data, shape = group["data"][()], tuple(group["shape"][()])
    if "row" in group and "col" in group:
        return scipy.sparse.coo_matrix((data, (group["row"][()], group["col"][()])), shape=shape)
    if "blocksize" in group:
        return scipy.sparse.bsr_matrix((data, group["indices"][()], group["indptr"][()]), shape=shape,
                                       blocksize=tuple(group["blocksize"][()]))
    return scipy.sparse.csr_matrix((data, group["indices"][()], group["indptr"][()]), shape=shape)


def _dict(group: Any, h5py: Any) -> dict:
    out: dict = {}
    for key, item in group.items():
        if isinstance(item, h5py.Group):
            out[key] = _sparse(item["sparse_matrix"])
            continue
        value = _dataset(item)
        try:
            out[float(key)] = value
        except ValueError:
            out[key] = value
    return out


def _variable(item: Any, h5py: Any) -> Any:
    if isinstance(item, h5py.Dataset):
        return _dataset(item)
    keys = list(item.keys())
    if keys and keys[0] == "list":
        return [item["list"][key][()] for key in item["list"].keys()]
    if keys and keys[0] == "sparse_matrix":
        return _sparse(item["sparse_matrix"])
    return _dict(item, h5py)


def step_targets(path: str | Path, step: str, count: int) -> list[Any]:
    """The targets of a step's `count` test cases, in order."""
    h5py = h5py_module()
    out = []
    with h5py.File(path, "r") as handle:
        for number in range(1, count + 1):
            where = f"{step}/test{number}"
            if where not in handle:
                raise GymError(f"scicode: {path} has no {where} (not SciCode's test_data.h5?)")
            group = handle[where]
            names = list(group.keys())
            if len(names) == 1:
                out.append(_variable(group[names[0]], h5py))
            else:
                out.append(tuple(_variable(group[name], h5py) for name in names))
    return out
