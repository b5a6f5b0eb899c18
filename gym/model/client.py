"""OpenAI-compatible client: bounded retries with jittered backoff, typed outcomes, reasoning split.

Every call ends in one of three statuses:
  ok           a usable reply (also when cut by max_tokens; finish_reason says so)
  model_error  the endpoint refuses this task deterministically (400/413/422: context too long,
               content filter): scored 0 by the caller, never retried
  infra_error  transport errors, timeouts, 408/429/5xx, malformed JSON or empty choices after all
               retries, auth/route errors, a reply of an unknown shape (the reason is kept), a rollout
               past its time budget: excluded from scores, retried by a later resume

Time budget: `timeout` bounds one request; `rollout_timeout` bounds one rollout over all its attempts,
so a generation that runs away is not regenerated from scratch at full timeout after every read
timeout (each attempt gets what is left of the budget).
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from gym.core.errors import GymError
from gym.core.prompts import TOKEN_KEYS
from gym.model.images import chat_messages, no_images, responses_items
from gym.model.replies import EmptyReply, ReplyShapeError, parse_chat, parse_completions, parse_responses, split_reasoning
from gym.toolcalls import (ToolCall, ToolCallCounters, chat_tools, looks_like_tool_call, messages_to_prompt,
                           problems, responses_tool_choice, responses_tools, tool_names, try_parse_calls)

__all__ = ["Completion", "ModelClient", "api_key_from_env", "split_reasoning"]

log = logging.getLogger("gym.model.client")
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
MODEL_ERROR_STATUS = {400, 413, 422}
MAX_RETRY_AFTER = 60.0  # seconds; a server asking for longer is waited on at most this long
RETRY_LOG_EVERY = 30.0  # seconds between two log lines about retries (a storm is summarised, not echoed)
BUDGET_ERROR = "rollout_timeout"  # prefix of the error of a rollout that ran out of its time budget


@dataclass
class Completion:
    status: str
    text: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    attempts: int = 0
    latency_s: float = 0.0
    error: str | None = None
    choices: list["Completion"] | None = None  # every choice of an n > 1 reply (gym.model.calls splits them)
    out_of_time: bool = False  # infra_error because the rollout's time budget ran out
    from_cache: bool = False  # read back from the response cache: no request was made
    tool_calls: list[ToolCall] | None = None  # the reply's calls when tools were offered (None: none offered)
    tool_problems: dict[str, int] | None = None  # gym.toolcalls.problems of this reply, when there were any
    tokens: dict | None = None  # token ids / log-probs the server returned (gym.core.prompts.TOKEN_KEYS)


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.failover = False  # another replica is in service: send the attempt there now


class ModelClient:
    def __init__(self, base_url: str, *, model: str | None = None, api: str = "chat", api_key: str | None = None,
                 timeout: float = 600.0, max_retries: int = 5, pool_size: int = 32, sampling: dict | None = None,
                 backoff_base: float = 0.5, backoff_cap: float = 30.0, down_after: int | None = None,
                 rollout_timeout: float | None = None):
        if api not in ("chat", "completions", "responses"):
            raise GymError(f"model.api={api} is not one of: chat, completions, responses")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api = api
        self.timeout = float(timeout)
        self.rollout_timeout = float(rollout_timeout) if rollout_timeout else None
        self.image_root: Path | None = None  # the folder image files of prompts are read from (the data folder)
        self.max_retries = int(max_retries)
        self.sampling = dict(sampling or {})
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        # One session (one keep-alive connection) per worker thread: a shared session's connection pool is a
        # lock every request contends on.
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._rng = random.Random()
        self._lock = threading.Lock()
        # Circuit breaker: this many connection failures in a row, with no HTTP reply in between, means the
        # endpoint is gone; the remaining rollouts then fail fast as infra_error (a resume redoes them)
        # instead of each waiting through its retries.
        self.down_after = down_after or max(16, 2 * pool_size)
        self._connection_failures = 0
        self.endpoint_down = False
        self.limiter: Any = None  # concurrency=auto: a gym.model.concurrency.AdaptiveLimit gating each attempt
        self.replicas: Any = None  # several base_urls: a gym.model.replicas.ReplicaPool picks one per attempt
        # What the server says about itself in its replies (first reply wins): part of the run's fingerprint.
        self.server_header: str | None = None
        self.system_fingerprint: str | None = None
        self._retries = 0
        self._retries_logged = 0
        self._last_retry_log = 0.0
        # Tool calls on completions (no native tools): the format gym writes the docs and earlier calls in
        # and reads the reply's calls from (gym.toolcalls.FORMATS).
        self.tool_format = "hermes"
        self.tool_counters = ToolCallCounters()  # per-run unparsed / invalid-argument / unknown-tool counts

    @property
    def session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            hosts = len(self.replicas) if self.replicas is not None else 1  # a keep-alive connection per replica
            adapter = HTTPAdapter(pool_connections=hosts, pool_maxsize=1, max_retries=0)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            session.headers.update(self._headers)
            # Resolve the environment (proxies, CA bundle) once instead of on every request: requests
            # otherwise stats ~/.netrc and the bundle path per call, a real cost at thousands of calls/s.
            session.trust_env = False
            session.proxies.update(requests.utils.get_environ_proxies(self.base_url))
            bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
            if bundle and self.base_url.startswith("https://"):
                session.verify = bundle
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    # -- endpoint discovery -------------------------------------------------------------------------
    def get(self, url: str, timeout: float = 30.0) -> requests.Response:
        """A GET with this client's headers (API key, proxies); raises requests' exceptions."""
        return self.session.get(url, timeout=(5, min(self.timeout, timeout)))

    def list_models(self) -> tuple[list[dict[str, Any]], requests.Response]:
        """The model cards of /models and the reply itself; GymError when down or not a model list.
        gym.model.endpoints.discover checks the model id against them and fingerprints the server."""
        url = f"{self.base_url}/models"
        try:
            reply = self.get(url)
        except requests.RequestException as exc:
            raise GymError(f"cannot reach the model endpoint at {url} ({exc.__class__.__name__}); is the server up?") from None
        if reply.status_code in (401, 403):
            raise GymError(f"the model endpoint at {url} refused the API key (HTTP {reply.status_code})")
        if reply.status_code >= 400:
            raise GymError(f"the model endpoint at {url} answered HTTP {reply.status_code}")
        try:
            listing = reply.json()
            models = [m for m in listing.get("data", []) if isinstance(m, dict)]
        except (ValueError, AttributeError):
            raise GymError(f"the model endpoint at {url} did not return a JSON model list") from None
        return models, reply

    # -- requests -----------------------------------------------------------------------------------
    def _payload(self, messages: list[dict[str, Any]], seed: int | None, n: int = 1, tools: list[dict] | None = None,
                 tool_choice: Any = None) -> tuple[str, dict[str, Any]]:
        sampling = {k: v for k, v in self.sampling.items() if v is not None and k not in ("extra_body", "seed")}
        extra = dict(self.sampling.get("extra_body") or {})
        if seed is not None:
            sampling["seed"] = seed
        if n > 1:
            sampling["n"] = n
        if self.api == "chat":
            offered = {"tools": chat_tools(tools)} if tools else {}
            if tools and tool_choice is not None:
                offered["tool_choice"] = tool_choice
            return "/chat/completions", {"model": self.model, "messages": chat_messages(messages, self.image_root),
                                         **offered, **sampling, **extra}
        if self.api == "completions":
            no_images(messages)
            if tools or any(m.get("role") == "tool" or m.get("tool_calls") for m in messages):
                prompt = messages_to_prompt(messages, tools, self.tool_format)
            else:
                prompt = "\n\n".join(m["content"] for m in messages)
            return "/completions", {"model": self.model, "prompt": prompt, **sampling, **extra}
        if "max_tokens" in sampling:
            sampling["max_output_tokens"] = sampling.pop("max_tokens")
        sampling.pop("stop", None)  # the Responses API has no stop sequences
        offered = {"tools": responses_tools(tools)} if tools else {}
        if tools and tool_choice is not None:
            offered["tool_choice"] = responses_tool_choice(tool_choice)
        return "/responses", {"model": self.model, "input": responses_items(responses_input(messages), self.image_root),
                              **offered, **sampling, **extra}

    def _parse(self, body: dict[str, Any], tools: list[dict] | None = None) -> Completion:
        if self.api == "chat":
            parsed = parse_chat(body)
        elif self.api == "completions":
            parsed = parse_completions(body)
        else:
            parsed = parse_responses(body, self.sampling.get("max_tokens"))
        if parsed.system_fingerprint and self.system_fingerprint is None:
            self.system_fingerprint = parsed.system_fingerprint
        result = self._with_calls(Completion("ok", parsed.text, parsed.reasoning, parsed.finish_reason, parsed.usage),
                                  parsed.tool_calls, tools)
        result.tokens = parsed.tokens
        choices = body.get("choices")
        if self.api != "responses" and isinstance(choices, list) and len(choices) > 1:  # an n > 1 reply
            parse = parse_chat if self.api == "chat" else parse_completions
            result.choices = split_choices([self._with_calls(Completion("ok", p.text, p.reasoning, p.finish_reason),
                                                             p.tool_calls, tools) for p in
                                            (parse({**body, "choices": [choice]}) for choice in choices)], parsed.usage)
        return result

    def _with_calls(self, result: Completion, calls: list[ToolCall], tools: list[dict] | None) -> Completion:
        """Attach the reply's tool calls (read from the text on completions) and count their trouble."""
        if not tools:
            return result
        native = self.api != "completions"
        undecoded = False
        if not native:  # the calls are text in the prompt's format: one that does not decode is unparsed
            decoded = try_parse_calls(result.text or "", self.tool_format)
            undecoded = decoded is None and looks_like_tool_call(result.text)
            calls = decoded or []
        result.tool_calls = list(calls)
        found = problems(result.tool_calls, result.text, tool_names(tools), native=native or undecoded)
        if found:
            result.tool_problems = found
            self.tool_counters.add(found)
        if result.tool_calls and result.finish_reason in (None, "stop") and not native:
            result.finish_reason = "tool_calls"
        return result

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        with self._lock:
            jitter = self._rng.uniform(0.5, 1.0)
        return min(self.backoff_cap, self.backoff_base * 2 ** attempt) * jitter

    def complete(self, messages: list[dict[str, Any]], seed: int | None = None, n: int = 1,
                 tools: list[dict] | None = None, tool_choice: Any = None) -> Completion:
        """One request; with n > 1 (chat/completions `n`) the reply's choices are in `.choices`.

        `messages` may be whole chat messages (an assistant's `tool_calls`, `tool` results with their
        `tool_call_id`); `tools` are function schemas in any shape (gym.toolcalls.specs), sent as the API
        wants them, and the reply's calls come back in `.tool_calls`."""
        path, payload = self._payload(messages, seed, n, tools, tool_choice)
        url = self.base_url + path
        started = time.perf_counter()
        attempt, error, failovers = 0, "none", 0

        def failed(error: str, out_of_time: bool = False) -> Completion:
            return Completion("infra_error", error=error, attempts=attempt, out_of_time=out_of_time,
                              latency_s=round(time.perf_counter() - started, 4))

        while True:
            if self.endpoint_down:
                return failed(f"endpoint unreachable ({self.down_after} connection failures in a row); not sent")
            read_timeout = self.timeout
            if self.rollout_timeout is not None:
                left = self.rollout_timeout - (time.perf_counter() - started)
                if left <= 0.05:
                    return failed(f"{BUDGET_ERROR}: {self.rollout_timeout:g}s spent over {attempt} attempt(s) "
                                  f"(last: {error}); raise model.rollout_timeout or cap the output with "
                                  "model.sampling.max_tokens", out_of_time=True)
                read_timeout = min(read_timeout, left)
            attempt += 1
            try:
                result = self._attempt(url, payload, read_timeout, tools)
                result.attempts = attempt
                result.latency_s = round(time.perf_counter() - started, 4)
                return result
            except _Transient as exc:
                error, retry_after = str(exc), exc.retry_after
                if exc.failover and failovers < 4 * len(self.replicas):  # another replica takes it, no wait
                    attempt, failovers = attempt - 1, failovers + 1
                    continue
            if attempt > self.max_retries:
                return failed(error)
            self._note_retry(error)
            delay = self._delay(attempt - 1, retry_after)
            if self.rollout_timeout is not None:
                delay = min(delay, max(0.0, self.rollout_timeout - (time.perf_counter() - started)))
            time.sleep(delay)

    def _note_retry(self, error: str) -> None:
        """Log retries at most every RETRY_LOG_EVERY seconds, with how many happened since the last line."""
        now = time.monotonic()
        with self._lock:
            self._retries += 1
            if now - self._last_retry_log < RETRY_LOG_EVERY:
                return
            count, self._retries_logged, self._last_retry_log = self._retries - self._retries_logged, self._retries, now
        log.warning("%s: %d request(s) retried (latest: %s)", self.base_url, count, error[:200])

    @property
    def retries(self) -> int:
        return self._retries

    def _attempt(self, url: str, payload: dict[str, Any], read_timeout: float | None = None,
                 tools: list[dict] | None = None) -> Completion:
        if self.replicas is None:
            return self._attempt_at(url, payload, read_timeout, tools, self.limiter)
        replica, started = self.replicas.acquire(), time.perf_counter()
        try:
            result = self._attempt_at(replica.base_url + url[len(self.base_url):], payload, read_timeout, tools,
                                      replica.limiter)
        except _Transient as exc:
            exc.failover = self.replicas.release(replica, True, error=str(exc))
            raise
        self.replicas.release(replica, False, time.perf_counter() - started)
        return result

    def _attempt_at(self, url: str, payload: dict[str, Any], read_timeout: float | None, tools: list[dict] | None,
                    gate: Any) -> Completion:
        read_timeout = self.timeout if read_timeout is None else read_timeout
        try:
            reply = self._post(url, payload, read_timeout, gate)
        except requests.Timeout:
            raise _Transient(f"timed out after {read_timeout:g}s") from None
        except requests.ConnectionError as exc:
            with self._lock:
                self._connection_failures += 1
                if self._connection_failures >= self.down_after:
                    self.endpoint_down = True
            raise _Transient(f"{exc.__class__.__name__}: {str(exc)[:200]}") from None
        except requests.RequestException as exc:
            raise _Transient(f"{exc.__class__.__name__}: {str(exc)[:200]}") from None
        if self._connection_failures:
            with self._lock:
                self._connection_failures = 0
        if self.server_header is None:
            self.server_header = reply.headers.get("Server")
        status = reply.status_code
        if status in RETRY_STATUS:
            raise _Transient(f"HTTP {status}: {reply.text[:200]}", retry_after(reply))
        if status in MODEL_ERROR_STATUS:
            return Completion("model_error", error=f"HTTP {status}: {reply.text[:500]}")
        if status >= 400:  # auth, routing: not this task's fault, and not transient either
            return Completion("infra_error", error=f"HTTP {status}: {reply.text[:300]}")
        try:
            body = reply.json()
        except ValueError:
            raise _Transient("malformed JSON in reply") from None
        if not isinstance(body, dict):
            return Completion("infra_error", error=f"unexpected reply shape: a JSON {type(body).__name__}, not an object")
        try:
            return self._parse(body, tools)
        except EmptyReply as exc:
            raise _Transient(str(exc)) from None
        except ReplyShapeError as exc:
            return Completion("infra_error", error=f"unexpected reply shape: {exc}")

    def _post(self, url: str, payload: dict[str, Any], read_timeout: float, gate: Any = None) -> requests.Response:
        if gate is None:
            return self.session.post(url, data=json.dumps(payload), timeout=(10, read_timeout))
        epoch, started, status = gate.acquire(), time.perf_counter(), None
        try:
            reply = self.session.post(url, data=json.dumps(payload), timeout=(10, read_timeout))
            status = reply.status_code
            return reply
        finally:
            gate.release(epoch, status, time.perf_counter() - started)

    def close(self) -> None:
        with self._lock:
            for session in self._sessions:
                session.close()
            self._sessions.clear()


