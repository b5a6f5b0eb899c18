"""NeMo Gym's rollout files, both ways: reading their rows as gym rows, and writing gym rows in their layout.

A NeMo Gym run writes, per output file `<stem>.jsonl`:
* `<stem>.jsonl`: one verified rollout per line: `_ng_task_index`, `_ng_rollout_index`, `agent_ref.name`,
  `reward`, `expected_answer`, `extracted_answer`, `response` (a Responses API object with `model`,
  `status`, `output` items and `usage.input_tokens/output_tokens`), `responses_create_params`;
* `<stem>_materialized_inputs.jsonl`: one line per (task, rollout): the task row plus
  `responses_create_params.input`, `agent_ref` and the two indices; its profile and reverify read it;
* `<stem>_failures.jsonl`: rollouts that failed, marked with `_ng_failure_class`.

Mapping to gym's statuses: a row with `_ng_failure_class` is `verifier_error` for verify_failed, else
`infra_error` (judge_failed, model call failures, ...); a row whose `response.status` is "failed" is a
`model_error` (scored 0); any other row is `ok`. The benchmark is `agent_ref.name` (else the file stem),
the model `response.model`, the key `<file>:<task>:<rollout>`. `latency_s`, `scores` and `subsets`,
which gym's export adds as extra top-level fields, are read when present. gym's export also keeps what NeMo Gym has
no field for under `gym` (the original key, finish reason, verifier details), so an import is lossless.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, TypedDict

from gym.episodes.export import items_to_trajectory, trajectory_items
from gym.rollouts.row import SCHEMA_VERSION, Rollout, check_indices, check_verdict, now
from gym.toolcalls import ToolCall, calls_from_responses_output

AGENT_TYPE = "responses_api_agents"
FAILURE_STATUS = {"verify_failed": "verifier_error", "model_error": "model_error"}  # anything else: infra_error
EXPORT_FAILURE_CLASS = {"verifier_error": "verify_failed", "infra_error": "infra_error"}


class NemoGymRollout(TypedDict, total=False):
    """One line of a NeMo Gym rollouts (or failures) file, as far as gym reads or writes it."""

    _ng_task_index: int
    _ng_rollout_index: int
    agent_ref: dict
    reward: Optional[float]
    expected_answer: Any
    extracted_answer: Optional[str]
    response: dict
    responses_create_params: dict
    _ng_failure_class: str
    latency_s: Optional[float]
    scores: Optional[dict]
    subsets: dict
    gym: dict


class NemoGymInput(TypedDict, total=False):
    """One line of a materialized-inputs file: the task row plus these fields."""

    responses_create_params: dict
    agent_ref: dict
    _ng_task_index: int
    _ng_rollout_index: int


def is_nemo_row(row: Any) -> bool:
    return isinstance(row, dict) and "_ng_task_index" in row and "task_index" not in row


def status_of(row: dict) -> str:
    failure = row.get("_ng_failure_class")
    if failure:
        return FAILURE_STATUS.get(str(failure), "infra_error")
    response = row.get("response") if isinstance(row.get("response"), dict) else {}
    return "model_error" if response.get("status") == "failed" else "ok"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def read_fields(row: dict, path: Path, where: str) -> dict[str, Any]:
    """The loader's columns for one NeMo Gym row (validated)."""
    task, rollout = row.get("_ng_task_index"), row.get("_ng_rollout_index")
    check_indices(task, rollout, where)
    status = status_of(row)
    response = _dict(row.get("response"))
    usage = _dict(response.get("usage"))
    return {
        "benchmark": _dict(row.get("agent_ref")).get("name") or path.stem, "model": response.get("model") or "unknown",
        "task_index": task, "rollout_index": rollout, "key": f"{path}:{task}:{rollout}", "status": status,
        "reward": check_verdict(status, row.get("reward"), where), "extracted_answer": row.get("extracted_answer"),
        "prompt_tokens": usage.get("input_tokens"), "completion_tokens": usage.get("output_tokens"),
        "latency_s": row.get("latency_s"), "scores": row.get("scores"),
    }


