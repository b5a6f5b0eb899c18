"""Harbor's task format, read: a folder with task.toml, instruction.md, environment/, solution/, tests/.

`read_task(folder)` gives a HarborTask with task.toml's settings (Harbor's defaults where a key is
absent); `scan(task)` says from the files alone whether the task can run here and why not: a `FROM`
image gym can neither find nor stand in for, files the Dockerfile copies that are missing, downloads
at build time (RUN lines), in the solution or in the tests from hosts outside `reachable`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gym.core.errors import GymError

# Harbor's defaults (harbor.models.task.config) where task.toml leaves a key out
DEFAULTS = {"agent_timeout": 600.0, "verifier_timeout": 600.0, "build_timeout": 600.0, "cpus": 1.0,
            "memory": "2G", "storage": "10G", "allow_internet": True}
URL = re.compile(r"(?:https?|git)://([A-Za-z0-9.-]+)")
# hosts whose downloads gym supplies itself at test time: uv's installer (gym puts uv in first)
SUPPLIED = {"astral.sh"}


SYSTEM = ("You are an expert at the Linux command line, working alone on a task in a container. Run commands "
          "with the `shell` tool (each call is a fresh `bash -c` in the task's working directory: `cd` and "
          "variables do not carry over, files do). Nobody will answer questions: work until the task is done, "
          "check your work, then call `done`. Tests run after you finish.")


def system_prompt(instruction: str) -> str:
    """The terminal agent's system prompt for a task: how to work, then the task itself."""
    return f"{SYSTEM}\n\n# The task\n\n{instruction.strip()}"


@dataclass
class HarborTask:
    name: str
    folder: Path
    instruction: str
    agent_timeout: float
    verifier_timeout: float
    build_timeout: float
    cpus: float
    memory: str
    storage: str | None
    allow_internet: bool
    docker_image: str | None
    metadata: dict = field(default_factory=dict)

    def settings(self) -> dict:
        data = asdict(self)
        data.pop("folder"), data.pop("instruction"), data.pop("metadata")
        return data


def _memory(section: dict, key: str) -> str | None:
    if f"{key}_mb" in section:
        return f"{int(section[f'{key}_mb'])}m"
    value = section.get(key)
    return None if value is None else str(value)


def read_task(folder: Path) -> HarborTask:
    """One task folder; GymError naming the file when task.toml or instruction.md is missing or broken."""
    toml_path, instruction = folder / "task.toml", folder / "instruction.md"
    for path in (toml_path, instruction, folder / "environment" / "Dockerfile", folder / "tests" / "test.sh"):
        if not path.is_file():
            raise GymError(f"{folder}: not a Harbor task (no {path.relative_to(folder)})")
    try:
        config = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise GymError(f"{toml_path}: {exc}") from None
    agent, verifier, env = (config.get(k) or {} for k in ("agent", "verifier", "environment"))
    return HarborTask(
        name=folder.name, folder=folder, instruction=instruction.read_text(encoding="utf-8"),
        agent_timeout=float(agent.get("timeout_sec", DEFAULTS["agent_timeout"])),
        verifier_timeout=float(verifier.get("timeout_sec", DEFAULTS["verifier_timeout"])),
        build_timeout=float(env.get("build_timeout_sec", DEFAULTS["build_timeout"])),
        cpus=float(env.get("cpus", DEFAULTS["cpus"])), memory=_memory(env, "memory") or DEFAULTS["memory"],
        storage=_memory(env, "storage"), allow_internet=bool(env.get("allow_internet", True)),
        docker_image=env.get("docker_image"), metadata=dict(config.get("metadata") or {}))


def task_folders(root: Path) -> list[Path]:
    """The task folders under `root` (those with a task.toml), sorted by name."""
    if not root.is_dir():
        raise GymError(f"{root}: no such folder of Harbor tasks")
    return sorted(p.parent for p in root.glob("*/task.toml"))


