"""τ²-bench `banking_knowledge` domain (sierra-research/tau2-bench, MIT) in its `bm25_grep` retrieval form:
97 tasks of a bank's customer service, where the agent finds policy and procedures in a knowledge base of
~700 documents with `KB_search` (BM25) and `grep`. See gym.episodes.tau2.banking.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import prepare_banking

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext") -> Path:
    return prepare_banking(ctx, "bm25_grep")
