"""Endpoints of a run: start what gym serves itself, connect to the policy and the judge, check, fingerprint.

Policy (`model.kind`): `openai_compatible` (a server someone runs: vLLM, SGLang, llama.cpp, TGI, NIM,
OpenAI), `mock` (gym's reference server, in-process), `local` (llama.cpp from the xllamacpp wheel,
see gym.model.local_servers), `vllm_local` (`vllm serve` started for the run). Judge (`judge.kind`): none,
mock, openai_compatible. Tasks call `start_policy` + `connect_policy` and `connect_judge` (collect through
gym.model.run_endpoints); everything started is stopped through the caller's ExitStack, whatever way the run
ends. They take the typed config (gym.core.typed: the RunConfig, or its ModelConfig / JudgeConfig /
UserConfig), never the composed one.

Before the first request the configured model id is checked against `/v1/models` and the base_url's
shape is checked, so a typo ends in one line instead of a run of infra errors.
"""

from __future__ import annotations

import logging
import re
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from gym.model.client import ModelClient, api_key_from_env
from gym.core.errors import GymError, did_you_mean
from gym.core.schema import ModelConfig, SideEndpointConfig
from gym.core.typed import RunConfig
from gym.verifiers import Verifier, judged

log = logging.getLogger("gym.model.endpoints")
POLICY_KINDS = ("openai_compatible", "mock", "local", "vllm_local")
JUDGE_KINDS = ("none", "mock", "openai_compatible")
USER_KINDS = ("none", "mock", "scripted", "openai_compatible")
# A benchmark graded by a judge needs one chosen explicitly (never the model under test by default).
NO_JUDGE = ("{name} is graded by an LLM judge (needs_judge: true) but judge=none; choose one: judge=vllm "
            "judge.base_url=http://host:port/v1, judge=openai or judge=nvidia (judge=mock together with model=mock "
            "for a dry run)")
# Model ids that name an instruction-tuned (chat) model: raw-text completions skip their chat template.
CHAT_MODEL = re.compile(r"instruct|chat|[-_.]it\b|gpt-|claude|gemini|-sft|dpo|assistant", re.I)
# What a server says about its own version, by server family (root URL, without /v1).
VERSION_PATHS = ("/version", "/props", "/server_info", "/get_server_info", "/info")
VERSION_KEYS = ("version", "build_info", "model_path", "chat_template_kwargs", "model_id", "model_dtype",
                "max_total_tokens", "sha", "tokenizer_path", "context_length", "total_slots", "model_alias")


def check_base_url(url: Any, setting: str) -> str:
    text = "" if url is None else str(url).strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise GymError(f"{setting}={text!r} is not a URL; a base_url looks like http://host:8000/v1 "
                       "(scheme, host, port and the API prefix, usually /v1)")
    return text.rstrip("/")


def check_settings(run: RunConfig) -> None:
    """What can be checked without a request: base_url shapes and API keys of the policy, the judge and the
    user that the run will use, and that a benchmark graded by a judge (its needs_judge, else its verifier
    family's own fact: gym.verifiers.judged) has one chosen, so a run refused for them is refused before any
    work (e2e prepares first)."""
    model = run.model
    kind = str(model.kind or "openai_compatible")
    if kind == "mock" and model.base_url:
        raise GymError(f"model=mock starts gym's own reference server and takes no model.base_url (got "
                       f"{model.base_url}); for a server of yours use model=vllm model.base_url={model.base_url}")
    if kind == "openai_compatible":
        policy_urls(model)
        api_key_from_env(model.api_key_env, "model.api_key_env")
    judge = run.judge
    if judge.kind == "openai_compatible" and judge.base_url:  # a judge chosen for a benchmark needing one
        check_base_url(judge.base_url, "judge.base_url")
        api_key_from_env(judge.api_key_env, "judge.api_key_env")
    user = run.user
    if run.user_kind == "openai_compatible" and user.base_url:
        check_base_url(user.base_url, "user.base_url")
        api_key_from_env(user.api_key_env, "user.api_key_env")
    bench = run.benchmark
    if str(judge.kind or "none") == "none" and bench is not None and (
            bench.needs_judge or judged(str(bench.verifier.family), bench.verifier.options)):
        raise GymError(NO_JUDGE.format(name=bench.name))


