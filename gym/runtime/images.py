"""Task images: a task's Dockerfile built with its `FROM` images resolved and the extra CAs trusted.

Each `FROM` image, and each image a `COPY --from=` names, is resolved in order: `runtime.images` (a name
mapped to a local image), an image the runtime already has, a registry pull when `runtime.pull` is true,
else a stand-in (gym.runtime.bases: from the distribution archives, or uv's image from its PyPI wheel); an
image none of these gives fails the build with one line that says which knob to set. Every substitution is
returned so the trial's record says what ran.

The task image's tag hashes the build context and the resolved Dockerfile: an unchanged task reuses its
image; `prune_images` removes the images of a run when `runtime.keep_images` is false.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from gym.runtime.base import BuildFailed, ContainerRuntime
from gym.runtime.bases import ensure_stand_in, stand_in_for
from gym.runtime.trust import ca_files_digest_lines, ca_snippet, write_ca_files

FROM_LINE = re.compile(r"^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(.*)$", re.IGNORECASE)
COPY_FROM = re.compile(r"^(\s*COPY\s+(?:--\S+\s+)*?--from=)(\S+)(.*)$", re.IGNORECASE)
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock(key: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


@dataclass
class BuiltImage:
    tag: str
    seconds: float  # the task's own build time (0 when the image was cached)
    cached: bool
    substitutions: list[dict] = field(default_factory=list)  # {image, used, how}
    base_seconds: float = 0.0  # resolving its FROM images (building a stand-in once: minutes; then ~0)


def resolve_base(runtime: ContainerRuntime, image: str, timeout: float | None = None) -> dict:
    """{image, used, how} for one FROM image (BuildFailed when nothing can give it)."""
    settings = runtime.settings
    if image in settings.images:  # a local image, or another name resolved in turn (a cheaper stand-in's)
        mapped = settings.images[image]
        if mapped == image or runtime.image_exists(mapped):
            return {"image": image, "used": mapped, "how": "runtime.images"}
        made = resolve_base(runtime, mapped, timeout)
        return {"image": image, "used": made["used"], "how": f"runtime.images -> {mapped}: {made['how']}"}
    if runtime.image_exists(image):
        return {"image": image, "used": image, "how": "local"}
    if settings.pull:
        return {"image": image, "used": image, "how": "pulled"}
    spec = stand_in_for(image)
    if spec is None:
        raise BuildFailed(f"image {image} is not here and gym cannot build a stand-in for it: map it to a local "
                          f"image with runtime.images (or runtime.pull=true where a registry is reachable)")
    with _lock(image):
        used = ensure_stand_in(runtime, spec, timeout)
    return {"image": image, "used": used, "how": "stand-in: " + spec.describe()}


def rewrite_dockerfile(text: str, runtime: ContainerRuntime, timeout: float | None = None) -> tuple[str, list[dict]]:
    """The Dockerfile with each FROM image resolved and the CA lines after it, and each image a `COPY --from=`
    names (not a stage) resolved the same way; the substitutions made."""
    stages = {"scratch"}  # Docker's empty image is no image to resolve
    lines, substitutions = [], []
    snippet = ca_snippet(runtime.settings)

    def resolved(image: str) -> str:
        if image.lower() in stages or image.isdigit():  # a stage of this Dockerfile, by name or number
            return image
        made = resolve_base(runtime, image, timeout)
        if made["used"] != image and made not in substitutions:
            substitutions.append(made)
        return made["used"]

    for line in text.splitlines():
        copy = COPY_FROM.match(line)
        found = FROM_LINE.match(line)
        if copy:
            lines.append(f"{copy[1]}{resolved(copy[2])}{copy[3]}")
        elif found:
            head, flags, image, rest = found.groups()
            alias = re.search(r"\bAS\s+(\S+)", rest, re.IGNORECASE)
            lines += [f"{head}{flags}{resolved(image)}{rest}", *(snippet if image.lower() != "scratch" else [])]
            if alias:
                stages.add(alias[1].lower())
        else:
            lines.append(line)
    return "\n".join(lines) + "\n", substitutions


def _context_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\x00" + path.read_bytes() + b"\x00")
    return digest.hexdigest()


def build_task_image(runtime: ContainerRuntime, environment: Path, name: str, timeout: float | None = None,
                     labels: dict | None = None) -> BuiltImage:
    """Build (or reuse) the image of a task's `environment/` folder; BuildFailed says why not."""
    dockerfile = environment / "Dockerfile"
    if not dockerfile.is_file():
        raise BuildFailed(f"{environment} has no Dockerfile")
    # a stand-in base is gym's own one-time cost (a CPython compile takes longer than many tasks' whole
    # build budget): it gets runtime.base_build_timeout, and the task's clock starts once its bases are there
    began = time.monotonic()
    text, substitutions = rewrite_dockerfile(dockerfile.read_text(encoding="utf-8"), runtime,
                                             runtime.settings.base_build_timeout)
    started = time.monotonic()
    base_seconds = started - began
    digest = hashlib.sha256("\x00".join([_context_digest(environment), text,
                                         *ca_files_digest_lines(runtime.settings)]).encode()).hexdigest()[:16]
    tag = f"localhost/gym-task/{re.sub(r'[^a-z0-9._-]+', '-', name.lower())}:{digest}"
    with _lock(tag):
        if runtime.image_exists(tag):
            return BuiltImage(tag, 0.0, True, substitutions, base_seconds)
        with tempfile.TemporaryDirectory(prefix="gym-build-") as tmp:
            context = Path(tmp) / "context"
            shutil.copytree(environment, context, symlinks=True)
            write_ca_files(runtime.settings, context)
            (context / ".gym.Dockerfile").write_text(text, encoding="utf-8")
            remaining = None if timeout is None else max(1.0, timeout - (time.monotonic() - started))
            runtime.build(context, tag, dockerfile=context / ".gym.Dockerfile", timeout=remaining,
                          labels={"gym.task": name, **(labels or {})})
    return BuiltImage(tag, time.monotonic() - started, False, substitutions, base_seconds)


def prune_images(runtime: ContainerRuntime, tags: list[str]) -> None:
    """Remove task images (runtime.keep_images=false); bases and stand-ins stay cached."""
    for tag in tags:
        runtime.remove_image(tag)
