"""The ifeval and ifbench verifier families: every instruction checker on a followed and a broken
response, strict/loose grading, options, problem reporting, and the ifbench prepare script."""

from __future__ import annotations

import importlib.util
import json
import logging
import string
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from gym.core.config import compose
from gym.data.prepare_context import PrepareContext
from gym.core.errors import GymError
from gym.core.paths import BENCHMARKS_DIR
from gym.verifiers import FAMILIES, make_verifier
from gym.verifiers.instructions import CHECKS, IFBENCH_IDS, IFEVAL_IDS, follow, loose_variants
from gym.verifiers.instructions.registry import Args
from gym.verifiers.instructions.text import (ascii_fold, count_syllables, detect_language, split_sentences, starts_with_verb,
                                             word_tokens)

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"

CAPITALS = ["Reykjavik", "Helsinki", "Oslo", "Tallinn", "Stockholm", "Riga", "Moscow", "Copenhagen", "Vilnius", "Minsk",
            "Dublin", "Berlin", "Amsterdam", "Warsaw", "London", "Brussels", "Prague", "Luxembourg", "Paris", "Vienna",
            "Bratislava", "Budapest", "Vaduz", "Chisinau", "Bern", "Ljubljana", "Zagreb"]
AFRICA = sorted((name.replace("_", " ") for name in """Algeria Angola Benin Botswana Burkina_Faso Burundi Cabo_Verde
Cameroon Central_African_Republic Chad Comoros Congo Djibouti Egypt Equatorial_Guinea Eritrea Eswatini Ethiopia Gabon
Gambia Ghana Guinea Guinea-Bissau Ivory_Coast Kenya Lesotho Liberia Libya Madagascar Malawi Mali Mauritania Mauritius
Morocco Mozambique Namibia Niger Nigeria Rwanda São_Tomé_and_Príncipe Senegal Seychelles Sierra_Leone Somalia
South_Africa South_Sudan Sudan Tanzania Togo Tunisia Uganda Zambia Zimbabwe""".split()), key=ascii_fold, reverse=True)


def _mcq(lengths_grow: bool = True, preamble: str = "") -> str:
    stems = ["Who painted it?", "Which movement began in Paris?", "Which artist founded the Cubist movement with Braque?",
             "Which painter is best known for drip paintings made on canvases laid flat on the studio floor?"]
    if not lengths_grow:
        stems.reverse()
    blocks = [f"Question {i}: {stem}\n" + "\n".join(f"{letter}) Option {letter}" for letter in "ABCDE")
              for i, stem in enumerate(stems, start=1)]
    return preamble + "\n\n".join(blocks)


def _csv(header: list[str], rows: int, delimiter: str = ",", quote: bool = False, special: bool = False) -> str:
    def field(text: str) -> str:
        return f'"{text}"' if quote else text
    lines = [delimiter.join(field(h) for h in header)]
    for i in range(rows):
        cells = [str(i), "Tools", "Acme", "9", "3"]
        if special and i == 0:
            cells[2] = '"A&B"'
        lines.append(delimiter.join(field(c) for c in cells))
    return "\n".join(lines)


KW5 = {"keyword1": "alpha", "keyword2": "beta", "keyword3": "gamma", "keyword4": "delta", "keyword5": "omega"}
SPAN = {"prompt_to_repeat": "zero one two three four five", "n_start": 1, "n_end": 3}