def check_reachable(model: ModelConfig) -> None:
    """The policy's endpoint answers /models with the configured model (one request, no retries): a server
    someone runs is checked before data is prepared for it."""
    urls = policy_urls(model) if str(model.kind or "openai_compatible") == "openai_compatible" else []
    if len(urls) != 1:  # gym starts the server later, or replicas are set aside one by one while they come up
        return
    client = ModelClient(urls[0], model=model.name, api=str(model.api),
                         api_key=api_key_from_env(model.api_key_env, "model.api_key_env"),
                         timeout=float(model.timeout), max_retries=0, pool_size=1)
    try:
        discover(client, "model")
    finally:
        client.close()


def start_policy(model: ModelConfig, stack: ExitStack, data_path: Path, concurrency: int,
                 family: str | None = None) -> str:
    """The policy's base_url, after starting the server gym runs itself (mock, local, vllm_local). `family`:
    the data's verifier family, whose answer shapes the reference server writes (None: any family's)."""
    kind = str(model.kind or "openai_compatible")
    if kind == "mock":
        mock = model.mock
        base_url = reference_server(stack, data_paths=[data_path], accuracy=mock.accuracy, seed=mock.seed,
                                    latency=mock.latency, faults=mock.faults or {},
                                    model_name=model.name or "gym-mock", reasoning=mock.reasoning,
                                    max_context_tokens=mock.max_context_tokens, retry_after=mock.retry_after,
                                    hang_seconds=mock.hang_seconds, task_accuracy=mock.task_accuracy,
                                    rate_limit=mock.rate_limit, max_n=mock.max_n, ignore_n=mock.ignore_n,
                                    tool_parser=mock.tool_parser, family=family)
        log.info("reference server (model=mock) listening at %s", base_url)
        return base_url
    if kind in ("local", "vllm_local"):
        from gym.model import local_servers

        process = local_servers.llama_cpp(model, concurrency) if kind == "local" else local_servers.vllm(model)
        stack.callback(process.stop)
        return process.start()
    if kind != "openai_compatible":
        raise GymError(f"model.kind={kind} is not one of: {', '.join(POLICY_KINDS)}")
    return policy_urls(model)[0]


def reference_server(stack: ExitStack, **options: Any) -> str:
    """gym's reference server (gym.mock.server) started in-process with `options`, stopped through `stack`;
    returns its base_url."""
    from gym.mock.server import MockServer

    server = MockServer(**options)
    base_url = server.start()
    stack.callback(server.stop)
    return base_url


def policy_urls(model: ModelConfig) -> list[str]:
    """model.base_url checked: one URL, or a list of replicas of the same model."""
    urls = model.base_url
    urls = urls if isinstance(urls, list) else [urls] if urls else []
    if not urls:
        raise GymError("set model.base_url=http://host:port/v1 (or a list of replicas, model.base_url=[url1,url2]; "
                       "model=mock for the built-in server, model=local for a small real model)")
    checked = [check_base_url(url, "model.base_url") for url in urls]
    if len(set(checked)) < len(checked):
        raise GymError(f"model.base_url lists a replica twice: {checked}")
    return checked


def connect_policy(model: ModelConfig, stack: ExitStack, base_url: str, concurrency: int,
                   sampling: dict[str, Any]) -> tuple[ModelClient, dict[str, Any]]:
    """A checked client for the policy and the endpoint's fingerprint (fails fast, before anything is written)."""
    api_key = api_key_from_env(model.api_key_env, "model.api_key_env")
    client = ModelClient(base_url, model=model.name, api=str(model.api), api_key=api_key,
                         timeout=float(model.timeout), max_retries=int(model.max_retries), pool_size=concurrency,
                         sampling=sampling, rollout_timeout=model.rollout_timeout)
    stack.callback(client.close)
    urls = policy_urls(model) if str(model.kind or "openai_compatible") == "openai_compatible" else [base_url]
    fingerprint = discover(client, "model") if len(urls) == 1 else discover_replicas(client, urls)
    if client.api == "completions" and CHAT_MODEL.search(client.model or ""):
        log.warning("model.api=completions sends raw text without the chat template, and %s looks like a chat "
                    "model: expect empty or rambling replies (model.api=chat applies the template)", client.model)
    return client, fingerprint


