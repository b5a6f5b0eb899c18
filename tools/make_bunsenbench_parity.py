"""BunsenBench Chemistry MCQ fixtures: the upstream file (rebuilt manifest rows, synthetic questions) and the
values the reference's own code gives for them.

    .venv/bin/python tools/make_bunsenbench_parity.py fixture
        writes tests/fixtures/upstream/huggingface.co/datasets/nvidia/bunsen-bench/resolve/v0.1.4/
        chemistry_mcq/test-00000-of-00001.parquet: ROWS, each a manifest row (source locator, hashes, BCT
        labels) with the payload the dataset's tools/reconstitute.py adds (question, choices, answer,
        answer_index, source_meta): the layout the reference's materialize_dataset converts

    python3 -m venv /tmp/bunsen-ref && /tmp/bunsen-ref/bin/python tools/make_bunsenbench_parity.py \\
        expected <bare git mirror of NVIDIA-NeMo/Gym>
        runs the reference's benchmarks/bunsenbench_chemistry_mcq/materialize.py on ROWS and its resources
        server's answer extraction (resources_servers/bunsenbench_chemistry_mcq/app.py, with mcqa's
        option-letter helper) on CASES, read from that git dir; writes tests/fixtures/bunsenbench_parity.json.
        Only the standard library is needed: the server's framework imports are replaced by empty stand-ins
        (the functions used never touch them).

The questions are written for this fixture (the real ones come from five gated or licensed sources).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM_FILE = (HERE / "upstream/huggingface.co/datasets/nvidia/bunsen-bench/resolve/v0.1.4/chemistry_mcq"
                 / "test-00000-of-00001.parquet")
EXPECTED = HERE / "bunsenbench_parity.json"


def _row(n: int, source: str, dataset: str, field: str, subfield: str, question: str, choices: list[str],
         answer: int) -> dict:
    return {
        "bunsen_id": f"bunsen:chemistry_mcq:{n:05d}", "source": source, "source_dataset": dataset,
        "source_config": "chemistry", "source_split": "test", "source_revision": f"rev{n}",
        "source_record_id": f"record-{n}", "source_row_index": n * 7, "source_record_sha256": f"{n:064x}",
        "canonical_problem_sha256": f"{n * 31:064x}", "bct_field": field, "bct_subfield": subfield,
        "question": question, "choices": choices, "answer": choices[answer], "answer_index": answer,
        "source_meta": {"subject": subfield},
    }


ROWS = [
    _row(1, "mmlu_redux_high_school_chemistry", "edinburgh-dawg/mmlu-redux-2.0", "general", "acids_bases",
         "Which species is the conjugate base of the hydronium ion?", ["OH⁻", "H₂O", "H₃O⁺", "O₂"], 1),
    _row(2, "mmlu_pro_chemistry", "TIGER-Lab/MMLU-Pro", "physical", "thermodynamics",
         "For a spontaneous process at constant T and p, which holds?",
         ["ΔG < 0", "ΔG > 0", "ΔH = 0", "ΔS < 0 always", "q = w", "ΔG = ΔH & T = 0"], 0),
    _row(3, "supergpqa_chemistry", "m-a-p/SuperGPQA", "organic", "functional_groups",
         "Which functional group does acetone contain?", ["Ketone", "Aldehyde", "Ester"], 0),
    _row(4, "chembench_general_chemistry", "jablonkagroup/ChemBench", "inorganic", "nomenclature",
         "What is the formula of sodium sulfate?", ["Na2SO4", "NaSO4", "Na2SO3", "Na(SO4)2", "Na2S"], 0),
    _row(5, "gpqa_diamond_chemistry", "Idavidrein/gpqa", "analytical", "spectroscopy",
         "Which technique separates ions by their mass-to-charge ratio?",
         ["Mass spectrometry", "UV-Vis", "IR spectroscopy", "NMR"], 0),
]

OPTIONS = [{"A": "H2O"}, {"B": "CO2"}, {"C": "Na"}, {"D": "[START_SMILES]CC(=O)C[END_SMILES]"}]
RESPONSES = [
    "Reasoning\nAnswer: B", "Reasoning\n- **Answer:** B", "1. Answer: C", "Reasoning sentence. Answer: B",
    "B\n\nReasoning follows.", "Final \\boxed{\\text{B}}", "\\boxed{CO_2}", "\\boxed{\\mathrm{CO2}}",
    "<answer>CO2</answer>", "<choice>CO₂</choice>", "<response>co2</response>", "<choice>na</choice>",
    "<choice>Na</choice>", "<final_answer>(D)</final_answer>", "<choice>[START_SMILES]CC(=O)C[END_SMILES]</choice>",
    "The answer is B.", "The correct answer is CO2\nmore", "I choose A and B", "I select option C",
    "Final answer:\nCO2", "Answer: A or B", "<choices><choice>H2O</choice><choice>CO2</choice></choices>",
    "<choices>\n<choice>H2O</choice>\n</choices>\n<choice>H2O</choice>", "<answer>H2O</answer>\nThen\nAnswer: B",
    "Answer: B\n<answer>H2O</answer>", "choice E", "E", "Answer: E", "\\boxed{A} then \\boxed{", "", "   ",
    "I'm sorry, but I can't help with that.", "<think>unfinished", "'CO2'", "**CO2**", "A) H2O", "Option B.",
    "Answer: `C`", "The answer is \\boxed{B}.\nAnswer: B", "<ANSWER>na</ANSWER>\nAnswer: Na", "CO2 is it",
]
CASES = [{"options": OPTIONS, "expected": "B", "response": text} for text in RESPONSES]
CASES += [{"options": OPTIONS, "expected": "(C)", "response": "<choice>Na</choice>"},
          {"options": OPTIONS, "expected": "CO2", "response": "Answer: B"},
          {"options": [{"A": "Na⁺"}, {"B": "Na"}], "expected": "A", "response": "<choice>Na+</choice>"}]


def write_fixture() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    UPSTREAM_FILE.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(ROWS), UPSTREAM_FILE)
    print(f"wrote {UPSTREAM_FILE} ({len(ROWS)} rows)")


def _reference_source(git_dir: str, path: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "show", f"HEAD:{path}"], check=True, capture_output=True,
                          text=True).stdout


def _load_reference(git_dir: str) -> tuple[types.ModuleType, types.ModuleType]:
    helper = re.search(r"^def _get_allowed_letters_from_options.*?(?=^(?:def |class |if __name__))",
                       _reference_source(git_dir, "resources_servers/mcqa/app.py"), re.M | re.S).group(0)
    namespace: dict = {}
    exec("from typing import Optional\n" + helper, namespace)
    stand_in = type("StandIn", (), {})
    stubs = {"nemo_gym": {}, "nemo_gym.base_resources_server": {"ReverifyMode": types.SimpleNamespace(UNKNOWN=0)},
             "nemo_gym.reward_profile": {"compute_pass_majority_metrics": None, "highest_k_metrics": None},
             "resources_servers": {}, "resources_servers.mcqa": {},
             "resources_servers.mcqa.app": {"MCQAResourcesServer": stand_in, "MCQAResourcesServerConfig": stand_in,
                                            "MCQAVerifyRequest": stand_in, "MCQAVerifyResponse": stand_in,
                                            "_get_allowed_letters_from_options":
                                                namespace["_get_allowed_letters_from_options"]}}
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules[name] = module
    loaded = []
    for name, path in (("bunsen_materialize", "benchmarks/bunsenbench_chemistry_mcq/materialize.py"),
                       ("bunsen_app", "resources_servers/bunsenbench_chemistry_mcq/app.py")):
        module = types.ModuleType(name)
        sys.modules[name] = module
        exec(compile(_reference_source(git_dir, path), path, "exec"), module.__dict__)
        loaded.append(module)
    return loaded[0], loaded[1]


def reference_grade(app: types.ModuleType, case: dict) -> dict:
    """The reference server's verify(), minus the framework: gold letter, allowed letters, extraction."""
    options = case["options"]
    allowed = app._get_allowed_letters_from_options(options)
    gold = app._expected_answer_letter(case["expected"], options)
    if len(gold) == 1 and gold.isalpha():
        allowed.add(gold)
    text = case["response"].strip()
    pred = app.extract_bunsen_answer(text, options, allowed) if text else None
    return {**case, "gold": gold, "extracted": pred, "reward": 1.0 if pred is not None and pred == gold else 0.0}


def write_expected(git_dir: str) -> None:
    materialize, app = _load_reference(git_dir)
    config = {"bunsen_bench_revision": "v0.1.4", "bunsen_bench_config": "chemistry_mcq",
              "bunsen_bench_config_version": "0.1.4"}  # added by the reference's upstream.merge_config_metadata
    with tempfile.TemporaryDirectory() as tmp:
        out = materialize.materialize_dataset([{**row, **config} for row in ROWS], Path(tmp) / "rows.jsonl")
        prepared = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = {"prepared": prepared, "grades": [reference_grade(app, case) for case in CASES]}
    EXPECTED.write_text(json.dumps(expected, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}: {len(prepared)} prepared rows, {len(CASES)} graded answers")


if __name__ == "__main__":
    if sys.argv[1:2] == ["fixture"]:
        write_fixture()
    elif sys.argv[1:2] == ["expected"] and len(sys.argv) == 3:
        write_expected(sys.argv[2])
    else:
        sys.exit(__doc__)
