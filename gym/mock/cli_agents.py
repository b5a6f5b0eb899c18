"""The reference server as the model of a third-party CLI agent: a scripted policy in the agent's own protocol.

A CLI agent (gym.cliagents) wraps the task in its own prompt and reads actions in its own format. The
reference server recognises the protocol from the request, finds the episode row whose question the
conversation quotes, and plays the row's gold shell commands one per turn, then the protocol's way of
finishing. Protocols:

  mini-swe-agent (text-based config): one fenced block ```mswea_bash_command``` per reply; the task ends
  with the command `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` run on its own.
  OpenCode: native tool calls; its `bash` tool takes {command, description} (it offers `todowrite` too,
  which tells it apart); the task ends with a reply without calls.
  Codex CLI: native tool calls (Responses API); its `exec_command` tool takes {cmd} (it offers
  `write_stdin` too); the task ends with a reply without calls.
  Claude Code: native tool calls (Anthropic Messages); its `Bash` tool takes {command, description} (it
  offers `Edit` too); the task ends with a reply without calls.

So an agent nobody here wrote completes a task end to end offline, every one of its calls going through
gym's model proxy.
"""

from __future__ import annotations

from typing import Any

from gym.episodes.base import Turn
from gym.toolcalls import ToolCall

MSWEA_BLOCK = "mswea_bash_command"
MSWEA_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _texts(messages: list[dict]) -> list[str]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
        out.append(content if isinstance(content, str) else "")
    return out


def _row_quoted(index: Any, user_texts: list[str]) -> dict | None:
    """The episode row whose question a user message quotes (a CLI agent wraps it in its own template)."""
    for question, rows in index.rows.items():
        if any(question in text for text in user_texts):
            return rows[0]
    return None


def cli_agent_turn(index: Any, messages: list[dict], tools: list[dict] | None = None) -> Turn | None:
    """The scripted reply for a CLI agent's request, or None when the request is not one."""
    texts = _texts(messages)
    offered = {str((tool.get("function") or tool).get("name")) for tool in tools or [] if isinstance(tool, dict)}
    opencode = {"bash", "todowrite"} <= offered
    codex = {"exec_command", "write_stdin"} <= offered
    claude = {"Bash", "Edit"} <= offered
    if not index or not (opencode or codex or claude or any(MSWEA_BLOCK in text for text in texts[:2])):
        return None
    row = _row_quoted(index, [t for m, t in zip(messages, texts) if m.get("role") == "user"])
    if row is None:
        return None
    actions = (row["task"].get("evaluation_criteria") or {}).get("actions") or []
    commands = [str((a.get("arguments") or {}).get("command")) for a in actions if a.get("name") == "shell"]
    if opencode or codex or claude:
        done = sum(1 for message in messages if message.get("role") == "tool")
        if done < len(commands):
            name, arguments = ("exec_command", {"cmd": commands[done]}) if codex else \
                ("Bash" if claude else "bash", {"command": commands[done], "description": "reference step"})
            return Turn(tool_calls=[ToolCall(name, arguments, None, f"gold-{done}")], finish_reason="tool_calls")
        return Turn(text="Done: the change is in place.", finish_reason="stop")
    done = sum(1 for message in messages if message.get("role") == "assistant")
    command = commands[done] if done < len(commands) else MSWEA_SUBMIT
    thought = "THOUGHT: the next step of the reference solution." if done < len(commands) else \
        "THOUGHT: the change is in place; submitting."
    return Turn(text=f"{thought}\n\n```{MSWEA_BLOCK}\n{command}\n```", finish_reason="stop")
