"""Answer policy and OpenAI wire format of gym's reference server (gym.mock.server).

A prompt is matched to its prepared row by gym.mock.tasks.TaskIndex. Whether an answer is right is drawn from a hash of (seed, prompt, request seed or
repeat count), so a run's expected accuracy is known and reruns give the same answers.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from gym.core.errors import GymError
from gym.core.images import decode_data_url
from gym.mock.formats import FamilyAnswers, pairwise_verdict
from gym.mock.substeps import SubStep
from gym.mock.tasks import Task, TaskIndex, unit_draw
from gym.mock.judge import judge_verdict
from gym.mock.tool_answers import as_text, offered_functions, tool_answer, underscored_names

UNKNOWN_ANSWER = "I don't know."
SEEN_PROMPTS = 200_000  # prompts whose answer counts are remembered (least recently answered forgotten first)
REASONING_MODES = ("none", "think_tags", "reasoning_content")

_OPENERS = (
    "Let me work through this step by step.",
    "I will read the question carefully and reason it out.",
    "Breaking the problem into parts makes it manageable.",
    "Checking each condition in turn leads to the result.",
)
_THOUGHTS = (
    "The question gives all the facts needed, so I combine them in order and check the result.",
    "I restate what is asked, work out the intermediate values, and then verify the final value.",
    "Each option or quantity has to be weighed against the conditions before settling on one.",
)
_WORD = re.compile(r"\S+")
_INTEGER = re.compile(r"\d+")


def count_tokens(text: str | None) -> int:
    """Whitespace word count: a cheap stand-in for a tokenizer."""
    return len(text.split()) if text else 0


def truncate_tokens(text: str, budget: int) -> tuple[str, bool]:
    """Keep the first `budget` words (layout preserved); returns (text, was_cut)."""
    if budget <= 0:
        return "", bool(text.strip())
    for number, match in enumerate(_WORD.finditer(text)):
        if number == budget:
            return text[: match.start()].rstrip(), True
    return text, False


@dataclass
class Reply:
    """One generated answer before it is shaped for an endpoint."""

    content: str | None
    reasoning: str | None  # separate reasoning text (reasoning_content mode) or None
    finish_reason: str  # "stop" | "length"
    outcome: str  # "correct" | "wrong" | "unknown" | "judge" (a verdict to a judge prompt)
    completion_tokens: int
    tool_calls: list | None = None  # native tool calls (gym.toolcalls.ToolCall), sent as tool_calls / function_call


def wrong_answer(task: Task, draw: float, index: TaskIndex) -> str:
    """A plausible answer that differs from the gold one."""
    gold = task.expected_answer
    letters = [letter for letter in task.options if letter != gold]
    if task.options and gold in task.options and letters:
        return letters[int(draw * len(letters))]
    match = _INTEGER.search(gold)
    if match:
        value = int(match.group())
        offset = 1 + int(draw * 9)
        new = value - offset if value >= offset and unit_draw(draw, "sign") < 0.5 else value + offset
        return gold[: match.start()] + str(new) + gold[match.end() :]
    other = index.other_gold(gold, draw)
    if other is not None:
        return other
    return f"not {gold}" if gold else "none"


class AnswerPolicy:
    """Decides and writes the answer to a prompt; thread-safe."""

    def __init__(self, rows: Sequence[dict], accuracy: float, seed: int, reasoning: str = "none",
                 task_accuracy: dict | None = None, family: str | None = None):
        if not 0.0 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be within [0, 1], got {accuracy}")
        self.task_accuracy = check_task_accuracy(task_accuracy)
        self._task_rates: dict[int, float] = {}
        if reasoning not in REASONING_MODES:
            raise ValueError(f"unknown reasoning mode '{reasoning}'; valid: {', '.join(REASONING_MODES)}")
        self.index = TaskIndex(rows)
        self.accuracy = accuracy
        self.seed = seed
        self.reasoning = reasoning
        self.answers = FamilyAnswers(family)  # the benchmark's verifier family writes its answers' shape
        self._seen: OrderedDict[bytes, int] = OrderedDict()  # the prompts answered lately, with their counts
        self._lock = threading.Lock()

    def rate_of(self, number: int) -> float:
        """The probability of a right answer to task `number`: `accuracy`, or its own draw from
        `task_accuracy` (Beta(a, b), fixed by the seed and the question) to mimic a real difficulty mix."""
        if self.task_accuracy is None:
            return self.accuracy
        rate = self._task_rates.get(number)
        if rate is None:
            import numpy as np

            digest = hashlib.blake2b(f"{self.seed}\x1ftask\x1f{self.index.tasks[number].question}".encode("utf-8"),
                                     digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "big"))
            rate = float(rng.beta(self.task_accuracy["a"], self.task_accuracy["b"]))
            if len(self._task_rates) > SEEN_PROMPTS:
                self._task_rates.clear()
            self._task_rates[number] = rate
        return rate

    def _claim(self, prompt: str, n: int) -> int:
        """How many times this prompt was answered before; reserves `n` more."""
        key = hashlib.blake2b(prompt.encode("utf-8"), digest_size=16).digest()
        with self._lock:
            before = self._seen.pop(key, 0)
            self._seen[key] = before + n
            if len(self._seen) > SEEN_PROMPTS:  # a run's repeats of a prompt come close together
                self._seen.popitem(last=False)
        return before

    def answer(self, prompt: str, request_seed: object | None, n: int, max_tokens: int | None,
               native_tools: bool = False, tools: Sequence[dict] = ()) -> list[Reply]:
        """`native_tools`: the request carried `tools`, so a tool-calling task is answered with tool_calls."""
        verdict = pairwise_verdict(prompt, self.index) or judge_verdict(prompt)  # it plays the LLM judge too
        if verdict is not None:
            return [_limit(verdict, None, "judge", max_tokens) for _ in range(n)]
        number = self.index.find(prompt, lambda n: offered_functions(self.index.tasks[n].tool_row, tools, prompt))
        first = 0 if request_seed is not None else self._claim(prompt, n)
        replies = []
        for choice in range(n):
            # The request seed pins the draw; without one, the k-th sight of a prompt gets the k-th draw.
            salt = f"s{request_seed}/{choice}" if request_seed is not None else f"n{first + choice}"
            replies.append(self._one(prompt, number, salt, max_tokens, native_tools))
        return replies

    def _one(self, prompt: str, number: int | None, salt: str, max_tokens: int | None,
             native_tools: bool = False) -> Reply:
        if number is None and (step := self.index.sub_steps.find(prompt)) is not None:
            return self._sub_step_reply(step, prompt, salt, max_tokens)
        if number is None:
            outcome, final = "unknown", None
        else:
            task = self.index.tasks[number]
            correct = unit_draw(self.seed, "correct", prompt, salt) < self.rate_of(number)
            outcome = "correct" if correct else "wrong"
            if task.tool_row is not None:
                answer = tool_answer(task.tool_row, correct, underscored_names(task.tool_row, prompt, native_tools))
                return _tool_reply(answer, prompt, native_tools, outcome, task.tool_row)
            final = task.expected_answer if correct else wrong_answer(task, unit_draw(self.seed, "wrong", prompt, salt), self.index)
        pick = unit_draw(self.seed, "style", prompt, salt)
        if final is None:
            content = UNKNOWN_ANSWER
        else:
            opener = _OPENERS[int(pick * len(_OPENERS))]
            content = f"{opener}\n\nThe answer is \\boxed{{{final}}}.\nAnswer: {final}"
            template = self.index.tasks[number].answer_template
            if template:
                content += "\n" + template.replace("{answer}", final)
            row = self.index.tasks.rows
            content = self.answers.write(lambda: row[number], prompt, final, outcome == "correct", opener) or content
        thought = _THOUGHTS[int(pick * len(_THOUGHTS))] if self.reasoning != "none" else None
        reasoning = None
        if self.reasoning == "think_tags":
            content = f"<think>\n{thought}\n</think>\n\n{content}"
        elif self.reasoning == "reasoning_content":
            reasoning = thought
        return _limit(content, reasoning, outcome, max_tokens)

    def _sub_step_reply(self, step: SubStep, prompt: str, salt: str, max_tokens: int | None) -> Reply:
        """A SciCode sub-step: its gold code, or (drawn wrong) a definition of the same function."""
        correct = unit_draw(self.seed, "correct", prompt, salt) < self.accuracy
        code = step.gold_code if correct else step.wrong_code()
        opener = _OPENERS[int(unit_draw(self.seed, "style", prompt, salt) * len(_OPENERS))]
        return _limit(f"{opener}\n\n```python\n{code}\n```", None, "correct" if correct else "wrong", max_tokens)


def _tool_reply(answer: Any, prompt: str, native: bool, outcome: str, row: dict) -> Reply:
    """A tool-calling task's reply: native calls, calls written as text, or a sentence."""
    if isinstance(answer, str):
        return Reply(answer, None, "stop", outcome, count_tokens(answer))
    if native:
        return Reply(None, None, "tool_calls", outcome, sum(count_tokens(c.arguments_json()) + 1 for c in answer),
                     tool_calls=answer)
    text = as_text(answer, prompt, row)
    return Reply(text, None, "stop", outcome, count_tokens(text))


