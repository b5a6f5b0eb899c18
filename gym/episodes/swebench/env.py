"""SWE-bench instances as an episode environment: the repository in a container, the agent's diff graded.

`reset` builds the instance's environment image (gym.swebench: the spec's Python on a distribution base,
venv + pip, the repository at `base_commit` from the git mirror; cached by content) and starts a
container with the network off. The agent works through `shell` in /testbed (gym's terminal agent, in
solo mode) and ends with `done`. `score` takes `git diff` of its work (new files included) as the patch
and grades it as SWE-bench does, in a fresh container of the same image: the patch applied, the test
patch applied, the instance's tests run, the log read by swebench's parser and rules. Reward 1 when
resolved, else 0; the row keeps the patch, the per-test detail and whether the environment stands in
faithfully for upstream's conda image.

Agents: `oracle` applies the gold patch (it must resolve), `nop` changes nothing (it must not), `terminal`
is the policy model. Build failures and an instance whose environment cannot be built here are typed
failures (unscored), never a 0.
"""

from __future__ import annotations

import threading
from typing import Any

from gym.episodes.base import DONE_SCHEMA, DONE_TOOL, Environment, Score, ToolOutput, Turn
from gym.episodes.harbor.env import SHELL, shell_reply, shell_request, shell_schema
from gym.episodes.harbor.trial import TrialFailed, clip
from gym.swebench.instances import gold_command
from gym.toolcalls import ToolCall

AGENTS = ("terminal", "oracle", "nop", "cli")
SYSTEM = ("You are a software engineer fixing an issue in the repository at /testbed, in a container without "
          "network access. Run commands with the `shell` tool (each call is a fresh `bash -c` in /testbed). Edit the "
          "source to resolve the issue; do not change the tests. When you are done, call `done`: the diff of "
          "your changes is your answer.")
DIFF = "git add -A && git -c core.fileMode=false diff --cached HEAD"


