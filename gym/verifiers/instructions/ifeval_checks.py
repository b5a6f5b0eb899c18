"""The 25 IFEval instructions (Zhou et al. 2023, google-research instruction_following_eval).

Each checker follows the published rule for its id; sentences are Punkt's (NLTK's English model) and
words NLTK's word tokens, as in the original. Deliberate differences (args.reference restores the
original's rule, verifier option compat=reference):
* keywords:existence / frequency / forbidden_words match keywords as literal text; the original compiled
  them as regular expressions, so a keyword such as "C++" or "(maybe)" was a broken pattern.
* length_constraints:nth_paragraph_first_word picks the n-th non-empty paragraph; the original counted
  only non-empty paragraphs but indexed the raw split, so a blank paragraph shifted which one was read.
keywords:letter_frequency with a letter that is not a-z ("#", "!" in two IFEval prompts) counts that
character in both modes, as the current reference does (older releases drew a random letter instead,
which no run can reproduce).
"""

from __future__ import annotations

import json
import re
from collections import Counter

from gym.verifiers.instructions.registry import Args, check, compare
from gym.verifiers.instructions.text import (UndetectableLanguage, count_words, detect_language, punkt_sentences,
                                             word_tokens)

CONSTRAINED_OPTIONS = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


# keywords ------------------------------------------------------------------------------------

def _pattern(text: str, args: Args) -> str:
    return text if args.reference else re.escape(text)  # the original used keywords as patterns


@check("keywords:existence")
def keywords_existence(response: str, args: Args) -> bool:
    if args.reference:
        return all(re.search(keyword, response, flags=re.IGNORECASE) for keyword in args.texts("keywords"))
    lowered = response.lower()
    return all(keyword.strip().lower() in lowered for keyword in args.texts("keywords"))


@check("keywords:frequency")
def keywords_frequency(response: str, args: Args) -> bool:
    keyword = args.text("keyword").strip()
    count = len(re.findall(_pattern(keyword, args), response, flags=re.IGNORECASE))
    return compare(count, args.relation("relation"), args.int("frequency"))


@check("keywords:forbidden_words")
def keywords_forbidden_words(response: str, args: Args) -> bool:
    words = args.texts("forbidden_words") if args.reference else [w.strip() for w in args.texts("forbidden_words")]
    return not any(re.search(r"\b" + _pattern(word, args) + r"\b", response, flags=re.IGNORECASE) for word in words)


@check("keywords:letter_frequency")
def keywords_letter_frequency(response: str, args: Args) -> bool:
    letter = args.text("letter").strip().lower()
    count = Counter(response.lower())[letter] if len(letter) == 1 else response.lower().count(letter)
    return compare(count, args.relation("let_relation"), args.int("let_frequency"))


# language ------------------------------------------------------------------------------------

@check("language:response_language")
def response_language(response: str, args: Args) -> bool:
    language = args.text("language").strip()
    try:
        detected = detect_language(response)
    except UndetectableLanguage:
        return True  # nothing to tell a language from (e.g. only digits): counted as followed, as in IFEval
    return detected == language or detected.split("-")[0] == language


# length constraints --------------------------------------------------------------------------

@check("length_constraints:number_sentences")
def number_sentences(response: str, args: Args) -> bool:
    return compare(len(punkt_sentences(response)), args.relation("relation"), args.int("num_sentences"))


@check("length_constraints:number_paragraphs")
def number_paragraphs(response: str, args: Args) -> bool:
    """Paragraphs are separated by the markdown divider ***; an empty one inside the text fails."""
    wanted = args.int("num_paragraphs")
    paragraphs = re.split(r"\s?\*\*\*\s?", response)
    count = len(paragraphs)
    for index, paragraph in enumerate(paragraphs):
        if not paragraph.strip():
            if index in (0, len(paragraphs) - 1):
                count -= 1
            else:
                return False
    return count == wanted


@check("length_constraints:number_words")
def number_words(response: str, args: Args) -> bool:
    return compare(count_words(response), args.relation("relation"), args.int("num_words"))


@check("length_constraints:nth_paragraph_first_word")
def nth_paragraph_first_word(response: str, args: Args) -> bool:
    """Exactly num_paragraphs paragraphs (split on blank lines) and paragraph n starts with first_word."""
    wanted, nth = args.int("num_paragraphs"), args.int("nth_paragraph", minimum=1)
    first_word = args.text("first_word").strip().lower()
    raw = re.split(r"\n\n", response)
    paragraphs = [p.strip() for p in raw if p.strip()]
    if len(paragraphs) != wanted or nth > len(paragraphs):
        return False
    paragraph = raw[nth - 1].strip() if args.reference else paragraphs[nth - 1]  # the original indexed the raw split
    if not paragraph:
        return False
    word = paragraph.split()[0].lstrip("'\"")
    head = re.match(r"[^.,?!'\"]*", word).group(0).lower()  # the word up to its first punctuation mark
    return head == first_word


