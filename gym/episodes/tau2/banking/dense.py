"""τ² banking's `KB_search_dense` (the alltools retrieval form): cosine similarity over embeddings.

As upstream's embedding pipeline at the pinned commit (src/tau2/knowledge: embedding_indexer,
embedding_encoder, retrievers/cosine_retriever, pipeline): every document's content is embedded once, the
query per call (a blank query is an error; a query asked before is answered from memory), scores are the
cosine of the query and each document (a zero vector scores 0), ranked by numpy's argsort reversed, cut to
10, then to the caller's `k` (so `k` above 10 still gives 10). The answer is KB_search's format; its timing
line counts the query's embedding in `total` only, as upstream's input preprocessing.

Embeddings come from an `embedder` given from outside (gym.model.embeddings: an OpenAI-compatible
/v1/embeddings client): `embed(texts) -> vectors`, `identity` (what makes its vectors: model, size). The
documents' vectors are cached in `<domain file>.embeddings/` keyed by each content's sha256, one file per
embedder identity, written atomically; a later run embeds only the contents the cache lacks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from gym.core.errors import GymError
from gym.core.io import atomic_path
from gym.episodes.base import ToolEndpointFailed

if TYPE_CHECKING:
    import numpy as np  # imported where used: a τ² run without dense search never loads it

log = logging.getLogger("gym.episodes.tau2.banking.dense")
RETRIEVER_TOP_K = 10  # upstream's PipelineSpec.top_k for both alltools searches
QUERY_MEMORY = 10_000  # query vectors kept per index (upstream keeps every one for the process)


class Embedder(Protocol):
    identity: dict

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]: ...


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_file(cache_dir: Path, identity: dict) -> Path:
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir / f"{key}.npz"


def _read_cache(path: Path) -> dict[str, np.ndarray]:
    import numpy as np

    if not path.is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as stored:
            return dict(zip(stored["hashes"].tolist(), stored["vectors"]))
    except (OSError, ValueError, KeyError):
        return {}  # a damaged cache is rebuilt, never trusted


def _write_cache(path: Path, vectors: dict[str, np.ndarray], identity: dict) -> None:
    import numpy as np

    hashes = sorted(vectors)
    with atomic_path(path) as tmp:
        with tmp.open("wb") as handle:
            np.savez(handle, hashes=np.array(hashes), vectors=np.stack([vectors[h] for h in hashes]),
                     identity=np.array(json.dumps(identity, sort_keys=True)))


def _as_matrix(vectors: Sequence[Sequence[float]], count: int, what: str) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or len(matrix) != count:
        raise GymError(f"the embeddings endpoint answered {what} with {len(matrix)} vectors for {count} texts")
    return matrix


def document_vectors(documents: list[dict], embedder: Embedder, cache_dir: Path) -> tuple[np.ndarray, dict]:
    """Every document's vector (float32, in document order) and what the cache did: (matrix, stats)."""
    import numpy as np

    path = cache_file(cache_dir, embedder.identity)
    cached = _read_cache(path)
    hashes = [content_hash(doc["content"]) for doc in documents]
    missing = sorted({h for h in hashes if h not in cached})
    if missing:
        text_of = {content_hash(doc["content"]): doc["content"] for doc in documents}
        started = time.perf_counter()
        fresh = _as_matrix(embedder.embed([text_of[h] for h in missing]), len(missing), "the documents")
        cached.update(zip(missing, fresh))
        if len({v.shape for v in cached.values()}) > 1:
            raise GymError(f"{path}: the cached vectors and the endpoint's differ in length; delete the file")
        try:
            _write_cache(path, cached, embedder.identity)
        except OSError as exc:  # a read-only data root: this run keeps its vectors, a later one embeds again
            log.warning("embeddings cache %s not written (%s); the vectors are kept for this run only", path, exc)
        seconds = time.perf_counter() - started
    else:
        seconds = 0.0
    matrix = np.stack([cached[h] for h in hashes]) if hashes else np.zeros((0, 0), np.float32)
    return matrix, {"documents": len(hashes), "embedded": len(missing), "from_cache": len(set(hashes)) - len(missing),
                    "embed_seconds": round(seconds, 3), "cache": str(path)}


class DenseIndex:
    """The documents' vectors, normalised once, and the query vectors asked so far."""

    def __init__(self, ids: list[str], vectors: np.ndarray, embedder: Embedder):
        import numpy as np

        self.ids = ids
        docs = vectors.astype(np.float64)  # upstream's arrays hold the float32 values as float64
        norms = np.linalg.norm(docs, axis=1, keepdims=True) if len(docs) else np.ones((0, 1))
        self.normalized = docs / np.where(norms == 0, 1, norms)
        self.embedder = embedder
        self._queries: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def query_vector(self, query: str) -> np.ndarray:
        import numpy as np

        if not query or not query.strip():
            raise ValueError("Empty or missing input for key 'query': cannot generate embedding from blank text.")
        with self._lock:
            known = self._queries.get(query)
        if known is not None:
            return known
        try:
            vector = _as_matrix(self.embedder.embed([query]), 1, "a query")[0].astype(np.float64)
        except GymError as exc:  # the endpoint, not the query: the episode is unfinished, not the agent's error
            raise ToolEndpointFailed(str(exc)) from None
        with self._lock:
            if len(self._queries) >= QUERY_MEMORY:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = vector
        return vector

    def rank(self, query_vector: np.ndarray, top_k: int = RETRIEVER_TOP_K) -> list[tuple[str, float]]:
        import numpy as np

        norm = np.linalg.norm(query_vector)
        scores = np.zeros(len(self.ids)) if norm == 0 else np.dot(self.normalized, query_vector / norm)
        order = np.argsort(scores)[::-1][:min(top_k, len(self.ids))]
        return [(self.ids[i], float(scores[i])) for i in order]


_built: dict[Any, tuple[DenseIndex, dict]] = {}  # (domain file, embedder identity) -> its index and stats
_active: dict[Any, DenseIndex] = {}  # domain file -> the index of the embedder attached last
_lock = threading.Lock()


def build_dense_index(key: Any, documents: list[dict], embedder: Embedder, cache_dir: Path) -> dict:
    """Build (once per process and embedder identity) the dense index of a domain file's documents and make
    it the one its episodes search; its stats."""
    with _lock:
        token = (key, json.dumps(embedder.identity, sort_keys=True))
        if token not in _built:
            vectors, stats = document_vectors(documents, embedder, cache_dir)
            _built[token] = DenseIndex([doc["id"] for doc in documents], vectors, embedder), stats
        index, stats = _built[token]
        index.embedder = embedder  # a later run's client (the same model) asks the new queries
        _active[key] = index
        return stats


def dense_index(key: Any) -> DenseIndex | None:
    return _active.get(key)
