"""Expected values of τ² banking's alltools form for gym's parity tests, computed by upstream's own code.

Run as tools/tau2_banking_expected.py (a checkout of sierra-research/tau2-bench at the pinned commit on the
path, its dependencies plus `openai` in a scratch venv, the fixture's data dir), from the repository root:
    GYM_PYTHON=.venv/bin/python \\
    TAU2_DATA_DIR=tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/<commit>/data \\
    PYTHONPATH=<checkout>/src:tools python tools/tau2_banking_alltools_expected.py \\
        > tests/fixtures/tau2_expected/banking_alltools.json
Upstream's environment is built in its `alltools` retrieval form (get_environment(retrieval_variant="alltools")):
its BM25 and embedding pipelines and its read-only sandbox. Two stand-ins keep it offline: OpenAIEmbedder.embed
answers fixed vectors (`vector` below: numbers from sha256 of the text, as float32 like OpenAI's client decodes
them; the same function is in the test), and `srt` is a script that runs the command unconfined (shell answers
are tests/fixtures/tau2_expected/banking_shell.json's business). Recorded:
  * `calls`: KB_search_dense and KB_search_bm25 answers through upstream's Environment.get_response for
    queries and k values (the default, smaller, larger than 10, 0, negative, null, a string; blank and unknown
    queries), under two vector schemes: `fine` (48 dimensions, no ties) and `coarse` (3 dimensions with values in
    -1..1: many equal scores, a zero document vector and zero query vectors), led by the order upstream holds
    the documents in (its KnowledgeBase globs the folder: directory order, which decides ties); with GYM_PYTHON
    (gym's interpreter) a third, `http`: upstream's own OpenAI client fetching the vectors over HTTP from gym's
    reference server (`python -m gym.mock`, model gym-mock-embedding); each answer's
    ranking (document, score), its text's sha256 with the timing line cut off, and the timing line with its
    numbers as N;
  * `policy`: the sha256 of upstream's alltools policy (its template, components and the dense block);
  * `schemas`: the function schemas of KB_search_bm25, KB_search_dense and shell as upstream's toolkit gives them
    (tests/fixtures/tau2_expected/banking_retrieval_mixins.py.txt is the commit's retrieval_mixins.py, MIT, that
    gym's prepare reads them from);
  * `tasks`: tools/tau2_banking_expected.py's cases (gold, missing and extra writes, reads, probes) on every
    fixture task, scored by upstream's evaluate_simulation in the alltools form (`--retrieval-only`: not these).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np

SCHEMES = {"fine": (48, 0), "coarse": (3, 1)}
REAL_EMBED = None  # upstream's OpenAIEmbedder.embed, for the `http` scheme
ZERO_TEXTS = ("zzzz", "qqqq")  # the coarse scheme gives these queries the zero vector
QUERIES = ["gold rewards card annual fee", "dispute a transaction", "How do I open a savings account?",
           "referral bonus", "zzzz", "qqqq"]
KS = [None, 3, 10, 25, 0, -2, "4", 1]
TIMING = re.compile(r"\n\n\[Timing: [^\]]*\]$")


def vector(text: str, scheme: str) -> list[float]:
    """Fixed vectors: `fine`, 48 numbers in [-1, 1) from sha256 blocks of the text; `coarse`, 3 numbers in
    {-1, 0, 1} (many texts alike, some all zero), ZERO_TEXTS the zero vector. float32 values, as decoded."""
    dims, coarse = SCHEMES[scheme]
    if coarse and text in ZERO_TEXTS:
        return [0.0] * dims
    raw = b"".join(hashlib.sha256(f"{block}:{text}".encode()).digest() for block in range(dims // 16 + 1))
    numbers = struct.unpack(f"<{dims}h", raw[:2 * dims])
    values = [(n % 3) - 1.0 for n in numbers] if coarse else [n / 32768 for n in numbers]
    return [struct.unpack("<f", struct.pack("<f", v))[0] for v in values]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def ranking(text: str) -> list:
    found = re.findall(r"^\d+\. .*\n   ID: (.*)\n   Score: (-?[\d.]+)$", text, re.MULTILINE)
    return [[doc, float(score)] for doc, score in found]


def answer(env, name: str, arguments: dict) -> dict:
    from tau2.data_model.message import ToolCall

    content = env.get_response(ToolCall(id="x", name=name, arguments=arguments, requestor="assistant")).content
    timing = TIMING.search(content)
    body = content[:timing.start()] if timing else content
    return {"tool": name, "arguments": arguments, "sha256": sha(body), "ranking": ranking(body), "head": body[:120],
            "timing": re.sub(r"\d+", "N", timing.group().strip()) if timing else None}


def use_scheme(scheme: str, cache_dir: Path) -> None:
    """Upstream's OpenAI embedder answers the scheme's vectors; its caches start empty."""
    import tau2.knowledge.embeddings_cache as cache
    from tau2.knowledge.embedders.openai_embedder import OpenAIEmbedder

    OpenAIEmbedder.embed = lambda self, texts: np.array([vector(t, scheme) for t in texts])
    cache._global_cache = cache.EmbeddingsCache(cache_dir=str(cache_dir / scheme))
    cache._query_embeddings_cache.clear()


def over_http(gym_python: str, cache_dir: Path) -> list:
    """The `http` scheme: upstream's own OpenAI client (base64, float32) fetches the vectors from gym's
    reference server (`python -m gym.mock`, its hashed bag-of-words embeddings) for the calls below."""
    import subprocess

    import tau2.knowledge.embeddings_cache as cache
    from tau2.domains.banking_knowledge.retrieval import RETRIEVAL_VARIANTS
    from tau2.knowledge.embedders.openai_embedder import OpenAIEmbedder

    server = subprocess.Popen([gym_python, "-m", "gym.mock", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        os.environ["OPENAI_BASE_URL"] = server.stdout.readline().strip()
        OpenAIEmbedder.embed = REAL_EMBED
        RETRIEVAL_VARIANTS["alltools"].kb_search_dense.embedder_model = "gym-mock-embedding"
        cache._global_cache = cache.EmbeddingsCache(cache_dir=str(cache_dir / "http"))
        cache._query_embeddings_cache.clear()
        return calls("http")
    finally:
        server.terminate()
        server.wait()


def calls(scheme: str) -> list:
    from tau2.domains.banking_knowledge.environment import get_environment

    env = get_environment(retrieval_variant="alltools")
    order = env.tools._kb_dense_pipeline.state["doc_embeddings_doc_ids"]  # the documents' directory order
    out = [{"document_order": order}]
    for query in QUERIES:
        for k in KS:
            arguments = {"query": query} if k is None else {"query": query, "k": k}
            out += [answer(env, "KB_search_dense", arguments), answer(env, "KB_search_bm25", arguments)]
    for arguments in ({"query": ""}, {"query": "   "}, {"query": "referral bonus", "k": None}):
        out += [answer(env, "KB_search_dense", arguments), answer(env, "KB_search_bm25", arguments)]
    return out


def schemas() -> dict:
    """The alltools retrieval tools' function schemas as upstream offers them to the agent."""
    from tau2.domains.banking_knowledge.environment import get_environment

    tools = {tool.name: tool.openai_schema["function"] for tool in get_environment(retrieval_variant="alltools").get_tools()}
    return {name: tools[name] for name in ("KB_search_bm25", "KB_search_dense", "shell")}