def unparsed(reply: Reply) -> Reply:
    """The reply of a server without a tool parser: the calls stay in the text, in Hermes blocks."""
    if not reply.tool_calls:
        return reply
    from dataclasses import replace

    from gym.toolcalls import render_calls

    return replace(reply, content=render_calls(reply.tool_calls, "hermes"), tool_calls=None, finish_reason="stop")


def check_task_accuracy(spec: Any) -> dict | None:
    """None, or {"dist": "beta", "a": A, "b": B} with A, B > 0, from such a dict or "beta:A:B"."""
    if spec is None:
        return None
    if isinstance(spec, str):
        dist, _, rest = spec.partition(":")
        a, _, b = rest.partition(":")
        try:
            spec = {"dist": dist, "a": float(a), "b": float(b)}
        except ValueError:
            raise ValueError(f"task_accuracy wants beta:A:B, got {spec!r}") from None
    spec = dict(spec)
    if spec.get("dist", "beta") != "beta" or set(spec) - {"dist", "a", "b"}:
        raise ValueError(f"task_accuracy must be {{dist: beta, a: A, b: B}}, got {spec!r}")
    a, b = spec.get("a"), spec.get("b")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (a, b)):
        raise ValueError(f"task_accuracy needs Beta parameters a > 0 and b > 0, got a={a!r}, b={b!r}")
    return {"dist": "beta", "a": float(a), "b": float(b)}


