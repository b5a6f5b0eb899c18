"""Retrieval rankings compared with upstream's: equal scores form a set, as upstream breaks ties by directory order."""

from __future__ import annotations


def tie_groups(ranked: list) -> list:
    """[(doc, score), ...] in rank order -> [(score, {docs of that score}), ...], scores rounded to 9 digits."""
    out: list = []
    for doc, score in ranked:
        if out and abs(out[-1][0] - score) < 1e-9:
            out[-1][1].add(doc)
        else:
            out.append((score, {doc}))
    return [(round(score, 9), docs) for score, docs in out]
