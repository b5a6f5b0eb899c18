"""RULER's 13 synthetic tasks (NVIDIA/RULER scripts/synthetic.yaml and scripts/data/synthetic/*.py), generated
for a tokenizer and a length the way upstream generates them: the same templates, needles, haystacks, word
lists, random draws (Python's random and numpy's legacy generator, both seeded with 42 per task) and the
same search for the largest haystack whose prompt plus the task's answer budget fits the length.

A sample is {"index", "input" (the prompt without the answer prefix), "outputs" (gold strings), "length"
(prompt tokens + the task's tokens to generate), "answer_prefix"}; upstream's own output shape.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
import string
import uuid
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Callable

import numpy as np

from gym.core.errors import GymError

TASK_TEMPLATES = {  # scripts/data/synthetic/constants.py: (tokens_to_generate, template, answer_prefix)
    "niah": (128, "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize it. "
                  "I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special magic "
                  "{type_needle_v} for {query} mentioned in the provided text?",
             " The special magic {type_needle_v} for {query} mentioned in the provided text are"),
    "variable_tracking": (30, "Memorize and track the chain(s) of variable assignment hidden in the following text.\n\n"
                              "{context}\nQuestion: Find all variables that are assigned the value {query} in the text above.",
                          " Answer: According to the chain(s) of variable assignment in the text above, {num_v} variables "
                          "are assigned the value {query}, they are: "),
    "common_words_extraction": (120, "Below is a numbered list of words. In these words, some appear more often than "
                                     "others. Memorize the ones that appear most often.\n{context}\nQuestion: What are "
                                     "the 10 most common words in the above list?",
                                " Answer: The top 10 words that appear most often in the list are:"),
    "freq_words_extraction": (50, "Read the following coded text and track the frequency of each coded word. Find the "
                                  "three most frequently appeared coded words. {context}\nQuestion: Do not provide any "
                                  "explanation. Please ignore the dots '....'. What are the three most frequently "
                                  "appeared words in the above coded text?",
                              " Answer: According to the coded text above, the three most frequently appeared words are:"),
    "qa": (32, "Answer the question based on the given documents. Only give me the answer and do not output any other "
               "words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the question based on the given "
               "documents. Only give me the answer and do not output any other words.\n\nQuestion: {query}",
           " Answer:"),
}


def _niah(haystack: str, k: str, v: str, nk: int = 1, nv: int = 1, nq: int = 1) -> tuple[str, dict]:
    return "niah", {"type_haystack": haystack, "type_needle_k": k, "type_needle_v": v,
                    "num_needle_k": nk, "num_needle_v": nv, "num_needle_q": nq}


TASKS = {  # scripts/synthetic.yaml
    "niah_single_1": _niah("noise", "words", "numbers"),
    "niah_single_2": _niah("essay", "words", "numbers"),
    "niah_single_3": _niah("essay", "words", "uuids"),
    "niah_multikey_1": _niah("essay", "words", "numbers", nk=4),
    "niah_multikey_2": _niah("needle", "words", "numbers"),
    "niah_multikey_3": _niah("needle", "uuids", "uuids"),
    "niah_multivalue": _niah("essay", "words", "numbers", nv=4),
    "niah_multiquery": _niah("essay", "words", "numbers", nq=4),
    "vt": ("variable_tracking", {"type_haystack": "noise", "num_chains": 1, "num_hops": 4}),
    "cwe": ("common_words_extraction", {"freq_cw": 30, "freq_ucw": 3, "num_cw": 10}),
    "fwe": ("freq_words_extraction", {"alpha": 2.0}),
    "qa_1": ("qa", {"dataset": "squad"}),
    "qa_2": ("qa", {"dataset": "hotpotqa"}),
}
# how the reference grades each task (its MATCH_TYPE): every gold string, or any of them for the QA tasks
MATCH_TYPE = {name: "part" if name.startswith("qa") else "all" for name in TASKS}
NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
NEEDLE = "One of the special magic {type_needle_v} for {key} is: {value}."
DEPTHS = list(np.round(np.linspace(0, 100, num=40, endpoint=True)).astype(int))


class AdjectiveNouns(Sequence):
    """upstream's niah keys, sorted({f"{adj}-{noun}"}) (6.2 million strings with wonderwords' lists), without
    building them: runs of one "adj-" prefix followed by every noun in order, except where an adjective holds
    a hyphen ("high" and "high-pitched"), whose strings interleave and are sorted for real."""

    def __init__(self, adjectives: tuple[str, ...], nouns: tuple[str, ...]):
        self.nouns = sorted(set(nouns))
        keys = sorted({f"{adj}-" for adj in adjectives})
        self.segments: list[str | list[str]] = []
        i = 0
        while i < len(keys):
            j = i + 1
            while j < len(keys) and keys[j].startswith(keys[i]):  # sorted: the keys it prefixes come next
                j += 1
            if j == i + 1:
                self.segments.append(keys[i])
            else:
                self.segments.append(sorted({key + noun for key in keys[i:j] for noun in self.nouns}))
            i = j
        self.starts = list(itertools.accumulate((len(self.nouns) if isinstance(seg, str) else len(seg)
                                                 for seg in self.segments), initial=0))

    def __len__(self) -> int:
        return self.starts[-1]

    def __getitem__(self, index: int) -> str:
        if not 0 <= index < len(self):
            raise IndexError(index)
        at = bisect.bisect_right(self.starts, index) - 1
        segment, offset = self.segments[at], index - self.starts[at]
        return segment + self.nouns[offset] if isinstance(segment, str) else segment[offset]


@functools.cache
def adjective_nouns(adjectives: tuple[str, ...], nouns: tuple[str, ...]) -> AdjectiveNouns:
    return AdjectiveNouns(adjectives, nouns)


@dataclass
class Sources:
    """What the generators read: the essay haystack (words), RULER's wonderwords lists, RULER's
    english_words (a callable: fetched only when a cwe list outgrows the wonderwords words), QA sets
    ((questions, documents) per dataset, a callable) and a sentence splitter (NLTK's Punkt, as upstream)."""

    essay_words: Callable[[], list[str]]
    nouns: list[str]
    adjectives: list[str]
    verbs: list[str]
    english_words: Callable[[], list[str]]
    qa: Callable[[str], tuple[list[dict], list[str]]]
    sentences: Callable[[str], list[str]]


class Generator:
    """One task's generator (a fresh one per task, as upstream runs one process per task)."""

    def __init__(self, task: str, count: Callable[[str], int], sources: Sources, seed: int = 42):
        self.task = task
        self.kind, args = TASKS[task]
        self.args = dict(args)
        self.tokens_to_generate, template, prefix = TASK_TEMPLATES[self.kind]
        self.template = template + prefix  # the base model template "{task_template}" + answer prefix
        self.prefix_marker = prefix[:10]
        self.count, self.sources, self.seed = count, sources, seed
        self.random = random.Random(seed)
        self.np = np.random.RandomState(seed)
        self.make = getattr(self, f"_{self.kind}", None)  # fwe sizes itself (_fwe_samples)

    # -- sizing (upstream's binary search, then one draw per sample, shrinking until it fits) ---------
    def samples(self, num_samples: int, max_seq_length: int) -> list[dict]:
        budget = max_seq_length - self.count("{task_template}")  # the model template's tokens (prepare_for_ns)
        if self.kind == "freq_words_extraction":
            return self._fwe_samples(num_samples, budget)
        setup = getattr(self, f"_{self.kind}_setup", None)
        if setup:
            setup(budget)
        incremental, first = self._incremental(max_seq_length)
        per_unit = self.count(self.make(first, 0)[0]) / first
        scale = 2 if self.kind == "common_words_extraction" else 3
        upper = max(int(budget // per_unit) * 2 if scale == 2 else int((budget / per_unit) * 3), incremental * 2)
        lower, best = incremental, None
        while lower <= upper:
            mid = (lower + upper) // 2
            if self.count(self.make(mid, 0)[0]) + self.tokens_to_generate + self._extra_tokens <= budget:
                best, lower = mid, mid + 1
            else:
                upper = mid - 1
        size = best if best is not None else incremental
        out = []
        for index in range(num_samples):
            used = size
            while True:
                text, answer = self.make(used, index)
                text = self._with_icl(text)
                length = self.count(text) + self.tokens_to_generate
                if length <= budget:
                    break
                if used <= incremental:  # upstream retries forever here
                    raise GymError(f"{self.task}: its smallest haystack ({incremental} units) takes {length} tokens, "
                                   f"over the {budget} the length leaves; prepare a longer max_length")
                used -= incremental
            cut = text.rfind(self.prefix_marker)
            out.append({"index": index, "input": text[:cut], "outputs": list(answer), "length": length,
                        "answer_prefix": text[cut:]})
        return out

    _extra_tokens = 0

    def _with_icl(self, text: str) -> str:
        return text

    def _incremental(self, max_seq_length: int) -> tuple[int, int]:
        """(step, size of the first estimate) per task, as upstream."""
        if self.kind == "niah":
            haystack = self.args["type_haystack"]
            step = 500 if haystack == "essay" else (5 if max_seq_length < 4096 else 25)
            return step, step
        if self.kind == "variable_tracking":
            step = 500 if self.args["type_haystack"] == "essay" else (5 if max_seq_length < 4096 else 10)
            return step, step
        if self.kind == "common_words_extraction":
            return 10, 4096
        return 10, 10  # qa

    # -- niah ---------------------------------------------------------------------------------------
    def _niah_setup(self, budget: int) -> None:
        self.args["num_needle_k"] = max(self.args["num_needle_k"], self.args["num_needle_q"])
        self.words = adjective_nouns(tuple(self.sources.adjectives), tuple(self.sources.nouns))
        self.haystack = self.sources.essay_words() if self.args["type_haystack"] == "essay" else None

    def _value(self, kind: str) -> str:
        if kind == "numbers":
            return str(self.random.randint(10 ** 6, 10 ** 7 - 1))
        if kind == "words":
            return self.random.choice(self.words)
        return str(uuid.UUID(int=self.random.getrandbits(128), version=4))

    def _insert_in_essay(self, words: list[str], count: int, needles: list[str]) -> str:
        repeats = (count + len(words) - 1) // len(words)
        text = " ".join((words * max(repeats, 1))[:count])
        sentences = self.sources.sentences(text.strip())
        positions = [0] + sorted(int(len(sentences) * (depth / 100)) for depth in self.random.sample(DEPTHS, len(needles))) \
            + [len(sentences)]
        parts = []
        for i in range(1, len(positions)):
            parts.append(" ".join(sentences[positions[i - 1]:positions[i]]))
            if i - 1 < len(needles):
                parts.append(needles[i - 1])
        return " ".join(parts)

    def _niah(self, size: int, index: int) -> tuple[str, list[str]]:
        a = self.args
        keys, values, needles = [], [], []
        for _ in range(a["num_needle_k"]):
            keys.append(self._value(a["type_needle_k"]))
            value = []
            for _ in range(a["num_needle_v"]):
                value.append(self._value(a["type_needle_v"]))
                needles.append(NEEDLE.format(type_needle_v=a["type_needle_v"], key=keys[-1], value=value[-1]))
            values.append(value)
        random.Random(self.seed).shuffle(needles)
        if a["type_haystack"] == "essay":
            context = self._insert_in_essay(self.haystack, size, needles)
        else:
            if a["type_haystack"] == "noise":
                sentences = [NOISE] * size
            else:
                sentences = [NEEDLE.format(type_needle_v=a["type_needle_v"], key=self._value(a["type_needle_k"]),
                                           value=self._value(a["type_needle_v"])) for _ in range(size)]
            for position, needle in zip(sorted(self.random.sample(range(size), len(needles)), reverse=True), needles):
                sentences.insert(position, needle)
            context = "\n".join(sentences)
        chosen = self.random.sample(range(a["num_needle_k"]), a["num_needle_q"])
        queries = [keys[i] for i in chosen]
        answers = [value for i in chosen for value in values[i]]
        query = ", ".join(queries[:-1]) + ", and " + queries[-1] if len(queries) > 1 else queries[0]
        template, kind = self.template, a["type_needle_v"]
        if a["num_needle_q"] * a["num_needle_v"] == 1:  # upstream's singular wording, in its order
            for old, new in (("Some", "A"), ("are all", "is"), ("are", "is"), ("answers", "answer")):
                template = template.replace(old, new)
            kind = kind[:-1]
        return template.format(type_needle_v=kind, context=context, query=query), answers

    # -- variable tracking (with upstream's one-shot example: a 500-token sample, its answer appended) --
    def _variable_tracking_setup(self, budget: int) -> None:
        shot = Generator.__new__(Generator)
        shot.__dict__.update(self.__dict__)
        shot.tokens_to_generate, shot.icl, shot.make = 0, True, shot._variable_tracking
        example = shot._vt_example(500 - (self.count("{task_template}")))
        self.icl_example = example["input"] + " " + " ".join(example["outputs"]) + "\n"
        self._extra_tokens = self.count(self.icl_example)
        self.icl = False

    icl = False

    def _vt_example(self, budget: int) -> dict:
        size, best, lower = 5, None, 5
        per_unit = self.count(self.make(5, 0)[0]) / 5
        upper = max(int((budget / per_unit) * 3), 10)
        while lower <= upper:
            mid = (lower + upper) // 2
            if self.count(self.make(mid, 0)[0]) <= budget:
                best, lower = mid, mid + 1
            else:
                upper = mid - 1
        used = best if best is not None else size
        while True:
            text, answer = self.make(used, 0)
            if self.count(text) <= budget or used <= size:
                return {"input": text, "outputs": answer}
            used -= size

    def _chains(self) -> tuple[list[list[str]], list[list[str]]]:
        chains_n, hops = self.args["num_chains"], self.args["num_hops"]
        length, hops = (3, min(10, hops)) if self.icl else (5, hops)
        names = ["".join(self.random.choices(string.ascii_uppercase, k=length)).upper() for _ in range((hops + 1) * chains_n)]
        while len(set(names)) < chains_n * (hops + 1):
            names.append("".join(self.random.choices(string.ascii_uppercase, k=length)).upper())
        variables, chains = [], []
        for i in range(0, len(names), hops + 1):
            these = names[i:i + hops + 1]
            variables.append(these)
            first = "12345" if self.icl else str(self.np.randint(10000, 99999))
            chains.append([f"VAR {these[0]} = {first}"] + [f"VAR {these[j + 1]} = VAR {these[j]} " for j in range(hops)])
        return variables, chains

    def _variable_tracking(self, size: int, index: int) -> tuple[str, list[str]]:
        variables, chains = self._chains()
        value = chains[0][0].split("=")[-1].strip()
        sentences = [NOISE] * size
        for chain in chains:
            for position, j in zip(sorted(self.random.sample(range(len(sentences)), len(chain))), range(len(chain))):
                sentences.insert(position + j, chain[j])
        context = "\n".join(sentences).replace(". \n", ".\n")
        return self.template.format(context=context, query=value, num_v=self.args["num_hops"] + 1), variables[0]

    def _randomize_icl(self, example: str) -> str:
        for item in example.strip().split()[-self.args["num_hops"] - 1:]:
            example = example.replace(item, "".join(self.random.choices(string.ascii_uppercase, k=len(item))).upper())
        return example.replace("12345", str(self.np.randint(10000, 99999)))

    def _with_icl(self, text: str) -> str:
        if self.kind != "variable_tracking":
            return text
        cut = text.index(TASK_TEMPLATES["variable_tracking"][1][:20])
        return text[:cut] + self._randomize_icl(self.icl_example) + "\n" + text[cut:]

    # -- common words -------------------------------------------------------------------------------
    def _common_words_extraction_setup(self, budget: int) -> None:
        src = self.sources
        self.words = sorted(set(src.nouns + src.adjectives + src.verbs))
        random.Random(self.seed).shuffle(self.words)
        self.short = budget + self.count("{task_template}") < 4096  # upstream tests its max_seq_length

    def _cwe_list(self, count: int, common_repeats: int, uncommon_repeats: int, common: int) -> tuple[str, list[str]]:
        pool = self.words if count <= len(self.words) else self.sources.english_words()
        chosen = self.random.sample(pool, count)
        frequent, rare = chosen[:common], chosen[common:]
        listed = frequent * int(common_repeats) + rare * int(uncommon_repeats)
        random.Random(self.seed).shuffle(listed)
        return " ".join(f"{i + 1}. {word}" for i, word in enumerate(listed)), frequent

    def _common_words_extraction(self, size: int, index: int) -> tuple[str, list[str]]:
        a = self.args
        shot_args, args = ((20, 3, 1), (6, 1)) if self.short else ((40, 10, 3), (a["freq_cw"], a["freq_ucw"]))
        shot_context, shot_answer = self._cwe_list(*shot_args, a["num_cw"])  # upstream's one few-shot example
        context, answer = self._cwe_list(size, *args, a["num_cw"])
        shot = self.template.format(num_cw=a["num_cw"], context=shot_context, query="") + " " + " ".join(
            f"{i + 1}. {word}" for i, word in enumerate(shot_answer))
        return shot + "\n" + self.template.format(num_cw=a["num_cw"], context=context, query=""), answer

    # -- QA (SQuAD v2 dev, HotpotQA dev distractor) ---------------------------------------------------
    def _qa_setup(self, budget: int) -> None:
        self.questions, self.documents = self.sources.qa(self.args["dataset"])

    def _qa(self, size: int, index: int) -> tuple[str, list[str]]:
        item, documents = self.questions[index], self.documents
        own, more = item["context"], item.get("more_context", [])
        if size < len(documents):
            if size - len(own) > len(more):
                others = [i for i in range(len(documents)) if i not in own + more]
                picked = own + more + self.random.sample(others, max(0, size - len(own) - len(more)))
            else:
                picked = own + self.random.sample(more, size - len(own))
            chosen = [documents[i] for i in picked]
        else:
            chosen = (documents * ((size + len(documents) - 1) // len(documents)))[:size]
        random.Random(self.seed).shuffle(chosen)
        context = "\n\n".join(f"Document {i + 1}:\n{document}" for i, document in enumerate(chosen))
        return self.template.format(context=context, query=item["query"]), item["outputs"]

    # -- frequent words (zeta-distributed coded words; sized by its own upward search, as upstream) ----
    def _fwe_text(self, vocab: list[str], count: int) -> tuple[str, list[str]]:
        from mpmath import zeta

        alpha = self.args["alpha"]
        ranks = np.arange(1, len(vocab) + 1)
        counts = (count * (ranks ** -alpha) / float(zeta(alpha))).astype(int)
        words = [word for word, n in zip(vocab, counts) for _ in range(n)]
        random.Random(self.seed).shuffle(words)
        return self.template.format(context=" ".join(words), query=""), vocab[1:4]

    def _fwe_draw(self, budget: int, vocab_size: int, count: int = -1, length: int = 6) -> tuple[str, list[str], int]:
        vocab = ["".join(self.random.choices(string.ascii_lowercase, k=length)) for _ in range(vocab_size)]
        while len(set(vocab)) < vocab_size:
            vocab.append("".join(self.random.choices(string.ascii_lowercase, k=length)))
        vocab = sorted(set(vocab))
        random.Random(self.seed).shuffle(vocab)
        vocab[0] = "..."  # the top-ranked word is noise
        step = budget // 32
        if count > 0:
            text, answer = self._fwe_text(vocab, count)
            while self.count(text) > budget:
                count -= step
                text, answer = self._fwe_text(vocab, count)
        else:
            count = budget // length
            text, answer = self._fwe_text(vocab, count)
            while self.count(text) < budget:
                count += step
                text, answer = self._fwe_text(vocab, count)
            count -= step
        text, answer = self._fwe_text(vocab, count)
        return text, answer, count

    def _fwe_samples(self, num_samples: int, budget: int) -> list[dict]:
        budget -= self.tokens_to_generate
        vocab_size = budget // 50
        _, _, count = self._fwe_draw(budget, vocab_size)
        out = []
        for index in range(num_samples):
            text, answer, _ = self._fwe_draw(budget, vocab_size, count=count)
            cut = text.rfind(self.prefix_marker)
            out.append({"index": index, "input": text[:cut], "outputs": answer,
                        "length": self.count(text) + self.tokens_to_generate, "answer_prefix": text[cut:]})
        return out
