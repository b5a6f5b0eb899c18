"""IFEval against the reference: the cases of google-research's instructions_test.py (the facts: text,
arguments, verdict), the deliberate differences behind verifier.options.compat, and instruction-level
accuracy pooled over all prompts."""

from __future__ import annotations

import json
import textwrap

import pytest

from gym.verifiers import make_verifier
from gym.verifiers.instructions import follow


def block(text: str) -> str:
    """A triple-quoted test message of the reference, with its two-space indent and edge newlines."""
    return "\n" + textwrap.indent(textwrap.dedent(text).strip("\n"), "  ") + "\n  "


LT, AL = "less than", "at least"

BULLETS_1 = block("""
    A Markdown bullet point is a way of formatting text to create a list. To
    create a bullet point, start each line with an asterisk (*). For example:
    * This is a bullet point.
    *(no space required)Another bullet point.
    * (no newline ending required)Another bullet point.
    markdown bullet points are often used to create to-do lists or to list items
    in a step-by-step guide.""")
BULLETS_2 = block("""
    Check that inline asterisk (*), *, will not be counted. Only * that starts a
    bullet list will be counted:
      * This is a bullet point.
      * Another bullet point.
      . dot is not counted""")
BULLETS_4 = block("""
    Here are three markdown bullets:
    - I am a large language model, also known as a conversational AI.
    - I am trained on a massive amount of text data, and I am able to communicate.
    -I am still under development, but I am learning new things every day.""")
BULLETS_5 = block("""
    Paragraph 1
    ***
    Paragraph 2
    ***
    Paragraph 3
    * only one bullet point""")
HIGHLIGHT_1 = block("""
    To highlight text with Markdown, you can use the * character before and after
    the text you want to highlight. For example, if you want to highlight the
    word `hello`, you would type:*hello*, You can also use the ** character to
    create bold text. For example, if you want to bold the word `hello`, you
    would type: **hello** """)
HIGHLIGHT_2 = block("""
    Sure, here are the numerical methods for solving partial differential
    equations highlighted with Markdown:
    *Finite difference methods
    *Finite element methods*
    *Boundary element methods
    *Monte Carlo methods
    I hope this helps!""")
HIGHLIGHT_3 = block("""
    There is allowed to be *two different* highlighted *sections in the same*
    line. **This is also true** for **double markdown highlights.**""")
SECTIONS_1 = block("""
    Your response must have multiple sections. Mark the beginning of each section
    with "Section X", such as:
    Section 1
    [content of section 1]
    Section 2
    [content of section 2]""")
SECTIONS_2 = "SECTION 1\n  [content of section 1]\n  SECTION 2\n  [content of section 2]"
PARAGRAPHS_1 = "\n  paragraph 1\n  ***\n  paragraph 2\n  ***\n  paragraph 3"
PARAGRAPHS_2 = "\n          ***\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n      paragraph 3"
PARAGRAPHS_3 = "\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n      paragraph 3\n          ***"
PARAGRAPHS_4 = "\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n          ***"
PS_1 = block("""
    I will do my best to follow your instructions and always start my responses
    with "My response is:". I am still under development.

    P.S. I hope this is what you were looking for.""")
PS_2 = block("""
    Sure, here is my response with a postscript starting with P.P.S.:

    My response is: I hope this answers your question.

    P.P.S. I am always happy to answer any other questions you may have.

    Do you have any other questions for me?""")
PS_3 = block("""
    The radius of a unit circle is 1. (not starting a new line) P.S. I hope you enjoyed
    my joke!""")
PS_4 = block("""
    If the length of a square is one, the area of the square will also be one.
    p.p.s what if the entire response was lower case letters?""")
PS_5 = block("""
    The mysteries of space and time are mysterious.
    P. S. Sometimes there are even spaces between P. and S..""")
PARIS_1 = block("""
    Paris is a city of beauty and romance. The romantic river Seine winds its way
    through the city, past iconic landmarks like the Eiffel Tower and the Louvre
    Museum, where the Mona Lisa resides.""")
PARIS_2 = block("""
    Paris is a city of beauty, romance, and history. It is home to some of the
    most iconic landmarks in the world, including the Eiffel Tower, the Louvre
    Museum, and the Notre Dame Cathedral.""")
WORDS_1 = "\n  d3sCRi7 lArge lAnguagE M0del w1tH 20 w0RdS."
WORDS_2 = block("""
    L4RGE L4NGU4GE M0DEL: AI syst3m th4t und3rstands, g3n3r4tes, or tr4nsforms
    l4ngu4g3 b4s3d on pr3vious l3arning & d4t4.""")
