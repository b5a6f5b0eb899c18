"""Reading Arena-Hard data (lmarena/arena-hard-auto): questions and baseline model answers.

Questions are JSONL rows `{"uid", "category", "subcategory", "prompt", ...}`. Baseline answer files
(`model_answer/<model>.jsonl`) hold `{"uid", "messages": [{"role": "user", ...}, {"role": "assistant",
"content": {"answer": ...} or "..."}], ...}`; older files hold `{"question_id", "choices": [{"turns":
[{"content": ...}]}]}`, read too. Prepared rows:

    {"question": <prompt>, "baseline_answer": <text>, "category": ..., "expected_answer": <uid>,
     "id": <uid>, "metadata": {"uid", "category", "subcategory", "subset": <category>, "source_index"}}

Arena-Hard has no gold answer: expected_answer holds the question's uid so every prepared row keeps the
standard shape (the pairwise judge never sees it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["LANGUAGES", "baseline_text", "convert", "prepare_multilingual", "question_id", "question_text",
           "read_baseline_file", "read_baselines"]


def baseline_text(item: dict[str, Any]) -> str | None:
    """The assistant answer of one baseline row, in either layout; None when it has none."""
    for message in item.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            content = content.get("answer") if isinstance(content, dict) else content
            return content if isinstance(content, str) and content.strip() else None
    for choice in item.get("choices") or []:
        turns = choice.get("turns") if isinstance(choice, dict) else None
        if turns and isinstance(turns[0], dict) and isinstance(turns[0].get("content"), str):
            return turns[0]["content"]
    return None


def question_id(item: dict[str, Any]) -> str | None:
    """A question's uid (`uid`, else the older `question_id`) as text; None without one."""
    value = item.get("uid", item.get("question_id"))
    return None if value is None else str(value)


def question_text(item: dict[str, Any]) -> str | None:
    """A question's prompt text, in either layout; None when it has none."""
    prompt = item.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        return prompt
    turns = item.get("turns")
    if isinstance(turns, list) and turns and isinstance(turns[0], dict) and isinstance(turns[0].get("content"), str):
        return turns[0]["content"]
    return None


def convert(item: dict[str, Any], index: int, baselines: dict[str, dict[str, str]], keep_category: bool,
            default_category: str = "hard_prompt") -> tuple[dict[str, Any] | None, str | None]:
    """One question row -> (prepared row, None) or (None, why it cannot be used).

    `baselines` maps category (or "*" for any) -> uid -> answer text."""
    uid, prompt = question_id(item), question_text(item)
    if uid is None:
        return None, "missing 'uid'"
    if prompt is None:
        return None, "missing 'prompt'"
    category = str(item.get("category") or default_category) if keep_category else default_category
    pool = baselines.get(category) or baselines.get("*") or {}
    baseline = pool.get(uid)
    if baseline is None:
        return None, f"no baseline answer for uid {uid} (category {category})"
    meta = {"uid": uid, "category": category, "subcategory": item.get("subcategory"), "subset": category,
            "source_index": index}
    if not keep_category:
        meta["upstream_category"] = item.get("category")
    return {"question": prompt, "baseline_answer": baseline, "category": category, "expected_answer": uid,
            "id": uid, "metadata": meta}, None


def read_baselines(ctx: Any, path: Any) -> dict[str, str]:
    """uid -> baseline answer text of one model_answer file (rows without an answer are bad rows)."""
    out: dict[str, str] = {}
    for number, item in enumerate(ctx.read_jsonl(path), start=1):
        uid, text = question_id(item), baseline_text(item)
        if uid is None or text is None:
            ctx.bad_row(f"{path}: row {number}", "baseline row without uid or assistant answer")
            continue
        out[uid] = text
    return out


# -- multilingual Arena-Hard (CohereLabs/m-ArenaHard, m-ArenaHard-v2.0) ---------------------------------
LANGUAGES = ("ar", "cs", "de", "el", "en", "es", "fa", "fr", "he", "hi", "id", "it", "ja", "ko", "nl", "pl", "pt",
             "ro", "ru", "tr", "uk", "vi", "zh")


def read_baseline_file(ctx: Any, path: str) -> dict[tuple[str, str | None], str]:
    """(uid, language or None) -> answer from a user's baseline file in the model_answer layout (+ `language`)."""
    from pathlib import Path

    from gym.core.errors import GymError

    local = Path(path).expanduser()
    if not local.is_file():
        raise GymError(f"baseline_file {local} does not exist")
    out: dict[tuple[str, str | None], str] = {}
    for number, item in enumerate(ctx.read_jsonl(local), start=1):
        uid, text = question_id(item), baseline_text(item)
        if uid is None or text is None:
            ctx.bad_row(f"{local}: row {number}", "baseline row without uid or assistant answer")
            continue
        out[(uid, item.get("language"))] = text
    return out


def prepare_multilingual(ctx: Any, repo_url: str, languages: Any, english_baselines: dict[str, str],
                         baseline_file: str | None, token_env: str) -> Any:
    """Rows of every language file `<repo_url>/<lang>/test-00000-of-00001.parquet`, each with its baseline:
    the user's (uid, language) answer when baseline_file is given, else arena-hard-auto's English answer."""
    from gym.core.errors import GymError

    if isinstance(languages, str) or not languages or not set(languages) <= set(LANGUAGES):
        raise GymError(f"languages must be a list drawn from {', '.join(LANGUAGES)}, got {languages!r}")
    own = read_baseline_file(ctx, baseline_file) if baseline_file else {}
    rows = []
    for language in languages:
        raw = ctx.fetch(f"{repo_url}/{language}/test-00000-of-00001.parquet", token_env=token_env)
        items = ctx.read_parquet(raw, required=["question_id", "prompt"], layout="m-ArenaHard")

        def one(item: dict, index: int, lang: str = language) -> tuple[dict | None, str | None]:
            uid = question_id(item)
            pool = {"*": {uid: own.get((uid, lang)) or own.get((uid, None))}} if own else {"*": english_baselines}
            row, problem = convert({**item, "category": item.get("category") if item.get("category") in
                                    ("hard_prompt", "creative_writing") else None}, index, pool, keep_category=True)
            if row is not None:
                row["metadata"].update(language=lang, subset=lang, upstream_category=item.get("category"),
                                       cluster=item.get("cluster"))
                row["id"] = f"{uid}-{lang}"
            return row, problem

        rows.extend(ctx.convert_rows(raw, items, one, label="row", id_field="question_id"))
    return ctx.write_rows(rows)
