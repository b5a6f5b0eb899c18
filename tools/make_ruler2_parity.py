"""Expected ruler2 rows and rewards, produced by the reference's own code (NVIDIA-NeMo/Gym benchmarks/ruler2 and
resources_servers/ruler2/app.py) on gym's upstream-layout fixtures; tests/benchmarks/test_ruler2.py compares gym with them.

Generation: each of the 12 tasks is run as the reference's prepare.py runs it (`python -m sources.<script>`
with its per-task arguments, --tokenizer_type hf, --random_seed 42), its rows converted by the reference's
`_convert_row_to_gym`. `datasets.load_dataset` is pointed at the fixture parquet files (the files the Hub
serves for cais/mmlu `all` and hotpotqa/hotpot_qa `distractor`), the tokenizer is the tiny BPE fixture loaded
by transformers' AutoTokenizer. One change to the reference's code, the one gym makes too: prepare_qa.py
orders the haystack documents with `list(set(...))`, which depends on Python's per-process string hash seed
(so the reference's qa rows differ from run to run); both order them with `sorted(set(...))`.

Scoring: the reference's app.py (its nemo_gym imports stubbed) scores its example rollouts and the cases below.

    python3 -m venv /tmp/ruler2-ref && /tmp/ruler2-ref/bin/pip install wonderwords nltk inflect numpy \\
        transformers tenacity datasets tqdm editdistance
    /tmp/ruler2-ref/bin/python tools/make_ruler2_parity.py <NeMo Gym checkout or bare git dir>
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = FIXTURES / "upstream"
OUT = FIXTURES / "ruler2_parity.json"
TOKENIZER = UPSTREAM / "huggingface.co/gym-fixtures/tiny-bpe/resolve/main/tokenizer.json"
TASK_NAMES = ("mk_niah_basic", "mk_niah_easy", "mk_niah_medium", "mk_niah_hard", "mv_niah_basic", "mv_niah_easy",
              "mv_niah_medium", "mv_niah_hard", "qa_basic", "qa_easy", "qa_medium", "qa_hard")  # its ALL_TASKS
SETTINGS = [(2000, 3), (4000, 2)]  # (max_seq_length, num_samples): the 5-shot tasks need ~1,400 tokens at least
FILES = [
    "benchmarks/ruler2/prepare.py", "benchmarks/ruler2/sources/__init__.py",
    "benchmarks/ruler2/sources/prepare_mmlu.py", "benchmarks/ruler2/sources/prepare_niah.py",
    "benchmarks/ruler2/sources/prepare_qa.py", "benchmarks/ruler2/sources/tokenizer.py",
    "resources_servers/ruler2/app.py", "resources_servers/ruler2/data/example_rollouts.jsonl",
]
HF = "huggingface.co/datasets/{repo}/resolve/main/{path}"
DATA_FILES = {  # what load_dataset(repo, config) reads from the Hub
    ("cais/mmlu", "all"): {"test": ["all/test-00000-of-00001.parquet"],
                           "auxiliary_train": ["all/auxiliary_train-00000-of-00001.parquet"]},
    ("hotpotqa/hotpot_qa", "distractor"): {
        "train": ["distractor/train-00000-of-00002.parquet", "distractor/train-00001-of-00002.parquet"],
        "validation": ["distractor/validation-00000-of-00001.parquet"]},
}
RUNNER = '''
import json, os, runpy, sys
sys.path.insert(0, os.getcwd())  # as `python -m sources.<script>` from the benchmark folder
import datasets, nltk
files = json.loads(sys.argv[1])
real = datasets.load_dataset
def load_dataset(repo, config=None, **kw):
    return real("parquet", data_files=files[repo + "/" + str(config)])
datasets.load_dataset = load_dataset
nltk.download = lambda *a, **k: True  # punkt is never used by the generators
sys.argv = [sys.argv[2]] + sys.argv[3:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
'''

CASES = [  # (eval_type, match_type, expected_answer, reply)
    ("ruler2", "all", ["1234567890"], " 1234567890."),
    ("ruler2", "all", ["1234567890"], "The number is 1234567899."),
    ("ruler2", "all", ["1111111111", "2222222222"], "1111111111 and 3333333333"),
    ("ruler2", "all", ["What is the capital of France? A. Madrid B. Rome C. Paris D. Berlin"],
     "Question 1234567: What is the capital of France? A. Madrid B. Rome C. Paris D. Berlin"),
    ("ruler2", "all", ["What is the capital of France? A. Madrid B. Rome C. Paris D. Berlin"],
     "what is the capital of france? a. madrid b. rome"),
    ("ruler2", "all", ["What is the capital of France? A. Madrid B. Rome C. Paris D. Berlin"],
     "What is the capital of Spain? A. Madrid B. Rome C. Paris D. Berlin extra words here"),
    ("ruler2", "all", ["alpha beta gamma"], "ALPHA  BETA\tGAMMA"),
    ("ruler2", "all", ["alpha beta gamma"], ""),
    ("ruler2", "all", ["alpha beta gamma"], "alpha\x00beta\x1fgamma"),
    ("ruler2", "all", [""], "anything"),
    ("ruler2", "all", [], "anything"),
    ("ruler2", "part", ["7654321"], "Document 7654321:\nThe capital of France is Paris.\n\n7654321"),
    ("ruler2", "part", ["7654321", "1111111"], "The most relevant document is 1111111."),
    ("ruler2", "part", ["Paris"], "Document 12:\nParis is here\n\nThe answer is Berlin."),
    ("ruler2", "part", ["Paris"], "Document 12:\nParis is here\nmore\n\nDocument 13:\nParis\n\nBerlin"),
    ("ruler2", "part", ["the Danube"], "It is the danube river."),
    ("ruler2", "part", ["Ewan MacColl"], "ewan maccoll"),
    ("ruler2", "part", ["yes"], "No."),
    ("ruler2", "2steps", ["Q two"], "Question 5: Q one\n\nQuestion 5: Q two\n\nQ two"),
    ("ruler2", "2steps", ["Q two"], "Q two\n\nfinally Q one"),
    ("ruler2", "2steps", ["a b c d", "e f g h"], "a b c d\n\ne f x h and a b c"),
    ("multichoice", "all", "C", "The answer is \\boxed{C}."),
    ("multichoice", "all", "C", "\\boxed{\\text{C}}"),
    ("multichoice", "all", "B", "Let me think.\nThe final answer is B"),
    ("multichoice", "all", "B", "The final answer is (B) because"),
    ("multichoice", "all", "D", "**Answer:** D"),
    ("multichoice", "all", "D", "answer: d"),
    ("multichoice", "all", "A", "\\boxed{أ}"),
    ("multichoice", "all", "B", "\\boxed{Ｂ}"),
    ("multichoice", "all", "A", "\\boxed{A} or maybe \\boxed{B}"),
    ("multichoice", "all", "A", "\\boxed{a}"),
    ("multichoice", "all", "C", "I cannot tell."),
    ("multichoice", "all", "C", "\\boxed{C: Paris}"),
    ("multichoice", "all", "C", "\\boxed{C"),
    ("multichoice", "all", "A", "A"),
    ("multichoice", "all", "A", ""),
    # the inputs of the reference's resources_servers/ruler2/tests/test_app.py
    ("ruler2", "all", ["needle"], "haystack with needle in it"),
    ("ruler2", "all", ["needle"], "THE Needle"),
    ("ruler2", "all", ["foo bar quux"], "foo bar baz"),
    ("ruler2", "all", ["the quick brown fox"], "foo bar"),
    ("ruler2", "all", ["foo", "bar", "baz"], "foo bar baz"),
    ("ruler2", "all", ["foo", "bar", "qux"], "foo bar"),
    ("ruler2", "all", ["foo", "bar"], "foo bar baz"),
    ("ruler2", "all", ["foo", "qux"], "foo"),
    ("ruler2", "part", ["foo", "totally unrelated zzz"], "answer is foo"),
    ("ruler2", "part", ["answer"], "Document 1:\nfoo content\n\nDocument 2:\nbar content\n\nthe answer"),
    ("ruler2", "part", [], "anything"),
    ("ruler2", "part", ["doc text", "totally different"], "here is the relevant doc text"),
    ("ruler2", "2steps", ["foo"], "the answer is foo\n\nbut now I'm rambling about cats"),
    ("ruler2", "2steps", ["foo"], "intro\n\nthe answer is foo"),
    ("ruler2", "2steps", [], "anything"),
    ("ruler2", "2steps", ["foo"], "reasoning here that mentions foo\n\nfinal answer: foo"),
    ("ruler2", "all", ["hello"], " \tA\x00B\x1fC\n "),
    ("ruler2", "all", ["hello world"], "hello\x01world"),
    ("multichoice", "all", "C", "step by step ... \\boxed{C}"),
    ("multichoice", "all", "B", "\\boxed{A}"),
    ("multichoice", "all", "A", "nope"),
    ("multichoice", "all", "B", "solving... \\boxed{B}"),
    ("multichoice", "all", "C", "The final answer is C"),
    ("multichoice", "all", "D", "blah blah\nAnswer: D"),
    ("multichoice", "all", "A", "**Answer:** A"),
    ("multichoice", "all", "A", "no answer here, just words"),
    ("multichoice", "all", "B", "\\boxed{The answer is B}"),
]


def checkout(reference: Path, into: Path) -> Path:
    for name in FILES:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (reference / name).is_file():
            shutil.copyfile(reference / name, target)
        else:
            target.write_bytes(subprocess.run(["git", "-C", str(reference), "show", f"HEAD:{name}"],
                                              check=True, capture_output=True).stdout)
    qa = into / "benchmarks/ruler2/sources/prepare_qa.py"
    text = qa.read_text()
    assert text.count("haystack = list(set(haystack))") == 3, "the reference's qa haystack is not as expected"
    qa.write_text(text.replace("haystack = list(set(haystack))", "haystack = sorted(set(haystack))"))
    return into


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tokenizer_folder(tokenizer: Path, tmp: Path) -> Path:
    """A folder AutoTokenizer loads: the tokenizer.json and a config naming the fast tokenizer class."""
    folder = tmp / "tokenizer"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(tokenizer, folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}))
    return folder


def run_task(python: str, ref: Path, tmp: Path, task: str, mirror: Path, tokenizer: Path, max_length: int,
             num_samples: int) -> Path:
    """One task as the reference's prepare.py runs it (its _run_one_task), sources read from `mirror`."""
    bench = ref / "benchmarks/ruler2"
    prepare = load_module(bench / "prepare.py", "ref_ruler2_prepare")
    files = {f"{repo}/{config}": {split: [str(mirror / HF.format(repo=repo, path=p)) for p in paths]
                                  for split, paths in splits.items()}
             for (repo, config), splits in DATA_FILES.items()}
    (tmp / "runner.py").write_text(RUNNER)
    script, extra = prepare.TASK_TO_ARGS[task]
    out_dir = tmp / f"{task}_{max_length}"
    out_dir.mkdir()
    args = ["--output_folder", str(out_dir), "--tokenizer_type", "hf", "--tokenizer_path", str(tokenizer),
            "--max_seq_length", str(max_length), "--num_samples", str(num_samples), "--random_seed", "42", *extra]
    subprocess.run([python, str(tmp / "runner.py"), json.dumps(files), f"sources.{script}", *args], check=True,
                   cwd=bench, capture_output=True, env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                                                        "HF_HOME": str(tmp / "hf"), "PATH": "/usr/bin:/bin"})
    return out_dir / "test.jsonl"


