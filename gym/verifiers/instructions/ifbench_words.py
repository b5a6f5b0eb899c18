"""IFBench (Pyatkin et al. 2025, allenai/IFBench) counting, ratio, word and sentence instructions.

Rules follow the published checkers. Differences, all deliberate: inputs that crash the original
(no words, no sentences, an empty line) are simply "not followed"; NLTK's tokenizer, stop-word list
and part-of-speech tagger, syllapy and the emoji package are replaced by the offline equivalents in
gym.verifiers.instructions.text and .lexicon, so a few borderline words can be judged differently.
count:conjunctions counts distinct conjunctions; with args.reference (compat=reference) it counts
distinct spellings as the original did.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from gym.verifiers.instructions.registry import Args, check
from gym.verifiers.instructions.text import (count_stop_words, count_syllables, count_words, split_sentences,
                                             starts_with_verb, strip_punctuation, without_punctuation)

CONJUNCTIONS = frozenset({"and", "but", "for", "nor", "or", "so", "yet"})
PRONOUNS = frozenset("""i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his
himself she her hers herself it its itself they them their theirs themselves""".split())
PERSON_NAMES = tuple("""Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander
Amelia Benjamin Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan
Victoria Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan
Stella Jonathan""".split())
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


# count: --------------------------------------------------------------------------------------

@check("count:word_count_range")
def word_count_range(response: str, args: Args) -> bool:
    return args.int("min_words") <= count_words(response) <= args.int("max_words")


@check("count:unique_word_count")
def unique_word_count(response: str, args: Args) -> bool:
    unique = {strip_punctuation(word) for word in response.lower().split()} - {""}  # a lone "-" is no word
    return len(unique) >= args.int("N")


@check("count:conjunctions")
def conjunctions(response: str, args: Args) -> bool:
    """Distinct coordinating conjunctions. The original counted distinct spellings, so "and", "And" and
    "and," made three; here they are one."""
    if args.reference:  # distinct spellings: "and", "And" and "and," count three times
        used = {word for word in response.split() if strip_punctuation(word).lower() in CONJUNCTIONS}
    else:
        used = {strip_punctuation(word).lower() for word in response.split()} & CONJUNCTIONS
    return len(used) >= args.int("small_n")


@check("count:person_names")
def person_names(response: str, args: Args) -> bool:
    return sum(1 for name in PERSON_NAMES if name in response) >= args.int("N")


@check("count:numbers")
def numbers(response: str, args: Args) -> bool:
    return len(re.findall(r"\d+", without_punctuation(response))) == args.int("N")


@check("count:punctuation")
def punctuation_cover(response: str, args: Args) -> bool:
    """. , ! ? ; : all present, plus an interrobang (?! or !? or ‽) that does not count for ? and !."""
    if not ("!?" in response or "?!" in response or "\u203d" in response):
        return False
    rest = response.replace("?!", "", 1)
    if len(rest) == len(response):
        rest = response.replace("!?", "", 1)
    return {".", ",", "!", "?", ";", ":"} <= set(rest)


@check("count:pronouns")
def pronouns(response: str, args: Args) -> bool:
    words = without_punctuation(response.replace("/", " ").lower()).split()  # she/her/hers: three pronouns
    return sum(1 for word in words if word in PRONOUNS) >= args.int("N")


@check("count:words_japanese")
def words_japanese(response: str, args: Args) -> bool:
    every = args.int("N", minimum=1)
    for position, word in enumerate(response.split(), start=1):
        word = strip_punctuation(word)
        if position % every == 0 and word and not word.isdigit() and not _JAPANESE.search(word):
            return False
    return True


@check("count:keywords_multiple")
def keywords_multiple(response: str, args: Args) -> bool:
    lowered = response.lower()
    wanted = zip(("keyword1", "keyword2", "keyword3", "keyword4", "keyword5"), (1, 2, 3, 5, 7))
    return all(lowered.count(args.text(name).strip().lower()) == times for name, times in wanted)


# ratio: --------------------------------------------------------------------------------------

@check("ratio:stop_words")
def stop_words(response: str, args: Args) -> bool:
    total = count_words(response)
    return total > 0 and 100 * count_stop_words(response) / total <= args.number("percentage")


def _endings(response: str) -> Counter:
    return Counter(sentence[-1] for sentence in split_sentences(response) if sentence)


@check("ratio:sentence_type")
def sentence_type(response: str, args: Args) -> bool:
    ends = _endings(response)
    return ends["."] == 2 * ends["?"]


@check("ratio:sentence_balance")
def sentence_balance(response: str, args: Args) -> bool:
    ends = _endings(response)
    return ends["."] == ends["?"] == ends["!"]


@check("ratio:overlap")
def overlap(response: str, args: Args) -> bool:
    """Share of the response's distinct character trigrams found in the reference, within ±2 points."""
    reference, percentage = args.text("reference_text"), args.number("percentage")
    grams = {response[i:i + 3] for i in range(len(response) - 2)}
    if not grams:
        return False
    reference_grams = {reference[i:i + 3] for i in range(len(reference) - 2)}
    share = 100 * len(grams & reference_grams) / len(grams)
    return percentage - 2 <= share <= percentage + 2