def _limit(content: str, reasoning: str | None, outcome: str, max_tokens: int | None) -> Reply:
    """Cut reasoning then content to `max_tokens` words; a cut ends with finish_reason "length"."""
    used = count_tokens(reasoning) + count_tokens(content)
    if max_tokens is None or used <= max_tokens:
        return Reply(content, reasoning, "stop", outcome, used)
    budget = max_tokens
    if reasoning is not None:
        reasoning, _ = truncate_tokens(reasoning, budget)
        budget -= count_tokens(reasoning)
        if budget <= 0:
            # Like a reasoning server cut mid-thought: no final content at all.
            return Reply(None, reasoning, "length", outcome, max_tokens)
    content, _ = truncate_tokens(content, budget)
    return Reply(content, reasoning, "length", outcome, max_tokens)


# -- OpenAI wire format ----------------------------------------------------------------------------
class ApiError(Exception):
    """An OpenAI-shaped error response."""

    def __init__(self, status: int, message: str, kind: str, code: str | None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.kind, self.code, self.headers = status, kind, code, headers or {}

    def body(self) -> dict:
        return {"error": {"message": str(self), "type": self.kind, "param": None, "code": self.code}}


def _invalid(message: str) -> ApiError:
    return ApiError(400, message, "invalid_request_error", "invalid_value")


def _text_of(content: Any) -> str:
    """Message content as text: a string, or a list of parts with `text`; image parts are checked as a
    vision server checks them (a data URL must hold base64 image bytes) and add no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") in IMAGE_PARTS:
                _check_image(part)
            else:
                texts.append(part.get("text", "") if isinstance(part, dict) else str(part))
        return "\n".join(texts)
    return "" if content is None else str(content)


IMAGE_PARTS = ("image_url", "input_image")  # chat and Responses forms


def _check_image(part: dict) -> None:
    url = part.get("image_url")
    if part["type"] == "image_url":
        url = url.get("url") if isinstance(url, dict) else None
    if not isinstance(url, str) or not url.startswith(("data:", "http://", "https://")):
        raise _invalid(f"{part['type']} needs an image URL (data: or http(s)://)")
    if url.startswith("data:"):
        try:
            decode_data_url(url)
        except GymError as exc:
            raise _invalid(str(exc)) from None


def prompt_text(kind: str, request: dict) -> str:
    """All the text a request shows the model (every message, instructions included)."""
    if kind == "chat":
        messages = request.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            raise _invalid("'messages' must be a non-empty list of message objects")
        return "\n".join(_text_of(m.get("content")) for m in messages)
    if kind == "completions":
        prompt = request.get("prompt")
        if isinstance(prompt, list) and all(isinstance(p, str) for p in prompt):
            return "\n".join(prompt)
        if not isinstance(prompt, str):
            raise _invalid("'prompt' must be a string or a list of strings")
        return prompt
    items = request.get("input")
    parts = [request["instructions"]] if isinstance(request.get("instructions"), str) else []
    if isinstance(items, str):
        parts.append(items)
    elif isinstance(items, list):
        parts.extend(_text_of(item.get("content")) if isinstance(item, dict) else str(item) for item in items)
    else:
        raise _invalid("'input' must be a string or a list of input items")
    return "\n".join(parts)


def shape_response(kind: str, replies: list[Reply], prompt_tokens: int, model: str, number: int) -> dict:
    """The OpenAI response object of an endpoint kind ("chat" | "responses" | "completions")."""
    completion_tokens = sum(reply.completion_tokens for reply in replies)
    created = int(time.time())
    if kind == "responses":
        reply = replies[0]
        output: list[dict] = []
        if reply.reasoning is not None:
            output.append({"type": "reasoning", "id": f"rs_{number:08x}", "summary": [],
                           "content": [{"type": "reasoning_text", "text": reply.reasoning}]})
        cut = reply.finish_reason == "length"
        if reply.content is not None:
            output.append({"type": "message", "id": f"msg_{number:08x}", "status": "incomplete" if cut else "completed",
                           "role": "assistant",
                           "content": [{"type": "output_text", "text": reply.content, "annotations": []}]})
        for index, call in enumerate(reply.tool_calls or []):
            output.append({**call.to_responses(index), "id": f"fc_{number:08x}_{index}", "status": "completed",
                           "call_id": f"call_{number:08x}_{index}"})
        return {"id": f"resp_{number:08x}", "object": "response", "created_at": created, "model": model,
                "status": "incomplete" if cut else "completed",
                "incomplete_details": {"reason": "max_output_tokens"} if cut else None, "output": output,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}}
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
             "total_tokens": prompt_tokens + completion_tokens}
    if kind == "completions":
        choices = [{"index": i, "text": r.content or "", "logprobs": None, "finish_reason": r.finish_reason}
                   for i, r in enumerate(replies)]
        return {"id": f"cmpl-{number:08x}", "object": "text_completion", "created": created, "model": model,
                "choices": choices, "usage": usage}
    choices = []
    for i, reply in enumerate(replies):
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [{**call.to_chat(index), "id": f"call_{number:08x}_{index}"}
                                     for index, call in enumerate(reply.tool_calls)]
        choices.append({"index": i, "message": message, "logprobs": None, "finish_reason": reply.finish_reason})
    return {"id": f"chatcmpl-{number:08x}", "object": "chat.completion", "created": created, "model": model,
            "choices": choices, "usage": usage}
