"""The upstream files RULER v2's generators read (through `datasets.load_dataset` upstream; here fetched like
any upstream file: data.mirror, offline): cais/mmlu's `all` config (test: the questions asked;
auxiliary_train: the haystack), hotpotqa/hotpot_qa's distractor config (validation: the questions asked and
their paragraphs; train: the haystack paragraphs) and wonderwords' word lists (the niah keys).

One deliberate difference: upstream orders the HotpotQA haystack by `list(set(paragraphs))`, an order that
changes with Python's per-process string hash seed, so its qa rows differ from run to run; gym sorts them.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from gym.core.errors import GymError
from gym.data.ruler.sources import wonderwords_list
from gym.data.ruler.tasks import adjective_nouns

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

HF = "https://huggingface.co/datasets"
MMLU = HF + "/cais/mmlu/resolve/main/all/{split}-00000-of-00001.parquet"
HOTPOT_TRAIN = tuple(HF + f"/hotpotqa/hotpot_qa/resolve/main/distractor/train-0000{i}-of-00002.parquet" for i in (0, 1))
HOTPOT_DEV = HF + "/hotpotqa/hotpot_qa/resolve/main/distractor/validation-00000-of-00001.parquet"
SOURCES = (MMLU.format(split="test"), MMLU.format(split="auxiliary_train"), HOTPOT_DEV, *HOTPOT_TRAIN)
LETTERS = "ABCD"
_SPACES = re.compile(r"\s+")


def _batches(path: Path, columns: list[str], layout: str) -> Iterator[dict]:
    """The rows of a parquet file, a batch at a time (HotpotQA's train shards are 165 MB each)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        missing = [c for c in columns if c not in handle.schema_arrow.names]
        if missing:
            raise GymError(f"{path}: not the {layout} layout (no column {', '.join(missing)})")
        for batch in handle.iter_batches(columns=columns, batch_size=4096):
            yield from batch.to_pylist()
    except (pa.ArrowException, OSError) as exc:
        raise GymError(f"{path}: corrupt or truncated parquet file ({exc})") from None


def mmlu_item(row: dict, where: str) -> tuple[str, str, str]:
    """(question with its A-D options, whitespace collapsed; " \\boxed{<letter>}"; letter), as upstream."""
    try:
        choices, letter = row["choices"], LETTERS[row["answer"]]
        question = row["question"] + "".join(f"\n{LETTERS[i]}. {choices[i]}" for i in range(4))
    except (IndexError, KeyError, TypeError) as exc:
        raise GymError(f"{where}: not an MMLU row with 4 choices and an answer index ({exc!r})") from None
    return _SPACES.sub(" ", question), f" \\boxed{{{letter}}}", letter


def paragraph(title: str, sentences: list[str]) -> str:
    return f"{title}\n{''.join(sentences)}"


def hotpot_question(row: dict, where: str) -> dict:
    try:
        context, support = row["context"], set(row["supporting_facts"]["title"])
        pairs = list(zip(context["title"], context["sentences"]))
        return {"question": row["question"], "answer": [row["answer"]],
                "context": [paragraph(t, s) for t, s in pairs if t in support],
                "distractor": [paragraph(t, s) for t, s in pairs if t not in support]}
    except (KeyError, TypeError) as exc:
        raise GymError(f"{where}: not a HotpotQA distractor row ({exc!r})") from None


class Sources:
    """The generators' inputs, each fetched and read on first use (the niah tasks download nothing)."""

    def __init__(self, ctx: PrepareContext):
        self.ctx = ctx

    @cached_property
    def words(self):
        """upstream's niah keys: sorted({adjective-noun}) of wonderwords' lists."""
        return adjective_nouns(tuple(wonderwords_list("adjectivelist.txt")), tuple(wonderwords_list("nounlist.txt")))

    def _mmlu(self, split: str) -> list[tuple[str, str, str]]:
        path = self.ctx.fetch(MMLU.format(split=split))
        rows = _batches(path, ["question", "choices", "answer"], "cais/mmlu")
        return [mmlu_item(row, f"{path} row {i}") for i, row in enumerate(rows)]

    @cached_property
    def mmlu(self) -> tuple[list, list]:
        """(needle, haystack): the test questions and the auxiliary_train questions."""
        return self._mmlu("test"), self._mmlu("auxiliary_train")

    @cached_property
    def hotpot(self) -> tuple[list[dict], list[str]]:
        """(needle, haystack): the dev questions with their paragraphs; the distinct train paragraphs, sorted."""
        path = self.ctx.fetch(HOTPOT_DEV)
        needle = [hotpot_question(row, f"{path} row {i}") for i, row in
                  enumerate(_batches(path, ["question", "answer", "supporting_facts", "context"], "hotpotqa"))]
        documents: set[str] = set()
        for url in HOTPOT_TRAIN:
            shard = self.ctx.fetch(url)
            for i, row in enumerate(_batches(shard, ["context"], "hotpotqa")):
                try:
                    documents.update(map(paragraph, row["context"]["title"], row["context"]["sentences"]))
                except (KeyError, TypeError) as exc:
                    raise GymError(f"{shard} row {i}: not a HotpotQA distractor row ({exc!r})") from None
        return needle, sorted(documents)
