"""One Harbor trial in a container: build, start, (agent), verify, remove — with typed failures.

As Harbor does: the task's image is built from environment/Dockerfile; the container runs with the
task's cpus and memory (network only when `allow_internet`); the oracle gets solution/ at /solution;
the verifier copies tests/ to /tests and runs `bash /tests/test.sh` in the image's WORKDIR with output
to /logs/verifier/test-stdout.txt, then reads /logs/verifier/reward.txt (or reward.json).

A failure is never a reward: TrialFailed carries its kind (KINDS) and the row status it becomes
(unscored, so a resumed run redoes it).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from gym.episodes.base import EpisodeFailed
from gym.episodes.harbor.support import provide_test_tools
from gym.episodes.harbor.task import HarborTask
from gym.runtime import (LABEL_RUN, LABEL_TRIAL, BuildFailed, Container, ContainerError, ContainerRuntime,
                         ResourceLimits, build_task_image)
from gym.runtime.usage import container_usage

# kind -> the rollout status it becomes (both unscored; resume redoes them)
KINDS = {"not_runnable": "verifier_error", "build_error": "infra_error", "start_error": "infra_error",
         "agent_timeout": "verifier_error", "verifier_timeout": "verifier_error", "verifier_error": "verifier_error",
         "reward_missing": "verifier_error"}
CLIP = 4000  # characters of a test log kept in the row


class TrialFailed(EpisodeFailed):
    def __init__(self, kind: str, message: str, details: dict | None = None):
        super().__init__(kind, message, KINDS[kind], {"trial_status": kind, **(details or {})})


def clip(text: str, limit: int = CLIP) -> str:
    return text if len(text) <= limit else text[: limit // 2] + "\n…[clipped]…\n" + text[-limit // 2:]


@dataclass
class Trial:
    task: HarborTask
    runtime: ContainerRuntime
    container: Container | None = None
    workdir: str = "/"
    image: str = ""
    started: float = 0.0  # when the agent's clock started (monotonic)
    launched: float = 0.0  # when its container started (monotonic)
    record: dict[str, Any] = field(default_factory=dict)  # times, substitutions, test support: the trial's record

    def remaining(self) -> float:
        return self.task.agent_timeout - (time.monotonic() - self.started)

    def exec(self, command: str, timeout: float | None) -> Any:
        return self.runtime.exec(self.container, command, timeout=timeout, workdir=self.workdir)


def start_trial(runtime: ContainerRuntime, task: HarborTask, trial_label: str, with_solution: bool) -> Trial:
    """Build the image and start the container (TrialFailed build_error/start_error)."""
    trial = Trial(task, runtime)
    try:
        built = build_task_image(runtime, task.folder / "environment", task.name, timeout=task.build_timeout)
    except BuildFailed as exc:
        kind_detail = {"timed_out": exc.timed_out, "log_tail": clip(exc.output)}
        raise TrialFailed("build_error", str(exc), kind_detail) from None
    trial.image = built.tag
    trial.record.update(build_seconds=round(built.seconds, 2), base_seconds=round(built.base_seconds, 2),
                        build_cached=built.cached, image=built.tag,
                        substitutions=built.substitutions)
    began = time.monotonic()
    limits = ResourceLimits(cpus=task.cpus, memory=task.memory, storage=task.storage, network=task.allow_internet)
    try:
        trial.container = runtime.run(built.tag, limits, labels={LABEL_RUN: runtime.settings.run_label,
                                                                  LABEL_TRIAL: trial_label})
        trial.workdir = (runtime.image_info(built.tag).get("WorkingDir") or "/")
        made = trial.exec("mkdir -p /logs/agent /logs/verifier", timeout=60)
        if made.exit_code != 0:
            raise ContainerError("mkdir /logs failed", made.output)
        if with_solution:
            runtime.copy_in(trial.container, task.folder / "solution", "/solution")
    except ContainerError as exc:
        release(trial)
        raise TrialFailed("start_error", str(exc), {"output": clip(exc.output)}) from None
    trial.record["start_seconds"] = round(time.monotonic() - began, 2)
    trial.launched, trial.started = began, time.monotonic()
    return trial


def measure(trial: Trial, phase: str) -> None:
    """Put the trial's times and resource use so far in its record: after the agent (`agent_seconds`,
    `agent_cpu_seconds`), and at the end (`trial_seconds` from the container's start, `cpu_seconds` of the
    whole container, `peak_memory_mb`). Never fails a trial: what cannot be read is left out."""
    now = time.monotonic()
    try:
        usage = container_usage(trial.runtime, trial.container) if trial.container is not None else {}
    except ContainerError:
        usage = {}
    if phase == "agent":
        trial.record["agent_seconds"] = round(now - trial.started, 2)
        if "cpu_seconds" in usage:
            trial.record["agent_cpu_seconds"] = usage["cpu_seconds"]
        return
    trial.record["trial_seconds"] = round(now - trial.launched, 2)
    trial.record.update(usage)


def verify(trial: Trial) -> tuple[float, dict]:
    """Run the tests as Harbor does; (reward, details). TrialFailed when no reward can be read."""
    measure(trial, "agent")
    began = time.monotonic()
    task, runtime = trial.task, trial.runtime
    try:
        trial.record["test_support"] = provide_test_tools(trial)
        runtime.copy_in(trial.container, task.folder / "tests", "/tests")
    except ContainerError as exc:
        raise TrialFailed("verifier_error", f"could not prepare the tests: {exc}", {"output": clip(exc.output)}) from None
    run = trial.exec("bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1", timeout=task.verifier_timeout)
    log = trial.exec("cat /logs/verifier/test-stdout.txt", timeout=60).output
    trial.record["verifier_seconds"] = round(time.monotonic() - began, 2)
    measure(trial, "end")
    details = {"test_output": clip(log), "test_exit_code": run.exit_code, **trial.record}
    if run.timed_out:
        raise TrialFailed("verifier_timeout", f"tests ran past {task.verifier_timeout:.0f} s", details)
    text = trial.exec("cat /logs/verifier/reward.txt 2>/dev/null || cat /logs/verifier/reward.json 2>/dev/null",
                      timeout=60).output.strip()
    if not text:
        raise TrialFailed("reward_missing", "the tests wrote neither /logs/verifier/reward.txt nor reward.json",
                          details)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise TrialFailed("verifier_error", f"unreadable reward {text[:80]!r}", details) from None
    if isinstance(value, dict):  # reward.json: {"reward": x} or several named rewards (their mean is the reward)
        named = {str(k): float(v) for k, v in value.items() if isinstance(v, (int, float))}
        details["rewards"] = named
        value = named.get("reward", sum(named.values()) / len(named) if named else None)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TrialFailed("verifier_error", f"unreadable reward {text[:80]!r}", details)
    return float(value), details


def release(trial: Trial | None) -> None:
    """Remove the trial's container (always; never raises), and its image unless runtime.keep_images."""
    if trial is None:
        return
    if trial.container is not None:
        trial.runtime.remove(trial.container)
        trial.container = None
    if trial.image and not trial.runtime.settings.keep_images:
        trial.runtime.remove_image(trial.image)