def response_text(response: dict) -> tuple[str | None, str | None]:
    """(reply text, reasoning text) of a Responses object: output_text parts of its messages, reasoning
    summaries/contents of its reasoning items."""
    texts, thoughts = [], []
    for item in response.get("output") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            texts.extend(part.get("text") or "" for part in item.get("content") or []
                         if isinstance(part, dict) and part.get("type") == "output_text")
        elif item.get("type") == "reasoning":
            for part in (item.get("summary") or []) + (item.get("content") or []):
                if isinstance(part, dict) and part.get("text"):
                    thoughts.append(part["text"])
    return ("".join(texts) if texts else None), ("\n".join(thoughts) if thoughts else None)


def key_of(row: dict, path: Path) -> str:
    """The gym key of a NeMo Gym row: the one gym's export kept, else `<file>:<task>:<rollout>`."""
    return _dict(row.get("gym")).get("key") or f"{path}:{row.get('_ng_task_index')}:{row.get('_ng_rollout_index')}"


def to_gym(row: dict, path: Path, where: str) -> Rollout:
    """A full gym row (current version) from a NeMo Gym row; what gym's export kept under `gym` comes back."""
    fields = read_fields(row, path, where)
    response = _dict(row.get("response"))
    text, reasoning = response_text(response)
    usage = _dict(response.get("usage"))
    extra = _dict(row.get("gym"))
    params = _dict(row.get("responses_create_params"))
    prompt = params.get("input")
    if isinstance(prompt, str):
        prompt = [{"role": "user", "content": prompt}]
    error = extra.get("error") or row.get("_ng_failure_judge_error") or _dict(response.get("error")).get("message")
    return {
        "schema_version": SCHEMA_VERSION, "benchmark": fields["benchmark"], "model": fields["model"],
        "task_index": fields["task_index"], "rollout_index": fields["rollout_index"],
        "key": key_of(row, path), "status": fields["status"], "reward": fields["reward"],
        "scores": row.get("scores"), "extracted_answer": row.get("extracted_answer"),
        "expected_answer": row.get("expected_answer"), "prompt": prompt or [], "response": text, "reasoning": reasoning,
        "verifier": _dict(extra.get("verifier")), "error": error, "attempts": extra.get("attempts"),
        "latency_s": row.get("latency_s"), "finish_reason": extra.get("finish_reason"),
        "usage": {"prompt_tokens": usage.get("input_tokens"), "completion_tokens": usage.get("output_tokens"),
                  "total_tokens": usage.get("total_tokens")} if usage else None,
        "time": extra.get("time") or now(), "data_sha256": extra.get("data_sha256"), **_subsets(row),
        **_episode(extra, params, response), **_tool_calls(extra, response),
    }


def _tool_calls(extra: dict, response: dict) -> dict[str, Any]:
    """A single-turn tool-calling row exported by gym comes back with its calls (its function_call items)."""
    if "episode" in extra or "tool_calls" not in extra:
        return {}
    output = response.get("output") if isinstance(response.get("output"), list) else []
    return {"tool_calls": [call.to_row() for call in calls_from_responses_output(output)]}


def _episode(extra: dict, params: dict, response: dict) -> dict[str, Any]:
    """An episode exported by gym comes back with its trajectory (from the items) and its counters."""
    if not isinstance(extra.get("episode"), dict):
        return {}
    inputs = params.get("input") if isinstance(params.get("input"), list) else []
    return {"trajectory": items_to_trajectory(inputs, response.get("output") or []), "episode": extra["episode"],
            "schema_version": SCHEMA_VERSION}


# ---------------------------------------------------------------------------------------------
# Writing


def _usage(usage: Any) -> dict[str, Any]:
    """gym's usage as a Responses usage object; counts gym does not have stay absent (never invented)."""
    usage = _dict(usage)
    out: dict[str, Any] = {}
    if usage.get("prompt_tokens") is not None:
        out["input_tokens"] = usage["prompt_tokens"]
        out["input_tokens_details"] = {"cached_tokens": _dict(usage.get("prompt_tokens_details")).get("cached_tokens", 0)}
    if usage.get("completion_tokens") is not None:
        out["output_tokens"] = usage["completion_tokens"]
        out["output_tokens_details"] = {
            "reasoning_tokens": _dict(usage.get("completion_tokens_details")).get("reasoning_tokens", 0)}
    if usage.get("total_tokens") is not None:
        out["total_tokens"] = usage["total_tokens"]
    return out


