"""MMLU-ProX-Lite (li-lab/MMLU-ProX-Lite): the 658-question subset of MMLU-ProX per language, same
layout and prompt templates as MMLU-ProX (see benchmarks/mmlu_prox/prepare.py, whose reader this uses:
lang_libs.py read as data, localised answer phrases regex-escaped)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import chosen_languages, sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "li-lab/MMLU-ProX-Lite"
PROX = sibling_script(__file__, "mmlu_prox", "MMLU-ProX reader")
LANGUAGES = PROX.LANGUAGES


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    return ctx.write_rows(PROX.prox_rows(ctx, REPO, chosen_languages(languages, LANGUAGES, "mmlu_prox_lite")))