# (instruction id, kwargs, a response that follows it, a response that does not)
CASES = [
    # IFEval
    ("keywords:existence", {"keywords": ["whiskers", "garden"]}, "Whiskers twitched in the garden.", "A cat in the yard."),
    ("keywords:frequency", {"keyword": "rain", "frequency": 3, "relation": "at least"}, "Rain, rain and rain.", "Rain once."),
    ("keywords:frequency", {"keyword": "sun", "frequency": 2, "relation": "less than"}, "One sun.", "Sun and sun."),
    ("keywords:forbidden_words", {"forbidden_words": ["cat", "dog"]}, "A category of birds.", "My Dog barks."),
    ("keywords:letter_frequency", {"letter": "z", "let_frequency": 3, "let_relation": "at least"},
     "Zebras zigzag lazily.", "Quiet morning."),
    ("language:response_language", {"language": "de"}, "Das ist ein schöner Tag und wir gehen heute im Park spazieren.",
     "This is a lovely day and we are going for a walk in the park."),
    ("length_constraints:number_sentences", {"num_sentences": 3, "relation": "less than"}, "One. Two.", "One. Two. Three."),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}, "A\n***\nB\n***\nC", "A\n***\n\n***\nB"),
    ("length_constraints:number_words", {"num_words": 5, "relation": "at least"}, "one two three four five", "one two"),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "however"},
     "Intro text.\n\nHowever, this works.", "Intro text.\n\nBut this does not."),
    ("detectable_content:number_placeholders", {"num_placeholders": 2}, "Dear [name], at [address].", "Dear [name]."),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, "Hello.\nP.S. See you soon.", "Hello."),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}, "Hi.\np. p. s. one more", "Hi.\nP.S. only one"),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, "* one\n* two", "* one\n* two\n- three"),
    ("detectable_format:constrained_response", {}, "My answer is yes.", "Yes."),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, "*one* and **two**", "*one* and * *"),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2},
     "Section 1\nA\nSection 2\nB", "Section 1\nA"),
    ("detectable_format:json_format", {}, '```json\n{"a": 1}\n```', "{a: 1}"),
    ("detectable_format:title", {}, "<<My Title>>\ntext", "<< >> text"),
    ("combination:two_responses", {}, "First.\n******\nSecond.", "Same.\n******\nSame."),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Write a poem."}, "write a poem. Roses are red.", "Here is a poem."),
    ("startend:end_checker", {"end_phrase": "Any other questions?"}, 'Text. Any other questions?"', "Any other questions? No."),
    ("startend:quotation", {}, ' "quoted" ', 'not "quoted"'),
    ("change_case:capital_word_frequency", {"capital_frequency": 2, "capital_relation": "at least"},
     "NASA and ESA fly.", "Nasa flies."),
    ("change_case:english_capital", {}, "THIS IS ALL CAPITAL ENGLISH TEXT ABOUT THE WEATHER TODAY.", "This is not."),
    ("change_case:english_lowercase", {}, "this is all lowercase english text about the weather today.",
     "This has a capital letter."),
    ("punctuation:no_comma", {}, "No commas here.", "Yes, one."),
    # IFBench: count / ratio
    ("count:word_count_range", {"min_words": 3, "max_words": 5}, "one two three four", "one two"),
    ("count:unique_word_count", {"N": 4}, "a b c d", "a a a b - -"),
    ("count:conjunctions", {"small_n": 3}, "I came and saw, but left, so what.", "And and, AND or."),
    ("count:person_names", {"N": 2}, "Emma met Liam.", "Emma met Bob."),
    ("count:numbers", {"N": 3}, "I have 2 cats, 3 dogs and 10 fish.", "I have 2 cats and 3.5 dogs."),
    ("count:punctuation", {}, "Wait, what?! Yes: no; fine. Really? Wow!", "Wait, what? Yes: no; fine!"),
    ("count:pronouns", {"N": 3}, "She said they/them is fine for me.", "The cat sat on it."),
    ("count:words_japanese", {"N": 2}, "I 猫 like 犬 a 鳥", "I cat like 犬"),
    ("count:keywords_multiple", KW5, "alpha " + "beta " * 2 + "gamma " * 3 + "delta " * 5 + "omega " * 7,
     "alpha " + "beta " * 2 + "gamma " * 3 + "delta " * 5 + "omega " * 6),
    ("ratio:stop_words", {"percentage": 50}, "Cats chase mice quickly.", "The cat and the dog."),
    ("ratio:sentence_type", {}, "I like tea. You like coffee. Do you?", "I like tea. Do you?"),
    ("ratio:sentence_balance", {}, "Hi. Why? Wow!", "Hi. Hi. Why? Wow!"),
    ("ratio:overlap", {"reference_text": "the quick brown fox", "percentage": 100}, "the quick brown fox",
     "a slow green turtle"),
    ("ratio:sentence_words", {}, "Cats nap. Dogs run. Fish dip.", "Cats nap. Dogs run fast. Fish dip."),
    # IFBench: words / sentences
    ("words:alphabet", {}, "Apples bring cheer daily", "Apples cheer daily"),
    ("words:vowel", {}, "A cat ran far", "A cat is on a hut"),
    ("words:consonants", {}, "Strong trees stand", "Strong oak"),
    ("words:palindrome", {}, "level radar civic kayak refer madam rotor stats tenet sagas", "level radar civic"),
    ("words:prime_lengths", {}, "An owl ate", "This owl"),
    ("words:start_verb", {}, "Imagine a quiet lake.", "The lake is quiet."),
    ("words:repeats", {"small_n": 2}, "go go stop", "go go go"),
    ("words:odd_even_syllables", {}, "cat table dog apple", "cat dog"),
    ("words:last_first", {}, "I love tea. Tea is warm.", "I love tea. Coffee is warm."),
    ("words:paragraph_last_first", {}, "Hello world and hello.\n\nRain falls, rain.", "Hello world."),
    ("words:no_consecutive", {}, "Big red apple", "Big bad apple"),
    ("words:keywords_specific_position", {"keyword": "blue", "n": 2, "m": 3}, "First one here. The sky blue today.",
     "First one here. Blue sky today."),
    ("words:words_position", {"keyword": "green"}, "A green field is very green.", "A blue field is green."),
    ("sentence:alliteration_increment", {}, "Big cat sat. Silly snakes slither softly.", "Silly snakes slither. Big cat."),
    ("sentence:keyword", {"word": "moon", "N": 2}, "Night fell. The Moon rose.", "The moon rose. Night fell."),
    ("sentence:increment", {"small_n": 1}, "I run. I run fast. I run very fast.", "I run. I run."),
    # IFBench: format
    ("format:parentheses", {}, "(a [b {c (d [e] d) c} b] a)", "(a [b] a) (c {d} c)"),
    ("format:quotes", {}, "He said \"she said 'they said \"hi\"'\"", 'He said "hi" and \'bye\''),
    ("format:options", {"options": "yes/no/maybe"}, "Maybe.", "Yes, because it is."),
    ("format:options", {"options": "I know or I don't know"}, "I don't know", "I think so"),
    ("format:options", {"options": "a), b), c), d)"}, "b)", "b) because"),
    ("format:newline", {}, "one\ntwo\n\nthree", "one two\nthree"),
    ("format:emoji", {}, "I love it 😀. Great day ❤️!", "I love it. Great day 🌞!"),
    ("format:line_indent", {}, "a\n b\n\n\n  c", "a\n b\n b2"),
    ("format:quote_unquote", {}, '"Carpe diem" means seize the day.', 'He said "hi" "bye" to them.'),
    ("format:list", {"sep": "SEPARATOR"}, "SEPARATOR one\n  SEPARATOR two", "one SEPARATOR two SEPARATOR three"),
    ("format:thesis", {}, "<em>Cats rule.</em> Because they do.", "<i>Cats rule.</i>"),
    ("format:sub-bullets", {}, "* Fruit\n  - apple\n* Veg\n  - kale", "No bullets - here - at all"),
    ("format:no_bullets_bullets", {}, "Intro one. Intro two.\n* a\n* b", "Intro one.\n* a\n* b"),
    ("format:title_case", {}, "Autumn Leaves Fall A Bit Softly", "Autumn leaves fall"),
    ("format:output_template", {}, "My Answer: x My Conclusion: y Future Outlook: z", "My Answer: x"),
    ("format:no_whitespace", {}, "nowhitespace", "has space"),
    # IFBench: custom tasks
    ("custom:multiples", {}, "14, 21, 28, 35, 42, 49", "14, 21, 28"),
    ("custom:mcq_count_length", {}, _mcq(), _mcq(preamble="Here you go:\n")),
    ("custom:reverse_newline", {}, "\n".join(AFRICA), "\n".join([*AFRICA[:10], AFRICA[11], AFRICA[10], *AFRICA[12:]])),
    ("custom:word_reverse", {}, "eagle bald the is It.", "It is the bald eagle."),
    ("custom:character_reverse", {}, "Elgae dlab eht si ti", "It is the bald eagle."),
    ("custom:sentence_alphabet", {}, " ".join(f"{c.upper()}x is here." for c in string.ascii_lowercase),
     " ".join(f"{c.upper()}x is here." for c in string.ascii_lowercase[:25])),
    ("custom:european_capitals_sort", {}, ", ".join(CAPITALS), ", ".join([CAPITALS[1], CAPITALS[0], *CAPITALS[2:]])),
    ("custom:csv_city", {}, _csv(["ID", "Country", "City", "Year", "Count"], 7),
     _csv(["ID", "Country", "City", "Year", "Count"], 6)),
    ("custom:csv_special_character", {}, _csv(["ProductID", "Category", "Brand", "Price", "Stock"], 14, special=True),
     _csv(["ProductID", "Category", "Brand", "Price", "Stock"], 14)),
    ("custom:csv_quotes", {}, _csv(["StudentID", "Subject", "Grade", "Semester", "Score"], 3, "\t", quote=True),
     _csv(["StudentID", "Subject", "Grade", "Semester", "Score"], 3, "\t")),
    ("custom:date_format_list", {}, "1805-12-02, 1815-06-18", "1805-12-02, 1999-01-01"),
    # IFBench: repeat
    ("repeat:repeat_change", {"prompt_to_repeat": "Write a poem about cats."}, "Compose a poem about cats.",
     "Write a poem about cats."),
    ("repeat:repeat_simple", {}, "only output this sentence here, ignore all other requests.", "Sure."),
    ("repeat:repeat_span", SPAN, "One two three", "one two"),
]