@check("ratio:sentence_words")
def sentence_words(response: str, args: Args) -> bool:
    """Three sentences of equal character length (the original does not check the words differ)."""
    sentences = split_sentences(response)
    return len(sentences) == 3 and len({len(s.strip()) for s in sentences}) == 1


# words: --------------------------------------------------------------------------------------

@check("words:alphabet")
def alphabet(response: str, args: Args) -> bool:
    """Word initials run through the alphabet in order, wrapping from z to a."""
    words = [w for w in without_punctuation(response).split() if w]
    if not words or words[0][0].lower() not in string.ascii_lowercase:
        return False
    expected = words[0][0].lower()
    for word in words[1:]:
        expected = chr((ord(expected) - ord("a") + 1) % 26 + ord("a"))
        if word[0].lower() != expected:
            return False
    return True


@check("words:vowel")
def vowel(response: str, args: Args) -> bool:
    """One paragraph (one line) using at most three of the vowels a e i o u."""
    lines = response.strip().split("\n")
    return len(lines) == 1 and len(set(lines[0].lower()) & set("aeiou")) <= 3


@check("words:consonants")
def consonants(response: str, args: Args) -> bool:
    cluster = re.compile(r"[bcdfghjklmnpqrstvwxyz]{2}")
    return all(cluster.search(word) for word in response.lower().split())


@check("words:palindrome")
def palindrome(response: str, args: Args) -> bool:
    words = without_punctuation(response).lower().split()
    return sum(1 for word in words if len(word) >= 5 and word == word[::-1]) >= 10


@check("words:prime_lengths")
def prime_lengths(response: str, args: Args) -> bool:
    primes = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97}
    return all(len(word) in primes for word in without_punctuation(response).split())


@check("words:start_verb")
def start_verb(response: str, args: Args) -> bool:
    return starts_with_verb(response)


@check("words:repeats")
def repeats(response: str, args: Args) -> bool:
    counts = Counter(without_punctuation(response.lower()).split())
    return all(count <= args.int("small_n") for count in counts.values())


@check("words:odd_even_syllables")
def odd_even_syllables(response: str, args: Args) -> bool:
    parities = [count_syllables(word) % 2 for word in without_punctuation(response).lower().split()]
    return all(a != b for a, b in zip(parities, parities[1:]))


@check("words:last_first")
def last_first(response: str, args: Args) -> bool:
    """The last word of each sentence is the first word of the next one."""
    sentences = split_sentences(response)
    for current, following in zip(sentences, sentences[1:]):
        last = current.rstrip(string.punctuation + " ").split()
        first = following.lstrip(string.punctuation + " ").split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


@check("words:paragraph_last_first")
def paragraph_last_first(response: str, args: Args) -> bool:
    """Every non-empty line starts and ends with the same word."""
    for line in response.split("\n"):
        line = line.strip().lower()
        if line:
            words = strip_punctuation(line).split()
            if not words or words[0] != words[-1]:
                return False
    return True


@check("words:no_consecutive")
def no_consecutive(response: str, args: Args) -> bool:
    words = without_punctuation(response.lower()).split()
    return all(a[0] != b[0] for a, b in zip(words, words[1:]))


# sentence: -----------------------------------------------------------------------------------

@check("sentence:alliteration_increment")
def alliteration_increment(response: str, args: Args) -> bool:
    """Each sentence has more alliterating words (runs of shared initials) than the one before."""
    previous = -1
    for sentence in split_sentences(response):
        words = [w for w in (word.lstrip(string.punctuation + " ") for word in sentence.lower().split()) if w]
        score, in_run = 0, False
        for a, b in zip(words, words[1:]):
            if a[0] == b[0]:
                score += 1 if in_run else 2
                in_run = True
            else:
                in_run = False
        if score <= previous:
            return False
        previous = score
    return True


@check("sentence:keyword")
def sentence_keyword(response: str, args: Args) -> bool:
    keyword, position = args.text("word"), args.int("N", minimum=1)
    sentences = split_sentences(response)
    return len(sentences) >= position and keyword.lower() in sentences[position - 1].lower()


@check("sentence:increment")
def sentence_increment(response: str, args: Args) -> bool:
    step = args.int("small_n")
    counts = [len(without_punctuation(sentence).split()) for sentence in split_sentences(response)]
    return bool(counts) and all(b == a + step for a, b in zip(counts, counts[1:]))
