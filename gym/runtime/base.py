"""What every container runtime shares: settings, limits, results, the provider interface and its errors.

A provider (podman, docker; Apptainer/Enroot or Kubernetes would be more, see gym/runtime/__init__.py)
implements `ContainerRuntime`: build an image from a Dockerfile, import a root filesystem as an image,
run a detached container with limits and labels, exec in it with a timeout, copy files in and out, and
remove it. Everything gym starts is labelled (LABEL_*), so leftovers of a killed run can be found.
"""

from __future__ import annotations

import os
import socket
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from gym.core.errors import GymError

LABEL_MANAGED = "gym.managed"  # "1" on every container and image gym makes
LABEL_OWNER = "gym.owner"  # "<host>:<pid>" of the gym process that started the container
LABEL_RUN = "gym.run"  # the run's own label (settings.run_label), shared by its containers
LABEL_TRIAL = "gym.trial"  # one trial (task, rollout) of that run


class RuntimeUnavailable(GymError):
    """The container CLI is missing or does not answer: one line, said before any trial starts."""


class ContainerError(Exception):
    """A container command failed (start, copy, remove); `output` holds the CLI's own words."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


class BuildFailed(ContainerError):
    """An image build failed or ran past its timeout (`timed_out`); `output` is the build log's tail."""

    def __init__(self, message: str, output: str = "", timed_out: bool = False):
        super().__init__(message, output)
        self.timed_out = timed_out


@dataclass(frozen=True)
class ResourceLimits:
    """A container's limits: cpus (fractional), memory ("2G", "512m"), pids, storage (where the storage
    driver supports it; podman's overlay on a plain filesystem does not, so it is recorded, not enforced),
    network (False: `--network none`)."""

    cpus: float | None = None
    memory: str | None = None
    pids: int | None = 4096
    storage: str | None = None
    network: bool | str = False  # a string: the named network (gym.cliagents' internal one)


@dataclass
class ExecResult:
    exit_code: int | None  # None when it timed out
    output: str  # stdout and stderr interleaved, as a terminal shows them
    seconds: float
    timed_out: bool = False


@dataclass
class Container:
    """A running container: its id, the image it runs, its labels, and the runtime that started it."""

    id: str
    image: str
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RuntimeSettings:
    """The `runtime` config group, resolved once (gym.runtime.settings_from_config)."""

    provider: str = "podman"  # podman | docker
    binary: str | None = None  # the CLI (a name on PATH or a path); None = the provider's own name
    oci_runtime: str | None = None  # podman --runtime (runc where crun refuses the host's cgroups)
    ulimits: tuple[str, ...] = ()  # --ulimit for every build and run (nofile=20000:20000 ...)
    extra_ca_certs: tuple[str, ...] = ()  # PEM files trusted inside every build (an intercepting HTTPS proxy's CA)
    images: Mapping[str, str] = field(default_factory=dict)  # image name -> local image to use instead
    pull: bool = False  # true: FROM images come from a registry (stand-ins only when asked by runtime.images)
    keep_images: bool = True  # false: task images are removed after their trial
    cache_dir: str = "~/.cache/gym/runtime"  # stand-in bases' root filesystems, tools fetched for tests
    debian_archive: str = "http://deb.debian.org/debian"
    ubuntu_archive: str = "http://archive.ubuntu.com/ubuntu"
    ubuntu_keyring: str | None = None  # the Ubuntu archive keyring (mmdebstrap checks signatures); None = look
    build_network: bool = True  # builds reach the network (apt, pip); tasks' own network is per task
    base_build_timeout: float | None = 3600.0  # seconds for a stand-in base's build (once); None = no limit
    max_parallel: int = 2  # trials with a live container at once
    run_label: str = ""  # set per run: containers of one run share it

    def cache(self) -> Path:
        return Path(os.path.expanduser(self.cache_dir))


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_gone(owner: str) -> bool:
    """A container's LABEL_OWNER names a process on this host that no longer runs (a run killed outright);
    False for a live owner and for another host's (whose processes cannot be seen from here)."""
    host, _, pid = str(owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class ContainerRuntime(ABC):
    """A container provider. Methods raise ContainerError (BuildFailed for builds) with the CLI's words;
    `exec` never raises for the command's own failure or timeout (see ExecResult)."""

    name: str = ""

    def __init__(self, settings: RuntimeSettings):
        self.settings = settings

    @abstractmethod
    def check(self) -> str:
        """The provider's version line; RuntimeUnavailable (one line) when its CLI is absent or broken."""

    @abstractmethod
    def image_exists(self, image: str) -> bool: ...

    @abstractmethod
    def build(self, context: Path, tag: str, dockerfile: Path | None = None, timeout: float | None = None,
              build_args: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None) -> str:
        """Build `context` (its Dockerfile, or `dockerfile`) as `tag`; the build log. BuildFailed on failure."""

    @abstractmethod
    def import_rootfs(self, tarball: Path, tag: str, changes: Sequence[str] = ()) -> None:
        """A root filesystem tarball as image `tag` (`changes`: Dockerfile lines such as CMD, ENV)."""

    @abstractmethod
    def run(self, image: str, limits: ResourceLimits, labels: Mapping[str, str] | None = None,
            env: Mapping[str, str] | None = None, workdir: str | None = None) -> Container:
        """A detached container of `image` kept alive (sleep infinity) until `remove`."""

    @abstractmethod
    def exec(self, container: Container, command: str, timeout: float | None = None, workdir: str | None = None,
             env: Mapping[str, str] | None = None, user: str | None = None) -> ExecResult:
        """`bash -c command` (sh where the image has no bash) in the container."""

    @abstractmethod
    def copy_in(self, container: Container, source: Path, target: str) -> None:
        """Copy a host file or folder to `target` in the container (a folder's contents land in `target`)."""

    @abstractmethod
    def copy_out(self, container: Container, source: str, target: Path) -> bool:
        """Copy `source` from the container to the host; False when it does not exist there."""

    @abstractmethod
    def remove(self, container: Container) -> None:
        """Stop and remove at once (never raises: a container already gone is fine)."""

    @abstractmethod
    def remove_image(self, image: str) -> None: ...

    @abstractmethod
    def containers(self, labels: Mapping[str, str]) -> list[dict[str, str]]:
        """Containers (running or not) with all of `labels`: [{id, labels...}]."""

    @abstractmethod
    def images(self, labels: Mapping[str, str]) -> list[dict]:
        """Images with all of `labels`: [{id, tags (list), size (bytes), labels (dict)}]."""

    @abstractmethod
    def sweep_stale(self) -> int:
        """Remove gym's containers whose owning process is gone (a run killed outright); how many."""

    @abstractmethod
    def remove_labelled(self, labels: Mapping[str, str]) -> int:
        """Remove gym's containers carrying all of `labels` (a run's leftovers); how many."""

    @abstractmethod
    def image_info(self, image: str) -> dict:
        """The image's config as `inspect` gives it ({} when absent): WorkingDir, Env, Size..."""
