"""Write the SciCode test fixture: two small problems in upstream's layout and their test_data.h5.

The problems are gym's own (upstream's test_data.h5 is 1 GB); their layout is SciCode1/SciCode's parquet rows
and upstream's h5 groups (`<step>/test<n>/var<k>`; a sparse matrix as a `sparse_matrix` group; a dict as a
group of its keys). The targets are computed from the gold code, so gold passes and a wrong answer fails.
Run: python tools/make_scicode_fixture.py (needs h5py, scipy, pyarrow).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse

ROOT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "upstream"
PARQUET = ROOT / "huggingface.co/datasets/SciCode1/SciCode/resolve/main/data/test-00000-of-00001.parquet"
H5 = ROOT / "drive.google.com/drive/folders/1W5GZW6_bdiDAiipuFMqdUhvUaHIj6-pR/test_data.h5"
CMP = "from scicode.compare.cmp import cmp_tuple_or_list"

WRAP = "def wrap(r, L):\n    return np.mod(r, L)"
DIST = ("def dist(r1, r2, L):\n    delta = wrap(np.asarray(r1) - np.asarray(r2) + L / 2, L) - L / 2\n"
        "    return float(np.sqrt(np.sum(delta ** 2)))")
LAPLACIAN = ("def laplacian(n):\n    main = -2.0 * np.ones(n)\n    off = np.ones(n - 1)\n"
             "    return sparse.diags([off, main, off], [-1, 0, 1], format='csr')")
SPECTRUM = ("def spectrum(n):\n    values = np.sort(np.linalg.eigvalsh(laplacian(n).toarray()))\n"
            "    return values[0], values[-1], {'n': float(n), 'trace': float(values.sum())}")

PROBLEMS = [
    {"problem_name": "periodic_box", "problem_id": "1", "required_dependencies": "import numpy as np",
     "problem_description_main": "Distances between particles in a cubic box with periodic boundaries.",
     "problem_io": "", "steps": [
         ("1.1", "Wrap a position into the box [0, L) in every coordinate.", "Periodic images differ by L.",
          "def wrap(r, L):\n    '''Wrap r into [0, L).'''", "    return coord", WRAP,
          ["r = np.array([10.5, -1.2, 20.3])\nassert np.allclose(wrap(r, 5.0), target)",
           "r = np.array([0.1, 4.9, 5.0])\nassert np.allclose(wrap(r, 5.0), target)"]),
         ("1.2", "The minimum-image distance between two positions.", "Use the nearest periodic image.",
          "def dist(r1, r2, L):\n    '''Minimum-image distance.'''", "    return distance", DIST,
          ["assert np.allclose(dist([0.5, 0.5, 0.5], [4.5, 4.5, 4.5], 5.0), target)",
           "assert np.allclose(dist([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], 10.0), target)"])]},
    {"problem_name": "discrete_laplacian", "problem_id": "2",
     "required_dependencies": "import numpy as np\nfrom scipy import sparse",
     "problem_description_main": "The 1D discrete Laplacian and its spectrum.", "problem_io": "", "steps": [
         ("2.1", "Build the n x n second-difference matrix as a sparse CSR matrix.", "Dirichlet boundaries.",
          "def laplacian(n):\n    '''n x n second-difference matrix (CSR).'''", "    return matrix", LAPLACIAN,
          ["assert np.allclose(laplacian(4).toarray(), target.toarray())",
           "assert np.allclose(laplacian(6).toarray(), target.toarray())"]),
         ("2.2", "Smallest and largest eigenvalues and a summary dict.", "The matrix is symmetric.",
          "def spectrum(n):\n    '''(min eigenvalue, max eigenvalue, {n, trace}).'''", "    return low, high, info",
          SPECTRUM, [f"{CMP}\nassert cmp_tuple_or_list(spectrum(5), target)",
                     f"{CMP}\nassert cmp_tuple_or_list(spectrum(8), target)"])]},
]


def gold_values(problem: dict) -> dict[str, list]:
    """Each step's test targets, from running the gold code and the test's call."""
    import re

    namespace: dict = {}
    exec(problem["required_dependencies"], namespace)
    out = {}
    for number, *_, code, tests in problem["steps"]:
        exec(code, namespace)
        values = []
        for test in tests:
            body = "\n".join(line for line in test.split("\n") if not line.startswith("from scicode"))
            setup, assertion = body.rsplit("\n", 1) if "\n" in body else ("", body)
            exec(setup, namespace)
            call = re.match(r"assert (?:np\.allclose|cmp_tuple_or_list)\((.*), target(?:\.toarray\(\))?\)$",
                            assertion).group(1).removesuffix(".toarray()")
            values.append(eval(call, namespace))
        out[number] = values
    return out


def write_value(group, name: str, value) -> None:
    import h5py

    if scipy.sparse.issparse(value):
        sub = group.create_group(name).create_group("sparse_matrix")
        value = value.tocsr()
        for key, array in (("data", value.data), ("indices", value.indices), ("indptr", value.indptr),
                           ("shape", np.array(value.shape))):
            sub.create_dataset(key, data=array)
    elif isinstance(value, dict):
        sub = group.create_group(name)
        for key, item in value.items():
            sub.create_dataset(str(key), data=item)
    else:
        group.create_dataset(name, data=value)
    assert isinstance(group, h5py.Group)


def main() -> None:
    import h5py
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    H5.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(H5, "w") as handle:
        for problem in PROBLEMS:
            for number, values in gold_values(problem).items():
                for index, value in enumerate(values, 1):
                    group = handle.create_group(f"{number}/test{index}")
                    parts = value if isinstance(value, tuple) else (value,)
                    for k, part in enumerate(parts, 1):
                        write_value(group, f"var{k}", part)
            steps = [{"step_number": n, "step_description_prompt": d, "step_background": b, "function_header": h,
                      "return_line": r, "ground_truth_code": g, "test_cases": t}
                     for n, d, b, h, r, g, t in problem["steps"]]
            rows.append({**{k: v for k, v in problem.items() if k != "steps"}, "sub_steps": steps,
                         "general_solution": "", "general_tests": []})
    PARQUET.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), PARQUET)


if __name__ == "__main__":
    main()
