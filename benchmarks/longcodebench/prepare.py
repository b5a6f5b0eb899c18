"""LongCodeBench's LongCodeQA (Steefano/LCB): four-choice questions about a whole code repository placed in
the prompt, in six context-length buckets (32K to 1M tokens).

Upstream `LongCodeQA.zip` holds `LQA/<bucket>.json` (bucket 32K, 64K, 128K, 256K, 512K, 1M), each a JSON
array of `{"prompt_goal", "repo_text", "question", "prompt", "correct_letter", "repo", "is_hard"}`; `prompt`
is the full text (goal, repository, question and choices). As the reference, every member is read and the
question is `prompt` stripped plus the instruction to end with 'Answer: \\boxed{X}'. With
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

from gym.core.errors import GymError
from gym.data.tokens import token_cap

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/Steefano/LCB/resolve/main/LongCodeQA.zip"
BUCKETS = ("32K", "64K", "128K", "256K", "512K", "1M")
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


def members(ctx: PrepareContext, archive: Path) -> list[tuple[str, list]]:
    """(member name, its JSON array) for every JSON member of the archive, in bucket order."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            names = [name for name in zipped.namelist() if name.endswith(".json") and not name.startswith("__MACOSX")]
            if not names:
                raise GymError(f"{archive}: no JSON member (expected LQA/<bucket>.json)")
            order = {bucket: rank for rank, bucket in enumerate(BUCKETS)}
            names.sort(key=lambda name: (order.get(Path(name).stem, len(order)), name))
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
