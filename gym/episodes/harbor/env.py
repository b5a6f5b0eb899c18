"""Harbor tasks as an episode environment: one container per episode, a shell tool, tests as the scorer.

`reset` builds the task's image (cached by content) and starts its container; the agent works through
`shell` (a bash command in the container, in the image's WORKDIR, with a timeout; its exit code and
clipped output come back) and ends with `done`, in solo mode. `score` runs the task's tests in the same
container (gym.episodes.harbor.trial.verify); `release` removes the container, whatever happened.
Agents: `terminal` (the policy model, gym's episode loop), `oracle` (runs solution/solve.sh) and `nop`
(does nothing) — the last two are scripted here, no model is asked.

Container tasks are graded live: a stored trajectory cannot be re-graded without re-running it, so
task=reverify reports them as verifier errors instead of guessing.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from gym.episodes.base import DONE_SCHEMA, DONE_TOOL, Environment, Score, ToolOutput, Turn
from gym.episodes.harbor.task import read_task, system_prompt
from gym.episodes.harbor.trial import Trial, TrialFailed, clip, measure, release, start_trial, verify
from gym.toolcalls import ToolCall

SHELL = "shell"
AGENTS = ("terminal", "oracle", "nop")


def shell_schema(default_timeout: float) -> dict:
    return {"name": SHELL, "description": "Run a bash command in the task's container; returns its exit code and "
                                          "output (long output is clipped in the middle).",
            "parameters": {"type": "object", "required": ["command"], "properties": {
                "command": {"type": "string", "description": "the command (bash -c)"},
                "timeout": {"type": "number", "description": f"seconds before it is killed (default {default_timeout:.0f})"}}}}


def shell_request(name: str, arguments: Any, default_timeout: float) -> tuple[str, float] | ToolOutput:
    """The command a `shell` call asks for and its timeout, or the error the agent gets back."""
    if name != SHELL:
        return ToolOutput(f"unknown tool {name!r}: use `shell` or `done`", error=True)
    if not isinstance(arguments, dict) or not isinstance(arguments.get("command"), str):
        return ToolOutput("shell needs a string `command`", error=True)
    try:
        return arguments["command"], float(arguments.get("timeout") or default_timeout)
    except (TypeError, ValueError):
        return arguments["command"], default_timeout


def shell_reply(result: Any, timeout: float, output_chars: int) -> ToolOutput:
    """A command's exit code and its clipped output, as the agent reads them."""
    text = clip(result.output, output_chars)
    if result.timed_out:
        return ToolOutput(f"timed out after {timeout:.0f} s\n{text}", error=True)
    return ToolOutput(f"exit code: {result.exit_code}\n{text}", error=False)


class HarborEnvironment(Environment):
    name = "harbor"
    supports_solo = True
    errors_end_episode = False  # a failing command is part of the work, not a broken tool

    def __init__(self, data_path: Any, agent: str = "terminal", runtime: Any = None, command_timeout: float = 180,
                 output_chars: int = 10000, **_: Any):
        from gym.core.errors import GymError
        from gym.runtime import RuntimeSettings, make_runtime, settings_from_config

        if agent not in AGENTS:
            raise GymError(f"agent={agent} is not one of: {', '.join(AGENTS)}")
        self.agent, self.data_dir = agent, Path(str(data_path)).parent
        self.command_timeout, self.output_chars = float(command_timeout), int(output_chars)
        self.runtime = make_runtime(runtime if isinstance(runtime, RuntimeSettings) else settings_from_config(runtime))
        self.runtime.check()  # one line before any trial when the CLI is absent or broken
        self.runtime.sweep_stale()  # containers of a run killed outright (its process is gone)
        self.slots = threading.BoundedSemaphore(max(1, self.runtime.settings.max_parallel))
        self.identity = {"agent": agent}

    # -- the episode ---------------------------------------------------------------------------------
    def task_of(self, row: dict):
        return read_task(self.data_dir / row["task"]["path"])

    def reset(self, row: dict, seed: int | None = None, solo: bool = True) -> Trial:
        if row.get("unscorable"):
            raise TrialFailed("not_runnable", str(row["unscorable"]))
        task = self.task_of(row)
        self.slots.acquire()
        try:
            return start_trial(self.runtime, task, f"{task.name}-{seed}", with_solution=self.agent == "oracle")
        except BaseException:
            self.slots.release()
            raise

    def release(self, trial: Trial | None) -> None:
        if isinstance(trial, Trial):
            release(trial)
            self.slots.release()

    def stop(self) -> None:
        """Interrupted: every container of this process goes now (trials in flight then fail fast)."""
        from gym.runtime import stop_all

        stop_all()

    def initial_messages(self, row: dict, solo: bool = True) -> list[dict]:
        # the system prompt names the task (the reference server finds the row by it, as for τ²'s solo mode)
        return [{"role": "system", "content": row.get("solo_system_prompt") or system_prompt(row["question"])},
                {"role": "user", "content": row["question"]}]

    def tools(self, state: Any, requestor: str = "assistant") -> list[dict]:
        return [shell_schema(self.command_timeout), DONE_SCHEMA]

    def call(self, state: Trial, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        request = shell_request(name, arguments, self.command_timeout)
        if isinstance(request, ToolOutput):
            return request
        command, asked = request
        remaining = state.remaining()
        if remaining <= 0:
            return ToolOutput("the task's time is up", error=True)
        result = state.exec(command, timeout=max(1.0, min(asked, remaining)))
        return shell_reply(result, min(asked, remaining), self.output_chars)

    def timed_out(self, state: Trial) -> bool:
        """The task's agent timeout has passed (the loop ends the episode as `timeout`)."""
        return isinstance(state, Trial) and state.remaining() <= 0

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        if not isinstance(final, Trial):
            raise TrialFailed("verifier_error", "container tasks are graded live, in the episode's own container: "
                                                "run the episode again")
        if termination == "timeout":
            measure(final, "agent")
            measure(final, "end")
            raise TrialFailed("agent_timeout", f"the agent ran past {final.task.agent_timeout:.0f} s", dict(final.record))
        reward, details = verify(final)
        return Score(reward, {"trial_status": "ok", **details})

    # -- scripted agents -----------------------------------------------------------------------------
    def scripted_agent(self, row: dict) -> Any:
        """The oracle or nop agent (no model), or None for the terminal agent."""
        if self.agent == "oracle":
            return OracleAgent(self.task_of(row).agent_timeout)
        if self.agent == "nop":
            return lambda messages, tools: Turn(tool_calls=[ToolCall(DONE_TOOL, {}, None, "nop-done")],
                                                finish_reason="tool_calls")
        return None


class OracleAgent:
    """Harbor's oracle: `bash /solution/solve.sh` (output to /logs/agent/oracle.txt), then done."""

    def __init__(self, timeout: float):
        self.timeout = timeout

    def __call__(self, messages: list[dict], tools: list[dict]) -> Turn:
        if not any(m.get("role") == "tool" for m in messages):
            command = "bash /solution/solve.sh > /logs/agent/oracle.txt 2>&1; code=$?; tail -c 3000 /logs/agent/oracle.txt; exit $code"
            return Turn(tool_calls=[ToolCall(SHELL, {"command": command, "timeout": self.timeout}, None, "oracle-0")],
                        finish_reason="tool_calls")
        return Turn(tool_calls=[ToolCall(DONE_TOOL, {}, None, "oracle-done")], finish_reason="tool_calls")
