"""The rows the reference's own proof-arena-judge and proof_bench_judge prepares write for the test fixtures:
their number, order, problems, proofs and verdicts, with the reference's 10,000-token cut (which cuts none
of the fixture's short proofs) and with a small cap (tests/fixtures/proof_judge_parity.json).

    python3 -m venv /tmp/lcb-ref && /tmp/lcb-ref/bin/pip install datasets transformers
    /tmp/lcb-ref/bin/python tools/make_proof_judge_parity.py <bare git mirror of NVIDIA-NeMo/Gym>

It runs benchmarks/<name>/prepare.py of the reference (read from that git dir) as it is, with these
stand-ins for what it downloads: `datasets.load_dataset(<repo>, revision=...)` reads the fixture parquet of
that repo and revision; `requests.get` of an OpenAI proof reads the fixture file; the gemini_imo_2025
folder is the fixture's copy; `AutoTokenizer.from_pretrained("Qwen/Qwen3-0.6B")` is transformers'
PreTrainedTokenizerFast over the fixture's tokenizer.json (the small stand-in at the Qwen3 address), so its
`encode` (special tokens added, as the reference calls it) does the counting.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = HERE / "upstream"
EXPECTED = HERE / "proof_judge_parity.json"
CAPS = {"proof-arena-judge": 114, "proof_bench_judge": 40}  # the small caps: some proofs in, some out
HF = UPSTREAM / "huggingface.co/datasets"
GEMINI = (UPSTREAM / "raw.githubusercontent.com/NVIDIA-NeMo/Gym/a2fbe87435a92ec604cec6e6bf9c3d4223577a04"
          / "benchmarks/proof-arena-judge")
TOKENIZER = UPSTREAM / "huggingface.co/Qwen/Qwen3-0.6B/resolve/main/tokenizer.json"


class _Reply:
    def __init__(self, text: str):
        self.text = text

    def raise_for_status(self) -> None:
        pass


def _stand_ins(datasets) -> None:
    real_load = datasets.load_dataset

    def load(repo: str, revision: str = "main", **kwargs):
        parquet = HF / repo / "resolve" / revision / "data/train-00000-of-00001.parquet"
        return real_load("parquet", data_files={"train": str(parquet)})

    def get(url: str, timeout: float = 0):
        prefix = "https://raw.githubusercontent.com/"
        return _Reply((UPSTREAM / "raw.githubusercontent.com" / url[len(prefix):]).read_text(encoding="utf-8"))

    datasets.load_dataset = load
    sys.modules["requests"] = types.SimpleNamespace(get=get)
    import transformers

    class AutoTokenizer:
        @staticmethod
        def from_pretrained(name: str):
            assert name == "Qwen/Qwen3-0.6B", name
            return transformers.PreTrainedTokenizerFast(tokenizer_file=str(TOKENIZER))

    transformers.AutoTokenizer = AutoTokenizer


def _run(name: str, source: str, tmp: str, cap: int) -> list[dict]:
    module = types.ModuleType(f"reference_{name.replace('-', '_')}_{cap}")
    module.__file__ = str(GEMINI / "prepare.py")  # proof-arena-judge's gemini_imo_2025 folder: the fixture's copy
    exec(compile(source, f"benchmarks/{name}/prepare.py", "exec"), module.__dict__)
    module.DATA_DIR = Path(tmp)
    module.OUTPUT_FPATH = Path(tmp) / f"{name}_{cap}.jsonl"
    module.MAX_QWEN_TOKENS = cap
    takes_path = "output_fpath" in inspect.signature(module.prepare).parameters  # proof-arena-judge's does
    out = module.prepare(output_fpath=module.OUTPUT_FPATH) if takes_path else module.prepare()
    rows = [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]
    return [{"problem": r["problem"], "proof": r["proof"], "verdict": r["expected_judgement"],
             "source": r["metadata"].get("source"), "problem_idx": r["metadata"].get("problem_idx")} for r in rows]


def main(git_dir: str) -> None:
    runs: dict[str, dict[str, list[dict]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(HF_DATASETS_CACHE=f"{tmp}/cache", HF_HUB_OFFLINE="1")
        import datasets

        _stand_ins(datasets)
        for name, small in CAPS.items():
            source = subprocess.run(["git", "-C", git_dir, "show", f"HEAD:benchmarks/{name}/prepare.py"],
                                    check=True, capture_output=True, text=True).stdout
            runs[name] = {str(cap): _run(name, source, tmp, cap) for cap in (10_000, small)}
    EXPECTED.write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}: " + "; ".join(f"{name} " + ", ".join(f"cap {cap}: {len(rows)} rows"
                                                                   for cap, rows in by_cap.items())
                                          for name, by_cap in runs.items()))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