def generate(ref: Path, tmp: Path) -> list[dict]:
    prepare = load_module(ref / "benchmarks/ruler2/prepare.py", "ref_ruler2_prepare")
    tokenizer = tokenizer_folder(TOKENIZER, tmp)
    rows = []
    for max_length, num_samples in SETTINGS:
        assert tuple(prepare.ALL_TASKS) == TASK_NAMES
        for task in TASK_NAMES:
            output = run_task(sys.executable, ref, tmp, task, UPSTREAM, tokenizer, max_length, num_samples)
            for line in output.read_text().splitlines():
                row = prepare._convert_row_to_gym(json.loads(line), task)
                question = row.pop("question")
                rows.append({"max_length": max_length, "num_samples": num_samples, **row,
                             "question_sha256": hashlib.sha256(question.encode()).hexdigest(),
                             "question_head": question[:160], "question_tail": question[-160:]})
            print(task, max_length, sum(r["task"] == task and r["max_length"] == max_length for r in rows), "rows")
    return rows


def score(ref: Path) -> list[dict]:
    for name in ("nemo_gym", "nemo_gym.base_resources_server", "nemo_gym.reward_profile"):
        sys.modules[name] = types.ModuleType(name)
    base = sys.modules["nemo_gym.base_resources_server"]
    for cls in ("BaseResourcesServerConfig", "BaseRunRequest", "BaseVerifyRequest", "BaseVerifyResponse",
                "SimpleResourcesServer"):
        setattr(base, cls, type(cls, (), {}))
    for fn in ("compute_pass_majority_metrics", "compute_subset_metrics", "highest_k_metrics"):
        setattr(sys.modules["nemo_gym.reward_profile"], fn, None)
    app = load_module(ref / "resources_servers/ruler2/app.py", "ref_ruler2_app")

    def verdict(eval_type, match_type, expected, reply):
        if eval_type == "multichoice":
            letter = app.extract_mcq_letter(reply)
            gold = str(expected).strip().upper()
            return (1.0 if letter is not None and letter == gold else 0.0), letter
        refs = [str(r) for r in (expected if isinstance(expected, list) else [str(expected)])]
        return float(app._MATCH_TYPE_FUNCS[match_type](reply, refs)), None

    cases = []
    examples = (ref / "resources_servers/ruler2/data/example_rollouts.jsonl").read_text().splitlines()
    for line in examples:
        row = json.loads(line)
        case = (row["eval_type"], row["match_type"], row["expected_answer"], row["response"]["output_text"])
        reward, letter = verdict(*case)
        assert reward == row["reward"], (case, reward, row["reward"])  # the recorded reward, recomputed
        cases.append(case)
    cases += CASES
    return [{"eval_type": e, "match_type": m, "expected_answer": x, "reply": r, "reward": verdict(e, m, x, r)[0],
             "extracted_answer": verdict(e, m, x, r)[1], "predicted_answer": app._default_parse(r)}
            for e, m, x, r in cases]


def main() -> None:
    reference = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        ref = checkout(reference, Path(tmp) / "ref")
        rows = generate(ref, Path(tmp))
        cases = score(ref)
    OUT.write_text(json.dumps({"rows": rows, "scores": cases}, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(rows)} rows, {len(cases)} scored replies")


if __name__ == "__main__":
    main()
