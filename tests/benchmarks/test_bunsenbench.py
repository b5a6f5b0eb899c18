"""BunsenBench Chemistry MCQ: prepared rows and grades against the values the reference's own code gives
(tools/make_bunsenbench_parity.py), the gated refusal and the whole run through the CLI."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gym.core.errors import GymError
from gym.verifiers import make_verifier
from tests.conftest import FIXTURES, UPSTREAM, assert_clean_failure, run_gym
from tests.prepare_helpers import make_ctx, script

NAME = "bunsenbench_chemistry_mcq"
PARITY = json.loads((FIXTURES / "bunsenbench_parity.json").read_text(encoding="utf-8"))
MANIFEST = "huggingface.co/datasets/nvidia/bunsen-bench/resolve/v0.1.4/chemistry_mcq/test-00000-of-00001.parquet"


def as_dict(options: list[dict]) -> dict:
    return {letter: text for option in options for letter, text in option.items()}


def test_prepared_rows_are_the_references(tmp_path):
    ctx = make_ctx(NAME, tmp_path, str(UPSTREAM))
    rows = [json.loads(line) for line in script(NAME).prepare(ctx).read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(PARITY["prepared"]) == 5
    for row, reference in zip(rows, PARITY["prepared"]):
        assert row == {**reference, "options": as_dict(reference["options"])}
    assert len({row["expected_answer"] for row in rows}) > 1  # the shuffle moved the correct choice


@pytest.mark.parametrize("case", PARITY["grades"], ids=lambda case: repr(case["response"])[:40])
def test_grades_are_the_reference_servers(case):
    verifier = make_verifier("mcq", {"mode": "choice_text"})
    verdict = verifier.verify({"options": as_dict(case["options"]), "expected_answer": case["expected"]},
                              case["response"])
    assert (verdict.extracted_answer, verdict.reward) == (case["extracted"], case["reward"])
    assert verdict.details["expected"] == case["gold"]


def _manifest(tmp_path, rows: list[dict]) -> str:
    path = tmp_path / "mirror" / MANIFEST
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return str(tmp_path / "mirror")


def test_a_manifest_of_locators_only_says_how_to_rebuild_it(tmp_path):
    upstream = pq.read_table(UPSTREAM / MANIFEST).to_pylist()
    locators = [{k: v for k, v in row.items() if k not in ("question", "choices", "answer", "answer_index",
                                                            "source_meta")} for row in upstream]
    ctx = make_ctx(NAME, tmp_path, _manifest(tmp_path, locators))
    with pytest.raises(GymError, match=r"source locators only; \+prepare_args.rebuild_rows=true rebuilds its 5 rows "
                                       r"with the dataset's helper \(https://huggingface.co/datasets/nvidia/"
                                       r"bunsen-bench/blob/v0.1.4/tools/reconstitute.py; needs the datasets library"):
        script(NAME).prepare(ctx)


HELPER = """
CALLS = []


def reconstitute(builder, **kwargs):
    CALLS.append(kwargs)
    return builder.rebuilt