# a line that fetches: a URL elsewhere (a comment, an XML namespace) downloads nothing
FETCHES = re.compile(r"curl|wget|\bgit\b|clone|download|fetch|urlopen|urlretrieve|requests\.|\bADD\b|\bpip\b|"
                     r"\bnpm\b|install|from_pretrained|load_dataset|\| *(?:ba)?sh", re.IGNORECASE)


# a Hugging Face Hub id ("org/name", not a local path) handed to a loader: a download from huggingface.co
LOADER = r"\b(?:from_pretrained|load_dataset|hf_hub_download|snapshot_download)\(\s*(?:repo_id\s*=\s*)?"
HUB = re.compile(LOADER + r"[\"'](?![/.~])[\w.-]+/[\w.-]+[\"']")
# ... or a name bound to an id: "org/name", or a canonical one without an org ("distilbert-base-uncased-...")
HUB_BY_NAME = re.compile(LOADER + r"(\w+)\s*[,)]")
HUB_ID = re.compile(r"(?![/.~])[\w.-]+/[\w.-]+|\w+(?:-[\w.]+)+")
BOUND = re.compile(r"^\s*(?:export\s+)?(\w+)\s*=\s*[\"']([^\"'\s]+)[\"']", re.MULTILINE)


def _hosts(text: str) -> set[str]:
    """Hosts the text downloads from: URLs on lines that fetch, also through a name bound to a URL
    (`url = "https://..."` then `urlretrieve(url, ...)`), and huggingface.co where a loader gets a Hub id."""
    lines = [line for line in text.splitlines() if not re.match(r"\s*(#|;|//|PREFIX\b)", line)]
    code = "\n".join(lines)
    bound = dict(BOUND.findall(code))
    hosts = set()
    for line in filter(FETCHES.search, lines):
        named = [bound[word] for word in re.findall(r"\w+", line) if word in bound]
        hosts |= {host.lower() for host in URL.findall(" ".join([line, *named]))}
    hub = HUB.search(code) or any(HUB_ID.fullmatch(bound.get(name, "")) for name in HUB_BY_NAME.findall(code))
    # a host without a dot is a service of the task's own (a compose name, localhost); so are loopback addresses
    local = {host for host in hosts if "." not in host or host == "0.0.0.0" or host.startswith("127.")}
    return (hosts - local) | ({"huggingface.co"} if hub else set())  # (an id may follow on the loader's next line)


# uv commands that need a Python: where the image has none, uv downloads a CPython (python-build-standalone)
UV_NEEDS_PYTHON = re.compile(r"\buv\s+(?:run|sync|venv|python\s+install|tool\s+(?:run|install))\b|\buvx\b")
INSTALLS_PYTHON = re.compile(r"\binstall\b[^\n]*\bpython3(?:\.\d+)?\b")
UV_PYTHON_HOST = "github.com"


def _uv_downloads_python(dockerfile: str) -> bool:
    """Whether a build stage runs uv where its image has no Python (a known base without one, e.g. ubuntu:24.04,
    and no RUN before that installs python3): uv then downloads a CPython from GitHub."""
    from gym.runtime.bases import stand_in_for

    has_python: dict[str, bool] = {}  # stage name -> whether it has a Python
    current, name = True, None
    for line in re.sub(r"\\\n", " ", dockerfile).splitlines():
        found = re.match(r"\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", line, re.IGNORECASE)
        if found:
            image, name = found[1].lower(), (found[2] or "").lower() or None
            spec = stand_in_for(image) if image not in has_python else None
            current = has_python.get(image, spec is None or spec.python is not None)  # an unknown image: no verdict
        elif re.match(r"\s*RUN\b", line, re.IGNORECASE):
            if UV_NEEDS_PYTHON.search(line) and not current:
                return True
            current = current or bool(INSTALLS_PYTHON.search(line))
        if name:
            has_python[name] = current
    return False