FIRST_WORD_1 = "\n  paragraph 1\n\n  I paragraph 2\n\n  paragraph 3"
FIRST_WORD_2 = "\n  paragraph 1\n\n  I paragraph 2"
FIRST_WORD_3 = "\n  paragraph 1\n\n  fail paragraph 2\n\n  paragraph 3"
FIVE = ["Wow this is a very long response.", "I can't believe there is more than three paragraphs.",
        "Really more than three? No way!", "I can't believe it but I guess I am living proof.",
        "Haha, you go that right."]
FIRST_WORD_4 = "\n  " + "\n\n  ".join(FIVE)
FIRST_WORD_5 = "\n  " + "\n\n  ".join(FIVE[:2] + ['"Really?! more than three? No way!"'] + FIVE[3:])
FIRST_WORD_6 = "\n  " + "\n\n  ".join(FIVE[:2] + ["Rea!lly more than three? No way!"] + FIVE[3:])
NAZIS = block("""
    The Nazis came to power in 1933 through a combination of legal and illegal
    means. By 1934, Hitler had become dictator of Germany.""")
DINOSAURS = block("""
    Dinosaurs were a diverse group of reptiles that dominated the Earth for over
    160 million years.""")
GPT = block("""
    GPT, or Generative Pre-trained Transformer, is a family of neural network
    models that uses the transformer architecture. They are used for text generation
    by a variety of companies and organizations like Google.""")
FIRST_KW = {"num_paragraphs": 3, "nth_paragraph": 2, "first_word": "I"}
LAST_KW = {"num_paragraphs": 5, "nth_paragraph": 5, "first_word": "haha"}
REALLY_KW = {"num_paragraphs": 5, "nth_paragraph": 3, "first_word": "Really"}

