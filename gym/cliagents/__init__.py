"""Third-party CLI agents (mini-swe-agent, Codex CLI, Claude Code, OpenCode) in a task's container, their
every model call through gym's model proxy.

An agent is a small config (conf/agent/<name>.yaml, `kind: cli`): the pinned `install` lines (run once
into an image on top of the task's, with the network the build has), the `launch` line (run in the
task's working directory with the task text in /tmp/gym_task.md) and its `env`, where `{base_url}` and
`{api_key}` become the trial's proxy and its token. gym.cliagents.run does one trial: the container sits
on an internal container network (no way out but to the host), the proxy binds that network's gateway
with a fresh token, the agent runs to its end or its timeout, and the proxy's record comes back.
"""

from gym.cliagents.run import AgentSpec, CliAgentRunner, agent_image, attach  # noqa: F401
