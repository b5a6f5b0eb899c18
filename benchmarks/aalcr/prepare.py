"""AA-LCR (ArtificialAnalysis/AA-LCR): 100 long-context reasoning questions, each over a set of real
documents (company reports, government consultations, legal texts, academic papers, ...) of roughly
100k tokens together.

Questions: Hugging Face's parquet conversion (default/test); columns document_category,
document_set_id, question_id, question, answer, data_source_filenames (";"-separated),
data_source_urls, input_tokens. Documents: extracted_text/AA-LCR_extracted-text.zip, one text file per
document at lcr/<document_category>/<document_set_id>/<filename>. Prepared rows:

    {"question": ..., "expected_answer": ..., "documents": "BEGIN DOCUMENT 1:\\n...\\nEND DOCUMENT 1\\n\\n...",
     "metadata": {"question_id": ..., "document_category": ..., "document_set_id": ...,
                  "input_tokens": 97000, "input_tokens_band": "80k-100k", "source_index": 0}}

Differences from the reference, on purpose:
* Zip member names stored without the UTF-8 flag are decoded as the UTF-8 they are (Python reads them as
  cp437, hence the reference's hand-made table of "ΓÇÖ"-style artifacts), and names are matched after
  Unicode NFC normalisation and straight quotes, so no document is missed for a curly apostrophe.
* Document text is decoded with visible replacement characters instead of silently dropping bytes.
"""

from __future__ import annotations

import unicodedata
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

QUESTIONS_URL = hf_converted_parquet("ArtificialAnalysis/AA-LCR", "default", "test")
DOCUMENTS_URL = "https://huggingface.co/datasets/ArtificialAnalysis/AA-LCR/resolve/main/extracted_text/AA-LCR_extracted-text.zip"
BANDS = ((80_000, "<80k"), (100_000, "80k-100k"), (110_000, "100k-110k"), (128_000, "110k-128k"))
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name).translate(_QUOTES).strip()


def member_name(info: zipfile.ZipInfo) -> str:
    """The member's real name: without the UTF-8 flag (0x800) Python decoded the bytes as cp437."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return info.filename


def read_documents(path: Path) -> dict[str, str]:
    """{normalised path inside the zip: text} for every .txt member."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {name_key(member_name(info)): archive.read(info).decode("utf-8", errors="replace")
                    for info in archive.infolist() if not info.is_dir() and member_name(info).endswith(".txt")}
    except (zipfile.BadZipFile, OSError) as exc:
        raise GymError(f"{path}: corrupt or truncated zip file ({exc})") from None


def band(tokens: Any) -> str | None:
    if isinstance(tokens, bool) or not isinstance(tokens, (int, float)):
        return None
    return next((label for limit, label in BANDS if tokens < limit), "128k+")


def convert(item: dict[str, Any], index: int, documents: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
    question, answer = item.get("question"), item.get("answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    gold = "" if answer is None else str(answer).strip()
    category, doc_set = item.get("document_category"), item.get("document_set_id")
    names = [n.strip() for n in str(item.get("data_source_filenames") or "").split(";") if n.strip()]
    if not names:
        return None, "no data_source_filenames"
    texts = []
    for name in names:
        key = name_key(f"lcr/{category}/{doc_set}/{name}")
        if key not in documents:
            return None, f"document {key!r} is not in the documents zip"
        texts.append(documents[key])
    joined = "\n\n".join(f"BEGIN DOCUMENT {i}:\n{text}\nEND DOCUMENT {i}" for i, text in enumerate(texts, start=1))
    return {"question": question.strip(), "expected_answer": gold, "documents": joined,
            "metadata": {"question_id": item.get("question_id"), "document_category": category,
                         "document_set_id": doc_set, "input_tokens": item.get("input_tokens"),
                         "input_tokens_band": band(item.get("input_tokens")), "source_index": index}
            }, None if gold else "missing 'answer'"  # kept, as the reference keeps it, and reported


def prepare(ctx: PrepareContext) -> Path:
    questions = ctx.fetch(QUESTIONS_URL)
    documents = read_documents(ctx.fetch(DOCUMENTS_URL))
    items = ctx.read_parquet(questions, required=("question", "answer", "data_source_filenames"), layout="AA-LCR")
    return ctx.write_rows(ctx.convert_rows(questions, items, lambda item, index: convert(item, index, documents),
                                           id_field="question_id"))
