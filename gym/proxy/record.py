"""What the proxy keeps of each call, under NeMo Gym's field names, and the trial's budgets.

One record a call, in the order the calls came:

    {"index": 0, "dialect": "messages", "stream": true, "status": "ok", "latency_s": 0.41,
     "responses_create_params": {"input": [...Responses items...], "tools": [...]},
     "response": {Responses object: output items, the last carrying prompt_token_ids,
                  generation_token_ids and generation_log_probs when the policy returned them; usage},
     "dropped": {what the agent asked that was not forwarded}, "error": null}

`responses_create_params` + `response` is the layout of NeMo Gym's rollouts (gym.rollouts.nemo_gym), so
each call is a trainable sample as it stands; `trajectory` turns the calls into one chat trajectory (the
last call's conversation and its reply, every assistant turn that came from the policy carrying its token
ids) for the trial's row. No header is ever recorded: the request's key stays out.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from gym.core.prompts import TOKEN_KEYS
from gym.episodes.export import items_to_trajectory, trajectory_items
from gym.proxy.dialects import Call, responses_output
from gym.toolcalls import chat_tools


@dataclass(frozen=True)
class Budget:
    """A trial's limits on the policy: calls, and tokens (prompt + generated, summed over the calls)."""

    max_calls: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens"):
            value = getattr(self, name)
            if value is not None and int(value) < 1:
                raise ValueError(f"proxy budget {name}={value} must be at least 1 (or null)")


class CallLog:
    """The trial's calls, appended from the proxy's threads; spent budget counted as calls come back."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.records: list[dict] = []
        self.tokens = 0
        self.calls = 0  # calls forwarded to the policy
        self.refused = 0  # calls refused because the budget was spent
        self._lock = threading.Lock()

    def admit(self) -> str | None:
        """Take one call from the budget; the reason it is spent, or None."""
        with self._lock:
            if self.budget.max_calls is not None and self.calls >= self.budget.max_calls:
                self.refused += 1
                return f"the trial's call budget ({self.budget.max_calls} model calls) is spent"
            if self.budget.max_tokens is not None and self.tokens >= self.budget.max_tokens:
                self.refused += 1
                return f"the trial's token budget ({self.budget.max_tokens} tokens) is spent"
            self.calls += 1
            return None

    def add(self, record: dict) -> None:
        usage = (record.get("response") or {}).get("usage") or {}
        with self._lock:
            self.tokens += int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
            record["index"] = len(self.records)
            self.records.append(record)

    def snapshot(self) -> list[dict]:
        with self._lock:
            return list(self.records)

    def summary(self) -> dict:
        with self._lock:
            statuses: dict[str, int] = {}
            for record in self.records:
                statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            return {"calls": len(self.records), "forwarded": self.calls, "refused_over_budget": self.refused,
                    "tokens": self.tokens, "statuses": statuses,
                    "budget": {"max_calls": self.budget.max_calls, "max_tokens": self.budget.max_tokens}}


def call_record(call: Call, completion: Any, latency: float, status: str, error: str | None = None) -> dict:
    """A call's record; `completion` is None for a call never forwarded (bad request, budget spent)."""
    inputs = trajectory_items(call.messages)
    params: dict[str, Any] = {"input": inputs[0] + inputs[1]}
    if call.tools:
        params["tools"] = [{"type": "function", **tool} for tool in call.tools]
    response: dict[str, Any] = {"object": "response", "status": "failed" if status != "ok" else "completed",
                                "output": [], "usage": {}}
    if completion is not None and status == "ok":
        output = responses_output(completion)
        if completion.tokens and output:
            output[-1].update({key: completion.tokens[key] for key in TOKEN_KEYS if key in completion.tokens})
        usage = completion.usage or {}
        response.update(output=output, usage={"input_tokens": usage.get("prompt_tokens"),
                                              "output_tokens": usage.get("completion_tokens")},
                        finish_reason=completion.finish_reason)
    return {"dialect": call.dialect, "stream": call.stream, "status": status, "latency_s": round(latency, 4),
            "responses_create_params": params, "response": response, "dropped": call.dropped or None,
            "error": error}


def trajectory(records: list[dict]) -> list[dict]:
    """One chat trajectory from a trial's calls: the last answered call's conversation and its reply.
    Each assistant turn in it that an earlier call produced gets that call's token ids back (matched on
    text and calls), so a trainer sees which tokens the policy generated."""
    answered = [r for r in records if r.get("status") == "ok"]
    if not answered:
        return []
    items = answered[-1]["responses_create_params"]["input"]
    lead = 0
    while lead < len(items) and "type" not in items[lead]:  # leading system messages (plain input messages)
        lead += 1
    messages = items_to_trajectory(items[:lead], items[lead:] + answered[-1]["response"]["output"])
    produced = {}
    for record in answered:
        reply = items_to_trajectory([], record["response"]["output"])
        if reply and any(key in reply[-1] for key in TOKEN_KEYS):
            produced[_turn_key(reply[-1])] = {key: reply[-1][key] for key in TOKEN_KEYS if key in reply[-1]}
    for message in messages:
        if message.get("role") == "assistant" and _turn_key(message) in produced:
            message.update(produced[_turn_key(message)])
    return messages


def _turn_key(message: dict) -> tuple:
    calls = tuple((c.get("function") or {}).get("name") for c in message.get("tool_calls") or [])
    return (message.get("content") or "").strip(), calls


def offered_tools(records: list[dict]) -> list[dict]:
    """The function schemas of the last call (chat shape), for a row's record of what the agent offered."""
    for record in reversed(records):
        tools = record["responses_create_params"].get("tools")
        if tools:
            return chat_tools(tools)
    return []
