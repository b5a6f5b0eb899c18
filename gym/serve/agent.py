"""`/run`: a whole rollout or episode played by gym against a policy endpoint, as NeMo Gym's agents do.

The policy is the request's `policy` ({"base_url", "model", "api", "api_key_env"}) or the server's own
`model.*` (model=mock starts gym's reference server, model=local a small real model, once, on the first
`/run`). An answer benchmark gets one request (the request's `responses_create_params.input` when given,
else the messages collect renders from the row; the tools collect offers), graded by the benchmark's
verifier; an episode benchmark is played by collect's episode player (gym.rollouts.episodes.play) with the
server's `user=` simulator and `episode.*` limits. Either way the row collect would write
(gym.rollouts.row) is built and returned under `rollout`, beside NeMo Gym's fields made from it
(gym.rollouts.nemo_gym.to_nemo): `responses_create_params`, `response` (a Responses object whose
`output` is the whole trajectory as items), `reward`.
"""

from __future__ import annotations

import secrets
import threading
from contextlib import ExitStack
from typing import Any

from dataclasses import replace

from gym.core.errors import GymError
from gym.core.typed import RunConfig
from gym.episodes.base import Limits
from gym.rollouts.episodes import EpisodeSetup, play
from gym.rollouts.nemo_gym import to_nemo
from gym.rollouts.row import make_episode_rollout, make_rollout
from gym.serve.answers import CONTRACT_FIELDS, object_body, task_row
from gym.serve.catalog import RequestError, Served
from gym.serve.containers import bind_policy
from gym.serve.service import contract_fields
from gym.verifiers.base import Verdict

UNFINISHED = ("verifier_error", "infra_error")


class Agent:
    def __init__(self, run: RunConfig, stack: ExitStack, users: dict[str, Any], limits: Limits, concurrency: int,
                 on_verifier_error: float | None):
        self.config, self.stack, self.users, self.limits = run, stack, users, limits
        self.concurrency, self.on_verifier_error = concurrency, on_verifier_error
        self._clients: dict[Any, Any] = {}
        self._lock = threading.Lock()

    def sampling(self, served: Served) -> dict[str, Any]:
        from gym.model.endpoints import sampling_sent

        sent = sampling_sent(self.config.model.sampling)
        sent.pop("seed", None)
        if sent.get("max_tokens") is None and served.max_tokens:
            sent["max_tokens"] = int(served.max_tokens)
        return sent

    def seed(self, served: Served, rollout_index: int) -> int | None:
        """collect's seed for the rollout: model.sampling.seed (episodes: else episode.seed) + rollout index."""
        base = self.config.model.sampling.seed
        if base is None and served.kind == "episode":
            base = self.config.knob("episode", {}).get("seed")
        return None if base is None else int(base) + rollout_index

    def client(self, served: Served, policy: Any) -> Any:
        from gym.model import endpoints

        kind = str(self.config.model.kind or "openai_compatible")
        key = (tuple(sorted(policy.items())) if policy else None, served.name if kind == "mock" else None)
        with self._lock:
            if key not in self._clients:
                try:
                    self._clients[key] = self._connect(served, policy, endpoints)
                except GymError as exc:
                    raise RequestError(f"policy endpoint: {exc}", 502) from None
            return self._clients[key]

    def _connect(self, served: Served, policy: Any, endpoints: Any) -> Any:
        model = self.config.model
        if policy:  # the request's own endpoint: the server's model settings with these fields changed
            if not isinstance(policy, dict) or not policy.get("base_url"):
                raise RequestError("policy must be an object with base_url (and model, api, api_key_env)", 422)
            model = replace(model, kind="openai_compatible", base_url=str(policy["base_url"]), name=policy.get("model"),
                            **{name: str(policy[name]) for name in ("api", "api_key_env") if policy.get(name)})
        base_url = endpoints.start_policy(model, self.stack, served.data_path, self.concurrency, served.family)
        client, _ = endpoints.connect_policy(model, self.stack, base_url, self.concurrency, self.sampling(served))
        client.image_root = served.data_path.parent  # image files of prompts are named relative to the data folder
        return client

    def run(self, served: Served, body: dict, cancelled: threading.Event | None = None) -> dict[str, Any]:
        body = object_body(body)
        row = task_row(served, body)
        client = self.client(served, body.get("policy"))
        if cancelled is not None:
            client = Cancellable(client, cancelled)
        task_index = body["task_index"] if isinstance(body.get("task_index"), int) else -1
        rollout_index = int(body.get("_ng_rollout_index") or body.get("rollout_index") or 0)
        seed = body["seed"] if "seed" in body else self.seed(served, rollout_index)
        key = f"serve:{served.name}:{task_index}:{secrets.token_hex(8)}"
        skipped = body.get("skip_verification") is True  # generation only: no verdict is computed
        verifier = UNVERIFIED if skipped else served.verifier
        if served.kind == "episode":
            user = self.users.get(served.name)
            if user is None and not served.env.supports_solo:
                raise RequestError(f"{served.name} needs a simulated user: start the server with user=mock "
                                   "(or user=vllm user.base_url=...)", 422)
            bind_policy(served, client)  # a CLI agent's model proxy forwards to this request's policy
            setup = EpisodeSetup(served.env, user, self.limits, user_model=getattr(user, "model", None))
            played = play(setup, client, verifier, row, seed)
            rollout = make_episode_rollout(served.name, client.model, row, task_index, rollout_index, key, played)
        else:
            messages, tools, choice = served.answer_tools(row, client.api, given_input(body))
            completion = client.complete(messages, seed=seed, tools=tools, tool_choice=choice)
            rollout = make_rollout(served.name, client.model, row, messages, task_index, rollout_index, key,
                                   completion, verifier)
        if rollout["status"] == "infra_error":
            raise RequestError(f"the rollout did not finish: {rollout.get('error')}", 502)
        nemo = dict(to_nemo(rollout))
        nemo.pop("gym", None)
        nemo["response"] = responses_object(nemo["response"], key)
        reward = self.on_verifier_error if rollout["status"] in UNFINISHED else rollout["reward"]
        own = {k: v for k, v in body.items() if k not in CONTRACT_FIELDS or k in ("task_index", "task_id")}
        fields = contract_fields(rollout)
        if skipped:
            fields.update(mask_sample=True, verification_skipped=True)
        return {**own, **nemo, "reward": reward, **fields, "status": rollout["status"], "rollout": rollout}


