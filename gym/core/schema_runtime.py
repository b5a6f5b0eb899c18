"""Schemas of the container tasks' config groups: runtime (conf/runtime/*.yaml) and agent (conf/agent/*.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class RuntimeConfig:
    """Container runtime (conf/runtime/*.yaml; gym.runtime.RuntimeSettings is its typed form)."""

    provider: str = "podman"  # podman | docker
    binary: Optional[str] = None  # the CLI (a name on PATH or a path); null = the provider's name
    oci_runtime: Optional[str] = None  # podman --runtime (runc | crun | auto); null = podman's default
    ulimits: List[str] = field(default_factory=list)  # --ulimit per build and container
    extra_ca_certs: List[str] = field(default_factory=list)  # PEM files trusted in every build (a TLS proxy's CA)
    images: Any = None  # image name -> local image (or another name) used instead; on the command line a list: ['python:3.13-slim-bookworm=python:3.13-slim-trixie']
    pull: bool = False  # true: FROM images are pulled from a registry; false: local, mapped, or a stand-in
    keep_images: bool = True  # false: a task's image is removed after its trial (stand-in bases stay cached)
    cache_dir: str = "~/.cache/gym/runtime"  # root filesystems of stand-in bases, tools fetched for tests
    debian_archive: str = "http://deb.debian.org/debian"  # where Debian stand-ins come from
    ubuntu_archive: str = "http://archive.ubuntu.com/ubuntu"  # where Ubuntu stand-ins come from
    ubuntu_keyring: Optional[str] = None  # the Ubuntu archive keyring; null = the host's, else from the archive
    build_network: bool = True  # builds reach the network (apt, pip)
    base_build_timeout: Optional[float] = 3600.0  # seconds for building a stand-in base once (not the task's build budget)
    max_parallel: int = 2  # trials with a live container at once
    run_label: str = ""  # the run directory by default (${gym_run_label:}); containers of one run share it


@dataclass
class AgentConfig:
    """Who works container tasks (conf/agent/*.yaml): terminal (the model) | oracle | nop | cli (a CLI agent)."""

    kind: str = "terminal"
    command_timeout: float = 180.0  # default seconds per shell command
    output_chars: int = 10000  # a command's output kept for the model
    # kind=cli: a third-party CLI agent installed into the task's container (conf/agent/<name>.yaml says how)
    cli: Optional[Dict[str, Any]] = None
    max_model_calls: Optional[int] = None  # the model proxy's call budget per trial (CLI agents)
    max_model_tokens: Optional[int] = None  # its token budget per trial (prompt + generated)
    timeout: float = 1800.0  # seconds a CLI agent may run
