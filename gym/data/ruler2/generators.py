"""RULER v2's three generators (NeMo Skills dataset/ruler2 prepare_niah.py, prepare_mmlu.py, prepare_qa.py, as
NVIDIA-NeMo/Gym vendors them), for the argument sets its 12 tasks use: the same templates, the same draws
from Python's random seeded with 42 (one generator per task, as upstream runs one process per task), in the
same order. A sample is {"index", "question", "gold", "length"}.
"""

from __future__ import annotations

import math
import random
import uuid
from collections import defaultdict
from collections.abc import Sequence
from typing import Callable

from gym.core.errors import GymError
from gym.data.ruler2.tasks import fitted_sample, haystack_size

Count = Callable[[str], int]
TOTAL = "{context}\n\n{example}{problem}"
EXAMPLES = "Here are some examples to help you understand the task:\n\n{}\n\nHere is the actual task you need to solve:\n\n"


def random_number(rng: random.Random, digits: int = 7) -> str:
    return str(rng.randint(10 ** (digits - 1), 10**digits - 1))


def ordinal(n: int) -> str:
    """inflect's ordinal() of a whole number: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class Generator:
    incremental = 10  # the haystack step (upstream's `incremental`)

    def __init__(self, task: str, args: dict, seed: int = 42):
        self.task, self.args = task, args
        self.rng = random.Random(seed)

    def draw(self, size: int, index: int = 0) -> tuple[str, object]:
        raise NotImplementedError

    def samples(self, count: Count, max_length: int, num_samples: int) -> list[dict]:
        size = haystack_size(lambda n: self.draw(n), count, max_length, self.incremental)
        out = []
        for index in self.indices(num_samples):
            text, gold, length = fitted_sample(self.task, lambda n: self.draw(n, index), count, size, max_length,
                                               self.incremental)
            out.append({"index": index, "question": text, "gold": gold, "length": length})
        return out

    def indices(self, num_samples: int) -> Sequence[int]:
        return range(num_samples)


class Niah(Generator):
    """prepare_niah.py with type_haystack=needle: needles among look-alike needles of other keys."""

    SINGLE = ("A special magic {type_needle_v} is hidden within the following text. Make sure to memorize it. I will "
              "quiz you about the {type_needle_v} afterwards.\n{context}\nWhat is the special magic {type_needle_v} "
              "for {query} mentioned in the provided text? The special magic {type_needle_v} for {query} mentioned "
              "in the provided text is")
    MULTIPLE = ("Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize them. "
                "I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special magic "
                "{type_needle_v} for {query} mentioned in the provided text? The special magic {type_needle_v} for "
                "{query} mentioned in the provided text are")
    NEEDLE = "One of the special magic {type_needle_v} for {key} is: {value}."

    def __init__(self, task: str, args: dict, words: Sequence[str], max_length: int, seed: int = 42):
        super().__init__(task, args, seed)
        self.words = words
        self.nk, self.nv, self.nq = max(args["num_needle_k"], args["num_needle_q"]), args["num_needle_v"], args["num_needle_q"]
        self.incremental = 5 if max_length < 4096 else max(5, self.nv * self.nk)

    def value(self, kind: str, digits: int) -> str:
        if kind == "numbers":
            return random_number(self.rng, digits)
        if kind == "words":
            return self.rng.choice(self.words)
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def key(self) -> str:
        return self.value(self.args["type_needle_k"], self.args["num_digits_k"])

    def val(self) -> str:
        return self.value(self.args["type_needle_v"], self.args["num_digits_v"])

    def draw(self, size: int, index: int = 0) -> tuple[str, list[str]]:
        rng, kind_v = self.rng, self.args["type_needle_v"]
        keys, values, needles = [], [], []
        for _ in range(self.nk):
            keys.append(self.key())
            value = []
            for _ in range(self.nv):
                value.append(self.val())
                needles.append(self.NEEDLE.format(type_needle_v=kind_v, key=keys[-1], value=value[-1]))
            values.append(value)
        rng.shuffle(needles)
        if self.nv == 1:
            sentences = []
            for _ in range(size):
                key = self.key()
                sentences.append(self.NEEDLE.format(type_needle_v=kind_v, key=key, value=self.val()))
        else:
            haystack_values = [self.val() for _ in range(size)]
            haystack_keys = ([self.key() for _ in range(math.ceil(size / self.nv))] * self.nv)[:size]
            sentences = [self.NEEDLE.format(type_needle_v=kind_v, key=k, value=v)
                         for k, v in zip(haystack_keys, haystack_values)]
            rng.shuffle(sentences)
        for at, needle in zip(sorted(rng.sample(range(size), len(needles)), reverse=True), needles):
            sentences.insert(at, needle)
        picked = rng.sample(range(self.nk), self.nq)
        queries = [keys[i] for i in picked]
        answers = [a for i in picked for a in values[i]]
        query = ", ".join(queries[:-1]) + ", and " + queries[-1] if len(queries) > 1 else queries[0]
        single = self.nq * self.nv == 1
        template = self.SINGLE if single else self.MULTIPLE
        return template.format(type_needle_v=kind_v[:-1] if single else kind_v, context="\n".join(sentences),
                               query=query), answers


class _Item:
    """A haystack or needle question during one draw (its random index and order are per draw)."""

    __slots__ = ("question", "solution", "answer", "random_index", "order")

    def __init__(self, source: tuple[str, str, str]):
        self.question, self.solution, self.answer = source
        self.random_index = self.order = ""


class Mmlu(Generator):
    """prepare_mmlu.py with dataset=mmlu, prompt_type=instruct: one test question hidden among auxiliary_train
    questions, each labelled "Question <7 digits>" (num_order > 0: each label used num_order times)."""

    CONTEXT = {
        "retrieve": "Below are some questions. I will ask you to copy one of them. Please copy and paste the question "
                    "you find.\n\n{needles}",
        "niah": "Below are some questions. I will ask you to copy some of them. Please copy and paste the questions "
                "you find.\n\n{needles}",
        "solve": "Below are some questions. I will ask you to solve one of them. Please solve the question you find "
                 "and make sure to put the answer (and only answer) inside \\boxed\\{{\\}}.\n\n{needles}",
    }
    PROBLEM = {
        ("retrieve", "single"): "Please copy the {order}Question {i} from the context.",
        ("retrieve", "2steps"): "Please first copy all the Question {i} from the context and then copy the "
                                "{order}Question {i} at the end.",
        ("niah", "single"): "Please find and copy all the Question {i} from the context.",
        ("solve", "single"): "Please solve the Question {i} from the context with an answer from A, B, C, D.",
        ("solve", "2steps"): "Please copy the Question {i} from the context and then solve it with an answer from "
                             "A, B, C, D.",
    }
    NEEDLE = "Question {i}: {question}"

    def __init__(self, task: str, args: dict, needle: list, haystack: list, seed: int = 42):
        super().__init__(task, args, seed)
        self.needle, self.haystack = needle, haystack
        self.type, self.algo = args["task_type"], args["algo_type"]
        self.fewshot, self.num_order = args["fewshot"], args["num_order"]
        self.problem = self.PROBLEM[(self.type, self.algo)]
        self.incremental = max(10, self.fewshot)
        if self.fewshot and self.type == "solve":
            self.example = self.problem + ("\nSolution:{solution}" if self.algo == "single"
                                           else "\nQuestion {i}: {question}\nSolution:{solution}")
        elif self.fewshot:
            raise GymError(f"{task}: few-shot examples are defined for the solve tasks only")

    def indices(self, num_samples: int) -> Sequence[int]:
        return self.rng.sample(range(len(self.needle)), min(len(self.needle), num_samples))

    def draw(self, size: int, index: int = 0) -> tuple[str, object]:
        rng, haystack = self.rng, self.haystack
        repeats = (size + len(haystack) - 1) // len(haystack) if size > len(haystack) else 1
        context = [_Item(haystack[j // repeats]) for j in rng.sample(range(len(haystack) * repeats), size)]
        if self.num_order > 0:
            numbers = [random_number(rng) for _ in range(math.ceil((size + 1) / self.num_order))] * self.num_order
        else:
            numbers = [random_number(rng) for _ in range(size + 1)]
        rng.shuffle(numbers)
        numbers = numbers[: size + 1]
        for item, number in zip(context, numbers):
            item.random_index = number
        rng.shuffle(context)
        examples = rng.sample(context, self.fewshot)
        true = _Item(self.needle[index])
        true.random_index = numbers[-1]
        context.insert(rng.randint(0, len(context)), true)
        counts: dict[str, int] = defaultdict(int)
        for item in context:
            counts[item.random_index] += 1
            item.order = ordinal(counts[item.random_index]) + " (1 indexed) " if self.num_order > 0 else ""
        needles = "\n\n".join(self.NEEDLE.format(i=q.random_index, question=q.question) for q in context)
        problem = self.problem.format(i=true.random_index, order=true.order)
        example = ""
        if self.fewshot:
            example = EXAMPLES.format("\n\n".join(self.example.format(i=q.random_index, question=q.question,
                                                                      solution=q.solution) for q in examples))
        text = TOTAL.format(context=self.CONTEXT[self.type].format(needles=needles), example=example, problem=problem)
        if self.type == "retrieve":
            return text, [true.question]
        if self.type == "niah":
            return text, [q.question for q in context if q.random_index == true.random_index]
        return text, true.answer


class Qa(Generator):
    """prepare_qa.py with dataset=hotpotqa, prompt_type=instruct, no few-shot: a dev question's paragraphs
    (supporting and distractor) among train paragraphs, each labelled "Document <7 digits>"."""

    incremental = 5
    CONTEXT = {
        "doc": "Below are some documents. I will give you a text at the end. Please find the document index of the "
               "text. Only give me the index without any document contents.\n\n{needles}",
        "question": "Below are some documents. I will give you a question at the end. Please find the index of the "
                    "most relevant document that can help answer the question. Only give me the index without any "
                    "document contents.\n\n{needles}",
        "solve": "Below are some documents. I will ask you to answer a question based on the documents. Please "
                 "answer the question.\n\n{needles}",
    }
    PROBLEM = {
        "doc": "Text: {text}\nMost relevant document index:",
        "question": "Question: {question}\nIndex of the most relevant document that can help answer the question:",
        "single": "Please answer the following question based on the documents.\n\nQuestion: {question}",
        "2steps": "Please first find and copy paste the documents relevant to the following question and then "
                  "answer it based on the documents you find.\n\nQuestion: {question}",
    }
    NEEDLE = "Document {i}:\n{text}"

    def __init__(self, task: str, args: dict, needle: list[dict], haystack: list[str], seed: int = 42):
        super().__init__(task, args, seed)
        self.needle, self.haystack = needle, haystack
        self.type = args["task_type"]
        self.query = args["query_type"] if self.type == "retrieve" else args["algo_type"]

    def samples(self, count: Count, max_length: int, num_samples: int) -> list[dict]:
        if num_samples > len(self.needle):  # upstream fails with an IndexError
            raise GymError(f"{self.task}: HotpotQA dev has {len(self.needle)} questions, fewer than "
                           f"num_samples={num_samples}")
        return super().samples(count, max_length, num_samples)

    def draw(self, size: int, index: int = 0) -> tuple[str, object]:
        rng, item = self.rng, self.needle[index]
        support = [(text, random_number(rng)) for text in item["context"]]
        distractors = [(text, random_number(rng)) for text in item["distractor"]]
        remaining = len(self.haystack) - len({text for text, _ in support + distractors})
        if remaining <= 0:
            raise GymError(f"{self.task}: no haystack document is left once question {index}'s are set aside")
        repeats = (size + remaining - 1) // remaining if size > remaining else 1
        picked = rng.sample(range(len(self.haystack) * repeats), size)
        docs = [(self.haystack[j // repeats], random_number(rng)) for j in picked] + support
        if size > 0:
            docs += distractors
        rng.shuffle(docs)
        if not support and self.query == "doc":
            raise GymError(f"{self.task}: HotpotQA question {index} has no supporting paragraph in its context")
        needles = "\n\n".join(self.NEEDLE.format(i=number, text=text) for text, number in docs)
        if self.query == "doc":
            problem, gold = self.PROBLEM["doc"].format(text=support[0][0]), [support[0][1]]
        else:
            problem = self.PROBLEM[self.query].format(question=item["question"])
            gold = [number for _, number in support] if self.query == "question" else item["answer"]
        context = self.CONTEXT[self.query if self.type == "retrieve" else "solve"].format(needles=needles)
        return TOTAL.format(context=context, example="", problem=problem), gold