def _run_lines(dockerfile: str) -> str:
    """The Dockerfile's RUN/ADD instructions (continuation lines joined), where a build downloads, with the
    ARG and ENV defaults they use filled in (`ARG URL=https://...` then `RUN curl "${URL}"`)."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    values = {name: value.strip("'\"") for name, value in
              re.findall(r"^\s*(?:ARG|ENV)\s+(\w+)[= ]\s*(\S+)", joined, re.IGNORECASE | re.MULTILINE)}
    lines = [line for line in joined.splitlines() if re.match(r"\s*(RUN|ADD)\b", line, re.IGNORECASE)]
    fill = re.compile(r"\$\{?(\w+)\}?")
    return "\n".join(fill.sub(lambda m: values.get(m[1], m[0]), line) for line in lines)


def _copied_missing(task: HarborTask, dockerfile: str) -> list[str]:
    missing = []
    joined = re.sub(r"\\\n", " ", dockerfile)
    for line in joined.splitlines():
        found = re.match(r"\s*(?:COPY|ADD)\s+(?:--\S+\s+)*(.+)$", line, re.IGNORECASE)
        if not found or "--from" in line.lower():
            continue
        words = found[1].split()
        for source in words[:-1]:
            if "://" in source or any(ch in source for ch in "*?$"):
                continue
            if not (task.folder / "environment" / source).exists():
                missing.append(source)
    return missing


def _checksummed_missing(task: HarborTask) -> list[str]:
    """Files whose checksum file is there but not they: a snapshot that leaves out large files keeps the
    small `x.tar.gz.sha256` beside where `x.tar.gz` was (sqlite-with-gcov's vendored SQLite source)."""
    sums = [p for p in task.folder.rglob("*") if p.suffix in (".sha256", ".sha512", ".md5") and p.is_file()]
    return [str(p.with_suffix("").relative_to(task.folder)) for p in sorted(sums) if not p.with_suffix("").exists()]


def scan(task: HarborTask, reachable: set[str], can_stand_in) -> str | None:
    """Why the task cannot run here (one line), or None when nothing in its files says it cannot.
    `can_stand_in(image)` says whether a FROM image can be had (local, mapped, or a stand-in)."""
    dockerfile = (task.folder / "environment" / "Dockerfile").read_text(encoding="utf-8", errors="replace")
    stages = {m.lower() for m in re.findall(r"^\s*FROM\s+\S+\s+AS\s+(\S+)", dockerfile, re.IGNORECASE | re.MULTILINE)}
    stages.add("scratch")  # Docker's empty image
    for image in re.findall(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", dockerfile, re.IGNORECASE | re.MULTILINE):
        if image.lower() not in stages and not can_stand_in(image):
            return f"base image {image}: no registry here and no stand-in"
    for image in re.findall(r"^\s*COPY\s+(?:--\S+\s+)*?--from=(\S+)", dockerfile, re.IGNORECASE | re.MULTILINE):
        if image.lower() not in stages and not image.isdigit() and not can_stand_in(image):  # an image, not a stage
            return f"copies from image {image}: no registry here and no stand-in"
    if (task.folder / "environment" / "docker-compose.yaml").exists():
        return "needs docker compose (several services)"
    missing = _copied_missing(task, dockerfile) + _checksummed_missing(task)
    if missing:
        return "files missing from the task folder: " + ", ".join(missing[:3])
    scripts = sorted(p for p in (task.folder / "environment").rglob("*") if p.suffix in (".sh", ".py") and p.is_file())
    if _uv_downloads_python(dockerfile) and not _reachable(UV_PYTHON_HOST, reachable):
        return f"build runs uv in an image without Python: uv downloads one from {UV_PYTHON_HOST} (unreachable here)"
    places = [("build", "\n".join([_run_lines(dockerfile),
                                    *(p.read_text(encoding="utf-8", errors="replace") for p in scripts)]))]
    for part in ("solution", "tests"):  # solve.sh and test.sh, and the scripts beside them
        files = sorted(p for p in (task.folder / part).rglob("*") if p.suffix in (".sh", ".py") and p.is_file())
        places.append((part, "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)))
    for part, text in places:
        outside = sorted(host for host in _hosts(text) - SUPPLIED if not _reachable(host, reachable))
        if outside:
            return f"{part} downloads from {', '.join(outside[:3])} (unreachable here)"
    return None


def _reachable(host: str, reachable: set[str]) -> bool:
    return any(host == name or host.endswith("." + name) for name in reachable)
