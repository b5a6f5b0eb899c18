"""Retrieval over τ² banking's knowledge base: the tools a retrieval variant gives the agent.

`KB_search` is BM25 (rank_bm25's Okapi over lower-cased whitespace tokens of each document's content,
the top 10 by score, as upstream's bm25 pipeline); `grep` counts a regex's matches per document (case
insensitive; an invalid pattern is searched literally) and ranks the 10 with most. Both answer in
upstream's format (title, id, score, full content), KB_search with its timing line. The alltools form's
`KB_search_bm25(query, k)` is the same BM25 and `KB_search_dense(query, k)` cosine similarity over
embeddings (gym.episodes.tau2.banking.dense); both rank the top 10, then keep the first `k`, as upstream's
pipeline does. `shell` runs commands over the documents as files in gym's sandbox
(gym.episodes.tau2.banking.shell). The indexes are built once per domain file and shared by every
episode; the episode's database carries them as `kb` and `dense` (outside the hashed tables).
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from gym.episodes.tau2.banking.shell import shell
from gym.episodes.tau2.domain import Tool

TOP_K = 10
# the tools each variant of upstream's retrieval registry offers (the ones gym runs)
VARIANT_TOOLS: dict[str, tuple[str, ...]] = {"bm25_grep": ("KB_search", "grep"), "terminal_use": ("shell",),
                                              "alltools": ("KB_search_bm25", "KB_search_dense", "shell")}
ALL_RETRIEVAL_TOOLS = frozenset({"KB_search", "grep", "KB_search_bm25", "KB_search_dense", "shell"})


class KnowledgeBase:
    """Documents {id: {title, content}} in upstream's load order, with a BM25 index over their content."""

    def __init__(self, documents: list[dict]):
        from rank_bm25 import BM25Okapi

        self.ids = [doc["id"] for doc in documents]
        self.docs = {doc["id"]: doc for doc in documents}
        self.bm25 = BM25Okapi([doc["content"].lower().split() for doc in documents]) if documents else None

    def bm25_search(self, query: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
        if not query or not query.strip() or self.bm25 is None:
            return []
        scores = self.bm25.get_scores(query.lower().split())
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:min(top_k, len(self.ids))]
        return [(self.ids[i], float(scores[i])) for i in order]

    def grep(self, pattern: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
        if not pattern.strip():
            return []
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error:
            compiled = re.compile(re.escape(pattern), re.IGNORECASE)
        found = [(doc_id, float(len(matches))) for doc_id in self.ids
                 if (matches := compiled.findall(self.docs[doc_id]["content"]))]
        found.sort(key=lambda item: item[1], reverse=True)
        return found[:top_k]

    def listing(self, results: list[tuple[str, float]]) -> str:
        return "\n".join(f"{n}. {self.docs[d].get('title') or 'Untitled'}\n   ID: {d}\n   Score: {s:.4f}\n"
                         f"   Content: {self.docs[d].get('content') or ''}\n" for n, (d, s) in enumerate(results, 1))


_indexes: dict[Any, KnowledgeBase] = {}
_lock = threading.Lock()


def knowledge_base(key: Any, documents: list[dict]) -> KnowledgeBase:
    """The index of a domain file's documents, built once per process."""
    with _lock:
        if key not in _indexes:
            _indexes[key] = KnowledgeBase(documents)
        return _indexes[key]


def _kb(db: Any) -> KnowledgeBase:
    kb = getattr(db, "kb", None)
    if kb is None:
        raise ValueError("the knowledge base is not loaded (a banking domain file without documents)")
    return kb


def _answer(kb: KnowledgeBase, results: list[tuple[str, float]], retrieval_ms: float, total_ms: float) -> str:
    """Upstream's answer and timing line. Its pipeline times the (empty) reranking step too, which always
    takes a few nanoseconds, so `reranking=0ms` is always shown."""
    body = kb.listing(results) if results else "No relevant documents found."
    return f"{body}\n\n[Timing: retrieval={retrieval_ms:.0f}ms, reranking=0ms, total={total_ms:.0f}ms]"


def _first(results: list[tuple[str, float]], k: Any) -> list[tuple[str, float]]:
    """The caller's cut of the ranked list, as upstream slices it (k=None keeps all; a bad k fails as there)."""
    return results if k is None else results[:k]


def kb_search(db: Any, query: str) -> str:
    return kb_search_bm25(db, query, None)  # the bm25_grep form's name, without the caller's cut


def kb_search_bm25(db: Any, query: str, k: int | None = 10) -> str:
    started = time.perf_counter()
    kb = _kb(db)
    results = kb.bm25_search(query)
    elapsed = (time.perf_counter() - started) * 1000
    return _answer(kb, _first(results, k), elapsed, elapsed)


def kb_search_dense(db: Any, query: str, k: int = 10) -> str:
    kb, dense = _kb(db), getattr(db, "dense", None)
    if dense is None:
        raise ValueError("the dense index is not built (KB_search_dense needs an embeddings endpoint: "
                         "benchmark.embeddings)")
    started = time.perf_counter()
    vector = dense.query_vector(query)
    embedded = time.perf_counter()
    results = dense.rank(vector)
    ranked = time.perf_counter()
    retrieval, total = (ranked - embedded) * 1000, (ranked - started) * 1000
    return _answer(kb, _first(results, k), retrieval, total)


def grep(db: Any, pattern: str) -> str:
    kb = _kb(db)
    results = kb.grep(pattern)
    return kb.listing(results) if results else f"No matches found for pattern: {pattern}"


RETRIEVAL_TOOLS: dict[str, Tool] = {"KB_search": Tool(kb_search), "grep": Tool(grep), "shell": Tool(shell),
                                    "KB_search_bm25": Tool(kb_search_bm25), "KB_search_dense": Tool(kb_search_dense)}
