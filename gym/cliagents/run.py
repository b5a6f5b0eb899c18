"""One CLI agent trial: its image, its network, the proxy in front of the policy, the run, the record."""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.proxy import Budget, ModelProxy, trajectory
from gym.runtime import ContainerRuntime, build_task_image

NETWORK = "gym-agents"  # an internal network: containers reach the host's gateway address, nothing beyond
TASK_FILE = "/tmp/gym_task.md"
OUTPUT_CHARS = 8000


@dataclass(frozen=True)
class AgentSpec:
    """conf/agent/<name>.yaml's `cli` block, checked."""

    name: str
    version: str
    install: tuple[str, ...]
    launch: str
    env: dict = field(default_factory=dict)
    protocol: str = ""  # the dialect it speaks, for the record (chat | responses | messages)

    @classmethod
    def from_config(cls, node: Any) -> "AgentSpec":
        node = dict(node or {})
        missing = [key for key in ("name", "version", "install", "launch") if not node.get(key)]
        if missing:
            raise GymError(f"agent.cli needs {', '.join(missing)} (see docs/cli-agents.md)")
        install = node["install"] if isinstance(node["install"], (list, tuple)) else [node["install"]]
        return cls(str(node["name"]), str(node["version"]), tuple(str(line) for line in install),
                   str(node["launch"]), {str(k): str(v) for k, v in (node.get("env") or {}).items()},
                   str(node.get("protocol") or ""))

    def fill(self, text: str, **values: str) -> str:
        return text.replace("{version}", self.version).replace("{base_url}", values.get("base_url", "")) \
            .replace("{api_key}", values.get("api_key", "")).replace("{model}", values.get("model", ""))


def agent_image(runtime: ContainerRuntime, base_image: str, spec: AgentSpec, timeout: float | None = None):
    """The task's image with the agent installed (cached by content, as every task image)."""
    with tempfile.TemporaryDirectory(prefix="gym-agent-") as folder:
        context = Path(folder) / "environment"
        context.mkdir()
        lines = [f"FROM {base_image}", *(f"RUN {spec.fill(line)}" for line in spec.install), ""]
        (context / "Dockerfile").write_text("\n".join(lines), encoding="utf-8")
        return build_task_image(runtime, context, f"agent-{spec.name}-{spec.version}", timeout=timeout)


def ensure_network(runtime: ContainerRuntime) -> str:
    """The internal network's gateway address (the network is made once per host)."""
    call = getattr(runtime, "call", None)
    if call is None:
        raise GymError(f"runtime={runtime.settings.provider} cannot make container networks for CLI agents")
    listed = call("network", "ls", "--format", "{{.Name}}", timeout=60).split()
    if NETWORK not in listed:
        call("network", "create", "--internal", NETWORK, timeout=60)
    info = json.loads(call("network", "inspect", NETWORK, timeout=60))[0]
    subnets = info.get("subnets") or [{"gateway": c.get("Gateway")} for c in (info.get("IPAM") or {}).get("Config") or []]
    gateway = next((s.get("gateway") for s in subnets if s.get("gateway")), None)
    if not gateway:
        raise GymError(f"the container network {NETWORK} has no gateway address")
    return gateway


class CliAgentRunner:
    """Runs a CLI agent in a live container against the policy client (one proxy per trial). An episode
    environment is handed one (`attach`) and asks it for the image, the network and the run."""

    def __init__(self, client: Any, spec: AgentSpec, budget: Budget, timeout: float, model_name: str = "gym-policy"):
        self.client, self.spec, self.budget, self.timeout, self.model_name = client, spec, budget, timeout, model_name

    def image(self, runtime: ContainerRuntime, base_image: str, timeout: float | None = None):
        return agent_image(runtime, base_image, self.spec, timeout)

    def network(self, runtime: ContainerRuntime) -> tuple[str, str]:
        return NETWORK, ensure_network(runtime)

    def run(self, runtime: ContainerRuntime, container: Any, gateway: str, task_text: str, workdir: str) -> dict:
        with tempfile.TemporaryDirectory(prefix="gym-agent-") as folder:
            task = Path(folder) / "task.md"
            task.write_text(task_text, encoding="utf-8")
            runtime.copy_in(container, task, TASK_FILE)
        proxy = ModelProxy(self.client, self.budget, host=gateway, token="gym-" + secrets.token_urlsafe(24),
                           model_name=self.model_name)
        started = time.monotonic()
        with proxy:
            env = {key: self.spec.fill(value, base_url=proxy.base_url, api_key=proxy.token, model=self.model_name)
                   for key, value in self.spec.env.items()}
            launch = self.spec.fill(self.spec.launch, base_url=proxy.base_url, model=self.model_name)  # no key
            result = runtime.exec(container, launch, timeout=self.timeout, workdir=workdir, env=env)
        records = proxy.log.snapshot()
        output = result.output.replace(proxy.token, "[token]")
        return {"agent": self.spec.name, "version": self.spec.version, "protocol": self.spec.protocol,
                "exit_code": result.exit_code, "timed_out": result.timed_out,
                "seconds": round(time.monotonic() - started, 2),
                "output": output if len(output) <= OUTPUT_CHARS else output[-OUTPUT_CHARS:],
                "proxy": proxy.log.summary(), "model_calls": records, "trajectory": trajectory(records)}


def attach(env: Any, client: Any, this_thread: bool = False) -> None:
    """Give an episode environment whose agent is a CLI agent (`env.cli_agent`: the config's `cli` block)
    its runner over the policy client; environments without one are left as they are. `this_thread`: for
    the episodes this thread plays only (a served /run, whose request names its own policy)."""
    knobs = getattr(env, "cli_agent", None)
    if not knobs:
        return
    spec = AgentSpec.from_config(knobs.get("cli"))
    budget = Budget(knobs.get("max_model_calls"), knobs.get("max_model_tokens"))
    runner = CliAgentRunner(client, spec, budget, float(knobs.get("timeout") or 1800))
    if this_thread:
        env.local.runner = runner
    else:
        env.runner = runner
