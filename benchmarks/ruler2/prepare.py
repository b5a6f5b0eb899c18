"""RULER v2 (NVIDIA-NeMo/Gym benchmarks/ruler2, from NeMo Skills dataset/ruler2): 12 synthetic long-context
tasks generated for a model's tokenizer and a length, as the reference prepares them (random seed 42, 100
samples per task, every prompt within max_length tokens).

Tasks: mk_niah_basic and mv_niah_basic (a key's one or four numbers among look-alike needles),
mk_niah_easy/medium/hard and mv_niah_easy/medium/hard (an MMLU test question hidden among auxiliary_train
questions labelled "Question <n>": copy it, solve it 5-shot, or copy every or the k-th question of a label used
four times), qa_basic/easy/medium/hard (a HotpotQA dev question's paragraphs among train paragraphs: name the
document of a text or of a question, or answer it). Grading as the reference's ruler2 server, per row
(gym.verifiers.ruler2_match): max(substring, 1 - WER) per gold string, averaged ("all"), the best after
dropping copied "Document N:" blocks ("part"), or on the reply's last paragraph ("2steps"); the two 5-shot
solve tasks by the answer letter ("multichoice").

prepare_args: tokenizer (a tokenizer.json path, a Hugging Face model name, or words: gym.data.tokens),
max_length (the prompt budget in tokens), num_samples (per task), tasks (a subset of the 12). Prepared rows:

    {"question": <prompt>, "expected_answer": <JSON list of gold strings> | <letter>,
     "eval_type": "ruler2" | "multichoice", "match_type": "all" | "part" | "2steps", "id": "<task>_<index>",
     "metadata": {"task", "subset": <task>, "length": <prompt tokens>, "index", "max_length", "tokenizer"}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import token_counter
from gym.data.ruler import generation_args
from gym.data.ruler2 import ROUTING, Sources, TASKS, generate

if TYPE_CHECKING:
    from gym.data import PrepareContext


def gold(task: str, value: object) -> str:
    """The reference's _convert_row_to_gym: a letter for multichoice, else the list of gold strings (JSON)."""
    if ROUTING[task][0] == "multichoice":
        return str(value[0] if isinstance(value, list) and value else value).strip().upper()
    return json.dumps(value if isinstance(value, list) else [str(value)], ensure_ascii=False)


def prepare(ctx: PrepareContext, tokenizer: str = "words", max_length: int = 16384, num_samples: int = 100,
            tasks: list[str] | tuple[str, ...] = tuple(TASKS)) -> Path:
    tasks = generation_args(max_length, num_samples, tasks, TASKS, "ruler2")
    count = token_counter(ctx, tokenizer)
    sources = Sources(ctx)
    rows = []
    for task in tasks:
        eval_type, match_type = ROUTING[task]
        for sample in generate(task, sources, count, max_length, num_samples):
            ctx.count_seen(1)
            rows.append({
                "question": sample["question"], "expected_answer": gold(task, sample["gold"]),
                "eval_type": eval_type, "match_type": match_type, "id": f"{task}_{sample['index']}",
                "metadata": {"task": task, "subset": task, "length": sample["length"], "index": sample["index"],
                             "max_length": max_length, "tokenizer": tokenizer},
            })
    return ctx.write_rows(rows)
