"""Image references in a task's messages (gym.core.images) in the wire form of each API.

chat:       content parts {"type": "text", "text"} and {"type": "image_url", "image_url": {"url"[, "detail"]}}
responses:  content items {"type": "input_text", "text"} and {"type": "input_image", "image_url", "detail"}
completions has no place for an image: a prompt with one is refused.
A file is sent as a base64 data URL, read when the request is made (never kept in rollout rows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.images import data_url, has_images, image_path

__all__ = ["chat_messages", "has_images", "no_images", "responses_items"]


def _url(part: dict[str, Any], root: Path | None) -> str:
    if part.get("url"):
        return str(part["url"])
    return data_url(image_path(str(part.get("file")), root, "prompt"))


def _chat_part(part: Any, root: Path | None) -> Any:
    if not isinstance(part, dict) or part.get("type") != "image":
        return part
    image = {"url": _url(part, root), **({"detail": part["detail"]} if part.get("detail") else {})}
    return {"type": "image_url", "image_url": image}


def _responses_part(part: Any, root: Path | None) -> Any:
    if not isinstance(part, dict):
        return part
    if part.get("type") == "text":
        return {"type": "input_text", "text": part.get("text", "")}
    if part.get("type") == "image":
        return {"type": "input_image", "image_url": _url(part, root), "detail": part.get("detail") or "auto"}
    return part


def _convert(messages: list[dict[str, Any]], root: Path | None, part_of: Any) -> list[dict[str, Any]]:
    if not has_images(messages):
        return messages
    return [{**m, "content": [part_of(p, root) for p in m["content"]]} if isinstance(m.get("content"), list) else m
            for m in messages]


def chat_messages(messages: list[dict[str, Any]], root: Path | None) -> list[dict[str, Any]]:
    return _convert(messages, root, _chat_part)


def responses_items(items: list[dict[str, Any]], root: Path | None) -> list[dict[str, Any]]:
    return _convert(items, root, _responses_part)


def no_images(messages: list[dict[str, Any]], where: str = "the prompt") -> None:
    if has_images(messages):
        raise GymError(f"model.api=completions cannot send images ({where} has some); "
                       "use model.api=chat or model.api=responses")
