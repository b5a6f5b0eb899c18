"""Per-run counts of tool-call trouble, with a one-line hint the first time each kind appears.

* unparsed_tool_calls: the reply's text looks like a call that yielded none. Tools offered natively: the
  server parsed none (vLLM started without --enable-auto-tool-choice --tool-call-parser, a llama.cpp
  server without --jinja, a parser that does not match the model's template). On completions, where
  the calls are text in the prompt's format: gym could not decode it (a malformed call).
* invalid_tool_arguments: a call whose arguments are not a JSON object.
* unknown_tools: a call to a function that was not offered.
They are graded as the benchmark says (BFCL: a failed decode is wrong); these counts only explain scores.
"""

from __future__ import annotations

import logging
import threading
from typing import Iterable

from gym.toolcalls.calls import ToolCall
from gym.toolcalls.codecs import looks_like_tool_call

log = logging.getLogger("gym.toolcalls")

KINDS = ("unparsed_tool_calls", "invalid_tool_arguments", "unknown_tools")
HINTS = {
    "unparsed_tool_calls": "a reply carries a tool call as text instead of tool_calls: the server parsed none "
                           "(vLLM needs --enable-auto-tool-choice --tool-call-parser <parser>; llama.cpp needs "
                           "--jinja), or use verifier.options.mode=prompt; on completions: a call in the text "
                           "that does not decode in the prompt's format",
    "invalid_tool_arguments": "a tool call's arguments are not a JSON object (counted, graded as the benchmark says)",
    "unknown_tools": "a tool call names a function that was not offered (counted, graded as the benchmark says)",
}


def problems(calls: Iterable[ToolCall], text: str | None, offered: set[str] | None,
             native: bool = True) -> dict[str, int]:
    """The trouble in one reply: counts by kind (kinds with 0 left out)."""
    calls = list(calls)
    found = {"invalid_tool_arguments": sum(1 for call in calls if call.arguments is None),
             "unknown_tools": sum(1 for call in calls if offered is not None and call.name not in offered),
             "unparsed_tool_calls": int(native and not calls and looks_like_tool_call(text))}
    return {kind: count for kind, count in found.items() if count}


class ToolCallCounters:
    """Thread-safe totals for one run; `add` logs each kind's hint once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts = dict.fromkeys(KINDS, 0)
        self._hinted: set[str] = set()

    def add(self, found: dict[str, int]) -> None:
        new = []
        with self._lock:
            for kind, count in found.items():
                self.counts[kind] = self.counts.get(kind, 0) + count
                if count and kind not in self._hinted:
                    self._hinted.add(kind)
                    new.append(kind)
        for kind in new:
            log.warning("%s: %s", kind, HINTS[kind])

    def summary(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)