"""
LOCATORS = ("bunsen_id", "source", "source_dataset", "source_config", "source_split", "source_revision",
            "source_record_id", "source_row_index", "source_record_sha256", "canonical_problem_sha256", "bct_field",
            "bct_subfield")


def test_rebuild_runs_the_datasets_helper_as_the_reference_does(tmp_path, monkeypatch):
    """Plumbing (the real helper and builder need the gated hub): the helper comes from the dataset at the
    pinned tag through gym's fetch, is called with the reference's arguments on the builder of the pinned
    config, and what it returns replaces the manifest and is converted."""
    upstream = pq.read_table(UPSTREAM / MANIFEST).to_pylist()
    mirror = _manifest(tmp_path, [{k: row[k] for k in LOCATORS} for row in upstream])
    helper = tmp_path / "mirror/huggingface.co/datasets/nvidia/bunsen-bench/resolve/v0.1.4/tools/reconstitute.py"
    helper.parent.mkdir(parents=True)
    helper.write_text(HELPER)
    asked = []

    def load_dataset_builder(*args, **kwargs):
        asked.append((args, kwargs))
        config = SimpleNamespace(name="chemistry_mcq", version="0.1.4")
        return SimpleNamespace(config=config, info=SimpleNamespace(splits={"test": None}), rebuilt=upstream)

    monkeypatch.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset_builder=load_dataset_builder))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setitem(sys.modules, "bunsen_bench_reconstitute", None)  # taken away again after the test
    ctx = make_ctx(NAME, tmp_path, mirror)
    rows = [json.loads(line) for line in script(NAME).prepare(ctx, rebuild_rows=True).read_text().splitlines()]
    assert asked == [(("nvidia/bunsen-bench", "chemistry_mcq"), {"revision": "v0.1.4", "token": None})]
    assert sys.modules["bunsen_bench_reconstitute"].CALLS == [
        {"token": None, "limit": None, "verify_hashes": True, "include_raw_row": False, "verbose": False}]
    assert rows == [{**reference, "options": as_dict(reference["options"])} for reference in PARITY["prepared"]]


def test_rebuild_without_the_datasets_library_is_one_line(tmp_path, monkeypatch):
    upstream = pq.read_table(UPSTREAM / MANIFEST).to_pylist()
    ctx = make_ctx(NAME, tmp_path, _manifest(tmp_path, [{k: row[k] for k in LOCATORS} for row in upstream]))
    monkeypatch.setitem(sys.modules, "datasets", None)  # the import fails, as when it is not installed
    with pytest.raises(GymError, match="needs the datasets library: pip install datasets huggingface_hub"):
        script(NAME).prepare(ctx, rebuild_rows=True)


def test_a_row_whose_answer_index_is_off_is_refused(tmp_path):
    rows = pq.read_table(UPSTREAM / MANIFEST).to_pylist()
    rows[2]["answer_index"] = 1
    ctx = make_ctx(NAME, tmp_path, _manifest(tmp_path, rows))
    with pytest.raises(GymError, match="row 2 .*answer_index 1 does not point at the answer"):
        script(NAME).prepare(ctx)


class _Refuse(http.server.BaseHTTPRequestHandler):
    status = 401

    def do_GET(self):  # noqa: N802 (http.server API)
        self.send_response(self.status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("status", [401, 403])
def test_gated_refusal_says_how_to_get_access(tmp_path, status):
    handler = type("Refuse", (_Refuse,), {"status": status})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        mirror = f"http://127.0.0.1:{server.server_address[1]}"
        result = run_gym("task=prepare", f"benchmark={NAME}", f"data.mirror={mirror}", f"data.root={tmp_path / 'data'}",
                         f"hydra.run.dir={tmp_path / 'run'}", env={"HF_TOKEN": ""})
    finally:
        server.shutdown()
    assert_clean_failure(result, f"HTTP {status} (gated data: accept the terms at "
                                 "https://huggingface.co/datasets/nvidia/bunsen-bench, then set HF_TOKEN")
    errors = [line for line in result.stderr.splitlines() if line.strip() and "][INFO]" not in line]
    assert len(errors) == 1, result.stderr  # one line says what to do
    assert not (tmp_path / "data" / NAME / f"{NAME}.jsonl").exists()


def test_e2e_offline_scores_the_reference_answers(tmp_path):
    result = run_gym("task=e2e", f"benchmark={NAME}", "model=mock", f"data.mirror={UPSTREAM}",
                     f"data.root={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"][NAME]
    assert metrics["rollouts"] == 5 * 8  # num_repeats 8, as the reference
    assert 0 < metrics["pass@1"]["value"] <= 100  # the mock answers right mostly, by letter
    assert set(metrics["subsets"]) >= {"source", "bct_field"}


def test_a_refused_token_is_named_and_the_page_to_accept():
    from gym.data.download import gated_hint

    page = "https://huggingface.co/datasets/nvidia/bunsen-bench"
    url = f"{page}/resolve/v0.1.4/chemistry_mcq/test-00000-of-00001.parquet"
    assert gated_hint(url, "HF_TOKEN", token_sent=True) == (
        f"the token in HF_TOKEN was refused; accept the terms at {page} with that token's account first")
    assert gated_hint(url, "HF_TOKEN", token_sent=False) == (
        f"accept the terms at {page}, then set HF_TOKEN to a token of that account")
    assert gated_hint("https://example.org/data.csv", None, token_sent=False) == "the data needs authorisation"
