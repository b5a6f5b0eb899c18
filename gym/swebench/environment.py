"""An instance's environment in a container, and its tests run there as SWE-bench runs them.

`build_image` writes the build context (gym.swebench.scripts) and builds it through the container
runtime (gym.runtime: its stand-in bases from the Debian/Ubuntu archives, the extra CA certificates, the
image cache keyed by content). `evaluate` runs one patch in a fresh container with the network off:
copy the patch in, apply it as SWE-bench does, run the eval script, and return the whole log with
SWE-bench's report on it (gym.swebench.grading). The container is removed whatever happens.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gym.runtime import BuiltImage, ContainerError, ContainerRuntime, ExecResult, ResourceLimits, build_task_image
from gym.swebench.grading import grade
from gym.swebench.scripts import apply_script, build_context, eval_script
from gym.swebench.specs import EnvironmentPlan

PATCH_PATH = "/tmp/gym_model.patch"
EVAL_PATH = "/tmp/gym_eval.sh"


@dataclass
class Evaluation:
    log: str  # the apply step's output, then the eval script's (what SWE-bench's parser reads)
    report: dict  # swebench's report: resolved, patch_successfully_applied, tests_status, status_map
    seconds: float
    timed_out: bool = False


def build_image(runtime: ContainerRuntime, row: dict, plan: EnvironmentPlan, mirror: str | None,
                timeout: float | None = None) -> BuiltImage:
    with tempfile.TemporaryDirectory(prefix="gym-swebench-") as folder:
        context = build_context(row, plan, mirror, Path(folder) / "environment")
        return build_task_image(runtime, context, f"swebench-{row['instance_id']}", timeout=timeout)


def run_patch(runtime: ContainerRuntime, container, row: dict, plan: EnvironmentPlan, patch: str,
              timeout: float) -> tuple[str, bool]:
    """Apply `patch` and run the eval script in a live container: (the log, whether it timed out)."""
    with tempfile.TemporaryDirectory(prefix="gym-swebench-") as folder:
        patch_file, script = Path(folder) / "model.patch", Path(folder) / "eval.sh"
        patch_file.write_text(patch or "", encoding="utf-8")
        script.write_text(eval_script(row, plan), encoding="utf-8")
        runtime.copy_in(container, patch_file, PATCH_PATH)
        runtime.copy_in(container, script, EVAL_PATH)
    applied = runtime_checked(runtime.exec(container, apply_script(PATCH_PATH), timeout=120))
    if applied.exit_code != 0:
        return applied.output, applied.timed_out
    tests = runtime_checked(runtime.exec(container, f"bash {EVAL_PATH}", timeout=timeout))
    return applied.output + tests.output, tests.timed_out


def runtime_checked(result: ExecResult) -> ExecResult:
    """The result of a command in the container, or ContainerError when the runtime itself failed (exit 125
    and its own `Error: ...`, e.g. the container gone): no verdict then, never an unresolved."""
    if result.exit_code == 125 and result.output.startswith("Error: "):
        raise ContainerError(f"the container runtime failed: {result.output.strip()[:300]}", result.output)
    return result


def evaluate(runtime: ContainerRuntime, image: str, row: dict, plan: EnvironmentPlan, patch: str,
             timeout: float = 1800, labels: dict | None = None) -> Evaluation:
    """One patch graded in a fresh container (network off), as SWE-bench's harness grades it."""
    started = time.monotonic()
    container = runtime.run(image, ResourceLimits(network=False), labels=labels or {})
    try:
        log, timed_out = run_patch(runtime, container, row, plan, patch, timeout)
    finally:
        runtime.remove(container)
    if timed_out:
        log += "\n>>>>> Tests Timed Out\n"  # SWE-bench's marker: graded unresolved
    return Evaluation(log, grade(row, log, patch), time.monotonic() - started, timed_out)