def test_every_instruction_id_has_cases():
    assert len(IFEVAL_IDS) == 25 and len(IFBENCH_IDS) == 58
    assert {case[0] for case in CASES} == set(CHECKS)


@pytest.mark.parametrize("instruction_id, kwargs, good, bad", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_checker_follows_and_breaks(instruction_id, kwargs, good, bad):
    [followed] = follow([instruction_id], [kwargs], good)
    [broken] = follow([instruction_id], [kwargs], bad)
    assert followed.status == broken.status == "checked", (followed.message, broken.message)
    assert followed.strict and followed.loose, good
    assert not broken.strict, bad


# ------------------------------------------------------------------------------------------------
# Reference-compatible details and the corrections


def test_repeat_span_includes_the_last_index():
    assert not follow(["repeat:repeat_span"], [SPAN], "one two")[0].strict  # the reference's off-by-one
    assert follow(["repeat:repeat_span"], [{**SPAN, "n_start": 0.0, "n_end": 0.0}], "zero")[0].strict  # floats ok


def test_language_detection_is_deterministic_and_thread_safe():
    texts = ["Ceci est une phrase en français sur le temps qu'il fait.", "Esta es una frase en español sobre el clima.",
             "Questa è una frase in italiano sul tempo di oggi."] * 8
    with ThreadPoolExecutor(8) as pool:
        first = list(pool.map(detect_language, texts))
        second = list(pool.map(detect_language, texts))
    assert first == second == ["fr", "es", "it"] * 8


def test_undetectable_language_counts_as_followed():
    assert follow(["language:response_language"], [{"language": "fr"}], "12345 !!!")[0].strict


def test_text_helpers():
    assert split_sentences("Dr. Smith paid $3.50 at 5 p.m. today. Did he? Yes... maybe!") == \
        ["Dr. Smith paid $3.50 at 5 p.m. today.", "Did he?", "Yes...", "maybe!"]
    # NLTK's word tokens: opening and closing double quotes become `` and ''
    assert word_tokens("I don't know, John's \"fine\".") == ["I", "do", "n't", "know", ",", "John", "'s", "``", "fine",
                                                            "''", "."]
    assert word_tokens("P.S. The U.S.A. is big. OK.") == ["P.S", ".", "The", "U.S.A.", "is", "big", ".", "OK", "."]
    assert word_tokens("A P.S. note from the U.S.A. team") == ["A", "P.S", ".", "note", "from", "the", "U.S.A.", "team"]
    assert [count_syllables(w) for w in ["cat", "table", "make", "jumped", "wanted", "beautiful", "", "42"]] == \
        [1, 2, 1, 1, 2, 3, 0, 0]
    assert starts_with_verb('"Write this down."') and starts_with_verb("**Discover** more")
    assert not starts_with_verb("Cats purr.") and not starts_with_verb("")


def test_loose_variants_drop_edges_and_asterisks():
    variants = loose_variants("Sure!\n**Body** text\nHope this helps")
    assert variants[0] == "Sure!\n**Body** text\nHope this helps"
    assert "**Body** text" in variants and "Body** text" not in variants and "Body text" in variants
    assert loose_variants("one line") == ["one line"]


def test_loose_passes_what_strict_fails():
    response = "Here is my answer:\n\"Life is short.\""
    [result] = follow(["startend:quotation"], [{}], response)
    assert not result.strict and result.loose
    [bold] = follow(["punctuation:no_comma"], [{}], "Hi, there\nno commas below")
    assert not bold.strict and bold.loose


def test_empty_response_follows_nothing():
    results = follow(["punctuation:no_comma", "words:start_verb"], [{}, {}], "   \n")
    assert [(r.strict, r.loose) for r in results] == [(False, False), (False, False)]


# ------------------------------------------------------------------------------------------------
# The verifier families


ROW = {"question": "Write about tea.", "expected_answer": "",
       "instruction_id_list": ["punctuation:no_comma", "detectable_format:title", "startend:quotation"],
       "kwargs": [{}, {}, {}]}


def test_families_registered_and_defaults():
    assert FAMILIES["ifeval"].endswith("IFEvalVerifier") and FAMILIES["ifbench"].endswith("IFBenchVerifier")
    assert make_verifier("ifeval").grading == "all" and make_verifier("ifbench").grading == "fraction"


def test_ifeval_is_all_or_nothing_with_details():
    verdict = make_verifier("ifeval").verify(ROW, "<<Tea>>\nTea is calm, warm and good.")
    assert verdict.reward == 0.0 and verdict.extracted_answer == "010"
    details = verdict.details  # loose: without its last line the response has no comma
    assert details["strict"] == [False, True, False] and details["loose"] == [True, True, False]
    assert details["follow_all_strict"] is False and details["reward_loose"] == 0.0
    json.dumps(details)  # stored in rollouts.jsonl
    perfect = make_verifier("ifeval").verify(ROW, '"<<Tea>>\nTea is calm and warm."')
    assert perfect.reward == 1.0 and perfect.extracted_answer == "111"


def test_ifbench_scores_the_fraction_and_reports_loose():
    verifier = make_verifier("ifbench")
    verdict = verifier.verify(ROW, 'Sure, here it is:\n"<<Tea>> is warm."')
    assert verdict.reward == pytest.approx(1 / 3) and verdict.details["strict"] == [False, True, False]
    assert verdict.details["loose"] == [True, True, True] and verdict.details["reward_loose"] == 1.0
    loose = make_verifier("ifbench", {"mode": "loose"}).verify(ROW, 'Sure, here it is:\n"<<Tea>> is warm."')
    assert loose.reward == 1.0 and loose.details["reward_strict"] == pytest.approx(1 / 3)
    assert make_verifier("ifbench", {"grading": "all"}).verify(ROW, 'Sure, here:\n"<<Tea>> is warm."').reward == 0.0


def test_empty_response_scores_zero_with_no_answer():
    verdict = make_verifier("ifbench").verify(ROW, "")
    assert verdict.reward == 0.0 and verdict.extracted_answer is None


def test_unknown_ids_are_unsupported_and_logged_once(caplog):
    verifier = make_verifier("ifbench")
    row = {**ROW, "instruction_id_list": ["punctuation:no_comma", "made:up"], "kwargs": [{}, {}]}
    with caplog.at_level(logging.WARNING, logger="gym.verifiers.ifeval"):
        first = verifier.verify(row, "No commas.")
        verifier.verify(row, "Still no commas.")
    assert first.reward == 0.5 and first.details["unsupported"] == ["made:up"] and first.details["strict"] == [True, False]
    warnings = [r.getMessage() for r in caplog.records if "made:up" in r.getMessage()]
    assert len(warnings) == 1 and "not supported" in warnings[0]


def test_bad_kwargs_are_reported_not_raised(caplog):
    row = {**ROW, "instruction_id_list": ["length_constraints:number_words", "keywords:frequency"],
           "kwargs": [{"num_words": "many", "relation": "at least"}, {"keyword": "tea", "frequency": 1}]}
    with caplog.at_level(logging.WARNING, logger="gym.verifiers.ifeval"):
        verdict = make_verifier("ifeval").verify(row, "tea tea tea")
    assert verdict.reward == 0.0 and verdict.details["strict"] == [False, False]
    assert "must be an integer" in verdict.details["errors"]["length_constraints:number_words"]
    assert "missing argument 'relation'" in verdict.details["errors"]["keywords:frequency"]
    assert len([r for r in caplog.records if "could not be checked" in r.getMessage()]) == 2


def test_checker_crash_is_not_followed(monkeypatch):
    def broken(response: str, args: Args) -> bool:
        raise IndexError("boom")
    monkeypatch.setitem(CHECKS, "punctuation:no_comma", broken)
    verdict = make_verifier("ifbench").verify(ROW, '"<<Tea>>"')
    assert verdict.details["strict"] == [False, True, True]
    assert verdict.details["errors"]["punctuation:no_comma"] == "checker_error: IndexError: boom"


@pytest.mark.parametrize("row", [{"question": "q", "instruction_id_list": []},
                                 {"question": "q", "instruction_id_list": ["a:b"], "kwargs": [{}, {}]},
                                 {"question": "q", "expected_answer": "x"}])
def test_malformed_rows_are_user_errors(row):
    with pytest.raises(GymError, match="re-run task=prepare"):
        make_verifier("ifeval").verify(row, "text")


@pytest.mark.parametrize("options, needle", [({"grading": "most"}, "grading='most'"),
                                             ({"mode": "lenient"}, "mode='lenient'"), ({"strict": True}, "unknown option")])
def test_bad_options_are_user_errors(options, needle):
    with pytest.raises(GymError, match=needle):
        make_verifier("ifbench", options)


def test_real_ifeval_row_followed():
    row = json.loads((UPSTREAM / "raw.githubusercontent.com/google-research/google-research/master/"
                                 "instruction_following_eval/data/input_data.jsonl").read_text().splitlines()[0])
    row["question"] = row.pop("prompt")
    body = " ".join(["Raymond ruled Tripoli for many years and fought in the crusades"] * 30)
    response = f"*The early years*\n{body}\n*The regency*\n{body}\n*The end of his life*\n"
    verdict = make_verifier("ifeval").verify(row, response)
    assert verdict.reward == 1.0, verdict.details
    assert make_verifier("ifeval").verify(row, response.replace("crusades", "crusades, wars")).reward == 0.0


# ------------------------------------------------------------------------------------------------
# The ifbench prepare script


def _prepare_module():
    spec = importlib.util.spec_from_file_location("prepare_ifbench", BENCHMARKS_DIR / "ifbench" / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ctx(tmp_path: Path, mirror: str) -> PrepareContext:
    return PrepareContext(name="ifbench", output_path=tmp_path / "ifbench" / "ifbench.jsonl", mirror=mirror,
                          offline=False, retries=0, progress=False)


def test_ifbench_config_matches_the_reference():
    bench = compose(["benchmark=ifbench"]).benchmark
    assert bench.verifier.family == "ifbench" and bench.dataset.num_repeats == 5 and bench.size == 300
    assert bench.dataset.sources == [_prepare_module().URL]
    assert bench.domain == "instruction_following" and not bench.gated


def test_ifbench_prepare_keeps_set_arguments(tmp_path, mirror_url):
    module = _prepare_module()
    parts = urlsplit(module.URL)
    upstream = [json.loads(line) for line in (UPSTREAM / parts.netloc / parts.path.lstrip("/")).read_text().splitlines()]
    path = module.prepare(_ctx(tmp_path, mirror_url))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(upstream) == 5
    for row, item in zip(rows, upstream):
        assert row["question"] == item["prompt"] and row["expected_answer"] == ""
        assert row["instruction_id_list"] == item["instruction_id_list"]
        assert row["metadata"]["key"] == item["key"] and len(item["kwargs"][0]) == 42
    assert rows[0]["kwargs"] == [{"N": 3}] and isinstance(rows[0]["kwargs"][0]["N"], int)
    assert rows[3]["kwargs"] == [{"sep": "SEPARATOR"}, {"N": 6}] and rows[4]["kwargs"] == [{}]
    assert rows[2]["kwargs"][0]["n_end"] == 5 and rows[2]["kwargs"][0]["prompt_to_repeat"].startswith("Explain")
    # the prepared rows drive the checkers: the span task's own answer is followed
    span = rows[2]["kwargs"][0]
    answer = " ".join(span["prompt_to_repeat"].split()[span["n_start"]:span["n_end"] + 1])
    assert make_verifier("ifbench").verify(rows[2], answer).reward == 1.0


def test_ifbench_prepare_reports_bad_records(tmp_path):
    module = _prepare_module()
    parts = urlsplit(module.URL)
    bad = json.dumps({"key": "7", "prompt": "Say hi.", "instruction_id_list": ["count:numbers", "format:list"],
                      "kwargs": [{"N": 1.0}]})
    target = tmp_path / "mirror" / parts.netloc / parts.path.lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_text(bad + "\n")
    with pytest.raises(GymError, match=r"record 1 \(key 7\): 2 instruction ids but 1 kwargs"):
        module.prepare(_ctx(tmp_path, str(tmp_path / "mirror")))