def discover(client: ModelClient, setting: str) -> dict[str, Any]:
    """/models listing, model-name check and what the server says about itself."""
    try:
        models, reply = client.list_models()
    except GymError as exc:
        hint = _missing_prefix_hint(client, str(exc))
        raise GymError(f"{exc}{hint}") from None
    ids = [str(m.get("id")) for m in models]
    if client.model is not None and ids and client.model not in ids:
        shown = ", ".join(ids[:10]) + (f" (+{len(ids) - 10} more)" if len(ids) > 10 else "")
        raise GymError(f"{setting}.name={client.model} is not served at {client.base_url}"
                       f"{did_you_mean(client.model, ids)}; served models: {shown}")
    if client.model is None:
        if not ids:
            raise GymError(f"{client.base_url}/models lists no models; set {setting}.name")
        client.model = ids[0]
    client.server_header = reply.headers.get("Server")
    served = [{k: m.get(k) for k in ("id", "owned_by", "root", "max_model_len", "created") if m.get(k) is not None}
              for m in models[:20]]
    return {"base_url": client.base_url, "model": client.model, "served_models": served,
            "server": client.server_header, "server_info": server_info(client)}


def discover_replicas(client: ModelClient, urls: list[str]) -> dict[str, Any]:
    """Discovery over replicas: the first that answers is fingerprinted, the others must serve the same
    model; a replica that does not answer yet is set aside (tried again later), all down fails."""
    from gym.model.replicas import ReplicaPool

    client.replicas = pool = ReplicaPool(urls)
    fingerprint, down = None, []
    for replica in pool.replicas:
        client.base_url = replica.base_url
        try:
            found = discover(client, "model")
        except GymError as exc:
            if "not served at" in str(exc):
                raise
            down.append(f"{replica.base_url} ({exc})")
            pool.set_aside(replica, str(exc))
            continue
        fingerprint = fingerprint or found
    if fingerprint is None:
        raise GymError("no replica of model.base_url answers: " + "; ".join(down))
    for reason in down:
        log.warning("replica %s does not answer yet; set aside and tried again later", reason)
    client.base_url = fingerprint["base_url"]
    return {**fingerprint, "replicas": urls}


def _missing_prefix_hint(client: ModelClient, message: str) -> str:
    """'; did you mean <url>/v1?' when the URL lacks the API prefix and <url>/v1/models answers."""
    if "HTTP 404" not in message or client.base_url.rstrip("/").endswith("/v1"):
        return ""
    candidate = client.base_url.rstrip("/") + "/v1"
    try:
        if client.get(candidate + "/models", timeout=5).status_code == 200:
            return f"; did you mean {candidate}?"
    except requests.RequestException:
        pass
    return f"; OpenAI-compatible servers usually serve under /v1 (e.g. {candidate})"


def server_info(client: ModelClient) -> dict[str, Any]:
    """Version facts from the endpoints servers have (vLLM /version, llama.cpp /props, SGLang
    /server_info or /get_server_info, TGI /info); short-timeout GETs, missing ones skipped."""
    root = re.sub(r"/v1/?$", "", client.base_url)
    found: dict[str, Any] = {}
    for path in VERSION_PATHS:
        try:
            reply = client.get(root + path, timeout=3)
            body = reply.json() if reply.status_code == 200 else None
        except (requests.RequestException, ValueError):
            continue
        if isinstance(body, dict):
            kept = {k: body[k] for k in VERSION_KEYS if isinstance(body.get(k), (str, int, float))}
            if kept:
                found[path.lstrip("/")] = kept
    return found


