"""Rebuild the upstream-format fixtures of the second-wave benchmarks (multilingual ones here, the others in
make_fixtures_judged_and_code.py) under tests/fixtures/upstream/ (mirror layout: <host>/<url path, percent-decoded as an HTTP server reads it>).

    .venv/bin/python tools/make_fixtures_multilingual.py

Each file has the upstream layout (path, parquet column names and types, CSV header, JSON keys); the
content is small and written for the tests (stand-in problems with correct answers, written for gym,
CC0), never copied from the datasets. Output is byte-for-byte reproducible.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = HERE / "upstream"
HF = "https://huggingface.co/datasets"


def target(url: str) -> Path:
    parts = urlsplit(url)
    path = UPSTREAM / parts.netloc / unquote(parts.path).lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def converted(repo: str, config: str, split: str) -> str:
    return f"{HF}/{repo}/resolve/refs%2Fconvert%2Fparquet/{config}/{split}/0000.parquet"


def write_parquet(url: str, columns: list[tuple[str, object]], rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(columns)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), target(url), compression="snappy")


def write_jsonl(url: str, rows: list[dict]) -> None:
    target(url).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def write_csv(url: str, columns: list[str], rows: list[dict]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    target(url).write_text(buffer.getvalue(), encoding="utf-8")


# -- translated math ---------------------------------------------------------------------------------
MATH_PROBLEMS = {
    "de": [("Wie viele positive Teiler hat die Zahl 36?", "9"),
           ("Finde den Rest, wenn $7^{4}$ durch $100$ geteilt wird.", "1")],
    "es": [("¿Cuántos divisores positivos tiene el número 36?", "9"),
           ("Halla el resto de dividir $7^{4}$ entre $100$.", "1")],
    "fr": [("Combien de diviseurs positifs le nombre 36 possède-t-il ?", "9"),
           ("Trouve le reste de la division de $7^{4}$ par $100$.", "1")],
    "ja": [("36 の正の約数はいくつありますか。", "9"), ("$7^{4}$ を $100$ で割った余りを求めよ。", "1")],
}


def translated_math() -> None:
    import pyarrow as pa

    for year in ("24", "25"):
        repo = f"nvidia/Nemotron-Multilinugual-Eval-AIME{year}"
        for language, problems in MATH_PROBLEMS.items():
            rows = [{"id": f"{language}-{i}", "problem": f"(AIME{year}) {p}", "expected_answer": a}
                    for i, (p, a) in enumerate(problems)]
            write_parquet(converted(repo, "default", language),
                          [("id", pa.string()), ("problem", pa.string()), ("expected_answer", pa.string())], rows)


POLYMATH_LANGUAGES = ("ar", "bn", "de", "en", "es", "fr", "id", "it", "ja", "ko", "ms", "pt", "ru", "sw", "te", "th",
                      "vi", "zh")


def polymath() -> None:
    import pyarrow as pa

    for language in POLYMATH_LANGUAGES:
        for number, level in enumerate(("low", "medium", "high", "top")):
            value = 3 + number
            rows = [{"id": f"{level}-{language}-0", "question": f"[{language}] What is {value} + {value}?",
                     "answer": str(2 * value)},
                    {"id": f"{level}-{language}-1", "question": f"[{language}] What is {value} squared?",
                     "answer": str(value * value)}]
            write_parquet(f"{HF}/Qwen/PolyMath/resolve/main/{language}/{level}.parquet",
                          [("id", pa.string()), ("question", pa.string()), ("answer", pa.string())], rows)


GPQA_X = {
    "de": ("Welches Gas macht den größten Teil der Erdatmosphäre aus?", ["Sauerstoff", "Stickstoff", "Argon", "Helium"]),
    "es": ("¿Qué gas forma la mayor parte de la atmósfera terrestre?", ["Oxígeno", "Argón", "Nitrógeno", "Helio"]),
    "fr": ("Quel gaz constitue la plus grande partie de l'atmosphère terrestre ?", ["Azote", "Oxygène", "Argon", "Hélium"]),
    "ja": ("地球の大気で最も多い気体はどれですか。", ["酸素", "アルゴン", "ヘリウム", "窒素"]),
}
GPQA_X_GOLD = {"de": "B", "es": "C", "fr": "A", "ja": "D"}


def gpqa_x() -> None:
    import pyarrow as pa

    columns = [("problem", pa.string()), ("A", pa.string()), ("B", pa.string()), ("C", pa.string()),
               ("D", pa.string()), ("expected_answer", pa.string()), ("uuid", pa.string())]
    for language, (question, options) in GPQA_X.items():
        rows = [{"problem": question, **dict(zip("ABCD", options)), "expected_answer": GPQA_X_GOLD[language],
                 "uuid": f"gpqa-x-{language}-0"},
                {"problem": f"{question} (2)", **dict(zip("ABCD", reversed(options))),
                 "expected_answer": "ABCD"[3 - "ABCD".index(GPQA_X_GOLD[language])], "uuid": f"gpqa-x-{language}-1"}]
        write_parquet(converted("nvidia/Nemotron-Multilinugual-Eval-GPQA", "default", language), columns, rows)


PIQA_CONFIGS = ("acm_arab", "acq_arab", "aeb_arab", "afb_arab", "als_latn", "amh_ethi", "apc_arab_jord",
                "apc_arab_leba", "apc_arab_pale", "apc_arab_syri", "arb_arab", "arq_arab", "ars_arab", "ary_arab",
                "arz_arab", "asm_beng", "azj_latn", "bam_latn", "bel_cyrl", "ben_beng", "ben_latn", "bho_deva",
                "bos_latn", "bsk_arab", "bul_cyrl", "cat_latn", "ces_latn", "ckb_arab", "ckm_latn", "cmn_hans",
                "cmn_hant", "deu_latn", "dhd_deva", "ekk_latn", "ekp_latn", "ell_grek", "eng_latn", "fao_latn",
                "fin_latn", "fra_latn_cana", "fra_latn_fran", "glg_latn", "guj_gujr", "hau_latn", "haw_latn",
                "heb_hebr", "hin_deva", "hrv_latn", "hun_latn", "hye_armn", "ibo_latn", "idu_latn", "ind_latn",
                "isl_latn", "iso_latn", "ita_latn", "jav_latn", "jpn_jpan", "kan_knda", "kat_geor", "kaz_cyrl",
                "kin_latn", "kir_cyrl", "kor_hang", "lin_latn", "lit_latn", "luo_latn", "mal_mlym", "mar_deva",
                "mkd_cyrl", "mni_beng", "mni_mtei", "nag_latn", "nld_latn", "nno_latn", "nob_latn", "npi_deva",
                "pan_guru", "pcm_latn", "pes_arab", "pol_latn", "por_latn_braz", "por_latn_port", "ron_latn",
                "rus_cyrl", "rwr_deva", "sin_sinh", "slk_latn", "slk_latn_sari", "slv_latn", "slv_latn_cerk",
                "snd_arab", "snd_deva", "spa_latn_mexi", "spa_latn_peru", "spa_latn_spai", "srp_cyrl", "srp_latn",
                "swe_latn", "swh_latn", "tam_taml", "tel_telu", "tgl_latn", "tha_thai", "tur_latn", "uig_arab",
                "ukr_cyrl", "urd_arab", "urd_latn", "urh_latn", "uzn_latn", "vie_latn", "yor_latn", "yue_hant",
                "zsm_latn", "zul_latn")  # every config, as the prepare script's CONFIGS


def global_piqa() -> None:
    import pyarrow as pa

    columns = [("prompt", pa.string()), ("solution0", pa.string()), ("solution1", pa.string()), ("label", pa.int64())]
    for number, config in enumerate(PIQA_CONFIGS):
        rows = [{"prompt": f"[{config}] To keep bread fresh for longer,", "solution0": "store it in a sealed bag.",
                 "solution1": "leave it on a sunny windowsill.", "label": 0},
                {"prompt": f"[{config}] To cool a hot drink quickly,", "solution0": "wrap it in a thick towel.",
                 "solution1": "pour it into a wide, shallow cup.", "label": 1}]
        write_parquet(converted("mrlbenchmarks/global-piqa-nonparallel", config, "test"), columns, rows)


LANG_LIBS = {  # 0 question label, 1 options label, 2 answer lead-in, 3 instruction, 4 answer label, 5 answer phrase
    "en": ["Question:", "Options:", "Answer: Let's think step by step.",
           "The following are multiple choice questions (with answers) about {subject}. Think step by step and "
           "then finish your answer with \"{ans_suffix}\" where X is the correct letter choice.",
           "Answer:", "the answer is ({})"],
    "de": ["Frage:", "Optionen:", "Antwort: Denken wir Schritt für Schritt nach.",
           "Im Folgenden eine Multiple-Choice-Frage zum Thema {subject}. Denke Schritt für Schritt nach und "
           "beende deine Antwort mit \"{ans_suffix}\", wobei X der richtige Buchstabe ist.",
           "Antwort:", "Die Antwort ist ({})."],
    "es": ["Pregunta:", "Opciones:", "Respuesta: Pensemos paso a paso.",
           "Lo siguiente es una pregunta de opción múltiple sobre {subject}. Piensa paso a paso y termina con "
           "\"{ans_suffix}\", donde X es la letra correcta.", "Respuesta:", "La respuesta es ({})."],
    "fr": ["Question :", "Options :", "Réponse : Réfléchissons étape par étape.",
           "Voici une question à choix multiple sur {subject}. Réfléchis étape par étape et termine par "
           "\"{ans_suffix}\", où X est la bonne lettre.", "Réponse :", "La réponse est ({})."],
    "it": ["Domanda:", "Opzioni:", "Risposta: Ragioniamo passo dopo passo.",
           "Segue una domanda a scelta multipla su {subject}. Ragiona passo dopo passo e concludi con "
           "\"{ans_suffix}\", dove X è la lettera corretta.", "Risposta:", "La risposta è ({})."],
    "ja": ["質問：", "選択肢：", "回答：一歩一歩考えてみましょう。",
           "以下は{subject}に関する多肢選択問題です。段階的に考え、最後に「{ans_suffix}」と答えてください（Xは正しい選択肢の文字）。",
           "回答：", "答えは ({}) です。"],
}
# MMLU-ProX's other 23 languages: the English templates stand in (the layout is what the tests need)
PROX_OTHERS = ("af", "ar", "bn", "cs", "hi", "hu", "id", "ko", "mr", "ne", "pt", "ru", "sr", "sw", "te", "th", "uk",
               "ur", "vi", "wo", "yo", "zh", "zu")
LANG_LIBS.update({language: LANG_LIBS["en"] for language in PROX_OTHERS})
LANG_SUBJECTS = {language: {"law": {"de": "Recht", "es": "derecho", "fr": "droit", "it": "diritto",
                                    "ja": "法律"}.get(language, "law"),
                            "computer_science": {"de": "Informatik", "es": "informática", "fr": "informatique",
                                                 "it": "informatica", "ja": "計算機科学"}.get(language, "computer science")}
                 for language in LANG_LIBS}


def mmlu_prox() -> None:
    import pyarrow as pa

    url = ("https://raw.githubusercontent.com/EleutherAI/lm-evaluation-harness/refs/heads/main/"
           "lm_eval/tasks/mmlu_prox/lang_libs.py")
    target(url).write_text("# Prompt templates per language (fixture written for gym's tests).\n\n"
                           f"LANG_LIBS = {json.dumps(LANG_LIBS, ensure_ascii=False, indent=4)}\n\n"
                           f"LANG_SUBJECTS = {json.dumps(LANG_SUBJECTS, ensure_ascii=False, indent=4)}\n",
                           encoding="utf-8")
    columns = [("question_id", pa.int64()), ("question", pa.string())]
    columns += [(f"option_{i}", pa.string()) for i in range(10)]
    columns += [("answer", pa.string()), ("answer_index", pa.int64()), ("cot_content", pa.string()),
                ("category", pa.string()), ("src", pa.string())]
    for language in LANG_LIBS:
        options = [f"{language}-{i}" for i in range(10)]
        short = [f"{language}-short-{i}" for i in range(4)] + [None] * 6
        rows = [{"question_id": 1, "question": f"[{language}] Which binary number equals decimal 5?",
                 **{f"option_{i}": text for i, text in enumerate(options)}, "answer": "F", "answer_index": 5,
                 "cot_content": "", "category": "computer science", "src": "stand-in"},
                {"question_id": 2, "question": f"[{language}] Which body makes federal laws in a parliament?",
                 **{f"option_{i}": text for i, text in enumerate(short)}, "answer": "B", "answer_index": 1,
                 "cot_content": "", "category": "law", "src": "stand-in"}]
        write_parquet(converted("li-lab/MMLU-ProX", language, "test"), columns, rows)
        if language not in PROX_OTHERS:  # the lite version's six default languages
            write_parquet(converted("li-lab/MMLU-ProX-Lite", language, "test"), columns, rows[:1])


def mgsm() -> None:
    for number, language in enumerate(("bn", "de", "en", "es", "fr", "ja", "ru", "sw", "te", "th", "zh")):
        apples = 3 + number
        lines = [f"[{language}] Mia has {apples} apples and buys 5 more. How many apples does she have now?\t{apples + 5}",
                 f"[{language}] A box holds 12 eggs. How many eggs are in {number + 2} boxes?\t{12 * (number + 2)}"]
        target(f"https://openaipublic.blob.core.windows.net/simple-evals/mgsm_{language}.tsv").write_text(
            "\n".join(lines) + "\n", encoding="utf-8")


def global_mmlu_lite() -> None:
    import pyarrow as pa

    columns = [("sample_id", pa.string()), ("subject", pa.string()), ("subject_category", pa.string()),
               ("question", pa.string()), ("option_a", pa.string()), ("option_b", pa.string()),
               ("option_c", pa.string()), ("option_d", pa.string()), ("answer", pa.string()),
               ("cultural_sensitivity_label", pa.string())]
    for language in ("ar", "bn", "de", "en", "es", "fr", "hi", "id", "it", "ja", "ko", "my", "pt", "sw", "yo", "zh"):
        rows = [{"sample_id": f"astronomy/test/{language}-0", "subject": "astronomy", "subject_category": "STEM",
                 "question": f"[{language}] Which planet is closest to the Sun?", "option_a": "Venus",
                 "option_b": "Mercury", "option_c": "Mars", "option_d": "Earth", "answer": "B",
                 "cultural_sensitivity_label": "CA"},
                {"sample_id": f"world_religions/test/{language}-1", "subject": "world_religions",
                 "subject_category": "Humanities", "question": f"[{language}] Which festival is known as the festival of lights?",
                 "option_a": "Holi", "option_b": "Eid", "option_c": "Diwali", "option_d": "Vesak", "answer": "C",
                 "cultural_sensitivity_label": "CS"}]
        write_parquet(converted("CohereLabs/Global-MMLU-Lite", language, "test"), columns, rows)


def belebele() -> None:
    import pyarrow as pa

    columns = [("link", pa.string()), ("question_number", pa.int64()), ("flores_passage", pa.string()),
               ("question", pa.string()), ("mc_answer1", pa.string()), ("mc_answer2", pa.string()),
               ("mc_answer3", pa.string()), ("mc_answer4", pa.string()), ("correct_answer_num", pa.string()),
               ("dialect", pa.string()), ("ds", pa.string())]
    for config in ("eng_Latn", "deu_Latn", "fra_Latn", "spa_Latn", "por_Latn", "ita_Latn", "rus_Cyrl", "arb_Arab",
                   "hin_Deva", "ben_Beng", "jpn_Jpan", "kor_Hang", "zho_Hans", "swh_Latn", "yor_Latn", "tha_Thai"):
        passage = (f"[{config}] The river town built a new bridge in 1990. Before that, people crossed by ferry, "
                   "which ran every hour from spring to autumn.")
        rows = [{"link": "https://example.org/passage-1", "question_number": 1, "flores_passage": passage,
                 "question": f"[{config}] How did people cross the river before 1990?", "mc_answer1": "By bridge",
                 "mc_answer2": "By ferry", "mc_answer3": "By swimming", "mc_answer4": "They did not cross",
                 "correct_answer_num": "2", "dialect": config, "ds": "2023-05-03"},
                {"link": "https://example.org/passage-1", "question_number": 2, "flores_passage": passage,
                 "question": f"[{config}] When was the bridge built?", "mc_answer1": "1980", "mc_answer2": "1985",
                 "mc_answer3": "1995", "mc_answer4": "1990", "correct_answer_num": "4", "dialect": config,
                 "ds": "2023-05-03"}]
        write_parquet(converted("facebook/belebele", config, "test"), columns, rows)


def livecodebench_x() -> None:
    """Translations of problems in the livecodebench fixture (its release files hold abc366_b, 3250, 2031_c, 3500)."""
    import pyarrow as pa

    columns = [("task_id", pa.string()), ("question", pa.string()), ("release_version", pa.string())]
    for version, task_ids in (("v5", ["abc366_b", "2031_c"]), ("v6", ["3250", "3500"])):
        for language in ("de", "es", "fr", "ja"):
            rows = [{"task_id": task_id, "question": f"[{language}] Übersetzte Aufgabe {task_id} ({version}).",
                     "release_version": version} for task_id in task_ids]
            write_parquet(converted("nvidia/Nemotron-Multilinugual-Eval-LCB", version, language), columns, rows)


BUILDERS = [translated_math, polymath, gpqa_x, global_piqa, mmlu_prox, mgsm, global_mmlu_lite, belebele,
            livecodebench_x]


def main() -> None:
    import make_fixtures_judged_and_code  # the judge-graded, code and other second-wave benchmarks

    for build in BUILDERS + make_fixtures_judged_and_code.BUILDERS:
        build()


if __name__ == "__main__":
    main()
