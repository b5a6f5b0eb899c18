"""CLI agents without containers: their configs, and the reference server playing each agent's own protocol
(mini-swe-agent's fenced commands, OpenCode's bash tool) over HTTP, as the agents ask it through the proxy.
(tests/benchmarks/test_swebench_containers.py runs mini-swe-agent itself in a container end to end.)"""

from __future__ import annotations

import json

import openai
import pytest
from omegaconf import OmegaConf

from gym.cliagents import AgentSpec
from gym.core.errors import GymError
from gym.mock.server import MockServer
from gym.model.client import ModelClient
from gym.proxy import Budget, ModelProxy
from gym.swebench.instances import instance_row
from tests.conftest import ROOT

ROW = instance_row(json.loads((ROOT / "tests/fixtures/real/swebench/pallets__flask-5014.json").read_text()))


@pytest.mark.parametrize("name", ["mini_swe_agent", "opencode", "codex", "claude_code"])
def test_shipped_agents_are_pinned_and_complete(name):
    node = OmegaConf.to_container(OmegaConf.load(ROOT / "conf" / "agent" / f"{name}.yaml"))
    spec = AgentSpec.from_config(node["cli"])
    assert node["kind"] == "cli" and spec.version[0].isdigit() and spec.launch
    assert any(spec.version in spec.fill(line) for line in spec.install)  # the pin reaches the install line
    filled = {k: spec.fill(v, base_url="http://10.89.0.1:5000", api_key="gym-t", model="gym-policy")
              for k, v in spec.env.items()}
    launch = spec.fill(spec.launch, base_url="http://10.89.0.1:5000", model="gym-policy")
    assert "gym-t" in filled.values() and any("http://10.89.0.1:5000" in v for v in [*filled.values(), launch])
    assert "{" + "api_key}" not in spec.launch  # the key goes in the environment, never on a command line


def test_an_incomplete_agent_config_is_one_clear_error():
    with pytest.raises(GymError, match="agent.cli needs launch"):
        AgentSpec.from_config({"name": "x", "version": "1", "install": ["true"]})


@pytest.fixture(scope="module")
def proxy():
    with MockServer(rows=[ROW]) as mock:
        client = ModelClient(mock.base_url, model="gym-mock", max_retries=0)
        with ModelProxy.for_trial(client, Budget()) as proxy:
            yield proxy


@pytest.fixture(scope="module")
def proxied(proxy):
    return openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)


def test_reference_server_plays_mini_swe_agent_text_protocol(proxied):
    system = {"role": "system", "content": "Reply with one ```mswea_bash_command``` block."}
    ask = [system, {"role": "user", "content": f"Please solve this issue: {ROW['problem_statement']}"}]
    first = proxied.chat.completions.create(model="m", messages=ask).choices[0].message.content
    assert "```mswea_bash_command\ngit apply -v - <<'GYM_GOLD_PATCH'" in first
    ask += [{"role": "assistant", "content": first}, {"role": "user", "content": "<returncode>0</returncode>"}]
    second = proxied.chat.completions.create(model="m", messages=ask).choices[0].message.content
    assert "```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" in second


def test_reference_server_plays_opencode_bash_tool(proxied):
    tools = [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
             for name in ("bash", "edit", "todowrite")]
    ask = [{"role": "system", "content": "You are opencode."}, {"role": "user", "content": ROW["problem_statement"]}]
    streamed = list(proxied.chat.completions.create(model="m", messages=ask, tools=tools, stream=True))
    call = next(c.choices[0].delta.tool_calls[0] for c in streamed if c.choices and c.choices[0].delta.tool_calls)
    assert call.function.name == "bash" and "GYM_GOLD_PATCH" in json.loads(call.function.arguments)["command"]
    ask += [{"role": "assistant", "content": None, "tool_calls": [call.model_dump(exclude={"index"})]},
            {"role": "tool", "tool_call_id": call.id, "content": "Applied patch"}]
    final = proxied.chat.completions.create(model="m", messages=ask, tools=tools).choices[0]
    assert final.finish_reason == "stop" and final.message.content.startswith("Done")


def test_reference_server_plays_codex_exec_command_over_responses(proxied):
    """Codex CLI's Responses requests (its exec_command and write_stdin tools, streamed): the gold command
    as an exec_command call, then, with the command's output back, a final message."""
    schema = {"type": "object", "properties": {"cmd": {"type": "string"}}}
    tools = [{"type": "function", "name": name, "parameters": schema}
             for name in ("exec_command", "write_stdin", "view_image")]
    ask = [{"role": "developer", "content": "You are Codex."}, {"role": "user", "content": ROW["problem_statement"]}]
    events = list(proxied.responses.create(model="m", input=ask, tools=tools, stream=True))
    (call,) = [item for item in events[-1].response.output if item.type == "function_call"]
    assert call.name == "exec_command" and "GYM_GOLD_PATCH" in json.loads(call.arguments)["cmd"]
    ask += [{"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": "Process exited with code 0"}]
    final = proxied.responses.create(model="m", input=ask, tools=tools)
    assert final.output_text.startswith("Done") and not [i for i in final.output if i.type == "function_call"]


def test_reference_server_plays_claude_code_bash_tool_over_messages(proxy):
    """Claude Code's Messages requests (its Bash and Edit tools, a system message inside the conversation
    as 2.1 sends its environment, streamed) through Anthropic's own client: the gold command as a Bash call,
    then, with its result back, a final message."""
    import anthropic

    client = anthropic.Anthropic(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
    tools = [{"name": name, "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
             for name in ("Bash", "Edit", "Read")]
    ask = [{"role": "user", "content": ROW["problem_statement"]},
           {"role": "system", "content": [{"type": "text", "text": "# Environment\nPrimary working directory: /tb"}]}]
    with client.messages.stream(model="m", max_tokens=512, system="You are Claude Code.", messages=ask,
                                tools=tools) as stream:
        first = stream.get_final_message()
    (call,) = [block for block in first.content if block.type == "tool_use"]
    assert call.name == "Bash" and "GYM_GOLD_PATCH" in call.input["command"]
    ask += [{"role": "assistant", "content": [call.model_dump(exclude={"caller"}, exclude_none=True)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "Applied"}]}]
    final = client.messages.create(model="m", max_tokens=512, messages=ask, tools=tools)
    assert final.stop_reason == "end_turn" and final.content[0].text.startswith("Done")
    sent = proxy.log.snapshot()[-2]["responses_create_params"]["input"]
    assert "Primary working directory" in sent[0]["content"] and sent[0]["role"] == "system"