def responses_input(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as Responses input items: an assistant's calls become `function_call` items after its
    text, a `tool` message a `function_call_output`; plain messages are passed as they are."""
    if not any(m.get("role") == "tool" or m.get("tool_calls") for m in messages):
        return messages
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "tool":
            items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"),
                          "output": message.get("content") or ""})
            continue
        first = len(items)
        if message.get("content"):
            items.append({"role": message["role"], "content": message["content"]})
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            items.append(ToolCall.from_wire(function.get("name"), function.get("arguments"), call.get("id"))
                         .to_responses(index))
        if len(items) > first:  # a turn's token ids ride on its last item, as the reference's items carry them
            items[-1].update({key: message[key] for key in TOKEN_KEYS if key in message})
    return items


def api_key_from_env(env_name: str | None, setting: str) -> str | None:
    """The API key held by the environment variable `env_name` (None when no variable is configured);
    `setting` names the config key for the error, e.g. "model.api_key_env"."""
    if not env_name:
        return None
    key = os.environ.get(env_name)
    if not key:
        raise GymError(f"{setting}={env_name}, but the environment variable {env_name} is not set")
    return key


def split_choices(choices: list[Completion], usage: dict | None) -> list[Completion]:
    """Per-choice usage for an n > 1 reply: the prompt is shared, the completion tokens (reported only
    in total) are split in proportion to each choice's text length."""
    usage = usage or {}
    total = usage.get("completion_tokens")
    lengths = [len(c.text or "") + len(c.reasoning or "") for c in choices]
    for choice, length in zip(choices, lengths):
        share = None if total is None else round(total * length / sum(lengths)) if sum(lengths) else total // len(choices)
        choice.usage = {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": share,
                        "total_tokens": None if share is None else (usage.get("prompt_tokens") or 0) + share}
    return choices


def retry_after(reply: requests.Response) -> float | None:
    """The reply's Retry-After in seconds (not below 0), or None."""
    value = reply.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
