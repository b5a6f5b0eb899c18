"""τ² banking (alltools) speed: the documents' embedding cache, built cold over HTTP (gym's reference server's
/v1/embeddings, 3072 dimensions, base64 as the client asks) and read warm; KB_search_dense per call (CPU of
the cosine ranking and of the whole tool answer, the query's vector known; wall time with a new query, which
is one HTTP request); KB_search_bm25 per call.

    .venv/bin/python perf/banking_dense_perf.py                   # the fixture (92 documents)
    .venv/bin/python perf/banking_dense_perf.py --mirror <dir>    # e.g. a mirror of the pinned commit (698 documents)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUERIES = ["gold rewards card annual fee", "dispute a transaction", "open a savings account", "referral bonus",
           "transfer to a human agent", "debit card lost or stolen", "early closure fee", "credit limit increase"]


def timed(fn, repeat: int = 1) -> tuple[float, float]:
    """(CPU seconds, wall seconds) per call."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.process_time() - cpu) / repeat, (time.perf_counter() - wall) / repeat


def main() -> None:
    from gym.data.prepare_context import PrepareContext
    from gym.episodes.tau2.banking.dense import DenseIndex, document_vectors
    from gym.episodes.tau2.banking.kb import kb_search_bm25, kb_search_dense, knowledge_base
    from gym.episodes.tau2.banking.prepare import prepare_banking
    from gym.mock.server import MockServer
    from gym.model.embeddings import MOCK_EMBEDDING_MODEL, EmbeddingsClient

    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", default=str(ROOT / "tests" / "fixtures" / "upstream"))
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, MockServer(rows=[]) as server:
        ctx = PrepareContext(name="banking_alltools", output_path=Path(tmp) / "banking_alltools.jsonl",
                             mirror=args.mirror, offline=True, progress=False)
        path = prepare_banking(ctx, "alltools")
        documents = json.loads((path.parent / "banking_alltools.env.json").read_text())["documents"]
        client = EmbeddingsClient(server.base_url, MOCK_EMBEDDING_MODEL, dimensions=3072)
        cache = Path(tmp) / "cache"
        cold = timed(lambda: document_vectors(documents, client, cache))
        warm = timed(lambda: document_vectors(documents, client, cache), 5)
        vectors, _ = document_vectors(documents, client, cache)
        db = type("DB", (), {})()
        db.kb = knowledge_base(("perf", tmp), documents)
        db.dense = DenseIndex([doc["id"] for doc in documents], vectors, client)
        new_query = timed(lambda: [db.dense.query_vector(f"{q} #{time.perf_counter_ns()}") for q in QUERIES])
        known = [db.dense.query_vector(q) for q in QUERIES]
        rank = timed(lambda: [db.dense.rank(v) for v in known], args.calls)
        tool = timed(lambda: [kb_search_dense(db, q) for q in QUERIES], args.calls)
        bm25 = timed(lambda: [kb_search_bm25(db, q) for q in QUERIES], args.calls)
        per = len(QUERIES)
        print(json.dumps({
            "documents": len(documents), "dimensions": int(vectors.shape[1]),
            "cache_file_mb": round(sum(p.stat().st_size for p in cache.iterdir()) / 2 ** 20, 2),
            "cache_build_cold_s": {"cpu": round(cold[0], 3), "wall": round(cold[1], 3)},
            "cache_read_warm_ms": {"cpu": round(warm[0] * 1e3, 1), "wall": round(warm[1] * 1e3, 1)},
            "dense_rank_cpu_ms_per_call": round(rank[0] / per * 1e3, 3),
            "KB_search_dense_cpu_ms_per_call": round(tool[0] / per * 1e3, 3),
            "KB_search_dense_new_query_wall_ms_per_call": round(new_query[1] / per * 1e3, 2),
            "KB_search_bm25_cpu_ms_per_call": round(bm25[0] / per * 1e3, 3),
            "embedding_requests": client.requests,
        }, indent=1))


if __name__ == "__main__":
    main()
