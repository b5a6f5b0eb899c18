"""An OpenAI-compatible `/v1/embeddings` client, and the endpoint a benchmark's tools embed with.

`EmbeddingsClient.embed(texts)` posts {"model", "input": [...], "encoding_format"} in batches of
`batch_size`, retries transport errors, 408, 429 (its Retry-After) and 5xx with jittered backoff, and
returns one vector per text in order. `encoding_format: base64` asks for float32 bytes, as OpenAI's Python
client does (so upstream's τ² code sees the same values); a server that answers lists of floats anyway is
read too. Every vector's length is checked against `dimensions` when set.

`connect_embeddings` reads `benchmark.embeddings` (conf/benchmark/banking_alltools.yaml): kind `auto` is
gym's reference server when model=mock (the policy's own server; its embedding model is
MOCK_EMBEDDING_MODEL), else `openai_compatible` at `base_url` with the key from the environment variable
`api_key_env` (never stored). It gives the verifier's environment the client, which builds the documents'
vectors before the first rollout (from the cache beside the prepared data where it can).
"""

from __future__ import annotations

import base64
import logging
import random
import struct
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Sequence

import requests

from gym.core.errors import GymError
from gym.core.schema import EmbeddingsConfig
from gym.core.typed import RunConfig
from gym.model.client import MAX_RETRY_AFTER, RETRY_STATUS, api_key_from_env, retry_after
from gym.verifiers.base import Verifier

log = logging.getLogger("gym.model.embeddings")
MOCK_EMBEDDING_MODEL = "gym-mock-embedding"  # what gym's reference server embeds with (gym.mock.embeddings)
KINDS = ("auto", "mock", "openai_compatible")
ENCODINGS = ("base64", "float")


class EmbeddingsFailed(GymError):
    """The endpoint gave no vectors after every retry, or answered in a shape that is not an embedding list."""


def decode_vector(item: Any, where: str) -> list[float]:
    """One `data[i].embedding`: a list of numbers, or base64 of little-endian float32s."""
    if isinstance(item, str):
        raw = base64.b64decode(item)
        if len(raw) % 4:
            raise EmbeddingsFailed(f"{where}: a base64 embedding of {len(raw)} bytes is not float32s")
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    if isinstance(item, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in item):
        return [float(v) for v in item]
    raise EmbeddingsFailed(f"{where}: an embedding is neither a list of numbers nor base64")


class EmbeddingsClient:
    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, dimensions: int | None = None,
                 encoding_format: str = "base64", batch_size: int = 64, timeout: float = 120.0,
                 max_retries: int = 5, backoff_base: float = 0.5, backoff_cap: float = 30.0):
        if encoding_format not in ENCODINGS:
            raise GymError(f"benchmark.embeddings.encoding_format={encoding_format}: one of {', '.join(ENCODINGS)}")
        if int(batch_size) < 1:
            raise GymError(f"benchmark.embeddings.batch_size={batch_size} must be at least 1")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model, self.dimensions, self.encoding_format = model, dimensions, encoding_format
        self.batch_size, self.timeout, self.max_retries = int(batch_size), float(timeout), int(max_retries)
        self.backoff_base, self.backoff_cap = backoff_base, backoff_cap
        self.identity = {"model": model, "dimensions": dimensions}  # what makes the vectors (the cache's key)
        self._headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._lock = threading.Lock()
        self.requests = 0  # requests answered, for the run's log

    @property
    def session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            session.headers.update(self._headers)
            with self._lock:
                self._sessions.append(session)
        return session

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            raise EmbeddingsFailed("no text to embed")
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors += self._batch(list(texts[start:start + self.batch_size]))
        return vectors

    def _batch(self, texts: list[str]) -> list[list[float]]:
        payload = {"model": self.model, "input": texts, "encoding_format": self.encoding_format}
        error = ""
        for attempt in range(self.max_retries + 1):
            try:
                reply = self.session.post(self.url, json=payload, timeout=(10, self.timeout))
            except requests.RequestException as exc:
                error, wait = f"{exc.__class__.__name__}: {exc}", None
            else:
                if reply.status_code == 200:
                    return self._vectors(reply, len(texts))
                error = f"HTTP {reply.status_code}: {reply.text[:200]}"
                if reply.status_code not in RETRY_STATUS:
                    raise EmbeddingsFailed(f"{self.url}: {error}")
                wait = retry_after(reply)
            if attempt < self.max_retries:
                time.sleep(min(wait, MAX_RETRY_AFTER) if wait is not None else
                           min(self.backoff_cap, self.backoff_base * 2 ** attempt) * random.uniform(0.5, 1.0))
        raise EmbeddingsFailed(f"{self.url}: no embeddings after {self.max_retries + 1} attempts ({error})")

    def _vectors(self, reply: requests.Response, count: int) -> list[list[float]]:
        try:
            data = reply.json()["data"]
            items = sorted(data, key=lambda item: item.get("index", 0))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EmbeddingsFailed(f"{self.url}: the answer is not an embeddings list: {reply.text[:200]}") from None
        if len(items) != count:
            raise EmbeddingsFailed(f"{self.url}: {len(items)} embeddings for {count} texts")
        vectors = [decode_vector(item.get("embedding"), self.url) for item in items]
        for vector in vectors:
            if self.dimensions is not None and len(vector) != int(self.dimensions):
                raise EmbeddingsFailed(f"{self.url}: {self.model} answered a vector of {len(vector)} dimensions, "
                                       f"benchmark.embeddings.dimensions is {self.dimensions}")
        with self._lock:
            self.requests += 1
        return vectors

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()