def policy() -> str:
    from tau2.domains.banking_knowledge.environment import get_knowledge_base
    from tau2.domains.banking_knowledge.retrieval import build_policy, resolve_variant

    return sha(build_policy(resolve_variant("alltools"), get_knowledge_base()))


def main() -> None:
    import tau2_banking_expected as scored
    from tau2_banking_shell_expected import stand_in_srt

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(sys.stderr):  # upstream prints progress
        stand_in_srt(tmp, OPENAI_API_KEY="not-used-offline")
        import tau2.knowledge.sandbox_manager as sandbox_manager

        sandbox_manager._DEPS_VERIFIED = True  # the stand-in srt needs none of rg, bwrap, socat
        result = {"variant": "alltools", "schemes": {}, "policy_sha256": policy()}
        from tau2.knowledge.embedders.openai_embedder import OpenAIEmbedder

        global REAL_EMBED
        REAL_EMBED = OpenAIEmbedder.embed
        for scheme in SCHEMES:
            use_scheme(scheme, Path(tmp))
            result["schemes"][scheme] = calls(scheme)
        if os.environ.get("GYM_PYTHON"):
            result["schemes"]["http"] = over_http(os.environ["GYM_PYTHON"], Path(tmp))
        use_scheme("fine", Path(tmp))
        result["schemas"] = schemas()
        if "--retrieval-only" not in sys.argv:  # else the searches, the schemas and the policy only
            scored.VARIANT = "alltools"
            scored.build_retrieval_once()
            path = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains" / scored.DOMAIN / "tasks.json"
            tasks = [scored.Task.model_validate(t) for t in json.loads(path.read_text())]
            result["tasks"] = {task.id: scored.cases(task) for task in tasks}
    sys.stdout.write(json.dumps(result, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