class Unverified:
    """The verifier of a generation-only /run (`skip_verification: true`): reward 0, marked as no verdict."""

    uses_tool_calls = False
    strict = False

    def verify(self, row: dict, response: Any, tool_calls: Any = None) -> Verdict:
        return Verdict(0.0, None, {"verification_skipped": True})


UNVERIFIED = Unverified()


class Cancellable:
    """The policy client of one /run: once its client has disconnected, no further model call is made."""

    def __init__(self, client: Any, cancelled: threading.Event):
        self._client, self._cancelled = client, cancelled

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        if self._cancelled.is_set():
            raise RequestError("the client of this /run disconnected", 499)
        return self._client.complete(*args, **kwargs)


def given_input(body: dict) -> list[dict] | None:
    """The chat messages of a NeMo Gym run request's `responses_create_params.input`, if it has one."""
    params = body.get("responses_create_params")
    value = params.get("input") if isinstance(params, dict) else None
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if not isinstance(value, list) or not value:
        return None
    messages = []
    for item in value:
        if not isinstance(item, dict) or "role" not in item:
            raise RequestError("responses_create_params.input: an /run of an answer benchmark takes messages "
                               "({role, content}) only", 422)
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text") or "" for part in content if isinstance(part, dict))
        messages.append({"role": "system" if item["role"] == "developer" else item["role"], "content": content})
    return messages


def responses_object(response: dict, key: str) -> dict:
    """The response as a complete Responses object (what NeMo Gym's response model requires): every output
    item with an id, text parts with annotations, the request echo fields."""
    for number, item in enumerate(response.get("output") or []):
        item.setdefault("id", f"{item.get('type', 'item')[:2]}_{key[-16:]}_{number}")
        if item.get("type") == "message":
            item.setdefault("status", "completed")
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    part.setdefault("annotations", [])
        elif item.get("type") == "function_call":
            item.setdefault("status", "completed")
    return {"parallel_tool_calls": True, "tool_choice": "auto", "tools": [], **response}
