"""The endpoints of one run, started together: the policy (gym's own server started, or a server someone runs
reached) and checked, the judge a judge-graded verifier needs and the embeddings endpoint its environment
names, attached to the verifier, with what run.json keeps of them (gym.model.endpoints and gym.model.embeddings
do each). Everything started stops through the caller's ExitStack."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gym.core.typed import RunConfig
from gym.model.client import ModelClient
from gym.model.concurrency import AdaptiveLimit
from gym.model.endpoints import connect_judge, connect_policy, run_fingerprint, start_policy
from gym.model.response_cache import ResponseCache, open_cache
from gym.verifiers.base import Verifier

log = logging.getLogger("gym.model.endpoints")


@dataclass
class RunServers:
    client: ModelClient  # the policy's, checked
    fingerprint: dict[str, Any]  # who answered (the judge's and the embeddings' endpoints too), for run.json
    judge_model: str | None  # part of every rollout key
    cache: ResponseCache | None  # the response cache (cache.dir), shared by the policy's calls and the judge


def start_run_endpoints(run: RunConfig, stack: ExitStack, verifier: Verifier, data: Path, concurrency: int,
                        auto_concurrency: bool, sampling: dict[str, Any], seed: int | None,
                        cache_knobs: dict[str, Any]) -> RunServers:
    """The run's policy, judge and embeddings endpoints for the benchmark of `run` and its `verifier`, over the
    prepared `data` (whose answers gym's reference server gives, in the verifier family's shape); their settings
    were checked with the run's (gym.model.endpoints.check_settings)."""
    from gym.model.embeddings import connect_embeddings  # (only a benchmark naming embeddings uses it)

    family = str(run.benchmark.verifier.family) if run.benchmark is not None else None
    base_url = start_policy(run.model, stack, data, concurrency, family)
    client, endpoint = connect_policy(run.model, stack, base_url, concurrency, sampling)
    client.image_root = data.parent  # image files of prompts are named relative to the data folder
    cache = open_cache(cache_knobs, stack)
    judge = connect_judge(run, stack, verifier, base_url, concurrency, cache)
    embedded = connect_embeddings(run, stack, verifier, base_url)  # banking_alltools' KB_search_dense endpoint
    fingerprint = run_fingerprint(client, endpoint, {**sampling, "seed": seed}, judge)
    if embedded is not None:
        fingerprint["embeddings"] = embedded
    log.info("model %s at %s (server: %s); sampling %s", client.model, client.base_url,
             fingerprint.get("server") or "unknown", fingerprint["sampling_sent"])
    if auto_concurrency and client.replicas is not None:  # each replica finds its own limit
        for replica in client.replicas.replicas:
            replica.limiter = AdaptiveLimit(concurrency)
    elif auto_concurrency:
        client.limiter = AdaptiveLimit(concurrency)
    return RunServers(client, fingerprint, judge["model"] if judge else None, cache)
