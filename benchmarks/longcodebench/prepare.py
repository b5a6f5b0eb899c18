"""LongCodeBench's LongCodeQA (Steefano/LCB): four-choice questions about a whole code repository placed in
the prompt, in six context-length buckets (32K to 1M tokens).

Upstream `LongCodeQA.zip` holds `LQA/<bucket>.json` (bucket 32K, 64K, 128K, 256K, 512K, 1M), each a JSON
array of `{"prompt_goal", "repo_text", "question", "prompt", "correct_letter", "repo", "is_hard"}`; `prompt`
is the full text (goal, repository, question and choices). As the reference, every member is read and the
question is `prompt` stripped plus the instruction to end with 'Answer: \\boxed{X}'. The reference loads the zip
with `datasets.load_dataset("json", data_files=<zip>)`: every file of it (names starting with "." or "__"
skipped) is a JSON array of questions, read in the order the loader walks the extracted folder, which sorts
names as text (LQA/128K.json first, LQA/64K.json last); rows keep that order. With
prepare_args.tokenizer (gym.data.tokens) each row gets metadata.n_tokens and max_context_tokens drops longer
prompts (the reference's n3_1m variant: conf/benchmark/longcodebench_n3_1m.yaml). Prepared rows:

    {"question": <prompt + instruction>, "expected_answer": "B", "id": <uuid5 of the question, as the reference>,
     "metadata": {"repo", "prompt_goal", "is_hard", "bucket", "subset": <bucket>, "file", "source_index"}}
"""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/Steefano/LCB/resolve/main/LongCodeQA.zip"
POSTFIX = ("\n\nThe last line of your response should be in the following format: "
           "'Answer: \\boxed{A/B/C/D}' (e.g. 'Answer: \\boxed{A}').")


def convert(item: dict[str, Any], index: int, file: str) -> tuple[dict[str, Any] | None, str | None]:
    if not isinstance(item, dict):
        return None, "not a JSON object"
    prompt, letter = item.get("prompt"), str(item.get("correct_letter") or "").strip().upper()
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if letter not in ("A", "B", "C", "D"):
        return None, f"'correct_letter' {item.get('correct_letter')!r} is not A-D"
    question = prompt.strip() + POSTFIX
    bucket = Path(file).stem
    return {
        "question": question, "expected_answer": letter, "id": str(uuid.uuid5(uuid.NAMESPACE_URL, question)),
        "metadata": {"repo": item.get("repo"), "prompt_goal": item.get("prompt_goal"), "is_hard": item.get("is_hard"),
                     "bucket": bucket, "subset": bucket, "file": file, "source_index": index},
    }, None


def hidden(name: str) -> bool:
    """A member the reference's loader skips: a file or folder whose name starts with "." or "__"."""
    return any(part.startswith((".", "__")) for part in name.split("/") if part)


def walk_order(name: str) -> list[tuple[int, str]]:
    """Where the reference's loader (`datasets`, over the extracted zip) reads a member: folders walked top
    down, each folder's files (by name) before its subfolders (by name)."""
    *folders, file = name.split("/")
    return [(1, folder) for folder in folders] + [(0, file)]


def members(ctx: PrepareContext, archive: Path) -> list[tuple[str, list]]:
    """(member name, its JSON array) for every file of the archive, in the order the reference reads them:
    128K, 1M, 256K, 32K, 512K, 64K (names sorted as text)."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            names = [name for name in zipped.namelist() if not name.endswith("/") and not hidden(name)]
            if not names:
                raise GymError(f"{archive}: no JSON member (expected LQA/<bucket>.json)")
            names.sort(key=walk_order)
            found = []
            for name in names:
                try:
                    items = json.loads(zipped.read(name).decode("utf-8"))
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise GymError(f"{archive}:{name}: not a JSON file ({exc})") from None
                if not isinstance(items, list):
                    raise GymError(f"{archive}:{name}: expected a JSON array of questions")
                found.append((name, items))
            return found
    except (zipfile.BadZipFile, OSError) as exc:
        raise GymError(f"{archive}: corrupt or truncated zip file ({exc})") from None


def prepare(ctx: PrepareContext, tokenizer: str | None = None, max_context_tokens: int | None = None) -> Path:
    archive = ctx.fetch(URL)
    rows = []
    for name, items in members(ctx, archive):
        rows.extend(ctx.convert_rows(Path(f"{archive}:{name}"), items,
                                     lambda item, index, f=name: convert(item, index, f)))
    keep = token_cap(ctx, tokenizer, max_context_tokens, lambda row: [row["question"]])
    return ctx.write_rows(rows if keep is None else [row for row in rows if keep(row)])
