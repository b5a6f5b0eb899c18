"""Downloads for prepare scripts: mirror/offline aware, retried, streamed, atomic. The context object a
prepare script receives (`PrepareContext`) is in gym.data.prepare_context.
"""

from __future__ import annotations

import logging
import random
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

from gym.core.errors import GymError
from gym.core.io import atomic_path

log = logging.getLogger("gym.data.download")

RETRY_STATUS = {408, 429, 500, 502, 503, 504}
# Upstream files shipped inside the package (a `wget -x` layout, gzipped): used when a download fails,
# so the first run works without internet access.
BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
# A connection error with one of these in its text means there is no network at all: retrying will not help.
_NO_NETWORK = ("NameResolutionError", "Failed to resolve", "Name or service not known",
               "Temporary failure in name resolution", "nodename nor servname", "Network is unreachable",
               "ProxyError", "Unable to connect to proxy")
_HF_REPO = re.compile(r"https://huggingface\.co/(?:datasets/|spaces/)?[^/]+/[^/]+")


class DownloadError(GymError):
    """A download that failed for good (after retries, or at once when there is no network)."""

    def __init__(self, message: str, no_network: str | None = None):
        super().__init__(message)
        self.no_network = no_network  # why, when the machine has no network at all


def bundled_copy(url: str) -> Path | None:
    """gym's bundled copy of the upstream file at `url`, if it ships one."""
    parts = urlsplit(url)
    path = BUNDLED_DIR / parts.netloc / (parts.path.lstrip("/") + ".gz")
    return path if path.is_file() else None


def bundled_files(url: str) -> str:
    """What gym bundles from `url`'s upstream repository, e.g. "sierra-research/tau2-bench's 15 files"."""
    parts = urlsplit(url).path.strip("/").split("/")
    repo = "/".join(parts[:2])
    count = sum(1 for _ in (BUNDLED_DIR / urlsplit(url).netloc / repo).rglob("*.gz"))
    return f"{repo}'s {count} file(s)"


def ways_out(url: str, target: Path) -> str:
    """The three ways to get an upstream file without the network, for the end of an error line."""
    parts = urlsplit(url)
    return (f"ways out: data.mirror=<URL or dir holding {parts.netloc}{parts.path}>, or put the file at {target} "
            f"(a file in place is used as is), or data.offline=true to use only local files")


def mirror_location(url: str, mirror: str) -> str:
    """`https://<host>/<path>` -> `<mirror>/<host>/<path>` (the layout `wget -x` produces)."""
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def is_remote(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def local_path(location: str) -> Path:
    return Path(location[len("file://"):] if location.startswith("file://") else location).expanduser()


def gated_hint(url: str, token_env: str | None, token_sent: bool) -> str:
    """How to get access to the gated upstream file at `url`: its dataset page's terms, then the token."""
    page = _HF_REPO.match(url)
    terms = f"accept the terms at {page.group(0)}" if page else "accept the dataset's terms on its page"
    if not token_env:
        return "the data needs authorisation"
    if token_sent:
        return f"the token in {token_env} was refused; {terms} with that token's account first"
    return f"{terms}, then set {token_env} to a token of that account"


def download(url: str, target: Path, *, timeout: float = 60, retries: int = 4, headers: dict | None = None,
             token_env: str | None = None, progress: bool = True, origin: str | None = None) -> Path:
    """Stream `url` to `target` through a temp file; retry 5xx/connection errors with backoff. `origin`: the
    upstream URL that `url` mirrors (named in the access hint of a refusal)."""
    import requests

    attempt = 0
    while True:
        try:
            with requests.get(url, stream=True, timeout=timeout, headers=headers or {}) as reply:
                if reply.status_code in (401, 403):
                    hint = gated_hint(origin or url, token_env, token_sent="Authorization" in (headers or {}))
                    raise GymError(f"{url}: HTTP {reply.status_code} (gated data: {hint})")
                if reply.status_code in RETRY_STATUS and attempt < retries:
                    raise _Retry(f"HTTP {reply.status_code}", reply.headers.get("Retry-After"))
                if reply.status_code >= 400:
                    raise GymError(f"{url}: HTTP {reply.status_code} {reply.reason}")
                total = int(reply.headers.get("Content-Length") or 0) or None
                with atomic_path(target) as tmp:
                    with tmp.open("wb") as sink, _progress(total, target.name, progress) as bar:
                        for chunk in reply.iter_content(chunk_size=1 << 16):
                            sink.write(chunk)
                            bar.update(len(chunk))
                    if total is not None and tmp.stat().st_size != total:
                        raise _Retry(f"short read ({tmp.stat().st_size} of {total} bytes)", None)
            return target
        except _Retry as exc:
            reason, retry_after = str(exc), exc.retry_after
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as exc:
            text = f"{exc.__class__.__name__}: {exc}"
            if any(marker in text for marker in _NO_NETWORK):
                why = _short_reason(exc)
                raise DownloadError(f"cannot download {url} (no network: {why})", no_network=why) from None
            reason, retry_after = _short_reason(exc), None
        attempt += 1
        if attempt > retries:
            raise DownloadError(f"cannot download {url} after {retries + 1} attempts ({reason})")
        delay = float(retry_after) if retry_after and str(retry_after).isdigit() else min(30.0, 0.5 * 2 ** (attempt - 1))
        delay *= random.uniform(0.8, 1.2)
        log.warning("%s: %s; retry %d/%d in %.1fs", url, reason, attempt, retries, delay)
        time.sleep(delay)


def _short_reason(exc: BaseException) -> str:
    """The innermost cause of a requests/urllib3 error, without the URL and object reprs around it."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    text = str(exc).split("): ")[-1].strip() or exc.__class__.__name__
    return text[:120]


class _Retry(Exception):
    def __init__(self, reason: str, retry_after: str | None):
        super().__init__(reason)
        self.retry_after = retry_after


def _progress(total: int | None, name: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="B", unit_scale=True, leave=False, disable=not enabled or None)
