"""RULER v2's 12 tasks (NVIDIA-NeMo/Gym benchmarks/ruler2/prepare.py, its generators from NeMo Skills
dataset/ruler2): which generator runs each, with which arguments, and how its rows are graded; and the
sizing every generator shares, upstream's: estimate the tokens per haystack unit from a small draw, binary
search the largest haystack whose prompt fits max_length, then draw each sample, shrinking the haystack by
one step while a draw is over.
"""

from __future__ import annotations

from typing import Callable

from gym.core.errors import GymError


def _niah(nv: int) -> tuple[str, dict]:
    return "niah", {"num_needle_k": 1, "num_needle_v": nv, "num_needle_q": 1, "type_haystack": "needle",
                    "type_needle_k": "words", "type_needle_v": "numbers", "num_digits_k": 7, "num_digits_v": 10}


def _mmlu(fewshot: int, num_order: int, task_type: str, algo_type: str) -> tuple[str, dict]:
    return "mmlu", {"fewshot": fewshot, "num_order": num_order, "task_type": task_type, "algo_type": algo_type}


def _qa(task_type: str, query_type: str = "id", algo_type: str = "single") -> tuple[str, dict]:
    return "qa", {"task_type": task_type, "query_type": query_type, "algo_type": algo_type}


TASKS = {  # the reference's TASK_TO_ARGS (prompt_type instruct, random_seed 42 throughout)
    "mk_niah_basic": _niah(1),
    "mk_niah_easy": _mmlu(0, 0, "retrieve", "single"),
    "mk_niah_medium": _mmlu(5, 0, "solve", "2steps"),
    "mk_niah_hard": _mmlu(5, 0, "solve", "single"),
    "mv_niah_basic": _niah(4),
    "mv_niah_easy": _mmlu(0, 4, "niah", "single"),
    "mv_niah_medium": _mmlu(0, 4, "retrieve", "2steps"),
    "mv_niah_hard": _mmlu(0, 4, "retrieve", "single"),
    "qa_basic": _qa("retrieve", query_type="doc"),
    "qa_easy": _qa("retrieve", query_type="question"),
    "qa_medium": _qa("solve", algo_type="2steps"),
    "qa_hard": _qa("solve", algo_type="single"),
}
# the reference's TASK_TO_ROUTING: (eval_type, match_type); the 5-shot MMLU tasks are graded by their letter
ROUTING = {task: ("multichoice" if task in ("mk_niah_medium", "mk_niah_hard") else "ruler2",
                  "2steps" if task == "mv_niah_medium" else "part" if task.startswith("qa") else "all")
           for task in TASKS}

Draw = Callable[[int], tuple[str, object]]  # haystack size -> (prompt, gold)


def haystack_size(draw: Draw, count: Callable[[str], int], max_length: int, incremental: int) -> int:
    """The largest haystack whose prompt fits, by upstream's binary search (each probe a fresh draw)."""
    tokens_per_unit = count(draw(incremental)[0]) / incremental
    lower, upper = incremental, max(int((max_length / tokens_per_unit) * 3), incremental * 2)
    best = None
    while lower <= upper:
        mid = (lower + upper) // 2
        if count(draw(mid)[0]) <= max_length:
            best, lower = mid, mid + 1
        else:
            upper = mid - 1
    return best if best is not None else incremental


def fitted_sample(task: str, draw: Draw, count: Callable[[str], int], size: int, max_length: int,
                  incremental: int) -> tuple[str, object, int]:
    """One sample: drawn at `size`, drawn again one step smaller while it is over (as upstream)."""
    while True:
        text, gold = draw(size)
        length = count(text)
        if length <= max_length:
            return text, gold, length
        if size <= incremental:  # upstream stops here with an AssertionError
            raise GymError(f"{task}: its smallest haystack ({size} units) takes {length} tokens, over "
                           f"max_length={max_length}; prepare a longer max_length")
        size -= incremental
