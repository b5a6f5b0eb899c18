"""A container's resource use so far, read from its own cgroup: CPU seconds and peak memory.

The same files serve podman and docker on cgroup v1 and v2, since both mount the container's own cgroup
at /sys/fs/cgroup inside it: v2 `cpu.stat` (usage_usec) and `memory.peak` (kernels >= 5.19), v1
`cpuacct.usage` (ns) and `memory.max_usage_in_bytes`. CPU counts every process of the container (the
agent's commands and the tests); peak memory is the high-water mark since the container started.
"""

from __future__ import annotations

import re

from gym.runtime.base import Container, ContainerRuntime

READ = ("cd /sys/fs/cgroup 2>/dev/null || exit 0; "
        "echo v2cpu $(grep -s '^usage_usec' cpu.stat | cut -d' ' -f2); "
        "echo v1cpu $(cat cpuacct/cpuacct.usage cpu,cpuacct/cpuacct.usage 2>/dev/null | head -n1); "
        "echo peak $(cat memory.peak memory/memory.max_usage_in_bytes 2>/dev/null | head -n1)")


def container_usage(runtime: ContainerRuntime, container: Container) -> dict[str, float]:
    """{cpu_seconds, peak_memory_mb} as far as the container's cgroup says ({} where it says nothing)."""
    result = runtime.exec(container, READ, timeout=30)
    values = dict(re.findall(r"^(v2cpu|v1cpu|peak) (\d+)$", result.output, re.MULTILINE))
    usage: dict[str, float] = {}
    if "v2cpu" in values:
        usage["cpu_seconds"] = round(int(values["v2cpu"]) / 1e6, 2)
    elif "v1cpu" in values:
        usage["cpu_seconds"] = round(int(values["v1cpu"]) / 1e9, 2)
    if "peak" in values:
        usage["peak_memory_mb"] = round(int(values["peak"]) / 2**20, 1)
    return usage
