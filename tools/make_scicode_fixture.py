"""Write the SciCode test fixture: three small problems in upstream's layout and their test_data.h5.

The problems are gym's own (upstream's test_data.h5 is 1 GB); their layout is SciCode1/SciCode's JSONL rows
and upstream's h5 groups (`<step>/test<n>/var<k>`; a sparse matrix as a `sparse_matrix` group; a dict as a
group of its keys). Problem 76 holds upstream's step without tests, 76.3, whose code prepare fetches (the real
eval/data/76.3.txt beside the fixture) and shows the model before step 76.4. The targets are computed from
the gold code, so gold passes and a wrong answer fails. Run: python tools/make_scicode_fixture.py (h5py, scipy).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import scipy.sparse

ROOT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "upstream"
JSONL = (ROOT / "huggingface.co/datasets/SciCode1/SciCode/resolve/4510f6a6aa27c43fad7b43da2c59602a86e88480"
         / "problems_test.jsonl")
H5 = ROOT / "drive.google.com/drive/folders/1W5GZW6_bdiDAiipuFMqdUhvUaHIj6-pR/test_data.h5"
CMP = "from scicode.compare.cmp import cmp_tuple_or_list"
DOC = '"""{}"""'

WRAP = "def wrap(r, L):\n    return np.mod(r, L)"
DIST = ("def dist(r1, r2, L):\n    delta = wrap(np.asarray(r1) - np.asarray(r2) + L / 2, L) - L / 2\n"
        "    return float(np.sqrt(np.sum(delta ** 2)))")
LAPLACIAN = ("def laplacian(n):\n    main = -2.0 * np.ones(n)\n    off = np.ones(n - 1)\n"
             "    return sparse.diags([off, main, off], [-1, 0, 1], format='csr')")
SPECTRUM = ("def spectrum(n):\n    values = np.sort(np.linalg.eigvalsh(laplacian(n).toarray()))\n"
            "    return values[0], values[-1], {'n': float(n), 'trace': float(values.sum())}")
COUNTS = "def counts(seq):\n    return np.array([seq.count(n) for n in 'ACGT'])"
GC = "def gc_fraction(seq):\n    return counts(seq)[1:3].sum() / len(seq)"
REVCOMP = ("def reverse_complement(seq):\n"
           "    return ''.join({'A': 'T', 'T': 'A', 'C': 'G', 'G': 'C'}[n] for n in reversed(seq))")


def header(signature: str, doc: str) -> str:
    return f"{signature}\n    {DOC.format(doc)}"


PROBLEMS = [
    {"problem_name": "periodic_box", "problem_id": "1", "required_dependencies": "import numpy as np",
     "problem_description_main": "Distances between particles in a cubic box with periodic boundaries.",
     "problem_io": "", "steps": [
         ("1.1", "Wrap a position into the box [0, L) in every coordinate.", "Periodic images differ by L.",
          header("def wrap(r, L):", "Wrap r into [0, L)."), "    return coord", WRAP,
          ["r = np.array([10.5, -1.2, 20.3])\nassert np.allclose(wrap(r, 5.0), target)",
           "r = np.array([0.1, 4.9, 5.0])\nassert np.allclose(wrap(r, 5.0), target)"]),
         ("1.2", "The minimum-image distance between two positions.", "Use the nearest periodic image.",
          header("def dist(r1, r2, L):", "Minimum-image distance."), "    return distance", DIST,
          ["assert np.allclose(dist([0.5, 0.5, 0.5], [4.5, 4.5, 4.5], 5.0), target)",
           "assert np.allclose(dist([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], 10.0), target)"])]},
    {"problem_name": "discrete_laplacian", "problem_id": "2",
     "required_dependencies": "import numpy as np\nfrom scipy import sparse",
     "problem_description_main": "The 1D discrete Laplacian and its spectrum.", "problem_io": "", "steps": [
         ("2.1", "Build the n x n second-difference matrix as a sparse CSR matrix.", "Dirichlet boundaries.",
          header("def laplacian(n):", "n x n second-difference matrix (CSR)."), "    return matrix", LAPLACIAN,
          ["assert np.allclose(laplacian(4).toarray(), target.toarray())",
           "assert np.allclose(laplacian(6).toarray(), target.toarray())"]),
         ("2.2", "Smallest and largest eigenvalues and a summary dict.", "The matrix is symmetric.",
          header("def spectrum(n):", "(min eigenvalue, max eigenvalue, {n, trace})."), "    return low, high, info",
          SPECTRUM, [f"{CMP}\nassert cmp_tuple_or_list(spectrum(5), target)",
                     f"{CMP}\nassert cmp_tuple_or_list(spectrum(8), target)"])]},
    {"problem_name": "dna_motifs", "problem_id": "76", "required_dependencies": "import numpy as np\nimport random",
     "problem_description_main": "Counting and spiking motifs in DNA sequences.", "problem_io": "", "steps": [
         ("76.1", "Count each nucleotide of a sequence.", "A, C, G and T.",
          header("def counts(seq):", "Counts of A, C, G, T."), "    return counts", COUNTS,
          ["assert np.allclose(counts('ACGTTA'), target)", "assert np.allclose(counts('GGGC'), target)"]),
         ("76.2", "The GC fraction of a sequence.", "G and C pair by three hydrogen bonds.",
          header("def gc_fraction(seq):", "Share of G and C."), "    return fraction", GC,
          ["assert np.allclose(gc_fraction('ACGTTA'), target)", "assert np.allclose(gc_fraction('GGGC'), target)"]),
         ("76.3", "Spike a motif into a random sequence.", "", "def generate_dna(N: int, PWM: dict) -> tuple:",
          "    return p, new_seq, new_seq_rc", "", []),
         ("76.4", "The reverse complement of a sequence.", "A pairs with T, C with G.",
          header("def reverse_complement(seq):", "Reverse complement."), "    return rc", REVCOMP,
          ["assert reverse_complement('ACGTTA') == target", "assert reverse_complement('GGGC') == target"])]},
]


def gold_values(problem: dict) -> dict[str, list]:
    """Each step's test targets, from running the gold code and the test's call."""
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
            equal = re.match(r"assert (.*) == target$", assertion)
            call = equal.group(1) if equal else re.match(
                r"assert (?:np\.allclose|cmp_tuple_or_list)\((.*), target(?:\.toarray\(\))?\)$",
                assertion).group(1).removesuffix(".toarray()")
            values.append(eval(call, namespace))
        out[number] = values
    return out


def write_value(group, name: str, value) -> None:
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


def main() -> None:
    import h5py

    rows = []
    H5.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(H5, "w") as handle:
        for problem in PROBLEMS:
            for number, values in gold_values(problem).items():
                for index, value in enumerate(values, 1):
                    group = handle.create_group(f"{number}/test{index}")
                    for k, part in enumerate(value if isinstance(value, tuple) else (value,), 1):
                        write_value(group, f"var{k}", part)
            steps = [{"step_number": n, "step_description_prompt": d, "step_background": b, "function_header": h,
                      "return_line": r, "ground_truth_code": g or None, "test_cases": t}
                     for n, d, b, h, r, g, t in problem["steps"]]
            rows.append({**{k: v for k, v in problem.items() if k != "steps"}, "problem_background_main": "",
                         "sub_steps": steps, "general_solution": "", "general_tests": []})
    JSONL.parent.mkdir(parents=True, exist_ok=True)
    JSONL.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