REFERENCE_CASES = [
    ("language:response_language", {"language": "en"}, "The response is English", True),
    ("language:response_language", {"language": "es"}, "Desayunamos en McDonald's hoy", True),
    ("language:response_language", {"language": "en"}, "Today we visit the Louvre", True),
    ("length_constraints:number_sentences", {"relation": LT, "num_sentences": 4}, "xx,x. xx,x! xx/x. x{x}x?", False),
    ("length_constraints:number_sentences", {"relation": LT, "num_sentences": 5}, "xxxx. xx,x! xxxx. x(x)x?", True),
    ("length_constraints:number_sentences", {"relation": AL, "num_sentences": 4}, "xxxx. xx,x! xx|x. x&x x?", True),
    ("length_constraints:number_sentences", {"relation": AL, "num_sentences": 5}, "xx-x. xx,x! xx}x. x,xx?", False),
    ("detectable_content:number_placeholders", {"num_placeholders": 5},
     "Sure, here is a short template with 5 placeholders:\n[Name]\n[Email]\n[Phone]\n[Address]\n[Website]\n"
     "This template can be used for a variety of purposes.", True),
    ("detectable_content:number_placeholders", {"num_placeholders": 7},
     "My [adjective] [noun] is [adjective] [noun]. I [verb] and [verb].", False),
    ("detectable_format:number_bullet_lists", {"num_bullets": 3}, BULLETS_1, True),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, BULLETS_2, True),
    ("detectable_format:number_bullet_lists", {"num_bullets": 3}, BULLETS_4, True),
    ("detectable_format:number_bullet_lists", {"num_bullets": 1}, BULLETS_5, True),
    ("detectable_format:constrained_response", {}, "\n My answer is no.\n", True),
    ("detectable_format:constrained_response", {}, "My answer is no.   ", True),
    ("detectable_format:constrained_response", {}, "\n  My answer is no. I am still under development and I am "
     "always learning.", True),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, HIGHLIGHT_1, True),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, HIGHLIGHT_2, False),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 4}, HIGHLIGHT_3, True),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 3}, SECTIONS_1, False),
    ("detectable_format:multiple_sections", {"section_spliter": "SECTION", "num_sections": 2}, SECTIONS_2, True),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}, PARAGRAPHS_1, True),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}, PARAGRAPHS_2, True),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}, PARAGRAPHS_3, True),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}, PARAGRAPHS_4, False),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, PS_1, True),
    ("detectable_content:postscript", {"postscript_marker": "PS:"}, PS_1, False),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}, PS_2, True),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, PS_3, True),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}, PS_4, True),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, PS_5, True),
    ("keywords:existence", {"keywords": ["romantic", "river", "Mona Lisa"]}, PARIS_1, True),
    ("keywords:existence", {"keywords": ["romantic", "river", "Mona Lisa"]}, PARIS_2, False),
    ("keywords:frequency", {"keyword": "  keyword ", "frequency": 4, "relation": LT},
     "\n  keyword, Keyword, KEYWORD\n  ", True),
    ("keywords:frequency", {"keyword": "  keyword ", "frequency": 3, "relation": AL},
     "\n  keyword, Keyword, KEYWORD\n  ", True),
    ("keywords:frequency", {"keyword": "KEYWORD", "frequency": 4, "relation": AL},
     "\n    *keyword\n    *Keyword\n    *KEYWORD\n  ", False),
    ("length_constraints:number_words", {"num_words": 8, "relation": LT}, WORDS_1, True),
    ("length_constraints:number_words", {"num_words": 16, "relation": LT}, WORDS_2, False),
    ("length_constraints:number_words", {"num_words": 16, "relation": AL}, WORDS_2, True),
    ("length_constraints:nth_paragraph_first_word", FIRST_KW, FIRST_WORD_1, True),
    ("length_constraints:nth_paragraph_first_word", FIRST_KW, FIRST_WORD_2, False),
    ("length_constraints:nth_paragraph_first_word", FIRST_KW, FIRST_WORD_3, False),
    ("length_constraints:nth_paragraph_first_word", LAST_KW, FIRST_WORD_4, True),
    ("length_constraints:nth_paragraph_first_word", REALLY_KW, FIRST_WORD_5, True),
    ("length_constraints:nth_paragraph_first_word", REALLY_KW, FIRST_WORD_6, False),
    ("keywords:forbidden_words", {"forbidden_words": ["HOUSE", "POWER", "BECOME"]}, NAZIS, False),
    ("keywords:forbidden_words", {"forbidden_words": ["HOUSE", "POWER", "BECOME"]}, DINOSAURS, True),
    ("keywords:forbidden_words", {"forbidden_words": ["HOUSE", "POWER", "BECOME"]}, GPT, True),
    ("keywords:forbidden_words", {"forbidden_words": ["GOOGLE", "TEXT"]}, NAZIS, True),
    ("keywords:forbidden_words", {"forbidden_words": ["GOOGLE", "TEXT"]}, GPT, False),
    ("keywords:forbidden_words", {"forbidden_words": ["GENE", "TRANSFORM"]}, GPT, True),
    ("combination:two_responses", {}, "\n  This is response 1.\n  ******\n  This is response 2.\n  ", True),
    ("combination:two_responses", {}, "\n  This is response 1.\n  ******\n  This is response 1.\n  ", False),
    ("combination:two_responses", {}, "\n  This is response 1.\n  ******\n  This is response 2.\n  ******\n"
     "  This is response 3.\n  ", False),
    ("combination:two_responses", {}, "\n  ******\n  Response 1.\n  ******\n  ******\n  Response 2.\n  ******\n  ",
     False),
    ("combination:two_responses", {}, "\n  ******\n  Response 1\n  ******\n  Response 2\n  ******\n  ", True),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Write a CL description."},
     "Write a CL description. Hi, Le and TJ, please\n  check this out. Thanks.\n  ", True),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Write a CL description."},
     "Hi, Le and TJ. Write a CL description. Thanks.\n  ", False),
    ("startend:end_checker", {"end_phrase": "\n  Any more questions?\n  "},
     "\n  The answer is 7. Any more questions?\n  ", True),
    ("startend:end_checker", {"end_phrase": "\n  This is the end.\n  "},
     "\n  At the end of this prompt I am required to say that this is the end.\n  ", True),
    ("startend:end_checker", {"end_phrase": "\n  This will fail.\n  "}, "\n  This will fail. Paris is cool.\n  ", False),
    ("detectable_format:title", {}, "\n  <<Song of Joy>>\n  La la la. Happy song.\n  ", True),
    ("detectable_format:title", {}, "\n  Is it fine for title to be at the end?\n  <<This is the title>>\n  ", True),
    ("detectable_format:title", {}, "\n  << >>\n  There is no title.\n  ", False),
    ("detectable_format:title", {}, "\n  <<This is not a title.\n  This is a paragraph.>>\n  ", False),
    ("keywords:letter_frequency", {"letter": "T", "let_frequency": 4, "let_relation": AL},
     "\n  There is the T. Four T's.\n  ", True),
    ("keywords:letter_frequency", {"letter": "a", "let_frequency": 4, "let_relation": LT},
     "\n  asdfghjkl!!aA\n  ", True),
    ("keywords:letter_frequency", {"letter": "p", "let_frequency": 4, "let_relation": AL},
     "\n  asdfghjkl!!aA\n  ", False),
    ("keywords:letter_frequency", {"letter": "#", "let_frequency": 4, "let_relation": AL}, "#one #two #three #four", True),
    ("keywords:letter_frequency", {"letter": "#", "let_frequency": 4, "let_relation": AL}, "#one #two #three", False),
    ("change_case:english_capital", {}, "\n  THIS IS AN ENGLISH SENTENCE. EVERY LETTER IS CAPITALIZED!!! AMAZING.\n  ", True),
    ("change_case:english_capital", {}, "\n  Every Word Is Capitalized.\n  ", False),
    ("change_case:english_lowercase", {}, "\n  every letter is lowercase.\n  ", True),
    ("change_case:english_lowercase", {}, "\n  Almost every letter is lowercase.\n  ", False),
    ("punctuation:no_comma", {}, "\n  Every sentence is short. There is no need for a comma.\n  ", True),
    ("punctuation:no_comma", {}, "\n  Since the start of time, people have always found a way to punctuate.\n  ", False),
    ("change_case:capital_word_frequency", {"capital_frequency": 3, "capital_relation": AL},
     "\n  HERE there are THREE FUlly CAPITAL words.\n  ", True),
    ("change_case:capital_word_frequency", {"capital_frequency": 5, "capital_relation": LT},
     "\n  THERE are Four FULLY CAPITAL WORDS. Many Others Are Only Partially So.\n  ", True),
    ("change_case:capital_word_frequency", {"capital_frequency": 4, "capital_relation": LT},
     "\n  THERE are Four FULLY CAPITAL WORDS. Many Others Are Only Partially So.\n  ", False),
    ("startend:quotation", {}, '\n  "This entire message is wrapped in double quotation marks."\n  ', True),
    ("startend:quotation", {}, '\n  "This message is wrapped in double quotation marks." But not everything.\n  ', False),
]