def run_fingerprint(client: ModelClient, endpoint: dict[str, Any], sampling: dict[str, Any],
                    judge: dict[str, Any] | None) -> dict[str, Any]:
    """Everything run.json keeps about who answered: the endpoint, what its replies said, the sampling
    actually sent, the judge's endpoint, and gym's version."""
    from gym import __version__ as gym_version

    return {**endpoint, "api": client.api, "server": client.server_header or endpoint.get("server"),
            "system_fingerprint": client.system_fingerprint, "sampling_sent": sampling,
            "judge": judge, "gym_version": gym_version}


def connect_judge(run: RunConfig, stack: ExitStack, verifier: Verifier, policy_base_url: str, pool_size: int,
                  cache: Any = None) -> dict[str, Any] | None:
    """Give a judge-graded verifier its judge client (no-op for other verifiers); fails fast when unreachable.
    With a response cache, a judge request answered before is answered from it (gym.model.response_cache).
    `policy_base_url` is "" where no policy endpoint runs (reverify, serve): judge=mock starts its own server.

    Returns the judge endpoint's fingerprint (None without a judge); its `model` is part of every rollout
    key, so a resume with another judge does not mix its verdicts with the old ones."""
    if not verifier.needs_judge:
        if run.judges:
            name = run.benchmark.name if run.benchmark is not None else "this benchmark"
            raise GymError(f"judges=[...]: {name} is not graded by an LLM judge; drop judges=")
        return None
    judge = run.judge
    kind = str(judge.kind or "none")
    api_key = None
    if kind == "none":  # the verifier says it is graded by a judge: one must be chosen
        raise GymError(NO_JUDGE.format(name=run.benchmark.name if run.benchmark is not None else "this benchmark"))
    if kind == "mock":
        if run.model.kind == "mock" and policy_base_url:
            base_url = policy_base_url  # the policy's reference server recognises judge prompts too
        else:
            base_url = reference_server(stack, rows=[], model_name="gym-mock-judge")
            log.warning("judge=mock with a real model: verdicts come from gym's reference server (plumbing check only)")
    elif kind == "openai_compatible":
        if not judge.base_url:
            raise GymError("set judge.base_url=http://host:port/v1 for the judge endpoint")
        base_url = check_base_url(judge.base_url, "judge.base_url")
        api_key = api_key_from_env(judge.api_key_env, "judge.api_key_env")
        if _same_endpoint(base_url, policy_base_url):
            log.warning("the judge (judge.base_url=%s) is the policy's own endpoint: the model grades its own "
                        "answers; point judge.base_url at another model for verdicts you can trust", base_url)
    else:
        raise GymError(f"judge.kind={kind} is not one of: {', '.join(JUDGE_KINDS)}")
    if run.judges:  # judges=[...]: several judges per item, their verdicts combined by judges_rule
        return _connect_panel(run, stack, verifier, base_url, api_key, pool_size, cache)
    client, sampling, seed, fingerprint = _side_client(judge, "judge", stack, base_url, api_key, pool_size)
    if cache is not None:
        from gym.model.response_cache import CachedJudge

        client = CachedJudge(client, cache)
    verifier.attach_judge(client, None if seed is None else int(seed))
    log.info("judge %s at %s", client.model, base_url)
    return {**fingerprint, "sampling_sent": sampling}


def _connect_panel(run: RunConfig, stack: ExitStack, verifier: Verifier, base_url: str, api_key: str | None,
                   pool_size: int, cache: Any) -> dict[str, Any]:
    if not verifier.takes_panel:
        raise GymError(f"judges=[...] works with the judge verifier family; this benchmark's verifier is "
                       f"{type(verifier).__name__}")
    clients, prints = [], []
    for number, conf in enumerate(run.judges):
        url = check_base_url(conf.base_url, f"judges[{number}].base_url") if conf.base_url and \
            conf.base_url != run.judge.base_url else base_url
        key = api_key_from_env(conf.api_key_env, f"judges[{number}].api_key_env") \
            if conf.api_key_env != run.judge.api_key_env else api_key
        client, sampling, seed, fingerprint = _side_client(conf, f"judges[{number}]", stack, url, key, pool_size)
        if cache is not None:
            from gym.model.response_cache import CachedJudge

            client = CachedJudge(client, cache)
        clients.append((client, None if seed is None else int(seed)))
        prints.append({**fingerprint, "sampling_sent": sampling})
    rule = str(run.judges_rule or "majority")
    verifier.attach_panel(clients, rule)
    models = [client.model for client, _ in clients]
    log.info("judges %s (%s)", ", ".join(models), rule)
    return {"model": "panel:" + "+".join(models) + f":{rule}", "panel": prints, "rule": rule}


