"""Tool calls: the ToolCall record, function schemas in each API's shape, text codecs for prompt mode
(BFCL's Python-list format and Hermes JSON blocks) and the per-run trouble counters.

Pure (no HTTP, no other gym package): the client, the verifiers, the reference server and the episode
runner all build on it.
"""

from gym.toolcalls.calls import (ToolCall, calls_from_chat_message, calls_from_responses_output,  # noqa: F401
                                 parse_arguments)
from gym.toolcalls.codecs import (FORMATS, looks_like_tool_call, messages_to_prompt, parse_calls,  # noqa: F401
                                  render_calls, tools_prompt, try_parse_calls)
from gym.toolcalls.gold import gold_calls, language_of  # noqa: F401
from gym.toolcalls.counters import KINDS, ToolCallCounters, problems  # noqa: F401
from gym.toolcalls.python_calls import DecodeError, decode_python_calls  # noqa: F401
from gym.toolcalls.specs import (chat_tool, chat_tools, function_of, openai_name, responses_tool,  # noqa: F401
                                 responses_tool_choice, responses_tools, tool_names)

__all__ = ["DecodeError", "FORMATS", "KINDS", "ToolCall", "ToolCallCounters", "calls_from_chat_message",
           "calls_from_responses_output", "chat_tool", "chat_tools", "decode_python_calls", "function_of",
           "gold_calls", "language_of", "looks_like_tool_call", "messages_to_prompt", "openai_name",
           "parse_arguments", "parse_calls", "problems", "render_calls", "responses_tool", "responses_tool_choice",
           "responses_tools", "tool_names", "tools_prompt", "try_parse_calls"]
