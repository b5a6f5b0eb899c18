"""MMLU-ProX-Lite (li-lab/MMLU-ProX-Lite): the 658-question subset of MMLU-ProX per language, same
layout and prompt templates as MMLU-ProX (see benchmarks/mmlu_prox/prepare.py, whose reader this uses:
lang_libs.py read as data, localised answer phrases regex-escaped)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from gym.errors import GymError
from gym.multilingual import chosen_languages

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

REPO = "li-lab/MMLU-ProX-Lite"


def _prox():
    path = Path(__file__).resolve().parent.parent / "mmlu_prox" / "prepare.py"
    if not path.is_file():
        raise GymError(f"mmlu_prox_lite needs the MMLU-ProX reader in {path}")
    spec = importlib.util.spec_from_file_location("gym_prepare_mmlu_prox_reader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROX = _prox()
LANGUAGES = PROX.LANGUAGES


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    return ctx.write_rows(PROX.prox_rows(ctx, REPO, chosen_languages(languages, LANGUAGES, "mmlu_prox_lite")))