def _side_client(conf: SideEndpointConfig, setting: str, stack: ExitStack, base_url: str, api_key: str | None,
                 pool_size: int) -> tuple[ModelClient, dict, Any, dict]:
    """A checked client for a second endpoint (judge, user): (client, sampling sent, seed, fingerprint)."""
    sampling = sampling_sent(conf.sampling)
    seed = sampling.pop("seed", None)
    client = ModelClient(base_url, model=conf.name, api=str(conf.api or "chat"), api_key=api_key,
                         timeout=float(conf.timeout), max_retries=int(conf.max_retries), pool_size=pool_size,
                         sampling=sampling)
    stack.callback(client.close)
    try:
        fingerprint = discover(client, setting)
    except GymError as exc:
        raise GymError(f"{setting}: {exc}") from None
    return client, sampling, seed, fingerprint


def sampling_sent(sampling: Any) -> dict[str, Any]:
    """A SamplingConfig as requests carry it: its set values (the seed among them)."""
    return {k: v for k, v in asdict(sampling).items() if v not in (None, {}, [])}


def connect_user(run: RunConfig, stack: ExitStack, policy: Any, pool_size: int) -> tuple[Any, dict[str, Any]]:
    """The simulated user of an episode benchmark (gym.episodes.users) and its fingerprint for run.json.

    An LLM user is started, checked and fingerprinted like the judge; its model and sampling enter every
    rollout key. A user that is the policy's own endpoint and model is warned about: published episode
    numbers move by tens of points with the user model. user=none gives no user (None): solo mode."""
    from gym.episodes.users import MockUser, ModelUser, ScriptedUser

    user = run.user
    kind = run.user_kind
    if kind == "none":  # solo mode: the caller checks the environment offers it
        return None, {"kind": "none", "model": None, "solo": True}
    if kind in ("mock", "scripted"):
        simulated = MockUser() if kind == "mock" else ScriptedUser()
        return simulated, {"kind": kind, "model": simulated.model}
    if kind != "openai_compatible":
        raise GymError(f"user.kind={kind} is not one of: {', '.join(USER_KINDS)}")
    if not user.base_url:
        raise GymError("set user.base_url=http://host:port/v1 for the simulated user's endpoint")
    base_url = check_base_url(user.base_url, "user.base_url")
    api_key = api_key_from_env(user.api_key_env, "user.api_key_env")
    client, sampling, seed, fingerprint = _side_client(user, "user", stack, base_url, api_key, pool_size)
    info = {"kind": kind, **fingerprint, "sampling_sent": sampling}
    if _same_endpoint(base_url, policy.base_url) and client.model == policy.model:
        info["same_as_policy"] = True
        log.warning("the simulated user (user.base_url=%s, %s) is the policy's own endpoint and model: episode "
                    "scores depend strongly on the user model; published τ² numbers use a separate one", base_url,
                    client.model)
    log.info("simulated user %s at %s", client.model, base_url)
    return ModelUser(client, seed_offset=int(seed or 0)), info


def _same_endpoint(a: str, b: str) -> bool:
    def norm(url: str) -> tuple[str, str]:
        parts = urlsplit(url)
        host = (parts.hostname or "").replace("localhost", "127.0.0.1").replace("0.0.0.0", "127.0.0.1")
        return f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}", parts.path.rstrip("/")

    return norm(a) == norm(b)
