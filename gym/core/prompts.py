"""Prompt templates: `{field}` placeholders filled from the task row; other braces are left alone.

Unlike str.format, LaTeX such as `\\boxed{}` or `\\frac{a}{b}` needs no escaping in templates; `{{`/`}}`
still give literal braces. Multiple-choice rows also get `{options_text}` and `{letters}` derived
from their `options`. A row's `images` follow the user message's text as image parts (gym.core.images).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.images import image_parts, with_images

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


# Token ids and log-probabilities of one model call, named as NeMo Gym's training items name them: kept on
# the assistant's turn and sent back unchanged on the next request (the reference's on-policy correction).
# `routed_experts` (a mixture-of-experts policy's routing, for routing replay) travels with them unchanged.
TOKEN_KEYS = ("prompt_token_ids", "generation_token_ids", "generation_log_probs", "routed_experts")


def derived_fields(row: dict[str, Any]) -> dict[str, Any]:
    options = row.get("options")
    if isinstance(options, dict) and options:
        letters = list(options)
        return {
            "options_text": "\n".join(f"{letter}) {text}" for letter, text in options.items()),
            "letters": ", ".join(letters[:-1]) + f" or {letters[-1]}" if len(letters) > 1 else letters[0],
        }
    return {}


def render(template: str, row: dict[str, Any], where: str = "row") -> str:
    values = {**derived_fields(row), **row}

    def fill(match: re.Match) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        if name not in values:
            raise GymError(f"prompt template needs field '{name}', which {where} lacks "
                           f"(it has: {', '.join(sorted(values))})")
        value = values[name]
        return value if isinstance(value, str) else str(value)

    return _PLACEHOLDER.sub(fill, template)


def build_messages(system: str | None, user: str, row: dict[str, Any], where: str = "row",
                   data_dir: Path | None = None, image_detail: str | None = None) -> list[dict[str, Any]]:
    """The task's messages; `data_dir` is where the row's image files are (the prepared data's folder)."""
    if user.strip() == "{messages}":  # a multi-turn task (mrcr): the row's conversation is sent as it is
        messages = conversation(row.get("messages"), where)
    else:
        messages = [{"role": "system", "content": render(system, row, where)}] if system else []
        messages.append({"role": "user", "content": render(user, row, where)})
    return with_images(messages, image_parts(row, data_dir, image_detail, where))


ROLES = ("system", "user", "assistant")


def conversation(messages: Any, where: str = "row") -> list[dict[str, str]]:
    """A row's own `messages` ([{role, content}], ending with a user turn), checked and copied."""
    if not isinstance(messages, list) or not messages:
        raise GymError(f"prompt template '{{messages}}' needs a non-empty 'messages' list, which {where} lacks")
    out = []
    for number, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES or not isinstance(message.get("content"), str):
            raise GymError(f"{where}: message {number} must be {{role: system|user|assistant, content: <text>}}")
        out.append({"role": message["role"], "content": message["content"]})
    if out[-1]["role"] != "user":
        raise GymError(f"{where}: the conversation must end with a user message")
    return out
