"""Data without the network: gym's bundled GSM8K copy, used when a download fails or offline."""

from __future__ import annotations

import gzip

import pytest

from gym.data.download import BUNDLED_DIR, bundled_copy
from gym.data.prepare_context import PrepareContext
from gym.core.errors import GymError
from tests.conftest import REAL_DATA

GSM8K_URL = "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl"


@pytest.fixture
def no_network(monkeypatch):
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def context(tmp_path, **kwargs):
    return PrepareContext(name="gsm8k", output_path=tmp_path / "gsm8k" / "gsm8k.jsonl", progress=False, **kwargs)


def test_bundled_copy_is_the_upstream_file_with_its_licence():
    bundled = bundled_copy(GSM8K_URL)
    assert bundled is not None and gzip.decompress(bundled.read_bytes()) == (REAL_DATA / "gsm8k" / "test.jsonl").read_bytes()
    assert "MIT License" in (bundled.parent / "LICENSE").read_text()
    assert bundled_copy("https://example.org/not/bundled.jsonl") is None
    assert (BUNDLED_DIR / "README.md").is_file()


@pytest.mark.parametrize("offline", [False, True])
def test_fetch_falls_back_to_the_bundled_copy(tmp_path, no_network, offline, caplog):
    caplog.set_level("INFO", logger="gym.data.download")
    ctx = context(tmp_path, offline=offline, retries=3)
    path = ctx.fetch(GSM8K_URL)
    assert path.read_bytes() == (REAL_DATA / "gsm8k" / "test.jsonl").read_bytes()
    assert "bundled with gym" in caplog.text
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_unbundled_download_failure_names_the_ways_out(tmp_path, no_network):
    ctx = context(tmp_path, retries=3)
    with pytest.raises(GymError) as failure:
        ctx.fetch("https://example.org/data/rows.jsonl")
    message = str(failure.value)
    assert "no network" in message and "\n" not in message
    assert "data.mirror=<URL or dir holding example.org/data/rows.jsonl>" in message
    assert str(tmp_path / "gsm8k" / "raw" / "example.org" / "data" / "rows.jsonl") in message
    assert "data.offline=true" in message


def test_local_mirror_with_decoded_names(tmp_path):
    """A URL with %2F in its path is found in a local mirror that stores it as a folder (as the fixtures do)."""
    url = "https://huggingface.co/datasets/org/set/resolve/refs%2Fconvert%2Fparquet/default/test/0000.parquet"
    mirror = tmp_path / "mirror"
    stored = mirror / "huggingface.co/datasets/org/set/resolve/refs/convert/parquet/default/test/0000.parquet"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"PAR1")
    path = context(tmp_path, mirror=str(mirror), offline=True).fetch(url)
    assert path.read_bytes() == b"PAR1"