@pytest.mark.parametrize("compat", ["fixed", "reference"])
@pytest.mark.parametrize("instruction_id, kwargs, response, expected", REFERENCE_CASES,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(REFERENCE_CASES)])
def test_reference_cases(instruction_id, kwargs, response, expected, compat):
    result = follow([instruction_id], [kwargs], response, compat=compat)[0]
    assert result.status == "checked", result.message
    assert result.strict is expected


@pytest.mark.parametrize("instruction_id, kwargs, response, fixed, reference", [
    # punkt, not a regex splitter: an abbreviation before a number does not end a sentence
    ("length_constraints:number_sentences", {"relation": LT, "num_sentences": 3},
     "It happened on Jan. 3. We left.", True, True),
    ("length_constraints:number_sentences", {"relation": LT, "num_sentences": 2}, "Wrap it {like this.}", True, True),
    # NLTK's PunktTokenizer on a run of punctuation: '12345 !', '!!', '...' are three sentences
    ("length_constraints:number_sentences", {"relation": LT, "num_sentences": 3}, "12345 !!! ...", False, False),
    ("length_constraints:number_sentences", {"relation": AL, "num_sentences": 3}, "12345 !!! ...", True, True),
    # NLTK word tokens: U.S.A. is one capital word, not three single letters
    ("change_case:capital_word_frequency", {"capital_frequency": 2, "capital_relation": LT},
     "We flew to the U.S.A. last May", True, True),
    # keywords: the reference reads them as regular expressions
    ("keywords:existence", {"keywords": ["a.c"]}, "abc", False, True),
    ("keywords:frequency", {"keyword": "(maybe)", "frequency": 1, "relation": AL}, "I said maybe.", False, True),
    ("keywords:forbidden_words", {"forbidden_words": ["b.d"]}, "a bad day", True, False),
    # nth paragraph: the reference indexes the raw split, where a blank paragraph takes a place
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "second"},
     "first one\n\n\n\nsecond one", True, False),
    # IFBench
    ("repeat:repeat_span", {"prompt_to_repeat": "zero one two three four", "n_start": 1, "n_end": 3},
     "one two three", True, False),
    ("repeat:repeat_span", {"prompt_to_repeat": "zero one two three four", "n_start": 1, "n_end": 3},
     "one two", False, True),
    ("format:list", {"sep": "SEPARATOR"}, "Here: SEPARATOR a, SEPARATOR b", False, True),
    ("format:sub-bullets", {}, "No bullets at all.", False, True),
    ("format:line_indent", {}, "a\n\n\n b\n  c", True, False),
    ("count:conjunctions", {"small_n": 2}, "And then, and it went and", False, True),
    ("repeat:repeat_change", {"prompt_to_repeat": "Write a poem."}, " Write a poem.", False, True),
])
def test_compat_fixed_and_reference(instruction_id, kwargs, response, fixed, reference):
    assert follow([instruction_id], [kwargs], response, compat="fixed")[0].strict is fixed
    assert follow([instruction_id], [kwargs], response, compat="reference")[0].strict is reference


