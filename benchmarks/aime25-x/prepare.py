"""AIME 2025 translated (nvidia/Nemotron-Multilinugual-Eval-AIME25): the same layout and rows as
aime24-x (see there), for the 30 problems of 2025 in de, es, fr and ja."""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_translated_math

REPO = "nvidia/Nemotron-Multilinugual-Eval-AIME25"
LANGUAGES = ("de", "es", "fr", "ja")


def prepare(ctx, languages: list[str] | None = None) -> Path:
    return prepare_translated_math(ctx, REPO, LANGUAGES, languages)
