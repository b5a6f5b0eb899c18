"""Rebuild the upstream-format fixture files under tests/fixtures/upstream/ (a `wget -x` style mirror).

    .venv/bin/python tools/make_fixtures.py

Each file has the real upstream layout: file path, column names and types (parquet written with
pyarrow), CSV header, JSON keys, gzip. The content is small and, apart from the GSM8K file (the first
eight lines of the real test split, MIT) and the first IFEval row (upstream key 1000, Apache-2.0), it is
written for the tests: the AIME/MATH/MMLU-Pro/HumanEval rows are simple stand-ins with correct answers,
and the GPQA rows are deliberately not GPQA questions (its authors ask that examples stay off the web).
Output is byte-for-byte reproducible.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = HERE / "upstream"
GSM8K_REAL = HERE / "real" / "gsm8k" / "test.jsonl"  # the full upstream file (MIT, licence beside it)

PATHS = {
    "aime24": "huggingface.co/datasets/HuggingFaceH4/aime_2024/resolve/main/data/train-00000-of-00001.parquet",
    "aime25": "huggingface.co/datasets/MathArena/aime_2025/resolve/main/data/train-00000-of-00001.parquet",
    "gsm8k": "raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl",
    "math-500": "github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl",
    "gpqa": "huggingface.co/datasets/Idavidrein/gpqa/resolve/main/gpqa_diamond.csv",
    "mmlu_pro": "huggingface.co/datasets/TIGER-Lab/MMLU-Pro/resolve/main/data/test-00000-of-00001.parquet",
    "ifeval": "raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl",
    "human_eval": "github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz",
}
GSM8K_LINES = 8


def _target(name: str) -> Path:
    path = UPSTREAM / PATHS[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write_parquet(name: str, schema, rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, _target(name), compression="snappy")


def _write_jsonl(path: Path, rows: list[dict]) -> bytes:
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    path.write_bytes(data)
    return data


def aime24() -> None:
    import pyarrow as pa

    schema = pa.schema([("id", pa.int64()), ("problem", pa.string()), ("solution", pa.string()),
                        ("answer", pa.string()), ("url", pa.string()), ("year", pa.string())])
    items = [
        ("Find the remainder when $2^{10}+3^{5}$ is divided by $1000$.",
         "$2^{10}=1024$ and $3^5=243$, so the sum is $1267$, which leaves $\\boxed{267}$.", "267"),
        ("How many positive divisors does $360$ have?",
         "$360=2^3\\cdot 3^2\\cdot 5$, so it has $(3+1)(2+1)(1+1)=\\boxed{24}$ divisors.", "24"),
        ("Let $x$ and $y$ be real numbers with $x+y=20$ and $xy=91$. Find $x^2+y^2$.",
         "$x^2+y^2=(x+y)^2-2xy=400-182=\\boxed{218}$.", "218"),
        ("A bag holds $4$ red and $6$ blue marbles. Two are drawn without replacement. The probability that "
         "both are blue is $\\frac{m}{n}$ in lowest terms. Find $m+n$.",
         "$\\frac{6}{10}\\cdot\\frac{5}{9}=\\frac{1}{3}$, so $m+n=\\boxed{4}$.", "4"),
        ("Find the number of ordered pairs $(a,b)$ of positive integers with $a+b=100$ and $a<b$.",
         "$a$ ranges over $1,\\dots,49$, giving $\\boxed{49}$ pairs.", "49"),
    ]
    rows = [{"id": 60 + i, "problem": p, "solution": s, "answer": a,
             "url": f"https://example.invalid/aime_2024/problem_{i + 1}", "year": "2024"}
            for i, (p, s, a) in enumerate(items)]
    _write_parquet("aime24", schema, rows)


def aime25() -> None:
    import pyarrow as pa

    schema = pa.schema([("problem_idx", pa.int64()), ("problem", pa.string()), ("answer", pa.int64()),
                        ("problem_type", pa.list_(pa.string()))])
    items = [
        ("Find the sum of all positive integers $n$ such that $n^2-n$ divides $2n+10$ and $n\\ge 2$.", 7,
         ["Number Theory"]),  # n=2: 2|14, n=3: 6|16 no, n=4: 12|18 no, n=5: 20|20 yes -> 2+5
        ("The sides of a right triangle are $20$, $21$ and $c$ with $c$ the hypotenuse. Find $c$.", 29,
         ["Geometry"]),
        ("Find the number of subsets of $\\{1,2,\\dots,8\\}$ that contain no two consecutive integers.", 55,
         ["Combinatorics"]),
        ("Find the value of $\\log_2 8 + \\log_3 81 + \\log_5 625$.", 11, ["Algebra", "Number Theory"]),
    ]
    rows = [{"problem_idx": i + 1, "problem": p, "answer": a, "problem_type": t} for i, (p, a, t) in enumerate(items)]
    _write_parquet("aime25", schema, rows)


def gsm8k() -> None:
    target = _target("gsm8k")
    if not GSM8K_REAL.is_file():
        if not target.is_file():
            raise SystemExit(f"need the real GSM8K test file at {GSM8K_REAL}")
        return  # keep the committed copy
    with GSM8K_REAL.open("rb") as handle:
        lines = [handle.readline() for _ in range(GSM8K_LINES)]
    target.write_bytes(b"".join(lines))


def math500() -> None:
    rows = [
        {"problem": "Convert the point $(0,3)$ in rectangular coordinates to polar coordinates.  Enter your answer "
                    "in the form $(r,\\theta),$ where $r > 0$ and $0 \\le \\theta < 2 \\pi.$",
         "solution": "We have that $r = \\sqrt{0^2 + 3^2} = 3.$  The point lies on the positive $y$-axis, so "
                     "$\\theta = \\frac{\\pi}{2}.$  Therefore, the polar coordinates are "
                     "$\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}.$",
         "answer": "\\left( 3, \\frac{\\pi}{2} \\right)", "subject": "Precalculus", "level": 2,
         "unique_id": "test/precalculus/807.json"},
        {"problem": "What is the value of $\\sqrt{36 \\times \\sqrt{16}}$?",
         "solution": "$\\sqrt{36 \\times 4} = \\sqrt{144} = \\boxed{12}$.", "answer": "12",
         "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/1.json"},
        {"problem": "Simplify $\\frac{6}{8}$.", "solution": "$\\frac{6}{8} = \\boxed{\\frac{3}{4}}$.",
         "answer": "\\frac{3}{4}", "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/2.json"},
        {"problem": "Solve for $x$: $2x + 3 = 11$.", "solution": "$2x = 8$, so $x = \\boxed{4}$.", "answer": "4",
         "subject": "Algebra", "level": 1, "unique_id": "test/algebra/3.json"},
    ]
    _write_jsonl(_target("math-500"), rows)


GPQA_COLUMNS = [
    "Pre-Revision Question", "Pre-Revision Correct Answer", "Pre-Revision Incorrect Answer 1",
    "Pre-Revision Incorrect Answer 2", "Pre-Revision Incorrect Answer 3", "Pre-Revision Explanation",
    "Self-reported question-writing time (minutes)", "Question", "Correct Answer", "Incorrect Answer 1",
    "Incorrect Answer 2", "Incorrect Answer 3", "Explanation", "Revision Comments (from Question Writer)",
    "Subdomain", "Writer's Difficulty Estimate", "Extra Revised Question", "Extra Revised Explanation",
    "Extra Revised Correct Answer", "Extra Revised Incorrect Answer 1", "Extra Revised Incorrect Answer 2",
    "Extra Revised Incorrect Answer 3", "Non-Expert Validator Accuracy", "Majority Non-Expert Vals Incorrect",
    "Expert Validator Accuracy", "Record ID", "High-level domain", "Question Writer",
    *[f"{field}_EV_{n}" for n in (1, 2) for field in (
        "Feedback", "Validator Revision Suggestion", "Is First Validation", "Post hoc agreement",
        "Sufficient Expertise?", "Understand the question?", "Question Difficulty", "Validator Answered Correctly",
        "Self-reported time (minutes)", "Probability Correct", "Manual Correctness Adjustment", "Expert Validator")],
    *[f"{field}_NEV_{n}" for n in (1, 2, 3) for field in (
        "Feedback", "Validator Answered Correctly", "Explanation", "Self-reported time (minutes)", "Websites visited",
        "Probability Correct", "Manual Correctness Adjustment", "Non-Expert Validator")],
    "Expert Validator Disagreement Category", "Canary String",
]


def gpqa() -> None:
    # Stand-in questions (not from GPQA); trailing newlines and a multi-line cell as upstream has them.
    items = [
        ("Which gas makes up most of Earth's dry atmosphere by volume?\n", "Nitrogen", "Oxygen", "Argon",
         "Carbon dioxide\n", "Chemistry", "Chemistry (general)"),
        ("What is the SI unit of magnetic flux density?", "Tesla", "Weber", "Henry", "Gauss", "Physics",
         "Electromagnetism and Photonics"),
        ("Which organelle is the main site of ATP synthesis in eukaryotic cells?\nChoose one.", "Mitochondrion",
         "Golgi apparatus", "Lysosome", "Nucleolus", "Biology", "Molecular Biology"),
        ("How many unpaired electrons does a ground-state nitrogen atom have?", "3", "1", "2", "5", "Chemistry",
         "Physical Chemistry"),
        ("A ball is dropped from rest. Ignoring air resistance, how far does it fall in the first 2 s (g = 10 m/s^2)?",
         "20 m", "10 m", "40 m", "5 m", "Physics", "Physics (general)"),
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=GPQA_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for i, (question, correct, wrong1, wrong2, wrong3, domain, subdomain) in enumerate(items):
        row = {column: "" for column in GPQA_COLUMNS}
        row.update({
            "Pre-Revision Question": question, "Pre-Revision Correct Answer": correct,
            "Pre-Revision Incorrect Answer 1": wrong1, "Pre-Revision Incorrect Answer 2": wrong2,
            "Pre-Revision Incorrect Answer 3": wrong3, "Question": question, "Correct Answer": correct,
            "Incorrect Answer 1": wrong1, "Incorrect Answer 2": wrong2, "Incorrect Answer 3": wrong3,
            "Explanation": "Stand-in row written for gym's tests.", "Subdomain": subdomain,
            "Writer's Difficulty Estimate": "Hard undergraduate level (could be a question on a hard undergraduate "
                                            "exam for students majoring in the subject)",
            "Non-Expert Validator Accuracy": "0.0", "Majority Non-Expert Vals Incorrect": "1.0",
            "Expert Validator Accuracy": "1.0", "Record ID": f"recFixture{i:04d}", "High-level domain": domain,
            "Canary String": "not-gpqa:gym-test-fixture",
        })
        writer.writerow(row)
    _target("gpqa").write_bytes(buffer.getvalue().encode())


def mmlu_pro() -> None:
    import pyarrow as pa

    schema = pa.schema([("question_id", pa.int64()), ("question", pa.string()), ("options", pa.list_(pa.string())),
                        ("answer", pa.string()), ("answer_index", pa.int64()), ("cot_content", pa.string()),
                        ("category", pa.string()), ("src", pa.string())])
    items = [
        ("What is 15% of 80?", ["8", "10", "12", "14", "15", "16", "18", "20", "22", "24"], 2, "math", "ori_mmlu-elementary_mathematics"),
        ("Which of these is a prime number?", ["21", "27", "33", "37", "39", "45", "49", "51", "55", "57"], 3, "math", "stemez-Math"),
        ("Which planet is closest to the Sun?", ["Venus", "Mercury", "Earth", "Mars"], 1, "physics", "scibench-astro"),
        ("In economics, a good whose demand rises as income rises is called a(n)", ["inferior good", "Giffen good",
         "normal good", "public good", "club good", "common good", "merit good", "N/A", "N/A", "N/A"], 2, "economics",
         "ori_mmlu-high_school_macroeconomics"),
        ("What is the chemical symbol for sodium?", ["S", "So", "Sd", "Na", "N", "Sn", "Nd", "Ne", "Ns", "Sa"], 3,
         "chemistry", "ori_mmlu-high_school_chemistry"),
    ]
    letters = "ABCDEFGHIJ"
    rows = [{"question_id": 70 + i, "question": q, "options": options, "answer": letters[k], "answer_index": k,
             "cot_content": "", "category": category, "src": src}
            for i, (q, options, k, category, src) in enumerate(items)]
    _write_parquet("mmlu_pro", schema, rows)


def ifeval() -> None:
    rows = [
        {"key": 1000, "prompt": "Write a 300+ word summary of the wikipedia page \"https://en.wikipedia.org/wiki/"
                                "Raymond_III,_Count_of_Tripoli\". Do not use any commas and highlight at least 3 "
                                "sections that has titles in markdown format, for example *highlighted section part 1*"
                                ", *highlighted section part 2*, *highlighted section part 3*.",
         "instruction_id_list": ["punctuation:no_comma", "detectable_format:number_highlighted_sections",
                                 "length_constraints:number_words"],
         "kwargs": [{}, {"num_highlights": 3}, {"relation": "at least", "num_words": 300}]},
        {"key": 9001, "prompt": "Describe a sunrise over the sea. Your entire response should be in English, and in all "
                                "lowercase letters. No capital letters are allowed.",
         "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]},
        {"key": 9002, "prompt": "List three uses of copper. Your answer must contain exactly 3 bullet points. Use the "
                                "markdown bullet points such as:\n* This is point 1.",
         "instruction_id_list": ["detectable_format:number_bullet_lists"], "kwargs": [{"num_bullets": 3}]},
        {"key": 9003, "prompt": "Write a short note to a neighbour about a lost cat. Wrap your entire response with "
                                "double quotation marks. Include the keywords \"whiskers\" and \"garden\".",
         "instruction_id_list": ["startend:quotation", "keywords:existence"],
         "kwargs": [{}, {"keywords": ["whiskers", "garden"]}]},
    ]
    _write_jsonl(_target("ifeval"), rows)


HUMAN_EVAL = [
    {
        "task_id": "HumanEval/0",
        "prompt": "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
                  "    \"\"\" Check if any two numbers in the list are closer to each other than threshold.\n"
                  "    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n"
                  "    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    \"\"\"\n",
        "entry_point": "has_close_elements",
        "canonical_solution": "    for i, a in enumerate(numbers):\n        for j, b in enumerate(numbers):\n"
                              "            if i != j and abs(a - b) < threshold:\n                return True\n"
                              "    return False\n",
        "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n"
                "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n"
                "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False\n"
                "    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) == True\n",
        "contract": "\n    assert isinstance(threshold, float) and threshold > 0, \"invalid inputs\" # $_CONTRACT_$\n",
        "base_input": [[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3], [[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05],
                       [[1.1, 2.2, 3.1, 4.1, 5.1], 1.0]],
        "plus_input": [[[], 0.1], [[1.0], 0.5], [[1.0, 1.0], 0.01], [[-2.5, 3.5, -2.4], 0.2]],
        "atol": 0,
    },
    {
        "task_id": "HumanEval/1",
        "prompt": "\n\ndef add(x: int, y: int) -> int:\n    \"\"\"Add two numbers x and y\n    >>> add(2, 3)\n    5\n"
                  "    \"\"\"\n",
        "entry_point": "add",
        "canonical_solution": "    return x + y\n",
        "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(0, 1) == 1\n"
                "    assert candidate(5, 7) == 12\n    assert candidate(-3, 3) == 0\n",
        "contract": "\n    assert isinstance(x, int) and isinstance(y, int), \"invalid inputs\" # $_CONTRACT_$\n",
        "base_input": [[0, 1], [5, 7], [-3, 3]],
        "plus_input": [[10**12, 1], [-7, -8], [0, 0]],
        "atol": 0,
    },
    {
        "task_id": "HumanEval/2",
        "prompt": "\n\ndef truncate_number(number: float) -> float:\n    \"\"\" Return the decimal part of a positive "
                  "floating point number.\n    >>> truncate_number(3.5)\n    0.5\n    \"\"\"\n",
        "entry_point": "truncate_number",
        "canonical_solution": "    return number % 1.0\n",
        "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n"
                "    assert abs(candidate(1.33) - 0.33) < 1e-6\n",
        "contract": "\n    assert number > 0, \"invalid inputs\" # $_CONTRACT_$\n",
        "base_input": [[3.5], [1.33], [123.456]],
        "plus_input": [[0.25], [1e-06], [999.999]],
        "atol": 1e-06,
    },
]


def _check_human_eval() -> None:
    """The stand-in tasks must be right: canonical solution passes `test` on every input."""
    for task in HUMAN_EVAL:
        scope: dict = {}
        exec(task["prompt"] + task["canonical_solution"] + task["test"], scope)
        scope["check"](scope[task["entry_point"]])


def human_eval() -> None:
    _check_human_eval()
    data = "".join(json.dumps(task) + "\n" for task in HUMAN_EVAL).encode()
    with _target("human_eval").open("wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle:
            handle.write(data)


def main() -> None:
    for build in (aime24, aime25, gsm8k, math500, gpqa, mmlu_pro, ifeval, human_eval):
        build()
    for path in sorted(UPSTREAM.rglob("*")):
        if path.is_file():
            print(f"{path.stat().st_size:>8}  {path.relative_to(UPSTREAM)}")


if __name__ == "__main__":
    main()


# ---------------------------------------------------------------------------------------------
# IFBench (allenai/IFBench data/IFBench_test.jsonl): rows written for the tests in the upstream
# layout: string keys, every kwargs dict carries all 42 argument names (null where unused), counts as
# floats the way the upstream export writes them.

IFBENCH_PATH = "raw.githubusercontent.com/allenai/IFBench/refs/heads/main/data/IFBench_test.jsonl"
IFBENCH_ARGUMENTS = (
    "N", "capital_frequency", "capital_relation", "end_phrase", "first_word", "forbidden_words", "frequency",
    "keyword", "keyword1", "keyword2", "keyword3", "keyword4", "keyword5", "keywords", "language", "let_frequency",
    "let_relation", "letter", "m", "max_words", "min_words", "n", "n_end", "n_start", "nth_paragraph", "num_bullets",
    "num_highlights", "num_paragraphs", "num_placeholders", "num_sections", "num_sentences", "num_words", "options",
    "percentage", "postscript_marker", "prompt_to_repeat", "reference_text", "relation", "section_spliter", "sep",
    "small_n", "word",
)


def _ifbench_kwargs(**set_values) -> dict:
    return {name: set_values.get(name) for name in IFBENCH_ARGUMENTS}


def ifbench() -> None:
    span_source = "Explain how tides work for a curious ten year old using the moon and the sea."
    rows = [
        {"key": "0", "prompt": "Describe a morning walk along a quiet river. Include exactly 3 numbers in the response.",
         "instruction_id_list": ["count:numbers"], "kwargs": [_ifbench_kwargs(N=3.0)]},
        {"key": "1", "prompt": "Is tea healthier than coffee? Answer with one of the following options: yes/no/maybe. "
                               "Do not give any explanation.",
         "instruction_id_list": ["format:options"], "kwargs": [_ifbench_kwargs(options="yes/no/maybe")]},
        {"key": "2", "prompt": span_source + " Copy the span of words that lies between (and including) index 2 and 5, "
                               "the indices are word indices, split by whitespace!",
         "instruction_id_list": ["repeat:repeat_span"],
         "kwargs": [_ifbench_kwargs(prompt_to_repeat=span_source, n_start=2.0, n_end=5.0)]},
        {"key": "3", "prompt": "Give advice for a first job interview. Answer with a list of items, instead of bullet "
                               "points use SEPARATOR. The response should include at least 6 pronouns.",
         "instruction_id_list": ["format:list", "count:pronouns"],
         "kwargs": [_ifbench_kwargs(sep="SEPARATOR"), _ifbench_kwargs(N=6.0)]},
        {"key": "4", "prompt": "Write a note about autumn leaves. Write the entire response in title case (capitalize "
                               "the first letter of every major word).",
         "instruction_id_list": ["format:title_case"], "kwargs": [_ifbench_kwargs()]},
    ]
    path = UPSTREAM / IFBENCH_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_jsonl(path, rows)


if __name__ == "__main__":
    ifbench()


# ---------------------------------------------------------------------------------------------
# Judge-graded benchmarks: SimpleQA Verified (CSV), HLE (parquet, gated upstream), IMO-AnswerBench
# (CSV at a pinned commit) and FrontierScience olympiad (JSONL). Stand-in rows written for the tests in
# the upstream layouts (not the benchmarks' own questions).

JUDGE_PATHS = {
    "simpleqa": "huggingface.co/datasets/codelion/SimpleQA-Verified/resolve/main/simpleqa_verified.csv",
    "hle": "huggingface.co/datasets/cais/hle/resolve/main/data/test-00000-of-00001.parquet",
    "imo_answerbench": "raw.githubusercontent.com/google-deepmind/superhuman/326a740a6877d5ec098035c534d2fbd931fe83ee"
                       "/imobench/answerbench_v2.csv",
    "frontierscience_olympiad": "huggingface.co/datasets/openai/frontierscience/resolve/main/olympiad/test.jsonl",
}


def _judge_target(name: str) -> Path:
    path = UPSTREAM / JUDGE_PATHS[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n")  # csv's default, as pandas exports
    writer.writeheader()
    writer.writerows(rows)
    path.write_bytes(buffer.getvalue().encode())


def simpleqa_verified() -> None:
    columns = ["original_index", "problem", "answer", "topic", "answer_type", "multi_step", "requires_reasoning",
               "urls"]
    items = [
        (11, "Which river flows through the city of Budapest?", "Danube", "Geography", "Place", False, False),
        (42, "In what year did the Channel Tunnel between England and France open?", "1994", "History", "Date",
         False, False),
        (77, "What is the chemical symbol of the element tungsten?", "W", "Science and technology", "Other", False,
         False),
        (108, "Who wrote the novel \"The Master and Margarita\"?", "Mikhail Bulgakov", "Art", "Person", False, False),
        (230, "Roughly how many kilometres long is the Great Wall's Ming-era main line?",
         "8,850 km (acceptable range: anything between 8,800 and 8,900 km)", "History", "Number", True, True),
    ]
    rows = [{"original_index": i, "problem": p, "answer": a, "topic": t, "answer_type": kind, "multi_step": multi,
             "requires_reasoning": reasoning, "urls": f"['https://example.invalid/simpleqa/{i}']"}
            for i, p, a, t, kind, multi, reasoning in items]
    _write_csv(_judge_target("simpleqa"), columns, rows)


def hle() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("id", pa.string()), ("question", pa.string()), ("image", pa.string()),
                        ("image_preview", image_type), ("answer", pa.string()), ("answer_type", pa.string()),
                        ("author_name", pa.string()), ("rationale", pa.string()), ("rationale_image", image_type),
                        ("raw_subject", pa.string()), ("category", pa.string()), ("canary", pa.string())])
    tiny_png = b"\x89PNG\r\n\x1a\n" + bytes(24)
    items = [
        ("6f1c0000000000000000000a", "What is the smallest prime number greater than 100?", "", "101", "exactMatch",
         "Mathematics", "Math"),
        ("6f1c0000000000000000000b", "Which of these is a noble gas?\n\nAnswer Choices:\nA. Nitrogen\nB. Argon\n"
         "C. Chlorine\nD. Sodium", "", "B", "multipleChoice", "Chemistry", "Chemistry"),
        ("6f1c0000000000000000000c", "How many edges does the complete graph on 7 vertices have?",
         "data:image/png;base64,iVBORw0KGgoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "21", "exactMatch", "Mathematics",
         "Math"),
        ("6f1c0000000000000000000d", "Name the protein that carries oxygen in red blood cells.", "", "Hemoglobin",
         "exactMatch", "Biology", "Biology/Medicine"),
        ("6f1c0000000000000000000e", "What is the value of the sum 1 + 2 + ... + 50?", "", "1275", "exactMatch",
         "Mathematics", "Math"),
    ]
    rows = [{"id": i, "question": q, "image": image,
             "image_preview": {"bytes": tiny_png, "path": None} if image else None, "answer": a, "answer_type": kind,
             "author_name": "Stand-in Author", "rationale": "Stand-in row written for gym's tests.",
             "rationale_image": None, "raw_subject": subject, "category": category,
             "canary": "not-hle:gym-test-fixture"}
            for i, q, image, a, kind, subject, category in items]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), _judge_target("hle"), compression="snappy")


def imo_answerbench() -> None:
    columns = ["Problem ID", "Problem", "Short Answer", "Category", "Subcategory", "Source"]
    items = [
        ("imo-bench-algebra-001", "Find all real numbers $x$ such that $x^2 - 5x + 6 = 0$.", "$x=2$ or $x=3$",
         "Algebra", "Equations", "stand-in"),
        ("imo-bench-combinatorics-002", "How many ways can $6$ distinct books be arranged on a shelf?", "720",
         "Combinatorics", "Counting", "stand-in"),
        ("imo-bench-number_theory-003", "Find the remainder when $7^{100}$ is divided by $5$.", "1",
         "Number theory", "Modular arithmetic", "stand-in"),
        ("imo-bench-geometry-004", "A right triangle has legs $9$ and $12$. Find the length of its hypotenuse.",
         "15", "Geometry", "Triangles", "stand-in"),
    ]
    rows = [dict(zip(columns, item)) for item in items]
    _write_csv(_judge_target("imo_answerbench"), columns, rows)


def frontierscience_olympiad() -> None:
    rows = [
        {"problem": "A ball is thrown straight up at 20 m/s. Taking g = 10 m/s^2, how high does it rise, in metres?"
                    "\n\nThink step by step and give the final answer.", "answer": "`20`", "subject": "physics",
         "task_group_id": "fixture-group-0"},
        {"problem": "Give the molecular formula of the simplest alkene.\n\nThink step by step and give the final "
                    "answer.", "answer": "```C2H4```", "subject": "chemistry", "task_group_id": "fixture-group-1"},
        {"problem": "Which organelle holds most of a plant cell's chlorophyll?\n\nThink step by step and give the "
                    "final answer.", "answer": "chloroplast", "subject": "biology", "task_group_id": "fixture-group-2"},
        {"problem": "Estimate the orbital period of a moon at 4 times the orbital radius of another moon of the same "
                    "planet with a 1-day period, in days.\n\nThink step by step and give the final answer.",
         "answer": "8", "subject": "Physics", "task_group_id": "fixture-group-3"},
        {"problem": "Which planet in the solar system has the shortest day?\n\nThink step by step and give the final "
                    "answer.", "answer": "Jupiter", "subject": "astronomy", "task_group_id": "fixture-group-4"},
    ]
    _write_jsonl(_judge_target("frontierscience_olympiad"), rows)


def judge_benchmarks() -> None:
    for build in (simpleqa_verified, hle, imo_answerbench, frontierscience_olympiad):
        build()


if __name__ == "__main__":
    judge_benchmarks()


# ==================================================================================================
# aime26, hmmt_feb25, hmmt_nov25, apex_shortlist, hendrycks_math, mmlu, mmlu-redux, supergpqa, mmmlu,
# hotpotqa_closedbook. Every row is a stand-in written for gym's tests (true answers, upstream layout);
# none is copied from the datasets. Build with more_benchmarks(); the test compares rebuilt and committed.
# ==================================================================================================

MORE_PATHS = {
    "aime26": "huggingface.co/datasets/MathArena/aime_2026/resolve/main/data/train-00000-of-00001.parquet",
    "hmmt_feb25": "huggingface.co/datasets/MathArena/hmmt_feb_2025/resolve/main/data/train-00000-of-00001.parquet",
    "hmmt_nov25": "huggingface.co/datasets/MathArena/hmmt_nov_2025/resolve/main/data/train-00000-of-00001.parquet",
    "apex_shortlist": "huggingface.co/datasets/MathArena/apex-shortlist/resolve/main/data/train-00000-of-00001.parquet",
    "hendrycks_math": "raw.githubusercontent.com/QwenLM/Qwen2.5-Math/refs/heads/main/evaluation/data/math/test.jsonl",
    "mmlu": "people.eecs.berkeley.edu/~hendrycks/data.tar",
    "supergpqa": "huggingface.co/datasets/m-a-p/SuperGPQA/resolve/main/SuperGPQA-all.jsonl",
    "hotpotqa_closedbook": "huggingface.co/datasets/hotpotqa/hotpot_qa/resolve/main/distractor/validation-00000-of-00001.parquet",
}
MMLU_REDUX_PATH = "huggingface.co/datasets/edinburgh-dawg/mmlu-redux-2.0/resolve/main/{subject}/data-00000-of-00001.arrow"
MMMLU_PATH = "openaipublic.blob.core.windows.net/simple-evals/{file}"


def _more_target(relative: str) -> Path:
    path = UPSTREAM / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _more_parquet(name: str, columns: list[tuple], rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(columns)), _more_target(MORE_PATHS[name]),
                   compression="snappy")


def aime26() -> None:
    import pyarrow as pa

    items = [
        ("Find the number of positive divisors of $2^{4}\\cdot 3^{2}$.", 15),
        ("Let $a_1=1$ and $a_{n+1}=a_n+2n$ for $n\\ge 1$. Find $a_{10}$.", 91),
        ("Find the remainder when $7^{100}$ is divided by $1000$.", 1),
        ("How many integers $n$ with $1\\le n\\le 100$ are divisible by neither $2$ nor $3$?", 33),
    ]
    rows = [{"problem_idx": i + 1, "answer": answer, "problem": problem} for i, (problem, answer) in enumerate(items)]
    _more_parquet("aime26", [("problem_idx", pa.int64()), ("answer", pa.int64()), ("problem", pa.string())], rows)


def _hmmt(name: str, items: list[tuple[str, str, list[str]]]) -> None:
    import pyarrow as pa

    rows = [{"problem_idx": i + 1, "problem": problem, "answer": answer, "problem_type": types}
            for i, (problem, answer, types) in enumerate(items)]
    _more_parquet(name, [("problem_idx", pa.int64()), ("problem", pa.string()), ("answer", pa.string()),
                         ("problem_type", pa.list_(pa.string()))], rows)


def hmmt_feb25() -> None:
    _hmmt("hmmt_feb25", [
        ("Compute $\\sum_{k=1}^{\\infty} \\frac{1}{k(k+1)(k+2)}$.", "\\frac{1}{4}", ["Algebra"]),
        ("A regular hexagon has side length $2$. Compute its area.", "6\\sqrt{3}", ["Geometry"]),
        ("Compute the number of ways to tile a $2\\times 6$ board with $1\\times 2$ dominoes.", "13", ["Combinatorics"]),
        ("Compute the largest prime factor of $2^{8}-1$.", "17", ["Number Theory"]),
        ("Let $x>0$ satisfy $x+\\frac{1}{x}=3$. Compute $x^{2}+\\frac{1}{x^{2}}$.", "7", ["Algebra"]),
    ])


def hmmt_nov25() -> None:
    _hmmt("hmmt_nov25", [
        ("Compute the distance from the origin to the line $3x+4y=10$.", "2", ["Geometry"]),
        ("Compute $\\sqrt{12}+\\sqrt{27}$ in simplest radical form.", "5\\sqrt{3}", ["Algebra"]),
        ("A fair coin is flipped $4$ times. Compute the probability of exactly two heads.", "\\frac{3}{8}",
         ["Combinatorics"]),
        ("Compute $\\gcd(84, 126)$.", "42", ["Number Theory"]),
    ])


def apex_shortlist() -> None:
    import pyarrow as pa

    items = [
        ("Find the minimum value of $x^{2}-6x+13$ over real $x$.", "4", "Stand-in A 2025"),
        ("Find all real $x$ with $x^{2}=2x+8$.", "-2, 4", "Stand-in B 2025"),
        ("Evaluate $\\int_{0}^{1} 3x^{2}\\,dx$.", "1", "Stand-in C 2025"),
        ("Let $z=1+i$. Compute $z^{4}$.", "-4", "Stand-in A 2025"),
    ]
    rows = [{"problem_idx": i + 1, "answer": answer, "source": source, "problem": problem}
            for i, (problem, answer, source) in enumerate(items)]
    _more_parquet("apex_shortlist", [("problem_idx", pa.int64()), ("answer", pa.string()), ("source", pa.string()),
                                     ("problem", pa.string())], rows)


def hendrycks_math() -> None:
    items = [
        ("What is $15\\%$ of $240$?", "Level 1", "$0.15\\cdot 240=\\boxed{36}$.", "Prealgebra", "test/prealgebra/9001.json",
         "36"),
        ("Two fair dice are rolled. What is the probability that the sum is $7$? Express your answer as a common "
         "fraction.", "Level 2", "Six of the $36$ outcomes sum to $7$, so the probability is $\\boxed{\\dfrac{1}{6}}$.",
         "Counting & Probability", "test/counting_and_probability/9002.json", "\\dfrac{1}{6}"),
        ("Solve for $x$: $3x-7=11$.", "Level 1", "$3x=18$, so $x=\\boxed{6}$.", "Algebra", "test/algebra/9003.json", "6"),
        ("What is the degree measure of each interior angle of a regular pentagon?", "Level 2",
         "The angles sum to $540^\\circ$, so each is $\\boxed{108^\\circ}$.", "Geometry", "test/geometry/9004.json",
         "108^\\circ"),
        ("Simplify $\\sqrt{50}$.", "Level 3", "$\\sqrt{50}=\\sqrt{25\\cdot 2}=\\boxed{5\\sqrt{2}}$.", "Algebra",
         "test/algebra/9005.json", "5\\sqrt{2}"),
    ]
    rows = [{"problem": p, "level": level, "solution": s, "subject": subject, "unique_id": uid, "answer": a}
            for p, level, s, subject, uid, a in items]
    _write_jsonl(_more_target(MORE_PATHS["hendrycks_math"]), rows)


MMLU_TAR_FILES = {  # member -> CSV records (question, A, B, C, D, answer); no header, as upstream
    "data/dev/abstract_algebra_dev.csv": [
        ("Which of these is the identity element of the integers under addition?", "1", "0", "-1", "2", "B")],
    "data/val/abstract_algebra_val.csv": [
        ("How many elements does the group Z_4 have?", "2", "3", "4", "8", "C")],
    "data/test/abstract_algebra_test.csv": [
        ("Find the order of the cyclic group Z_6.", "2", "3", "6", "12", "C"),
        ("How many elements does the symmetric group S_3 have?", "3", "6", "9", "27", "B")],
    "data/test/high_school_geography_test.csv": [
        ("Which of the following is the longest river in South America?", "Amazon", "Parana", "Orinoco", "Magdalena",
         "A"),
        ("Which line of latitude lies at 0 degrees?", "Tropic of Cancer", "Equator", "Arctic Circle", "Prime Meridian",
         "B")],
    "data/test/world_religions_test.csv": [
        ("In which city is the Kaaba located?\nChoose one.", "Medina", "Jerusalem", "Mecca", "Cairo, Egypt", "C")],
}


def mmlu() -> None:
    import tarfile

    def info(name: str, size: int = 0, directory: bool = False) -> tarfile.TarInfo:
        entry = tarfile.TarInfo(name)
        entry.size, entry.mtime, entry.uid, entry.gid, entry.uname, entry.gname = size, 0, 0, 0, "", ""
        entry.type, entry.mode = (tarfile.DIRTYPE, 0o755) if directory else (tarfile.REGTYPE, 0o644)
        return entry

    with tarfile.open(_more_target(MORE_PATHS["mmlu"]), "w", format=tarfile.GNU_FORMAT) as archive:
        for folder in ("data", "data/dev", "data/test", "data/val"):
            archive.addfile(info(folder, directory=True))
        for member, records in MMLU_TAR_FILES.items():
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerows(records)
            data = buffer.getvalue().encode()
            archive.addfile(info(member, len(data)), io.BytesIO(data))


def _mmlu_subjects() -> list[str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("fixture_mmlu_tables", HERE.parents[1] / "benchmarks" / "mmlu" / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.SUBJECTS)


MMLU_REDUX_ROWS = {  # subject -> (question, choices, answer index, error_type, correct_answer)
    "abstract_algebra": [
        ("What is the order of the element 2 in Z_8 under addition?", ["2", "4", "8", "16"], 1, "ok", None),
        ("How many generators does the cyclic group Z_5 have?", ["1", "4", "5", "2"], 0, "wrong_groundtruth", "B"),
        ("Which of the following groups is non-abelian with order 5?", ["Z_5", "S_5", "A_5", "D_5"], 2,
         "no_correct_answer", None),
        ("Is every group of prime order cyclic?", ["Yes", "No", "Only for p = 2", "Only for odd p"], 0, "ok", None),
        ("Which of these is a subgroup of Z_6?", ["{0, 3}", "{0, 2, 4}", "{0}", "{1}"], 0, "multiple_correct_answers",
         None),
        ("What is the index of 2Z in Z?", ["1", "2", "4", "infinite"], 3, "wrong_groundtruth", None),
    ],
    "anatomy": [
        ("Which bone is the longest in the human body?", ["Humerus", "Tibia", "Femur", "Fibula"], 2, "ok", None),
        ("How many chambers does the human heart have?", ["Two", "Three", "Four", "Five"], 2, "ok", None),
    ],
}


def mmlu_redux() -> None:
    import pyarrow as pa

    schema = pa.schema([("question", pa.string()), ("choices", pa.list_(pa.string())), ("answer", pa.int64()),
                        ("error_type", pa.string()), ("source", pa.string()), ("correct_answer", pa.string()),
                        ("potential_reason", pa.string())])
    for number, subject in enumerate(_mmlu_subjects()):
        items = MMLU_REDUX_ROWS.get(subject) or [
            (f"Stand-in item for {subject.replace('_', ' ')}: which option is marked as right?",
             [f"option {k + 1}{' (right)' if k == number % 4 else ''}" for k in range(4)], number % 4, "ok", None)]
        rows = [{"question": q, "choices": c, "answer": a, "error_type": e, "source": "stand-in", "correct_answer": fix,
                 "potential_reason": None if e == "ok" else "stand-in annotation"} for q, c, a, e, fix in items]
        with pa.OSFile(str(_more_target(MMLU_REDUX_PATH.format(subject=subject))), "wb") as sink:
            with pa.ipc.new_stream(sink, schema) as writer:  # what datasets' save_to_disk writes
                writer.write_table(pa.Table.from_pylist(rows, schema=schema))


def supergpqa() -> None:
    items = [
        ("Which quantity is conserved in an elastic collision but not in a perfectly inelastic one?",
         ["Momentum", "Mass", "Kinetic energy", "Charge", "Angular momentum about the centre of mass", "Baryon number"],
         "C", "Science", "Physics", "Classical Mechanics", "middle", False),
        ("What is the time complexity of binary search on a sorted array of n elements?",
         ["O(n)", "O(log n)", "O(n log n)", "O(1)", "O(n^2)", "O(sqrt n)", "O(2^n)", "O(n!)", "O(log log n)",
          "O(n^3)"], "B", "Engineering", "Computer Science and Technology", "Data Structures", "easy", False),
        ("Which hormone lowers the concentration of glucose in the blood?",
         ["Glucagon", "Insulin", "Cortisol", "Adrenaline"], "B", "Medicine", "Basic Medicine", "Physiology", "easy",
         False),
        ("A loan of 1000 at 10%  simple interest per year is repaid after 3 years. What is repaid in total?",
         ["1100", "1210", "1300", "1331", "1000", "1030", "1330", "1031"], "C", "Economics", "Applied Economics",
         "Finance", "middle", True),
        ("In which century was the printing press with movable metal type introduced in Europe?",
         ["13th", "14th", "15th", "16th", "17th"], "C", "History", "World History", "Early Modern History", "hard",
         False),
    ]
    rows = [{"uuid": f"{0x5a0 + i:032x}", "question": q, "options": options, "answer": options["ABCDEFGHIJ".index(letter)],
             "answer_letter": letter, "discipline": d, "field": f, "subfield": s, "difficulty": level,
             "is_calculation": calc}
            for i, (q, options, letter, d, f, s, level, calc) in enumerate(items)]
    rows[3]["options"][2] = "1300  "  # trailing spaces, as some upstream options have; the prepare strips them
    _write_jsonl(_more_target(MORE_PATHS["supergpqa"]), rows)


MMMLU_ITEMS = {  # language -> ((capital-of-France question, [Paris, Berlin, Madrid, Rome]), (days-in-a-week question))
    "AR-XY": (("ما هي عاصمة فرنسا؟", ["باريس", "برلين", "مدريد", "روما"]), "كم عدد أيام الأسبوع؟"),
    "BN-BD": (("ফ্রান্সের রাজধানী কোনটি?", ["প্যারিস", "বার্লিন", "মাদ্রিদ", "রোম"]), "এক সপ্তাহে কত দিন থাকে?"),
    "DE-DE": (("Was ist die Hauptstadt von Frankreich?", ["Paris", "Berlin", "Madrid", "Rom"]),
              "Wie viele Tage hat eine Woche?"),
    "ES-LA": (("¿Cuál es la capital de Francia?", ["París", "Berlín", "Madrid", "Roma"]), "¿Cuántos días tiene una semana?"),
    "FR-FR": (("Quelle est la capitale de la France ?", ["Paris", "Berlin", "Madrid", "Rome"]),
              "Combien de jours y a-t-il dans une semaine ?"),
    "HI-IN": (("फ्रांस की राजधानी क्या है?", ["पेरिस", "बर्लिन", "मैड्रिड", "रोम"]), "एक सप्ताह में कितने दिन होते हैं?"),
    "ID-ID": (("Apa ibu kota Prancis?", ["Paris", "Berlin", "Madrid", "Roma"]), "Berapa hari dalam seminggu?"),
    "IT-IT": (("Qual è la capitale della Francia?", ["Parigi", "Berlino", "Madrid", "Roma"]),
              "Quanti giorni ci sono in una settimana?"),
    "JA-JP": (("フランスの首都はどこですか？", ["パリ", "ベルリン", "マドリード", "ローマ"]), "1週間は何日ですか？"),
    "KO-KR": (("프랑스의 수도는 어디입니까?", ["파리", "베를린", "마드리드", "로마"]), "일주일은 며칠입니까?"),
    "PT-BR": (("Qual é a capital da França?", ["Paris", "Berlim", "Madri", "Roma"]), "Quantos dias tem uma semana?"),
    "ZH-CN": (("法国的首都是哪里？", ["巴黎", "柏林", "马德里", "罗马"]), "一周有几天？"),
    "SW-KE": (("Mji mkuu wa Ufaransa ni upi?", ["Paris", "Berlin", "Madrid", "Roma"]), "Wiki moja ina siku ngapi?"),
    "YO-NG": (("Kí ni olú-ìlú orílẹ̀-èdè Faransé?", ["Paris", "Berlin", "Madrid", "Rome"]),
              "Ọjọ́ mélòó ló wà nínú ọ̀sẹ̀ kan?"),
    "EN-US": (("What is the capital of France?", ["Paris", "Berlin", "Madrid", "Rome"]), "How many days are in a week?"),
}


def mmmlu() -> None:
    for number, (language, ((capital, cities), week)) in enumerate(MMMLU_ITEMS.items()):
        shift = number % 4  # rotate the choices so the gold letter differs between languages
        cities = cities[shift:] + cities[:shift]
        days = ["5", "6", "7", "8"][shift:] + ["5", "6", "7", "8"][:shift]
        records = [(capital, *cities, "ABCD"[cities.index(MMMLU_ITEMS[language][0][1][0])], "high_school_geography"),
                   (week, *days, "ABCD"[days.index("7")], "elementary_mathematics")]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["", "Question", "A", "B", "C", "D", "Answer", "Subject"])  # pandas' unnamed index column
        writer.writerows([index, *record] for index, record in enumerate(records))
        name = "mmlu.csv" if language == "EN-US" else f"mmlu_{language}.csv"
        _more_target(MMMLU_PATH.format(file=name)).write_bytes(buffer.getvalue().encode())


def hotpotqa_closedbook() -> None:
    import pyarrow as pa

    items = [
        ("5f0000000000000000000001", "Which element, found by the discoverers of polonium, takes its name from the Latin "
         "word for ray?", "radium", "bridge", "medium",
         [("Polonium", ["Polonium was discovered in 1898 by Marie and Pierre Curie."]),
          ("Radium", ["Radium was discovered by the Curies in 1898.", "Its name comes from the Latin radius, ray."])]),
        ("5f0000000000000000000002", "Are the Eiffel Tower and the Statue of Liberty both located in France?", "no",
         "comparison", "easy",
         [("Eiffel Tower", ["The Eiffel Tower stands in Paris, France."]),
          ("Statue of Liberty", ["The Statue of Liberty stands in New York Harbor."])]),
        ("5f0000000000000000000003", "How many moons orbit the planet named after the Roman god of war?", "two",
         "bridge", "easy",
         [("Mars", ["Mars is named after the Roman god of war.", "Mars has two moons, Phobos and Deimos."])]),
        ("5f0000000000000000000004", "Which river flows through the capital city of Hungary?", "the Danube", "bridge",
         "medium",
         [("Budapest", ["Budapest is the capital of Hungary."]), ("Danube", ["The Danube flows through Budapest."])]),
        ("5f0000000000000000000005", "What ocean lies between Africa and Australia?", "Indian Ocean", "bridge", "hard",
         [("Indian Ocean", ["The Indian Ocean is bounded by Africa, Asia and Australia."])]),
    ]
    rows = [{"id": qid, "question": q, "answer": a, "type": kind, "level": level,
             "supporting_facts": {"title": [title for title, _ in paragraphs], "sent_id": [0] * len(paragraphs)},
             "context": {"title": [title for title, _ in paragraphs], "sentences": [s for _, s in paragraphs]}}
            for qid, q, a, kind, level, paragraphs in items]
    _more_parquet("hotpotqa_closedbook", [
        ("id", pa.string()), ("question", pa.string()), ("answer", pa.string()), ("type", pa.string()),
        ("level", pa.string()),
        ("supporting_facts", pa.struct([("title", pa.list_(pa.string())), ("sent_id", pa.list_(pa.int32()))])),
        ("context", pa.struct([("title", pa.list_(pa.string())), ("sentences", pa.list_(pa.list_(pa.string())))])),
    ], rows)


MORE_BUILDERS = (aime26, hmmt_feb25, hmmt_nov25, apex_shortlist, hendrycks_math, mmlu, mmlu_redux, supergpqa, mmmlu,
                 hotpotqa_closedbook)


def more_benchmarks() -> None:
    for build in MORE_BUILDERS:
        build()


if __name__ == "__main__":
    more_benchmarks()


# ==================================================================================================
# Code benchmarks: MBPP+ (EvalPlus release MbppPlus.jsonl.gz) and LiveCodeBench (code_generation_lite
# test*.jsonl, private tests base64(zlib(pickle(json)))). Every task is a stand-in written for gym's
# tests in the upstream layout; task ids and function names are real ones where the verifier has a
# rule for them. The expected outputs are computed from the solutions below. Build with code_benchmarks().
# ==================================================================================================
MBPP_PATH = "github.com/evalplus/mbppplus_release/releases/download/v0.2.0/MbppPlus.jsonl.gz"
LCB_DIR = "huggingface.co/datasets/livecodebench/code_generation_lite/resolve/main"


def _mbpp_task(number: int, entry: str, task: str, example: str, solution: str, base: list, plus: list | dict,
               atol: float = 0) -> dict:
    return {"task_id": f"Mbpp/{number}", "prompt": f'"""\n{task}\n{example}\n"""\n', "entry_point": entry,
            "canonical_solution": solution, "base_input": base, "atol": atol, "plus_input": plus,
            "contract": "", "assertion": f"\n{example}\n"}


MBPP_TASKS = [
    _mbpp_task(2, "similar_elements", "Write a function that returns the elements two tuples have in common.",
               "assert set(similar_elements((1, 2, 3), (3, 2, 9))) == set((2, 3))",
               "\ndef similar_elements(first, second):\n    return tuple(set(first) & set(second))\n",
               [[[1, 2, 3], [3, 2, 9]], [[5, 6], [7, 8]]], [[[], [1]], [[4, 4, 5], [5, 4]]]),
    # MBPP+ v0.2.0 stores this task's plus_input as {} (an empty object): EvalPlus reads it as no extra inputs
    _mbpp_task(793, "last", "Write a python function to find the last position of an element in a sorted array.",
               "assert last([1,2,3],1) == 0",
               "\ndef last(arr, x):\n    return len(arr) - 1 - arr[::-1].index(x)\n",
               [[[1, 2, 3], 1], [[1, 1, 1, 2, 3, 4], 1], [[2, 3, 2, 3, 6, 8, 9], 3]], {}),
    _mbpp_task(17, "square_perimeter", "Write a function that returns the perimeter of a square from its side.",
               "assert square_perimeter(3) == 12", "\ndef square_perimeter(side):\n    return 4 * side\n",
               [[3], [10]], [[0.25], [7.5], [1000000]]),
    _mbpp_task(252, "convert", "Write a python function that turns a complex number into polar coordinates.",
               "assert convert(1) == (1.0, 0.0)",
               "\nimport cmath\ndef convert(number):\n    return cmath.polar(number)\n",
               [["1"], ["-2"]], [["1+1j"], ["3-4j"]]),
    _mbpp_task(787, "text_match_three", "Write a function that finds an 'a' followed by three 'b' in a string.",
               "assert not text_match_three('ac')",
               "\nimport re\ndef text_match_three(text):\n    return re.search('ab{3}', text)\n",
               [["ac"], ["abbbba"]], [["abbb"], [""], ["xyzabbbz"]]),
    _mbpp_task(3, "is_not_prime", "Write a python function that tells whether a number is not prime.",
               "assert is_not_prime(4) == True",
               "\ndef is_not_prime(n):\n    return n < 2 or any(n % d == 0 for d in range(2, int(n ** 0.5) + 1))\n",
               [[4], [7], [1]], [[97], [91], [2]]),
]


def mbpp() -> None:
    for task in MBPP_TASKS:  # every stand-in solution passes its own example
        exec(task["canonical_solution"] + task["assertion"], {})
    data = "".join(json.dumps(task) + "\n" for task in MBPP_TASKS).encode()
    target = UPSTREAM / MBPP_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle:
            handle.write(data)


def _lcb_encode(tests: list[dict]) -> str:
    import base64
    import pickle
    import zlib

    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests), protocol=4))).decode()


def _lcb_problem(question_id: str, title: str, platform: str, date: str, difficulty: str, content: str,
                 solve, inputs: list[str], starter: str = "", func_name: str | None = None) -> dict:
    """A LiveCodeBench row; outputs come from `solve` (text -> text for stdin tasks, or the function)."""
    kind = "functional" if func_name else "stdin"
    tests = []
    for text in inputs:
        if func_name:
            output = json.dumps(solve(*[json.loads(line) for line in text.split("\n")]))
        else:
            output = solve(text)
        tests.append({"input": text, "output": output, "testtype": kind})
    return {"question_title": title, "question_content": content, "platform": platform, "question_id": question_id,
            "contest_id": question_id.rsplit("_", 1)[0], "contest_date": f"{date}T00:00:00", "starter_code": starter,
            "difficulty": difficulty, "public_test_cases": json.dumps(tests[:1]),
            "private_test_cases": _lcb_encode(tests[1:]),
            "metadata": json.dumps({"func_name": func_name} if func_name else {})}


def _sum_pairs(text: str) -> str:
    lines = text.split("\n")
    count = int(lines[0])
    return "\n".join(str(sum(map(int, lines[1 + i].split()))) for i in range(count)) + "\n"


def _max_gap(nums: list, k: int) -> int:
    ordered = sorted(nums)
    return max([b - a for a, b in zip(ordered, ordered[1:])] + [0]) * k


def _mean(text: str) -> str:
    values = list(map(int, text.split()[1:]))
    return f"{sum(values) / len(values):.6f}\n"


def _count_vowels(word: str) -> int:
    return sum(ch in "aeiou" for ch in word)


LCB_FILES = {  # release file -> stand-in problems (contest dates spread across the releases)
    "test.jsonl": [_lcb_problem("abc301_a", "Pair Sums", "atcoder", "2023-06-10", "easy",
                                "Read T, then T lines with two integers; print each sum.", _sum_pairs,
                                ["2\n1 2\n3 4\n", "1\n-5 5\n"])],
    "test2.jsonl": [_lcb_problem("2001", "Vowel Count", "leetcode", "2024-04-20", "easy",
                                 "Return how many vowels the lowercase word has.", _count_vowels,
                                 ['"banana"', '"xyz"'],
                                 "class Solution:\n    def countVowels(self, word: str) -> int:\n        ",
                                 "countVowels")],
    "test3.jsonl": [_lcb_problem("abc363_a", "Late July", "atcoder", "2024-07-31", "easy",
                                 "Read T, then T lines with two integers; print each sum.", _sum_pairs,
                                 ["1\n7 8\n", "1\n0 0\n"])],
    "test4.jsonl": [_lcb_problem("abc366_b", "Line Sums", "atcoder", "2024-08-03", "easy",
                                 "The first line holds T. Each of the next T lines holds two integers A and B. "
                                 "Print A+B for each line.", _sum_pairs,
                                 ["2\n1 2\n3 4\n", "1\n100 -1\n", "3\n0 0\n5 5\n-2 -3\n"]),
                    _lcb_problem("3250", "Widest Gap", "leetcode", "2024-08-10", "medium",
                                 "Given nums and k, return k times the largest difference between neighbours "
                                 "of sorted nums (0 for fewer than two numbers).", _max_gap,
                                 ["[3, 9, 1]\n2", "[5]\n7", "[1, 2, 4, 8]\n1"],
                                 "class Solution:\n    def maxGap(self, nums: List[int], k: int) -> int:\n        ",
                                 "maxGap")],
    "test5.jsonl": [_lcb_problem("2031_c", "Average", "codeforces", "2024-11-02", "hard",
                                 "Read n and then n integers; print their mean with six decimals.", _mean,
                                 ["3\n1 2 4\n", "1\n-7\n"])],
    "test6.jsonl": [_lcb_problem("3500", "Vowel Weight", "leetcode", "2025-03-15", "easy",
                                 "Return how many vowels the lowercase word has.", _count_vowels,
                                 ['"queue"', '"rhythm"', '"aeiou"'],
                                 "class Solution:\n    def countVowels(self, word: str) -> int:\n        ",
                                 "countVowels"),
                    _lcb_problem("abc410_a", "After The Window", "atcoder", "2025-06-07", "easy",
                                 "Read T, then T lines with two integers; print each sum.", _sum_pairs,
                                 ["1\n2 2\n", "1\n9 1\n"])],
}


def livecodebench() -> None:
    for name, rows in LCB_FILES.items():
        path = UPSTREAM / LCB_DIR / name
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_jsonl(path, rows)


def code_benchmarks() -> None:
    mbpp()
    livecodebench()


if __name__ == "__main__":
    code_benchmarks()
