"""τ²-bench `banking_knowledge` domain (sierra-research/tau2-bench, MIT) in its `alltools` retrieval form:
97 tasks of a bank's customer service, where the agent finds policy and procedures in a knowledge base of
~700 documents with three tools: `KB_search_bm25` (BM25), `KB_search_dense` (cosine similarity over
text-embedding-3-large embeddings) and `shell` (Unix commands over the documents as files, in gym's sandbox).
See gym.episodes.tau2.banking.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import prepare_banking

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext") -> Path:
    return prepare_banking(ctx, "alltools")