class SweBenchEnvironment(Environment):
    name = "swebench"
    supports_solo = True
    errors_end_episode = False  # a failing command is part of the work

    def __init__(self, data_path: Any, agent: str = "terminal", runtime: Any = None, mirror: str | None = None,
                 command_timeout: float = 180, output_chars: int = 10000, test_timeout: float = 1800,
                 build_timeout: float = 3600, cli: dict | None = None, max_model_calls: int | None = None,
                 max_model_tokens: int | None = None, agent_timeout: float = 1800, **_: Any):
        from gym.core.errors import GymError
        from gym.runtime import make_runtime, settings_from_config

        if agent not in AGENTS:
            raise GymError(f"agent={agent} is not one of: {', '.join(AGENTS)} for SWE-bench")
        self.agent, self.mirror = agent, mirror
        self.command_timeout, self.output_chars = float(command_timeout), int(output_chars)
        self.test_timeout, self.build_timeout = float(test_timeout), float(build_timeout)
        self.runtime = make_runtime(runtime if not isinstance(runtime, dict) and runtime is not None
                                    else settings_from_config(runtime))
        self.runtime.check()
        self.slots = threading.BoundedSemaphore(max(1, self.runtime.settings.max_parallel))
        self.identity = {"agent": agent}
        self.local = threading.local()  # the state of the episode this thread plays (a CLI agent's turn needs it)
        self.shared_runner: Any = None  # a CLI agent's runner (gym.cliagents.attach gives it the policy)
        if agent == "cli":
            if not cli:
                raise GymError("agent.kind=cli needs agent.cli (name, version, install, launch): see docs/cli-agents.md")
            self.cli_agent = {"cli": cli, "max_model_calls": max_model_calls, "max_model_tokens": max_model_tokens,
                              "timeout": agent_timeout}
            self.identity = {"agent": f"{cli.get('name')}=={cli.get('version')}"}

    @property
    def runner(self) -> Any:
        """The CLI agent's runner for this thread's episode: the one a served /run bound to its own policy
        (gym.cliagents.attach(..., this_thread=True)), else the run's."""
        return getattr(self.local, "runner", None) or self.shared_runner

    @runner.setter
    def runner(self, value: Any) -> None:
        self.shared_runner = value

    def reset(self, row: dict, seed: int | None = None, solo: bool = True) -> dict:
        from gym.runtime import LABEL_RUN, LABEL_TRIAL, BuildFailed, ContainerError, ResourceLimits
        from gym.swebench.environment import build_image
        from gym.swebench.specs import plan

        environment = plan(row)
        if not environment.buildable:
            raise TrialFailed("not_runnable", "; ".join(environment.notes))
        self.slots.acquire()
        state: dict[str, Any] = {"plan": environment, "container": None, "record": {}, "slot": True}
        try:
            built = build_image(self.runtime, row, environment, self.mirror, timeout=self.build_timeout)
            state["image"] = built.tag
            state["record"] = {"build_seconds": round(built.seconds, 2), "build_cached": built.cached,
                               "image": built.tag, "substitutions": built.substitutions}
            labels = {LABEL_RUN: self.runtime.settings.run_label, LABEL_TRIAL: f"{row['instance_id']}-{seed}"}
            work_image, network = built.tag, False
            if self.runner is not None:  # the agent installed on top; an internal network to the proxy
                with_agent = self.runner.image(self.runtime, built.tag, timeout=self.build_timeout)
                work_image, (network, state["gateway"]) = with_agent.tag, self.runner.network(self.runtime)
                state["record"]["agent_image"] = with_agent.tag
            state["container"] = self.runtime.run(work_image, ResourceLimits(network=network), labels=labels)
            self.local.state = state
            return state
        except BuildFailed as exc:
            self.release(state)
            raise TrialFailed("build_error", str(exc), {"timed_out": exc.timed_out, "log_tail": clip(exc.output)}) from None
        except ContainerError as exc:
            self.release(state)
            raise TrialFailed("start_error", str(exc), {"output": clip(exc.output)}) from None
        except BaseException:
            self.release(state)
            raise

    def release(self, state: Any) -> None:
        if isinstance(state, dict) and "plan" in state:
            if state.get("container") is not None:
                self.runtime.remove(state["container"])
                state["container"] = None
            if state.pop("slot", False):  # once, however often it is released
                self.slots.release()

    def initial_messages(self, row: dict, solo: bool = True) -> list[dict]:
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": row["problem_statement"]}]

    def tools(self, state: Any, requestor: str = "assistant") -> list[dict]:
        return [shell_schema(self.command_timeout), DONE_SCHEMA]

    def call(self, state: dict, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        request = shell_request(name, arguments, self.command_timeout)
        if isinstance(request, ToolOutput):
            return request
        command, timeout = request
        result = self.runtime.exec(state["container"], command, timeout=timeout, workdir="/testbed")
        return shell_reply(result, timeout, self.output_chars)

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        from gym.swebench.environment import evaluate
        from gym.swebench.grading import summary

        if not isinstance(final, dict) or final.get("container") is None:
            raise TrialFailed("verifier_error", "SWE-bench instances are graded live, from the episode's own "
                                                "container: run the episode again")
        diff = self.runtime.exec(final["container"], DIFF, timeout=120, workdir="/testbed")
        if diff.exit_code != 0:
            raise TrialFailed("verifier_error", "could not take the diff of the agent's work", {"output": clip(diff.output)})
        patch = diff.output
        from gym.runtime import ContainerError

        try:
            result = evaluate(self.runtime, final["image"], row, final["plan"], patch, timeout=self.test_timeout)
        except ContainerError as exc:  # the grading container failed, not the patch: no verdict
            raise TrialFailed("verifier_error", f"grading failed: {exc}", {"patch": patch, **final["record"]}) from None
        report = result.report
        environment = final["plan"]
        details = {"trial_status": "ok", "resolved": bool(report.get("resolved")), "patch": patch,
                   "patch_applied": report.get("patch_successfully_applied"), "tests": summary(report),
                   "tests_status": report.get("tests_status"), "test_log": result.log,  # whole: what the parser read
                   "test_seconds": round(result.seconds, 2), "faithful": environment.faithful,
                   "environment_notes": environment.notes, **final["record"]}
        if result.timed_out:
            raise TrialFailed("verifier_timeout", f"tests ran past {self.test_timeout:.0f} s", details)
        return Score(1.0 if report.get("resolved") else 0.0, details)

    def agent_trajectory(self, state: Any) -> list[dict] | None:
        """A CLI agent's own conversation (its last call and reply, token ids on the policy's turns), which
        the row keeps as its trajectory in place of the one-turn stand-in gym's loop saw; None otherwise."""
        record = (state.get("record") or {}).get("cli_agent") if isinstance(state, dict) else None
        return record.pop("trajectory", None) if isinstance(record, dict) else None

    def scripted_agent(self, row: dict) -> Any:
        """The oracle (applies the gold patch) or nop (no change), or None for a model-driven agent."""
        if self.agent == "oracle":
            return ScriptedAgent([gold_command(row["patch"])])
        if self.agent == "nop":
            return ScriptedAgent([])
        if self.agent == "cli":
            if self.runner is None:
                raise TrialFailed("not_runnable", "a CLI agent runs under collect, which gives it the policy")
            return CliAgentTurn(self, row)
        return None


class ScriptedAgent:
    """Runs its commands one `shell` call each, then calls done."""

    def __init__(self, commands: list[str]):
        self.commands = commands

    def __call__(self, messages: list[dict], tools: list[dict]) -> Turn:
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < len(self.commands):
            return Turn(tool_calls=[ToolCall(SHELL, {"command": self.commands[done]}, None, f"script-{done}")],
                        finish_reason="tool_calls")
        return Turn(tool_calls=[ToolCall(DONE_TOOL, {}, None, "script-done")], finish_reason="tool_calls")


class CliAgentTurn:
    """A third-party CLI agent as one turn of gym's loop: it runs to its end in the episode's container
    (gym.cliagents), its record joins the trial's, then the episode is done and its diff is graded."""

    def __init__(self, env: SweBenchEnvironment, row: dict):
        self.env, self.row = env, row

    def __call__(self, messages: list[dict], tools: list[dict]) -> Turn:
        state = self.env.local.state
        record = self.env.runner.run(self.env.runtime, state["container"], state["gateway"],
                                     self.row["problem_statement"], "/testbed")
        state["record"]["cli_agent"] = record
        summary = (f"{record['agent']} {record['version']} ended (exit code {record['exit_code']}, "
                   f"{record['proxy']['calls']} model calls)")
        return Turn(text=summary, tool_calls=[ToolCall(DONE_TOOL, {}, None, "cli-done")], finish_reason="tool_calls",
                    usage={"prompt_tokens": sum((r["response"].get("usage") or {}).get("input_tokens") or 0
                                                for r in record["model_calls"]),
                           "completion_tokens": sum((r["response"].get("usage") or {}).get("output_tokens") or 0
                                                    for r in record["model_calls"])})