@lru_cache(maxsize=4096)  # rows written in the same second share a stamp
def _created_at(stamp: Any) -> int:
    try:
        return int(datetime.fromisoformat(str(stamp)).timestamp())
    except ValueError:
        return 0


def response_object(row: Rollout) -> dict[str, Any]:
    """The Responses API object for a gym row's reply."""
    rid = str(row.get("key") or "")[:24]
    output: list[dict[str, Any]] = []
    if isinstance(row.get("trajectory"), list):  # an episode: its whole conversation after the system prompt
        output = trajectory_items(row["trajectory"])[1]
    elif row.get("reasoning"):
        output.append({"type": "reasoning", "id": f"rs_{rid}", "summary": [{"type": "summary_text",
                                                                           "text": row["reasoning"]}]})
    if row.get("response") is not None and not isinstance(row.get("trajectory"), list):
        output.append({"type": "message", "id": f"msg_{rid}", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": row["response"], "annotations": []}]})
    if isinstance(row.get("tool_calls"), list) and not isinstance(row.get("trajectory"), list):
        output += [{**ToolCall.from_row(call).to_responses(index), "id": f"fc_{rid}_{index}", "status": "completed"}
                   for index, call in enumerate(row["tool_calls"])]
    if isinstance(row.get("tokens"), dict) and output and not isinstance(row.get("trajectory"), list):
        output[-1].update(row["tokens"])  # the call's token ids, on its last item as NeMo Gym's training items
    failed = row.get("status") == "model_error"
    cut = row.get("finish_reason") == "length"
    return {
        "id": f"resp_{rid}", "object": "response", "created_at": _created_at(row.get("time")), "model": row.get("model"),
        "status": "failed" if failed else ("incomplete" if cut else "completed"),
        "error": {"code": "model_error", "message": row.get("error") or ""} if failed else None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut and not failed else None,
        "output": output, "usage": _usage(row.get("usage")),
    }


def _subsets(row: dict) -> dict[str, Any]:
    return {"subsets": row["subsets"]} if isinstance(row.get("subsets"), dict) else {}


def agent_ref(row: Rollout) -> dict[str, str]:
    return {"type": AGENT_TYPE, "name": str(row.get("benchmark"))}


def to_nemo(row: Rollout) -> NemoGymRollout:
    """The NeMo Gym rollouts-file (or failures-file) line for a gym row."""
    episode = isinstance(row.get("trajectory"), list)
    out: NemoGymRollout = {
        "responses_create_params": {"input": trajectory_items(row["trajectory"])[0] if episode else row.get("prompt") or []},
        "response": response_object(row), "reward": row.get("reward"),
        "expected_answer": row.get("expected_answer"), "extracted_answer": row.get("extracted_answer"),
        "latency_s": row.get("latency_s"), "scores": row.get("scores"), **_subsets(row),
        "_ng_task_index": row["task_index"], "_ng_rollout_index": row["rollout_index"], "agent_ref": agent_ref(row),
        "gym": {name: row.get(name) for name in ("key", "finish_reason", "attempts", "error", "verifier", "time",
                                                 "data_sha256")},
    }
    if episode:
        out["gym"]["episode"] = row.get("episode")
    elif isinstance(row.get("tool_calls"), list):  # tools were offered: the calls are the function_call items
        out["gym"]["tool_calls"] = len(row["tool_calls"])
    failure = EXPORT_FAILURE_CLASS.get(str(row.get("status")))
    if failure:
        out["_ng_failure_class"] = failure
    return out


def materialized_input(row: Rollout, task_row: dict | None) -> NemoGymInput:
    """The materialized-inputs line for a gym row: the prepared task row (else just the gold answer)."""
    base = dict(task_row) if task_row else {"expected_answer": row.get("expected_answer")}
    base.update({"responses_create_params": {"input": row.get("prompt") or []}, "agent_ref": agent_ref(row),
                 "_ng_task_index": row["task_index"], "_ng_rollout_index": row["rollout_index"]})
    return base  # type: ignore[return-value]


def task_row(materialized: dict) -> dict:
    """The task row inside a materialized-inputs line."""
    return {k: v for k, v in materialized.items()
            if k not in ("responses_create_params", "agent_ref", "_ng_task_index", "_ng_rollout_index")}