def embeddings_kind(conf: EmbeddingsConfig, policy_kind: str, policy_base_url: str) -> str:
    """kind, with auto = mock where gym's reference server is the policy here, else openai_compatible."""
    kind = str(conf.kind or "auto")
    if kind not in KINDS:
        raise GymError(f"benchmark.embeddings.kind={kind} is not one of: {', '.join(KINDS)}")
    if kind == "auto":
        return "mock" if policy_kind == "mock" and policy_base_url else "openai_compatible"
    return kind


def connect_embeddings(run: RunConfig, stack: ExitStack, verifier: Verifier, policy_base_url: str) -> dict | None:
    """Give the benchmark's environment its embeddings endpoint and build the documents' vectors (cached);
    None for a benchmark without `embeddings`. Returns what run.json keeps: the endpoint and the cache's work.
    `policy_base_url` is "" where no policy endpoint runs (task=serve)."""
    conf = run.benchmark.embeddings if run.benchmark is not None else None
    if conf is None:
        return None
    from gym.model.endpoints import check_base_url, reference_server

    policy_kind = str(run.model.kind)
    kind = embeddings_kind(conf, policy_kind, policy_base_url)
    api_key, model = None, str(conf.name or "")
    if kind == "mock":
        model = MOCK_EMBEDDING_MODEL
        if policy_kind == "mock" and policy_base_url:
            base_url = policy_base_url  # the policy's reference server answers /v1/embeddings too
        else:
            base_url = reference_server(stack, rows=[])
            log.warning("benchmark.embeddings.kind=mock without model=mock: KB_search_dense ranks by gym's hashed "
                        "bag-of-words vectors, not %s", conf.name)
    else:
        base_url = check_base_url(conf.base_url, "benchmark.embeddings.base_url")
        api_key = api_key_from_env(conf.api_key_env, "benchmark.embeddings.api_key_env")
        if not model:
            raise GymError("set benchmark.embeddings.name (the embedding model, e.g. text-embedding-3-large)")
    client = EmbeddingsClient(base_url, model, api_key=api_key, dimensions=conf.dimensions,
                              encoding_format=str(conf.encoding_format or "base64"),
                              batch_size=conf.batch_size or 64, timeout=float(conf.timeout or 120),
                              max_retries=int(conf.max_retries if conf.max_retries is not None else 5))
    stack.callback(client.close)
    started = time.perf_counter()
    built = verifier.attach_embedder(client)
    for name, stats in built.items():
        log.info("embeddings (%s at %s): %s: %d documents, %d embedded, %d from the cache %s", model, base_url, name,
                 stats["documents"], stats["embedded"], stats["from_cache"], Path(stats["cache"]).parent)
    return {"kind": kind, "base_url": base_url, "model": model, "dimensions": conf.dimensions,
            "indexes": built, "seconds": round(time.perf_counter() - started, 3)}
