"""Global PIQA, non-parallel part (mrlbenchmarks/global-piqa-nonparallel): physical commonsense questions
written natively in 100+ language varieties; each has a prompt and two solutions, one of them right.

One config per language variety (e.g. eng_latn, deu_latn, jpn_jpan), split test, read from Hugging
Face's parquet conversion; columns prompt, solution0, solution1, label (0 or 1). Prepared rows:

    {"question": <prompt>, "options": {"A": <solution0>, "B": <solution1>}, "expected_answer": "B",
     "metadata": {"language": "deu_latn", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "mrlbenchmarks/global-piqa-nonparallel"
# Every language variety of the dataset (its config names but the dev ones, as lm-evaluation-harness lists
# them): the reference prepares all of them by default.
CONFIGS = ("acm_arab", "acq_arab", "aeb_arab", "afb_arab", "als_latn", "amh_ethi", "apc_arab_jord", "apc_arab_leba",
           "apc_arab_pale", "apc_arab_syri", "arb_arab", "arq_arab", "ars_arab", "ary_arab", "arz_arab", "asm_beng",
           "azj_latn", "bam_latn", "bel_cyrl", "ben_beng", "ben_latn", "bho_deva", "bos_latn", "bsk_arab",
           "bul_cyrl", "cat_latn", "ces_latn", "ckb_arab", "ckm_latn", "cmn_hans", "cmn_hant", "deu_latn",
           "dhd_deva", "ekk_latn", "ekp_latn", "ell_grek", "eng_latn", "fao_latn", "fin_latn", "fra_latn_cana",
           "fra_latn_fran", "glg_latn", "guj_gujr", "hau_latn", "haw_latn", "heb_hebr", "hin_deva", "hrv_latn",
           "hun_latn", "hye_armn", "ibo_latn", "idu_latn", "ind_latn", "isl_latn", "iso_latn", "ita_latn",
           "jav_latn", "jpn_jpan", "kan_knda", "kat_geor", "kaz_cyrl", "kin_latn", "kir_cyrl", "kor_hang",
           "lin_latn", "lit_latn", "luo_latn", "mal_mlym", "mar_deva", "mkd_cyrl", "mni_beng", "mni_mtei",
           "nag_latn", "nld_latn", "nno_latn", "nob_latn", "npi_deva", "pan_guru", "pcm_latn", "pes_arab",
           "pol_latn", "por_latn_braz", "por_latn_port", "ron_latn", "rus_cyrl", "rwr_deva", "sin_sinh", "slk_latn",
           "slk_latn_sari", "slv_latn", "slv_latn_cerk", "snd_arab", "snd_deva", "spa_latn_mexi", "spa_latn_peru",
           "spa_latn_spai", "srp_cyrl", "srp_latn", "swe_latn", "swh_latn", "tam_taml", "tel_telu", "tgl_latn",
           "tha_thai", "tur_latn", "uig_arab", "ukr_cyrl", "urd_arab", "urd_latn", "urh_latn", "uzn_latn",
           "vie_latn", "yor_latn", "yue_hant", "zsm_latn", "zul_latn")


def convert(item: dict[str, Any], index: int, language: str) -> tuple[dict[str, Any] | None, str | None]:
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    solutions = [item.get("solution0"), item.get("solution1")]
    if not all(isinstance(s, str) and s.strip() for s in solutions):
        return None, "solution0 and solution1 must be non-empty strings"
    label = item.get("label")
    if isinstance(label, str) and label.strip().isdigit():
        label = int(label)
    if label not in (0, 1) or isinstance(label, bool):
        return None, f"label {label!r} is not 0 or 1"
    return {"question": prompt.strip(), "options": {"A": solutions[0].strip(), "B": solutions[1].strip()},
            "expected_answer": "AB"[label], "metadata": {"language": language, "source_index": index}}, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    chosen = CONFIGS if languages is None else ([languages] if isinstance(languages, str) else languages)
    rows = []
    for language in dict.fromkeys(str(language).strip().lower() for language in chosen):
        raw = ctx.fetch(hf_converted_parquet(REPO, language, "test"))
        items = ctx.read_parquet(raw, required=("prompt", "solution0", "solution1", "label"), layout=f"{REPO} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language)))
    return ctx.write_rows(rows)
