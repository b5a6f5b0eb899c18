"""Container runtimes: build images, run containers with limits, exec, copy, remove — podman or docker.

The API other layers use (stable; everything else in this package is an implementation detail):

    from gym.runtime import make_runtime, settings_from_config, ResourceLimits
    runtime = make_runtime(settings_from_config(cfg.runtime))   # runtime=podman|docker; RuntimeUnavailable if absent
    runtime.check()                                             # version line; one-line error when the CLI is broken
    built = build_task_image(runtime, task_dir / "environment", "fix-git", timeout=600)
    #       -> BuiltImage(tag, seconds, cached, substitutions): FROM images resolved (runtime.images, local,
    #          pulled, or a stand-in built from the Debian/Ubuntu archives), extra CAs trusted
    box = runtime.run(built.tag, ResourceLimits(cpus=1, memory="2G", network=True),
                      labels={LABEL_RUN: settings.run_label, LABEL_TRIAL: "task-0-r0"})
    result = runtime.exec(box, "cd /app && make", timeout=60)  # ExecResult(exit_code|None, output, seconds, timed_out)
    runtime.copy_in(box, Path("tests"), "/tests"); runtime.copy_out(box, "/logs/verifier/reward.txt", dest)
    runtime.remove(box)                                         # always; also at exit and by sweep_stale()
    stop_all()                                                  # interrupted: remove every live container now

Every container carries LABEL_MANAGED and LABEL_OWNER (host:pid), plus the caller's labels. Containers
still alive at interpreter exit are removed (atexit); those of a process killed outright are removed by
the next `run` on the host (`sweep_stale`) or by `remove_labelled({LABEL_RUN: ...})`.

Providers are registered in RUNTIMES by name. How the others would map (not built):
* Apptainer/Enroot (SLURM clusters, no daemon, no root): `build` = convert the built OCI image
  (`apptainer build x.sif docker-daemon://` or `enroot import dockerd://`; on an air-gapped cluster, from
  a tarball made where a builder runs); `run` = `apptainer instance start --containall --net --network
  none --cpus/--memory` (cgroups v2 delegation needed) or `enroot create` + `enroot start` in the
  background; `exec` = `apptainer exec instance://name bash -c` with a timeout around it; `copy_in/out`
  = a bind-mounted per-trial folder (the instance's filesystem is read-only, so /tests and /logs are
  binds with --writable-tmpfs for the rest); `remove` = `instance stop`; labels = the instance name
  prefix plus a state file per run, since instances carry no labels.
* Kubernetes: `build` = an image pushed to the cluster's registry (Kaniko/BuildKit job); `run` = a Pod
  (`sleep infinity`, resources.limits cpu/memory/ephemeral-storage, a NetworkPolicy denying egress for
  no network, labels as Pod labels); `exec` = the exec subresource (kubectl exec / the Python client)
  with a client-side timeout; `copy_in/out` = tar over exec, as `kubectl cp` does; `remove` = delete
  the Pod with grace period 0; `containers(labels)` = a label selector, so sweeping works as here
  (owner = the controller's pod name instead of host:pid).
"""

from __future__ import annotations

from typing import Any, Mapping

from gym.core.errors import GymError, did_you_mean
from gym.runtime.base import (LABEL_MANAGED, LABEL_OWNER, LABEL_RUN, LABEL_TRIAL, BuildFailed, Container,
                              ContainerError, ContainerRuntime, ExecResult, ResourceLimits, RuntimeSettings,
                              RuntimeUnavailable)
from gym.runtime.cli import DockerRuntime, PodmanRuntime, Stopping, remove_all_live, stop_all
from gym.runtime.images import BuiltImage, build_task_image, prune_images

RUNTIMES: dict[str, type[ContainerRuntime]] = {"podman": PodmanRuntime, "docker": DockerRuntime}


def make_runtime(settings: RuntimeSettings) -> ContainerRuntime:
    """The provider named by settings.provider (its CLI is looked up on PATH when first used)."""
    if settings.provider not in RUNTIMES:
        raise GymError(f"unknown runtime {settings.provider!r}{did_you_mean(settings.provider, RUNTIMES)}; "
                       f"known: {', '.join(RUNTIMES)}")
    return RUNTIMES[settings.provider](settings)


def settings_from_config(node: Mapping[str, Any] | None, run_label: str = "") -> RuntimeSettings:
    """The `runtime` config group (a mapping) as RuntimeSettings; oci_runtime `auto` picks runc on hosts
    whose cgroups are hybrid (v1 with a v2 `unified` mount), where crun refuses to start containers."""
    import os
    import shutil

    knobs = dict(node or {})
    knobs.pop("_target_", None)
    oci = knobs.get("oci_runtime")
    if oci == "auto":
        hybrid = os.path.isdir("/sys/fs/cgroup/unified") and os.path.isdir("/sys/fs/cgroup/memory")
        knobs["oci_runtime"] = "runc" if hybrid and shutil.which("runc") else None
    known = set(RuntimeSettings.__dataclass_fields__)
    unknown = sorted(set(knobs) - known)
    if unknown:
        raise GymError(f"runtime: unknown knob {unknown[0]!r}{did_you_mean(unknown[0], known)}")
    for name in ("ulimits", "extra_ca_certs"):
        knobs[name] = tuple(str(item) for item in (knobs.get(name) or ()))
    knobs["images"] = image_map(knobs.get("images"))
    if run_label:
        knobs["run_label"] = run_label
    return RuntimeSettings(**knobs)


def image_map(value: Any) -> dict[str, str]:
    """runtime.images as a mapping: a mapping, or a list of "name=image" (the command line's spelling)."""
    if not value:
        return {}
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    pairs = [str(item).partition("=") for item in value] if not isinstance(value, str) else [value.partition("=")]
    bad = [name for name, eq, used in pairs if not (name and eq and used)]
    if bad:
        raise GymError(f"runtime.images: {bad[0]!r} is not name=image (e.g. python:3.13-slim-bookworm=my/python:3.13)")
    return {name.strip(): used.strip() for name, _, used in pairs}


__all__ = ["LABEL_MANAGED", "LABEL_OWNER", "LABEL_RUN", "LABEL_TRIAL", "RUNTIMES", "BuildFailed", "BuiltImage",
           "Container", "ContainerError", "ContainerRuntime", "ExecResult", "ResourceLimits", "RuntimeSettings",
           "RuntimeUnavailable", "build_task_image", "make_runtime", "prune_images", "remove_all_live",
           "settings_from_config", "stop_all", "Stopping"]
