"""The upstream files RULER's generators read, fetched like any upstream file (data.mirror, offline):
Paul Graham's essays (RULER's URL list; the GitHub copies as they are, the web pages' text), SQuAD v2 dev,
HotpotQA dev (distractor), RULER's english_words.json (only for very long cwe lists) and wonderwords'
word lists (the installed package's own files, as upstream reads them).
"""

from __future__ import annotations

import json
import logging
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from gym.core.errors import GymError
from gym.data.download import DownloadError
from gym.data.ruler.tasks import Sources

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

log = logging.getLogger("gym.data.download")
RULER = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"  # NVIDIA/RULER, pinned
ESSAY_URLS = f"https://raw.githubusercontent.com/NVIDIA/RULER/{RULER}/scripts/data/synthetic/json/PaulGrahamEssays_URLs.txt"
ENGLISH_WORDS = f"https://media.githubusercontent.com/media/NVIDIA/RULER/{RULER}/scripts/data/synthetic/json/english_words.json"
SQUAD = "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json"
HOTPOTQA = ("http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",
            "https://huggingface.co/datasets/namlh2004/hotpotqa/resolve/7e54db4656209750ff487f6fdf8e39a66dba136b/"
            "hotpot_dev_distractor_v1.json")  # upstream's download script tries the second when the first fails


class _FirstFont(HTMLParser):
    """The text of a page's first <font> element (where paulgraham.com keeps an essay, as upstream reads it)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.done, self.parts = 0, False, []

    def handle_starttag(self, tag, attrs):
        if tag == "font" and not self.done:
            self.depth += 1
        elif tag in ("br", "p") and self.depth:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "font" and self.depth:
            self.depth -= 1
            self.done = self.depth == 0

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def essay_text(ctx: PrepareContext) -> str:
    """Upstream's PaulGrahamEssays.json text: the GitHub essays, then the web pages, each sorted by file name."""
    urls = [line.strip() for line in Path(ctx.fetch(ESSAY_URLS)).read_text(encoding="utf-8").splitlines() if line.strip()]
    texts: dict[str, dict[str, str]] = {"repo": {}, "html": {}}
    for url in urls:
        try:
            raw = Path(ctx.fetch(url)).read_bytes().decode("utf-8", errors="replace")
        except (GymError, DownloadError) as exc:  # upstream skips an essay it cannot download
            log.warning("essay %s skipped: %s", url, exc)
            continue
        name = url.split("/")[-1]
        if ".html" in url:
            page = _FirstFont()
            page.feed(raw)
            texts["html"][name.replace(".html", ".txt")] = "".join(page.parts)
        else:
            texts["repo"][name] = raw
    if not texts["repo"] and not texts["html"]:
        raise GymError(f"no essay of {ESSAY_URLS} could be read: the essay haystack needs them")
    return "".join(texts[group][name] for group in ("repo", "html") for name in sorted(texts[group]))


def read_squad(path: Path) -> tuple[list[dict], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    documents = sorted({p["context"] for d in data["data"] for p in d["paragraphs"]})
    number = {c: i for i, c in enumerate(documents)}
    questions = []
    for d in data["data"]:
        more = [number[p["context"]] for p in d["paragraphs"]]
        for p in d["paragraphs"]:
            for qa in p["qas"]:
                if not qa["is_impossible"]:
                    questions.append({"query": qa["question"], "outputs": [a["text"] for a in qa["answers"]],
                                      "context": [number[p["context"]]],
                                      "more_context": [i for i in more if i != number[p["context"]]]})
    return questions, documents


def read_hotpotqa(path: Path) -> tuple[list[dict], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    documents = sorted({f"{title}\n{''.join(sentences)}" for d in data for title, sentences in d["context"]})
    number = {c: i for i, c in enumerate(documents)}
    questions = [{"query": d["question"], "outputs": [d["answer"]],
                  "context": [number[f"{title}\n{''.join(sentences)}"] for title, sentences in d["context"]]} for d in data]
    return questions, documents


def fetch_first(ctx: PrepareContext, urls: tuple[str, ...]) -> Path:
    for url in urls[:-1]:
        try:
            return ctx.fetch(url)
        except (GymError, DownloadError) as exc:
            log.warning("%s: %s; trying %s", url, exc, urls[-1])
    return ctx.fetch(urls[-1])


def wonderwords_list(name: str) -> list[str]:
    try:
        from importlib.resources import files

        text = (files("wonderwords") / "assets" / name).read_text(encoding="utf-8")
    except ModuleNotFoundError:
        raise GymError("RULER's word lists come from the wonderwords package: pip install 'gym-eval-harness[longctx]'") from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_sources(ctx: PrepareContext, sentences: Callable[[str], list[str]]) -> Sources:
    """The generators' inputs, each fetched on first use (a run of the noise tasks alone needs no essay)."""
    import re

    def qa(dataset: str) -> tuple[list[dict], list[str]]:
        path = ctx.fetch(SQUAD) if dataset == "squad" else fetch_first(ctx, HOTPOTQA)
        try:
            return (read_squad if dataset == "squad" else read_hotpotqa)(path)
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
            raise GymError(f"{path}: not the {dataset} layout RULER reads ({exc.__class__.__name__}: {exc})") from None

    def english_words() -> list[str]:
        path = ctx.fetch(ENGLISH_WORDS)
        try:
            return list(json.loads(path.read_text(encoding="utf-8")).values())
        except (json.JSONDecodeError, AttributeError) as exc:
            raise GymError(f"{path}: not RULER's english_words.json ({exc})") from None

    return Sources(essay_words=cache(lambda: re.sub(r"\s+", " ", essay_text(ctx)).split(" ")),
                   nouns=wonderwords_list("nounlist.txt"), adjectives=wonderwords_list("adjectivelist.txt"),
                   verbs=wonderwords_list("verblist.txt"), english_words=cache(english_words), qa=cache(qa),
                   sentences=sentences)
