"""LongMemEval (xiaowu0162/longmemeval-cleaned, longmemeval_oracle.json): 500 questions about a user's
long chat history with an assistant (information extraction within and across sessions, temporal
reasoning, knowledge updates, preferences, and abstention when the history does not say).

The file is one JSON list; keys used: question_id (ending in "_abs" for abstention questions),
question_type, question, answer, question_date, haystack_dates, haystack_sessions (a list of sessions,
each a list of {"role", "content"} turns). The oracle file keeps only the sessions holding the
evidence; another file of the same repository can be chosen with prepare_args.file. Prepared rows:

    {"question": ..., "expected_answer": ..., "history": <the sessions as dated transcripts>,
     "question_date": "2023/05/30 (Tue) 23:40", "judge_rule": <how the judge should compare, per type>,
     "metadata": {"question_id": ..., "question_type": "temporal-reasoning", "abstention": false, "source_index": 0}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/main"
RULES = {
    "temporal-reasoning": "Count the answer as correct when it matches the reference; for a number of days, weeks "
                          "or months, an answer off by one from the reference still counts as correct.",
    "knowledge-update": "The user's information changed over time. Count the answer as correct when it gives the "
                        "updated information in the reference, even if it also mentions the earlier value.",
    "single-session-preference": "The reference describes what a good personalised answer should take into account. "
                                 "Count the answer as correct when it recalls and uses the user's preferences as "
                                 "described; it need not cover every point.",
}
DEFAULT_RULE = "Count the answer as correct when it contains the reference answer or something equivalent to it; " \
               "a partial answer is not correct."
ABSTENTION_RULE = "The history does not contain the information needed: count the answer as correct only when it " \
                  "says that it cannot answer or that the information is not available, as the reference explains."


def history_text(dates: Any, sessions: Any) -> str | None:
    if not isinstance(sessions, list) or not sessions:
        return None
    dates = dates if isinstance(dates, list) and len(dates) == len(sessions) else [None] * len(sessions)
    parts = []
    for number, (date, session) in enumerate(zip(dates, sessions), start=1):
        if not isinstance(session, list):
            return None
        turns = [f"{turn.get('role')}: {turn.get('content')}" for turn in session
                 if isinstance(turn, dict) and isinstance(turn.get("content"), str)]
        heading = f"Session {number}" + (f" ({date})" if date else "")
        parts.append(heading + ":\n" + "\n".join(turns))
    return "\n\n".join(parts)


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question, answer = item.get("question"), item.get("answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    gold = "" if answer is None or isinstance(answer, (dict, list)) else str(answer).strip()
    history = history_text(item.get("haystack_dates"), item.get("haystack_sessions"))
    if history is None:
        return None, "haystack_sessions must be a non-empty list of sessions"
    qid, kind = str(item.get("question_id") or ""), str(item.get("question_type") or "")
    abstention = qid.endswith("_abs")
    return {"question": question.strip(), "expected_answer": gold, "history": history,
            "question_date": str(item.get("question_date") or "unknown"),
            "judge_rule": ABSTENTION_RULE if abstention else RULES.get(kind, DEFAULT_RULE),
            "metadata": {"question_id": qid, "question_type": kind, "abstention": abstention,
                         "source_index": index}}, None if gold else "missing 'answer'"  # kept and reported


def prepare(ctx: PrepareContext, file: str = "longmemeval_oracle.json") -> Path:
    """`file`: a JSON file of the repository (the oracle file by default)."""
    if "/" in file or not file.endswith(".json"):
        raise GymError(f"longmemeval: file must be a .json file name of the repository, got {file!r}")
    raw = ctx.fetch(f"{BASE}/{file}")
    try:
        items = json.loads(raw.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise GymError(f"{raw}: not a readable JSON file ({exc})") from None
    if not isinstance(items, list):
        raise GymError(f"{raw}: expected a JSON list of questions")
    items = [item if isinstance(item, dict) else {} for item in items]
    return ctx.write_rows(ctx.convert_rows(raw, items, convert, id_field="question_id"))