# detectable content --------------------------------------------------------------------------

@check("detectable_content:number_placeholders")
def number_placeholders(response: str, args: Args) -> bool:
    return len(re.findall(r"\[.*?\]", response)) >= args.int("num_placeholders")


@check("detectable_content:postscript")
def postscript(response: str, args: Args) -> bool:
    marker = args.text("postscript_marker").strip()
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + re.escape(marker.lower()) + r".*$"
    return re.search(pattern, response.lower(), flags=re.MULTILINE) is not None


# detectable format ---------------------------------------------------------------------------

@check("detectable_format:number_bullet_lists")
def number_bullet_lists(response: str, args: Args) -> bool:
    stars = re.findall(r"^\s*\*[^\*].*$", response, flags=re.MULTILINE)
    dashes = re.findall(r"^\s*-.*$", response, flags=re.MULTILINE)
    return len(stars) + len(dashes) == args.int("num_bullets")


@check("detectable_format:constrained_response")
def constrained_response(response: str, args: Args) -> bool:
    text = response.strip()
    return any(option in text for option in CONSTRAINED_OPTIONS)


@check("detectable_format:number_highlighted_sections")
def number_highlighted_sections(response: str, args: Args) -> bool:
    single = [h for h in re.findall(r"\*[^\n\*]*\*", response) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n\*]*\*\*", response) if h[2:-2].strip()]
    return len(single) + len(double) >= args.int("num_highlights")


@check("detectable_format:multiple_sections")
def multiple_sections(response: str, args: Args) -> bool:
    splitter = args.text("section_spliter").strip()
    sections = re.split(r"\s?" + re.escape(splitter) + r"\s?\d+\s?", response)
    return len(sections) - 1 >= args.int("num_sections")


@check("detectable_format:json_format")
def json_format(response: str, args: Args) -> bool:
    text = response.strip()
    for fence in ("```json", "```Json", "```JSON", "```"):
        if text.startswith(fence):
            text = text[len(fence):]
            break
    text = text.removesuffix("```").strip()
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@check("detectable_format:title")
def title(response: str, args: Args) -> bool:
    return any(t[2:-2].strip() for t in re.findall(r"<<[^\n]+>>", response))


# combinations --------------------------------------------------------------------------------

@check("combination:two_responses")
def two_responses(response: str, args: Args) -> bool:
    """Two different responses separated by six asterisks; an empty part in the middle fails."""
    parts = response.split("******")
    kept = []
    for index, part in enumerate(parts):
        if part.strip():
            kept.append(part.strip())
        elif 0 < index < len(parts) - 1:
            return False
    return len(kept) == 2 and kept[0] != kept[1]


@check("combination:repeat_prompt")
def repeat_prompt(response: str, args: Args) -> bool:
    return response.strip().lower().startswith(args.text("prompt_to_repeat").strip().lower())


# start / end ---------------------------------------------------------------------------------

@check("startend:end_checker")
def end_checker(response: str, args: Args) -> bool:
    return response.strip().strip('"').lower().endswith(args.text("end_phrase").strip().lower())


@check("startend:quotation")
def quotation(response: str, args: Args) -> bool:
    text = response.strip()
    return len(text) > 1 and text[0] == '"' and text[-1] == '"'


# change case ---------------------------------------------------------------------------------

@check("change_case:capital_word_frequency")
def capital_word_frequency(response: str, args: Args) -> bool:
    capitals = sum(1 for token in word_tokens(response) if token.isupper())
    return compare(capitals, args.relation("capital_relation"), args.int("capital_frequency"))


def _english(response: str) -> bool:
    try:
        return detect_language(response) == "en"
    except UndetectableLanguage:
        return True  # as IFEval: an undetectable language does not fail the case check


@check("change_case:english_capital")
def english_capital(response: str, args: Args) -> bool:
    return response.isupper() and _english(response)


@check("change_case:english_lowercase")
def english_lowercase(response: str, args: Args) -> bool:
    return response.islower() and _english(response)


# punctuation ---------------------------------------------------------------------------------

@check("punctuation:no_comma")
def no_comma(response: str, args: Args) -> bool:
    return "," not in response
