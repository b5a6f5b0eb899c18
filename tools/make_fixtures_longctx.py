"""Rebuild the upstream-format fixtures of the generated and capped long-context benchmarks (ruler,
longcodebench, the *_n3_* variants) under tests/fixtures/upstream/ (mirror layout: <host>/<url path>).

    .venv/bin/python tools/make_fixtures_longctx.py

Each file has the upstream layout (RULER's essay URL list and the essay files it names, SQuAD v2's and
HotpotQA's JSON keys, LongCodeQA.zip's LQA/<bucket>.json members); the content is small and written for
the tests (stand-in essays, questions and repositories, CC0), never copied from the datasets.

tokenizer.json: a byte-level BPE tokenizer trained here with the `tokenizers` library on the fixture text
(1,000 tokens). It is a real tokenizer.json in the format models ship, but no model's: it stands in, at the
Nemotron-3-Super URL and at huggingface.co/gym-fixtures/tiny-bpe, for the gated tokenizer the n3 variants
name, and at the Qwen3-0.6B URL for proof-arena-judge's length filter, so that they prepare offline from the
fixtures.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = HERE / "upstream"
RULER = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"
GITHUB_ESSAYS = "https://github.com/gkamradt/LLMTest_NeedleInAHaystack/raw/main/needlehaystack/PaulGrahamEssays"
ESSAYS = {
    f"{GITHUB_ESSAYS}/gardens.txt": (
        "A garden teaches patience. You plant a seed in spring and wait. Most of the work is invisible: roots grow "
        "before leaves do. People who start gardens often expect quick results, and they are disappointed. "
        "The ones who keep going learn to enjoy the waiting. They notice small changes. A leaf unfolds. A bud "
        "opens. After a few years they have a garden, and they have also become different people.\n\n"
        "There is a lesson here for anyone who builds things. Early progress is slow and hard to see. "
        "That is normal. It is not a sign that you are doing it wrong.\n"),
    f"{GITHUB_ESSAYS}/maps.txt": (
        "Old maps are full of guesses. Where the mapmaker did not know the coast, he drew one anyway. "
        "Sailors trusted these maps and sometimes paid for it. A good map says what it does not know. "
        "The best explorers kept careful notes and corrected the maps when they came home. Each voyage made the "
        "next one safer. Knowledge grew one correction at a time.\n"),
    "http://www.paulgraham.com/bridges.html": (
        "<html><head><title>Bridges</title></head><body><table><tr><td><font size=\"2\" face=\"verdana\">"
        "Bridges are promises made of stone.<br><br>A bridge must carry loads its builders never saw. "
        "So engineers add margins. They assume the worst storm and the heaviest cart. Then they double it. "
        "<p>The result looks wasteful until the storm comes. Then it looks wise. Good design often hides its "
        "reasons.</font></td></tr></table><font>Footer text that is not part of the essay.</font></body></html>"),
}
SQUAD_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json"
HOTPOT_URL = "http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json"
LCB_URL = "https://huggingface.co/datasets/Steefano/LCB/resolve/main/LongCodeQA.zip"
TOKENIZER_URLS = ("https://huggingface.co/gym-fixtures/tiny-bpe/resolve/main/tokenizer.json",
                  "https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16/resolve/main/tokenizer.json",
                  "https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/tokenizer.json")  # proof-arena-judge's cut


def target(url: str) -> Path:
    parts = urlsplit(url)
    path = UPSTREAM / parts.netloc / parts.path.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def squad() -> dict:
    def paragraph(context: str, qas: list[tuple[str, str, bool]]) -> dict:
        return {"context": context, "qas": [
            {"id": hashlib.sha1(q.encode()).hexdigest()[:24], "question": q, "is_impossible": impossible,
             "answers": [] if impossible else [{"text": a, "answer_start": context.find(a)}]}
            for q, a, impossible in qas]}
    return {"version": "v2.0", "data": [
        {"title": "Lighthouses", "paragraphs": [
            paragraph("The lighthouse at Cape Verin was built in 1841 from local granite.",
                      [("When was the Cape Verin lighthouse built?", "1841", False),
                       ("What colour is the Cape Verin keeper's boat?", "", True)]),
            paragraph("Its lamp burned whale oil until 1902, when kerosene replaced it.",
                      [("What fuel replaced whale oil in the lamp?", "kerosene", False)])]},
        {"title": "Orchards", "paragraphs": [
            paragraph("The Marlow orchard grows forty varieties of apple on a south-facing slope.",
                      [("How many apple varieties grow in the Marlow orchard?", "forty", False)]),
            paragraph("Its oldest tree, a Pearmain, was planted by the founder Ada Marlow.",
                      [("Who planted the oldest tree in the Marlow orchard?", "Ada Marlow", False)])]},
        {"title": "Stations", "paragraphs": [  # enough questions for RULER's 100 samples per task
            paragraph(f"Halt number {n} of the Vell line opened in {1850 + n}.",
                      [(f"When did halt number {n} of the Vell line open?", str(1850 + n), False)])
            for n in range(1, 101)]},
    ]}


def hotpot() -> list[dict]:
    return [
        {"_id": "h1", "question": "Which river flows through the town where the Harwick clock tower stands?",
         "answer": "the Lenn", "type": "bridge", "level": "medium", "supporting_facts": [["Harwick", 0]],
         "context": [["Harwick", ["Harwick is a market town on the Lenn. ", "Its clock tower dates from 1790."]],
                     ["Lenn", ["The Lenn is a slow river that floods in March."]]]},
        {"_id": "h2", "question": "What instrument did the founder of the Ostby Quartet play?", "answer": "viola",
         "type": "bridge", "level": "easy", "supporting_facts": [["Ostby Quartet", 0]],
         "context": [["Ostby Quartet", ["The Ostby Quartet was founded by Mira Ostby. "]],
                     ["Mira Ostby", ["Mira Ostby played the viola in two orchestras."]]]},
        {"_id": "h3", "question": "Are the Dunmore Bridge and the Kell Viaduct made of the same stone?",
         "answer": "yes", "type": "comparison", "level": "hard", "supporting_facts": [["Dunmore Bridge", 0]],
         "context": [["Dunmore Bridge", ["The Dunmore Bridge is built of grey sandstone."]],
                     ["Kell Viaduct", ["The Kell Viaduct is also grey sandstone, quarried nearby."]]]},
    ] + [{"_id": f"s{n}", "question": f"Which county holds the village twinned with Orm number {n}?",
          "answer": f"County {n % 7 + 1}", "type": "bridge", "level": "easy", "supporting_facts": [[f"Orm {n}", 0]],
          "context": [[f"Orm {n}", [f"Orm {n} is twinned with Brack {n}."]],
                      [f"Brack {n}", [f"Brack {n} lies in County {n % 7 + 1}."]]]} for n in range(1, 101)]


def longcodeqa() -> bytes:
    def item(repo: str, code: str, question: str, choices: list[str], letter: str, hard: str) -> dict:
        goal = "You are given a code repository and a question about it. Choose the correct answer."
        repo_text = f"[start of {repo}/main.py]\n{code}\n[end of {repo}/main.py]"
        asked = "Question:\n" + question + "\n" + "\n".join(f"{'ABCD'[i]}) {c}" for i, c in enumerate(choices)) + "\n"
        return {"prompt_goal": goal, "repo_text": repo_text, "question": asked,
                "prompt": f"{goal}\nRepository: {repo_text}\n{asked}", "correct_letter": letter, "repo": repo,
                "is_hard": hard}
    buckets = {
        "LQA/32K.json": [item("demo/counter", "def bump(n):\n    return n + 2", "What does bump(1) return?",
                              ["1", "2", "3", "4"], "C", "No"),
                         item("demo/flags", "DEBUG = False\nVERBOSE = True", "Which flag is on by default?",
                              ["DEBUG", "VERBOSE", "both", "neither"], "B", "Yes")],
        "LQA/64K.json": [item("demo/paths", "ROOT = '/srv'\nDATA = ROOT + '/data'", "What is DATA?",
                              ["/srv/data", "/data", "/srv", "data"], "A", "No")],
        # read first by the reference's loader, which sorts the file names as text
        "LQA/128K.json": [item("demo/limits", "MAX = 3\nMIN = MAX - 2", "What is MIN?",
                               ["0", "2", "3", "1"], "D", "No")],
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, items in buckets.items():
            info = zipfile.ZipInfo(name, date_time=(2025, 5, 1, 0, 0, 0))
            zipped.writestr(info, json.dumps(items, indent=1), zipfile.ZIP_DEFLATED)
        # what a zip made on macOS carries beside each file; the reference's loader skips names starting "__"
        info = zipfile.ZipInfo("__MACOSX/LQA/._128K.json", date_time=(2025, 5, 1, 0, 0, 0))
        zipped.writestr(info, b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ", zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def tokenizer(texts: list[str]) -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1000, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return bpe.to_str()


def main() -> None:
    urls = f"https://raw.githubusercontent.com/NVIDIA/RULER/{RULER}/scripts/data/synthetic/json/PaulGrahamEssays_URLs.txt"
    target(urls).write_text("".join(f"{url}\n" for url in ESSAYS))
    for url, text in ESSAYS.items():
        target(url).write_text(text)
    target(SQUAD_URL).write_text(json.dumps(squad()))
    target(HOTPOT_URL).write_text(json.dumps(hotpot()))
    target(LCB_URL).write_bytes(longcodeqa())
    trained = tokenizer(list(ESSAYS.values()) + [json.dumps(squad()), json.dumps(hotpot())])
    for url in TOKENIZER_URLS:
        target(url).write_text(trained)


if __name__ == "__main__":
    main()
