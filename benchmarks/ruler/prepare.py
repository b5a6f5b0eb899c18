"""RULER (NVIDIA/RULER): 13 synthetic long-context tasks generated for a model's tokenizer and a length, as
the reference prepares them (its chat format: the prompt without RULER's answer prefix; 100 samples per
task; the length minus 50 tokens kept for the chat template, as the reference's template_tokens).

Tasks (upstream scripts/synthetic.yaml): niah_single_1..3, niah_multikey_1..3, niah_multivalue,
niah_multiquery (needles in noise, essay or needle haystacks), vt (variable tracking), cwe (common words),
fwe (frequent coded words), qa_1 (SQuAD v2 dev) and qa_2 (HotpotQA dev). Grading as the reference: the
fraction of gold strings found in the reply (case-insensitive), any one of them for qa_1 and qa_2.

prepare_args: tokenizer (a tokenizer.json path, a Hugging Face model name, or words: gym.data.tokens),
max_length (the model's context in tokens), num_samples (per task), tasks (a subset of the 13),
template_tokens. Prepared rows:

    {"question": <prompt>, "expected_answer": <JSON list of gold strings>, "match_type": "all" | "part",
     "answer_prefix": <RULER's answer prefix>, "id": "<task>_<index>",
     "metadata": {"task", "subset": <task>, "length": <prompt + answer tokens>, "index", "max_length"}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import GymError, token_counter
from gym.data.ruler import Generator, MATCH_TYPE, TASKS, generation_args, read_sources
from gym.verifiers import punkt_sentences

if TYPE_CHECKING:
    from gym.data import PrepareContext


def check_args(max_length: int, num_samples: int, tasks: list[str], template_tokens: int) -> list[str]:
    tasks = generation_args(max_length, num_samples, tasks, TASKS, "RULER")
    if isinstance(template_tokens, bool) or not isinstance(template_tokens, int) or not 0 <= template_tokens < max_length:
        raise GymError(f"template_tokens must be a whole number below max_length, got {template_tokens!r}")
    return tasks


def prepare(ctx: PrepareContext, tokenizer: str = "words", max_length: int = 4096, num_samples: int = 100,
            tasks: list[str] | tuple[str, ...] = tuple(TASKS), template_tokens: int = 50) -> Path:
    tasks = check_args(max_length, num_samples, tasks, template_tokens)
    count = token_counter(ctx, tokenizer)
    inputs = read_sources(ctx, punkt_sentences)
    rows = []
    for task in tasks:
        generator = Generator(task, count, inputs)
        if task.startswith("qa") and len(inputs.qa(generator.args["dataset"])[0]) < num_samples:
            raise GymError(f"{task}: {generator.args['dataset']} has fewer answerable questions than num_samples={num_samples}")
        for sample in generator.samples(num_samples, max_length - template_tokens):
            ctx.count_seen(1)
            rows.append({
                "question": sample["input"], "expected_answer": json.dumps(sample["outputs"]),
                "match_type": MATCH_TYPE[task], "answer_prefix": sample["answer_prefix"],
                "id": f"{task}_{sample['index']}",
                "metadata": {"task": task, "subset": task, "length": sample["length"], "index": sample["index"],
                             "max_length": max_length, "tokenizer": tokenizer},
            })
    return ctx.write_rows(rows)
