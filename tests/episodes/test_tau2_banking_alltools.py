"""τ² banking's alltools form: KB_search_dense and KB_search_bm25 answer as upstream's own pipelines, the
evaluator scores as upstream's in that form, embeddings come over HTTP from an OpenAI-compatible endpoint
(gym's reference server here) and are cached beside the prepared data.

The expected values in tests/fixtures/tau2_expected/banking_alltools.json were computed by upstream's code at
the pinned commit (tools/tau2_banking_alltools_expected.py): its environment in the alltools form, with fixed
vectors in place of OpenAI's (the generator's `vector`, used here too).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gym.episodes.tau2.banking.dense import document_vectors
from gym.episodes.tau2.env import Tau2Environment
from gym.mock.embeddings import embed_text
from gym.mock.server import MockServer
from gym.model.embeddings import MOCK_EMBEDDING_MODEL, EmbeddingsClient, EmbeddingsFailed
from tests.banking_helpers import prepare_form, tie_groups
from tests.conftest import run_gym

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "fixtures" / "upstream"
WANT = json.loads((ROOT / "fixtures" / "tau2_expected" / "banking_alltools.json").read_text())
_spec = importlib.util.spec_from_file_location("alltools_expected", ROOT.parent / "tools" / "tau2_banking_alltools_expected.py")
EXPECTED = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(EXPECTED)
TIMING = re.compile(r"\n\n\[Timing: [^\]]*\]$")


class FixedEmbedder:
    """The generator's vectors for every text (what upstream's stand-in OpenAIEmbedder answered)."""

    def __init__(self, scheme: str):
        self.scheme, self.identity, self.calls = scheme, {"fixed": scheme}, []

    def embed(self, texts):
        self.calls.append(list(texts))
        if self.scheme == "http":  # what gym's reference server answered upstream's OpenAI client
            return [embed_text(text) for text in texts]
        return [EXPECTED.vector(text, self.scheme) for text in texts]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    path = prepare_form(tmp_path_factory, "alltools")
    return path, {row["task_id"]: row for row in map(json.loads, path.read_text().splitlines())}


def _answer(content: str) -> dict:
    timing = TIMING.search(content)
    body = content[:timing.start()] if timing else content
    return {"sha256": hashlib.sha256(body.encode()).hexdigest(), "ranking": EXPECTED.ranking(body),
            "timing": re.sub(r"\d+", "N", timing.group().strip()) if timing else None}


@pytest.mark.parametrize("scheme", sorted(WANT["schemes"]))
def test_searches_answer_as_upstreams_pipelines(prepared, scheme):
    """Every KB_search_dense and KB_search_bm25 answer (`http`: upstream's own OpenAI client and gym's, each
    asking gym's reference server): the same scores in the same order, the same documents
    (as a set among equal scores: upstream orders its documents as its folder lists them, gym by name; the
    group cut at k may differ), the same text where the order is the same, the same timing line, the same k
    rules (at most 10, 0 none, negative drops from the end, a string fails as Python's slice) and errors."""
    path, rows = prepared
    env = Tau2Environment(path)
    with MockServer(rows=[]) as server:  # `http`: upstream's OpenAI client fetched these vectors from it
        env.attach_embedder(EmbeddingsClient(server.base_url, MOCK_EMBEDDING_MODEL, dimensions=3072)
                            if scheme == "http" else FixedEmbedder(scheme))
        state = env.reset(rows["task_001"])
        answers = [env.call(state, want["tool"], want["arguments"]).content for want in WANT["schemes"][scheme][1:]]
    exact = 0
    for want, content in zip(WANT["schemes"][scheme][1:], answers):
        got = _answer(content)
        where = (want["tool"], want["arguments"])
        assert got["timing"] == want["timing"], where
        mine, theirs = tie_groups(got["ranking"]), tie_groups(want["ranking"])
        assert [round(s, 4) for s, _ in mine] == [round(s, 4) for s, _ in theirs], where
        assert [d for _, d in mine[:-1]] == [d for _, d in theirs[:-1]], where
        scores = [score for _, score in want["ranking"]]
        if scheme != "coarse" and want["tool"] == "KB_search_dense" and len(set(scores)) == len(scores) \
                and 0.0 not in scores:  # no equal scores: the very same answer
            assert got["ranking"] == want["ranking"], where
        if got["ranking"] == want["ranking"]:
            assert got["sha256"] == want["sha256"], where
            exact += 1
    assert exact >= len(WANT["schemes"][scheme]) // 3


@pytest.mark.parametrize("scheme", sorted(WANT["schemes"]))
def test_dense_ranking_breaks_ties_as_upstreams_cosine_retriever(scheme):
    """With the documents in upstream's order, the dense ranking is upstream's exactly, equal scores and
    zero vectors included (numpy's argsort, reversed, then the stable sort by score)."""
    from gym.episodes.tau2.banking.dense import DenseIndex

    documents = {doc["id"]: doc["content"] for doc in (json.loads(p.read_text()) for p in
                                                        next(MIRROR.rglob("banking_knowledge/documents")).glob("*.json"))}
    order = WANT["schemes"][scheme][0]["document_order"]
    embedder = FixedEmbedder(scheme)
    index = DenseIndex(order, np.float32(embedder.embed([documents[d] for d in order])), embedder)
    checked = 0
    for want in WANT["schemes"][scheme][1:]:
        k = want["arguments"].get("k", 10)
        if want["tool"] != "KB_search_dense" or not want["ranking"]:
            continue
        ranked = index.rank(index.query_vector(want["arguments"]["query"]))
        got = [[d, round(s, 4)] for d, s in (ranked if k is None else ranked[:k])]
        assert got == want["ranking"], want["arguments"]
        checked += 1
    assert checked >= 30


def test_policy_and_tools_are_upstreams_alltools(prepared):
    path, _ = prepared
    data = json.loads((path.parent / "banking_alltools.env.json").read_text())
    assert hashlib.sha256(data["policy"].encode()).hexdigest() == WANT["policy_sha256"]
    assert [t["name"] for t in data["tools"]][-3:] == ["KB_search_bm25", "KB_search_dense", "shell"]
    assert {"KB_search", "grep"}.isdisjoint(t["name"] for t in data["tools"])
    dense = next(t for t in data["tools"] if t["name"] == "KB_search_dense")["parameters"]
    assert dense["required"] == ["query"] and dense["properties"]["k"]["default"] == 10


def test_tool_schemas_are_upstreams():
    """gym's prepare reads the retrieval tools' schemas from upstream's retrieval_mixins.py (the pinned
    commit's copy): the same names, descriptions and parameters (k an integer, 10 by default) as upstream's
    toolkit offers."""
    from gym.episodes.tau2.upstream import literal_aliases, tool_schemas

    mixins = ROOT / "fixtures" / "tau2_expected" / "banking_retrieval_mixins.py.txt"
    mine = {s["name"]: {k: s[k] for k in ("name", "description", "parameters")}
            for s in tool_schemas(mixins, literal_aliases(mixins))}
    assert {name: mine[name] for name in WANT["schemas"]} == WANT["schemas"]


CASES = [pytest.param(task, case, id=f"{task}-{case}") for task, cases in sorted(WANT["tasks"].items())
         for case in sorted(cases)]


@pytest.mark.parametrize("task_id,case", CASES)
def test_scores_as_upstream_in_the_alltools_form(prepared, task_id, case):
    """tools/tau2_banking_expected.py's cases scored by upstream in the alltools form (gold 1 on every task)."""
    from test_tau2_banking import play

    path, rows = prepared
    want = WANT["tasks"][task_id][case]
    env = Tau2Environment(path)
    trajectory, hashes, state = play(env, rows[task_id], want)
    assert hashes == want["tool_output_sha256"]
    for final in (state, None):
        score = env.score(rows[task_id], trajectory, "user_stop", final)
        assert (score.reward, score.details["breakdown"]) == (want["reward"], want["breakdown"])
    assert list(state.hashes()) == [want["db_hash"], want["user_db_hash"]]
    if case == "gold":
        assert want["reward"] == 1.0


def test_document_vectors_are_cached_by_content_and_reused(prepared, tmp_path):
    """The first build embeds every document; a re-run embeds none; a changed document only itself. The
    cache file is replaced whole (no temporary file left) and a damaged one is rebuilt."""
    path, _ = prepared
    documents = json.loads((path.parent / "banking_alltools.env.json").read_text())["documents"][:12]
    embedder = FixedEmbedder("fine")
    first, stats = document_vectors(documents, embedder, tmp_path)
    assert (stats["embedded"], stats["from_cache"]) == (12, 0)
    again, stats = document_vectors(documents, embedder, tmp_path)
    assert (stats["embedded"], stats["from_cache"]) == (0, 12) and np.array_equal(first, again)
    documents[3] = {**documents[3], "content": documents[3]["content"] + " (revised)"}
    changed, stats = document_vectors(documents, embedder, tmp_path)
    assert (stats["embedded"], len(embedder.calls[-1])) == (1, 1)
    assert np.array_equal(changed[3], np.float32(EXPECTED.vector(documents[3]["content"], "fine")))
    assert [p.name for p in tmp_path.iterdir()] == [Path(stats["cache"]).name]
    Path(stats["cache"]).write_bytes(b"damaged")
    _, stats = document_vectors(documents, embedder, tmp_path)
    assert stats["embedded"] == 12
    (tmp_path / "blocked").write_text("a file where the cache folder would go")
    kept, stats = document_vectors(documents, embedder, tmp_path / "blocked")  # the cache cannot be written
    assert stats["embedded"] == 12 and np.array_equal(kept, changed)


def test_client_posts_batches_to_the_reference_server_and_reads_its_vectors():
    """What arrived at gym's reference server: batches of `batch_size` texts in order (the vectors are each
    text's hashed bag of words), the key as a bearer token, base64 asked for; float answers read too; a
    503 retried; a vector of the wrong length refused."""
    texts = [f"card number {i} dispute fee" for i in range(25)]
    with MockServer(rows=[], faults={"error_503": 0.3}, seed=5) as server:
        client = EmbeddingsClient(server.base_url, MOCK_EMBEDDING_MODEL, api_key="k-test", batch_size=10,
                                  dimensions=3072, backoff_base=0.0)
        vectors = client.embed(texts)
        assert np.array_equal(np.float32(vectors), np.float32([embed_text(t) for t in texts]))
        seen = server.stats["embeddings"]
        assert (seen["requests"], seen["inputs"], seen["with_key"], seen["encodings"]) == (3, 25, 3, {"base64": 3})
        assert server.stats["faults"] == {"error_503": 1}  # the first request failed, was retried
        floats = EmbeddingsClient(server.base_url, MOCK_EMBEDDING_MODEL, encoding_format="float", backoff_base=0.0)
        assert np.allclose(floats.embed(texts[:2]), vectors[:2], atol=0)
        with pytest.raises(EmbeddingsFailed, match="3072 dimensions"):
            EmbeddingsClient(server.base_url, MOCK_EMBEDDING_MODEL, dimensions=1536, backoff_base=0.0).embed(["x"])
        with pytest.raises(EmbeddingsFailed, match="HTTP 404"):
            EmbeddingsClient(server.base_url, "text-embedding-3-large", backoff_base=0.0).embed(["x"])


def test_standalone_reference_server_answers_embeddings():
    """python -m gym.mock serves /v1/embeddings: the same vectors for the same text, related texts closer."""
    import requests

    server = subprocess.Popen([sys.executable, "-m", "gym.mock", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        body = requests.post(f"{url}/embeddings", json={"model": MOCK_EMBEDDING_MODEL, "dimensions": 256, "input": [
            "close my debit card", "closing a debit card", "gold rewards annual fee"]}, timeout=30).json()
        a, b, c = (np.array(item["embedding"]) for item in body["data"])
        assert len(a) == 256 and np.dot(a, b) > np.dot(a, c) and np.allclose(a, embed_text("close my debit card", 256))
    finally:
        server.terminate()
        server.wait(timeout=30)


def gym(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_gym(*args, cwd=ROOT.parent, env=env, timeout=600, off_checkout=True)


def _run(tmp_path: Path, name: str) -> dict:
    return json.loads(next((tmp_path / name).rglob("run.json")).read_text())


def test_e2e_offline_through_the_command_line_reuses_the_cache(tmp_path):
    """The documented offline run: the reference server plays the agent (which searches by embeddings first)
    and serves the embeddings; every task runs and is scored; a second run embeds no document (the cache
    beside the prepared data)."""
    for name, task in (("first", "e2e"), ("second", "collect")):
        done = gym(f"task={task}", "benchmark=banking_alltools", "model=mock", "user=mock",
                   "data.mirror=tests/fixtures/upstream", f"data.root={tmp_path}/data", f"output={tmp_path}/{name}.jsonl",
                   "num_repeats=1", "progress=false", f"hydra.run.dir={tmp_path}/{name}", *(("limit=2",) if task == "collect" else ()))
        assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "first.jsonl").read_text().splitlines()]
    assert len(rows) == len(WANT["tasks"]) and all(r["status"] == "ok" for r in rows)
    assert sum(r["reward"] for r in rows) >= len(rows) // 2
    searches = [m for r in rows for m in r["trajectory"] if m.get("role") == "tool"
                and m.get("tool_call_id") == "gold-search"]  # the reference agent's dense search, answered
    assert len(searches) >= len(rows) // 2 and all("   ID: " in m["content"] for m in searches)
    built = [_run(tmp_path, name)["endpoint"]["embeddings"]["indexes"]["banking_alltools.env.json"]
             for name in ("first", "second")]
    assert [(b["embedded"], b["from_cache"]) for b in built] == [(92, 0), (0, 92)]
    assert Path(built[0]["cache"]).parent == tmp_path / "data" / "banking_alltools" / "banking_alltools.embeddings"
    again = gym("task=reverify", f"rollouts={tmp_path}/first.jsonl", f"data.root={tmp_path}/data",
                f"hydra.run.dir={tmp_path}/rev")  # scoring never embeds: no endpoint needed
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads((tmp_path / "rev" / "reverify.json").read_text())
    assert report["reverified"] == len(rows) and report["changed"] == 0


def test_an_openai_compatible_endpoint_gets_the_key_from_the_environment_only(tmp_path):
    """benchmark.embeddings at an OpenAI-compatible endpoint (gym's reference server standing in): the key
    arrives as a bearer token and is written nowhere; a resume keeps the rollouts made with the same embedding
    model and size (whoever served it) and makes new ones for another; a missing key variable, a vector of
    the wrong length: one line, no traceback."""
    secret = "sk-test-embeddings-5c1f"
    ready = gym("task=prepare", "benchmark=banking_alltools", "data.mirror=tests/fixtures/upstream",
                f"data.root={tmp_path}/data", f"hydra.run.dir={tmp_path}/prepare")
    assert ready.returncode == 0, ready.stderr[-2000:]
    with MockServer(rows=[]) as server:
        done = gym("task=collect", "benchmark=banking_alltools", "model=mock", "user=mock", "limit=2",
                   f"data.root={tmp_path}/data", f"output={tmp_path}/r.jsonl",
                   "num_repeats=1", "progress=false", f"hydra.run.dir={tmp_path}/run",
                   "benchmark.embeddings.kind=openai_compatible", f"benchmark.embeddings.base_url={server.base_url}",
                   f"benchmark.embeddings.name={MOCK_EMBEDDING_MODEL}", "benchmark.embeddings.api_key_env=GYM_TEST_EMBED_KEY",
                   env={"GYM_TEST_EMBED_KEY": secret})
        assert done.returncode == 0, done.stderr[-2000:]
        seen = server.stats["embeddings"]
    # 92 documents in batches of 64, then each episode's search query: every request with the key
    assert seen["requests"] == seen["with_key"] >= 3 and seen["inputs"] == 92 + seen["requests"] - 2
    for name, dimensions, total in (("same", "3072", 2), ("other", "null", 4)):  # the embedding model is in the key
        more = gym("task=collect", "benchmark=banking_alltools", "model=mock", "user=mock", "limit=2", "num_repeats=1",
                   f"data.root={tmp_path}/data", f"output={tmp_path}/r.jsonl", "progress=false",
                   f"hydra.run.dir={tmp_path}/{name}", f"benchmark.embeddings.dimensions={dimensions}")
        assert more.returncode == 0 and len((tmp_path / "r.jsonl").read_text().splitlines()) == total, more.stderr[-2000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert not written and secret not in done.stdout + done.stderr
    missing = gym("task=collect", "benchmark=banking_alltools", "model=mock", "user=mock",
                  f"data.root={tmp_path}/data", f"hydra.run.dir={tmp_path}/bad", "benchmark.embeddings.kind=openai_compatible",
                  "benchmark.embeddings.api_key_env=GYM_TEST_NO_SUCH_KEY")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert "GYM_TEST_NO_SUCH_KEY" in missing.stderr.strip().splitlines()[-1]
    wrong = gym("task=collect", "benchmark=banking_alltools", "model=mock", "user=mock", f"data.root={tmp_path}/data",
                f"hydra.run.dir={tmp_path}/wrong", "benchmark.embeddings.dimensions=1536")
    assert wrong.returncode != 0 and "Traceback" not in wrong.stderr
    assert "3072 dimensions, benchmark.embeddings.dimensions is 1536" in wrong.stderr.strip().splitlines()[-1]


class _FailingQueries(FixedEmbedder):
    """Embeds the documents, then its endpoint goes down (every retry spent)."""

    def __init__(self):
        super().__init__("fine")
        self.identity = {"fixed": "fine", "outage": True}

    def embed(self, texts):
        if len(texts) == 1:
            raise EmbeddingsFailed("http://embeddings.test/v1/embeddings: no embeddings after 6 attempts (HTTP 503)")
        return super().embed(texts)


def test_an_embeddings_outage_leaves_the_episode_unfinished_not_the_agent_wrong(prepared):
    """A query the endpoint cannot embed ends the episode as infrastructure_error (infra_error: redone on
    resume); the agent is never shown an error for it. Without an attached endpoint the tool says so."""
    from gym.episodes.base import Limits, ToolEndpointFailed, Turn
    from gym.episodes.loop import EpisodeRunner
    from gym.episodes.users import MockUser
    from gym.toolcalls import ToolCall

    path, rows = prepared
    env = Tau2Environment(path)
    env.attach_embedder(_FailingQueries())
    with pytest.raises(ToolEndpointFailed):
        env.call(env.reset(rows["task_001"]), "KB_search_dense", {"query": "dispute a transaction"})
    search = ToolCall(id="s1", name="KB_search_dense", arguments={"query": "dispute a transaction"})
    episode = EpisodeRunner(env, lambda messages, tools: Turn(tool_calls=[search]), MockUser(), Limits()).run(
        rows["task_001"], 0)
    assert (episode.status, episode.termination) == ("infra_error", "infrastructure_error")
    assert "HTTP 503" in episode.error and not any(m.get("role") == "tool" for m in episode.trajectory)
    bare = Tau2Environment(path)
    state = bare.reset(rows["task_001"])
    state.db.dense = None
    answer = bare.call(state, "KB_search_dense", {"query": "fee"})
    assert answer.error and "needs an embeddings endpoint" in answer.content


def test_serve_gives_trainers_the_dense_search(tmp_path):
    """task=serve builds the embeddings index at start (here from gym's reference server, embeddings kind=mock)
    and a trainer's session calls KB_search_dense over HTTP like any other tool."""
    import requests

    from tests.serve_helpers import prepare as serve_prepare
    from tests.serve_helpers import served

    data = tmp_path / "data"
    serve_prepare(data, "banking_alltools")
    with served(tmp_path / "run", data, "benchmark=banking_alltools", "user=mock",
                "benchmark.embeddings.kind=mock") as url:
        session = requests.Session()
        session.post(f"{url}/seed_session", json={"task_index": 0}, timeout=60).raise_for_status()
        found = session.post(f"{url}/KB_search_dense", json={"query": "dispute a transaction", "k": 2}, timeout=60)
    assert found.status_code == 200 and found.headers["x-gym-tool-error"] == "false", found.text
    assert found.text.count("   ID: ") == 2 and "[Timing: retrieval=" in found.text
    assert (data / "banking_alltools" / "banking_alltools.embeddings").is_dir()