def test_compat_option_reaches_the_checkers():
    row = {"question": "q", "instruction_id_list": ["keywords:existence"], "kwargs": [{"keywords": ["a.c"]}]}
    assert make_verifier("ifeval").verify(row, "abc").reward == 0.0
    verdict = make_verifier("ifeval", {"compat": "reference"}).verify(row, "abc")
    assert verdict.reward == 1.0 and verdict.details["compat"] == "reference"


def test_bad_compat_is_a_user_error():
    from gym.core.errors import GymError

    with pytest.raises(GymError, match="compat='refrence' is not one of fixed, reference"):
        make_verifier("ifbench", {"compat": "refrence"})


def test_instruction_level_accuracy_pools_instructions_over_prompts(tmp_path):
    """IFEval's instruction-level accuracy: followed instructions over all instructions. A prompt with one
    instruction (followed) and one with four (one followed) give 2/5 = 40%, not the per-prompt mean 62.5%."""
    from gym.model.client import Completion
    from gym.core.config import compose
    from gym.tasks import aggregate
    from gym.rollouts.row import make_rollout

    one = {"question": "q1", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}
    four = {"question": "q2", "instruction_id_list": ["punctuation:no_comma", "detectable_format:title",
                                                      "startend:quotation", "change_case:english_capital"],
            "kwargs": [{}, {}, {}, {}]}
    verifier = make_verifier("ifeval")
    rows = [make_rollout("ifeval", "m", task, [], index, rollout, f"k{index}-{rollout}",
                         Completion("ok", text="no commas here at all"), verifier)
            for index, task in enumerate([one, four]) for rollout in range(2)]
    # a model_error rollout of the 4-instruction prompt counts as 0 of its 4 instructions
    rows.append(make_rollout("ifeval", "m", four, [], 1, 2, "k1-2", Completion("model_error", error="400"), verifier))
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    aggregate.run(compose(["task=aggregate", f"+run_dir={tmp_path / 'out'}", f"rollouts={path}"]))
    scores = json.loads((tmp_path / "out" / "metrics.json").read_text())["benchmarks"]["ifeval"]["scores"]
    # task 0: 1 of 1 in both rollouts; task 1: 1 of 4, 1 of 4 and 0 of 4 -> per rollout 4 instructions
    assert scores["instruction_strict"]["value"] == pytest.approx(100 * (1 + 4 * (2 / 12)) / (1 + 4))
    assert "instructions" not in scores and scores["prompt_loose"]["value"] == pytest.approx(50.0)


def test_compat_override_through_collect(tmp_path, data_dir, mirror_url):
    """benchmark.verifier.options.compat=reference on the command line reaches every verdict of a run."""
    from gym.core.config import compose
    from gym.tasks import collect, prepare

    base = ["benchmark=ifeval", f"data.mirror={mirror_url}"]
    prepare.run(compose(["task=prepare", *base]))
    run_dir = tmp_path / "run"
    collect.run(compose(["task=collect", *base, "model=mock", "limit=2", "progress=false",
                         "benchmark.verifier.options.compat=reference", f"+run_dir={run_dir}"]))
    rows = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    assert rows and all(r["verifier"]["compat"] == "reference" for r in rows if r["status"] == "ok")
    assert all(r["scores"]["instructions"] >= 1 for r in rows if r["status"] == "ok")


@pytest.mark.parametrize("text, sentences", [
    ("12345 !!! ...", ["12345 !", "!!", "..."]),  # NLTK's PunktTokenizer; the punkt package's own class gives one
    ("It happened on Jan. 3. We left.", ["It happened on Jan. 3.", "We left."]),
    ("Hello world. How are you?", ["Hello world.", "How are you?"]),
])
def test_sentences_are_nltk_punkt_tokenizer_sentences(text, sentences):
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    from gym.verifiers.instructions.text import english_punkt, punkt_sentences

    assert type(english_punkt()) is PunktSentenceTokenizer  # NLTK's own class, with the bundled parameters
    assert punkt_sentences(text) == sentences
