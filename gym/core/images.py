"""Images in prompts: a prepared row's `images` become image parts of its user message.

A prepared row names its images in `images`: files relative to the prepared data's folder (written there
by prepare, e.g. `images/3f2a….png`) or http(s) URLs. The task's messages hold a compact reference per
image, `{"type": "image", "file": <path>, "sha256": <content hash>}` or `{"type": "image", "url": ...}`,
so the rollout key changes with the image's bytes while rollout rows, keys and the memory of a run stay
small; the model client turns references into the wire form of its API (gym.model.images) when it sends.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from gym.core.errors import GymError

IMAGES_FIELD = "images"
DETAILS = ("auto", "low", "high")
MIME_BY_SUFFIX = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                  ".webp": "image/webp"}
SUFFIX_BY_MIME = {"image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/gif": ".gif",
                  "image/webp": ".webp"}
_DATA_URL = re.compile(r"data:(image/[A-Za-z0-9.+-]+)?(;[^,]*)?,", re.ASCII)


def image_parts(row: dict[str, Any], data_dir: Path | None, detail: str | None = None,
                where: str = "row") -> list[dict[str, Any]]:
    """The image references of a row's `images` ([] when it has none); one clear line for a bad entry."""
    names = row.get(IMAGES_FIELD)
    if names in (None, [], ""):
        return []
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not all(isinstance(name, str) and name for name in names):
        raise GymError(f"{where}: '{IMAGES_FIELD}' must be a list of image files (relative to the data folder) or URLs")
    if detail is not None and detail not in DETAILS:
        raise GymError(f"benchmark.prompt.image_detail={detail} is not one of: {', '.join(DETAILS)}")
    extra = {"detail": detail} if detail else {}
    parts = []
    for name in names:
        if name.startswith(("http://", "https://")):
            parts.append({"type": "image", "url": name, **extra})
            continue
        path = image_path(name, data_dir, where)
        parts.append({"type": "image", "file": name, "sha256": file_sha256(path), **extra})
    return parts


def image_path(name: str, data_dir: Path | None, where: str = "row") -> Path:
    """The file of an image reference, which must lie inside the data folder and be a known image type."""
    if data_dir is None:
        raise GymError(f"{where}: image '{name}' is a file, but no data folder is known to read it from")
    root = Path(data_dir).resolve()
    path = (root / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(root):
        raise GymError(f"{where}: image '{name}' must be a path inside the data folder {root}")
    if path.suffix.lower() not in MIME_BY_SUFFIX:
        raise GymError(f"{where}: image '{name}' is not one of: {', '.join(sorted(MIME_BY_SUFFIX))}")
    if not path.is_file():
        raise GymError(f"{where}: image file {path} is missing; prepare the benchmark again")
    return path


def file_sha256(path: Path) -> str:
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=4096)
def _sha256(path: str, size: int, mtime_ns: int) -> str:  # size and mtime: an edited file is hashed again
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def with_images(messages: list[dict[str, Any]], parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with the images after the text of the last user message (the way HLE poses them)."""
    if not parts:
        return messages
    last = max(i for i, message in enumerate(messages) if message.get("role") == "user")
    out = list(messages)
    out[last] = {**messages[last], "content": [{"type": "text", "text": messages[last]["content"]}, *parts]}
    return out


def has_images(messages: list[dict[str, Any]]) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image" for p in m["content"]
                                                          if isinstance(p, dict)) for m in messages)


def content_text(content: Any) -> str:
    """A message's content as text: a string as it is, parts as their text with `[image: <name>]` for each
    image (reports and prompt-length buckets read this, never the image)."""
    if not isinstance(content, list):
        return "" if content is None else str(content)
    return "\n".join(f"[image: {part.get('file') or part.get('url')}]" if part.get("type") == "image"
                      else str(part.get("text", "")) for part in content if isinstance(part, dict))


def decode_data_url(value: str) -> tuple[bytes, str]:
    """(bytes, suffix) of a base64 image data URL such as HLE's `data:image/png;base64,…`; a bare base64
    payload is taken for a PNG, as the reference does."""
    match = _DATA_URL.match(value)
    mime, payload = "image/png", value
    if match:
        if not (match.group(2) or "").endswith(";base64"):
            raise GymError("an image data URL must be base64-encoded (data:image/<type>;base64,...)")
        mime, payload = (match.group(1) or mime).lower(), value[match.end():]
    suffix = SUFFIX_BY_MIME.get(mime)
    if suffix is None:
        raise GymError(f"image type {mime} is not one of: {', '.join(sorted(SUFFIX_BY_MIME))}")
    try:
        return base64.b64decode(payload, validate=True), suffix
    except (binascii.Error, ValueError):
        raise GymError("an image data URL holds no valid base64") from None


def save_image(data_dir: Path, content: bytes, suffix: str, folder: str = "images") -> str:
    """Write an image once, named by its content hash; its name relative to `data_dir`."""
    name = f"{folder}/{hashlib.sha256(content).hexdigest()[:24]}{suffix}"
    path = Path(data_dir) / name
    if not path.is_file() or path.stat().st_size != len(content):
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(content)
        partial.replace(path)
    return name


def data_url(path: Path) -> str:
    """The file as a base64 data URL (the last few kept: a task's repeats are asked back to back)."""
    stat = path.stat()
    return _data_url(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=16)
def _data_url(path: str, size: int, mtime_ns: int) -> str:
    mime = MIME_BY_SUFFIX[Path(path).suffix.lower()]
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"
