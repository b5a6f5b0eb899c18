"""What the τ² banking tests share: each form prepared offline from the fixture mirror, and retrieval rankings
compared with upstream's (equal scores form a set, as upstream breaks ties by directory order)."""

from __future__ import annotations

from pathlib import Path

from gym.data.prepare_context import PrepareContext
from gym.episodes.tau2.banking.prepare import prepare_banking

MIRROR = Path(__file__).resolve().parent / "fixtures" / "upstream"


def prepare_form(tmp_path_factory, form: str) -> Path:
    """The rows file of banking form `form` (bm25_grep, terminal_use, alltools), prepared in a fresh dir."""
    name = f"banking_{form}"
    out = tmp_path_factory.mktemp("banking") / f"{name}.jsonl"
    ctx = PrepareContext(name=name, output_path=out, mirror=str(MIRROR), offline=True, progress=False)
    return prepare_banking(ctx, form)


def tie_groups(ranked: list) -> list:
    """[(doc, score), ...] in rank order -> [(score, {docs of that score}), ...], scores rounded to 9 digits."""
    out: list = []
    for doc, score in ranked:
        if out and abs(out[-1][0] - score) < 1e-9:
            out[-1][1].add(doc)
        else:
            out.append((score, {doc}))
    return [(round(score, 9), docs) for score, docs in out]
