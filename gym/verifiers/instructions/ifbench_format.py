"""IFBench (allenai/IFBench) format, custom-task, repeat and word-position instructions.

Rules follow the published checkers, with these deliberate corrections: format:list counts lines that
start with the marker (the original counted the marker anywhere, against its own description);
format:sub-bullets needs at least one * bullet and a - sub-bullet under each (the original passed text
with no bullets at all); format:line_indent skips every blank line (the original skipped only some);
repeat:repeat_span copies the words from n_start to n_end inclusive, as the prompt says (the original
left out word n_end); repeat:repeat_change requires the first word to differ and the rest to match (the
original only rejected an exact copy). With args.reference (verifier option compat=reference) each of
these follows the original's rule instead.
"""

from __future__ import annotations

import re
import string

from gym.verifiers.instructions.registry import Args, check
from gym.verifiers.instructions.text import (is_emoji, split_sentences, strip_emoji_modifiers, strip_punctuation,
                                             without_punctuation, word_tokens)

REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."
_NO_PUNCTUATION_BUT_QUOTE = string.digits + string.punctuation.replace('"', "")


# format: -------------------------------------------------------------------------------------

@check("format:parentheses")
def parentheses(response: str, args: Args) -> bool:
    """A correctly closed group of (), [] or {} nested at least five deep."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    deepest = 0
    for char in response:
        if char in "([{":
            stack.append(char)
            deepest = max(deepest, len(stack))
        elif char in pairs:
            if stack and stack[-1] == pairs[char]:
                stack.pop()
                if deepest >= 5:
                    return True
            else:  # a mismatched closer breaks the nesting: start over
                stack, deepest = [], 0
    return False


@check("format:quotes")
def quotes(response: str, args: Args) -> bool:
    """Quotes inside quotes at least three levels deep, alternating " and '."""
    stack: list[str] = []
    deepest = 0
    for char in response:
        if stack and char == stack[-1]:
            stack.pop()
            if deepest - len(stack) >= 3:
                return True
        elif char in "\"'":
            stack.append(char)
            deepest = max(deepest, len(stack))
    return False


@check("format:options")
def options(response: str, args: Args) -> bool:
    """Exactly one of the offered options; letter options ("a), b), c)") must match character for character."""
    text = args.text("options")
    exact = re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", text) is not None
    separator = "/" if "/" in text else "or" if "or" in text else ","
    choices = [choice.strip() for choice in text.split(separator)]
    if exact:
        return response.strip() in choices
    answer = strip_punctuation(response).lower()
    return any(strip_punctuation(choice).lower() == answer for choice in choices)


@check("format:newline")
def newline(response: str, args: Args) -> bool:
    text = without_punctuation(response).strip()
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) == len(text.split())


@check("format:emoji")
def emoji_sentences(response: str, args: Args) -> bool:
    """Every sentence ends with an emoji (or the next sentence starts with the one that closes it)."""
    sentences = [strip_emoji_modifiers(without_punctuation(s).strip()) for s in split_sentences(response)]
    for index, sentence in enumerate(sentences):
        if not sentence:
            return False
        if is_emoji(sentence[-1]) or is_emoji(sentence[-2:-1] or sentence[-1]):
            continue
        following = sentences[index + 1] if index + 1 < len(sentences) else ""
        if not following or not is_emoji(following[0]):
            return False
    return True


def _reference_kept_lines(response: str) -> list[str]:
    """The original's loop, verbatim in effect: it removes blank lines from the list while iterating over
    it, so the line after each removed one is never looked at (two blank lines in a row keep one)."""
    lines = response.split("\n")
    for line in lines:
        if not line.strip():
            lines.remove(line)
    return lines


@check("format:line_indent")
def line_indent(response: str, args: Args) -> bool:
    """Each non-blank line is indented by more spaces than the one before."""
    lines = _reference_kept_lines(response) if args.reference else response.split("\n")
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if args.reference or line.strip()]
    return all(b > a for a, b in zip(indents, indents[1:]))


@check("format:quote_unquote")
def quote_unquote(response: str, args: Args) -> bool:
    """No two quoted phrases back to back and the text does not end on a quote."""
    text = response.replace("\u201c", '"').replace("\u201d", '"').replace("'\"'", "")
    text = "".join(text.split())
    if '""' in text:
        return False
    tail = text.strip(_NO_PUNCTUATION_BUT_QUOTE)
    return bool(tail) and tail[-1] != '"'


@check("format:list")
def special_list(response: str, args: Args) -> bool:
    marker = args.text("sep")
    if args.reference:  # the marker anywhere in the text
        return response.count(marker) >= 2
    return sum(1 for line in response.split("\n") if line.lstrip().startswith(marker)) >= 2


@check("format:thesis")
def thesis(response: str, args: Args) -> bool:
    """An HTML-italic thesis (<i> or <em>) with text after it."""
    for opening, closing in (("<i>", "</i>"), ("<em>", "</em>")):
        start = response.find(opening)
        if start < 0:
            continue
        end = response.find(closing, start)
        if end < 0:
            return False
        return bool(response[start + len(opening):end].strip()) and bool(response[end + len(closing):].strip())
    return False


@check("format:sub-bullets")
def sub_bullets(response: str, args: Args) -> bool:
    if args.reference:  # every piece after a * holds a -, so no * at all passes
        return all("-" in piece for piece in response.split("*")[1:])
    bullets = 0
    pending = False  # the last * bullet still lacks a - sub-bullet
    for line in response.split("\n"):
        line = line.strip()
        if line.startswith("*") and not line.startswith("**"):
            if pending:
                return False
            bullets, pending = bullets + 1, True
        elif line.startswith("-") and bullets:
            pending = False
    return bullets > 0 and not pending


@check("format:no_bullets_bullets")
def no_bullets_bullets(response: str, args: Args) -> bool:
    """At least two sentences of prose, then at least two * bullets and nothing after them."""
    sentences, bullets, in_prose = 0, 0, True
    for line in response.split("\n"):
        if line.strip().startswith("*"):
            if sentences < 2:
                return False
            in_prose, bullets = False, bullets + 1
        elif in_prose:
            sentences += len(split_sentences(line.strip()))
        else:
            return False
    return bullets >= 2


@check("format:title_case")
def title_case(response: str, args: Args) -> bool:
    """No word of two or more letters starts lower-case (single letters such as "a" are let through)."""
    return not any(token[0].islower() and (token[1:].isupper() or token[1:].islower())
                   for token in word_tokens(response))


@check("format:output_template")
def output_template(response: str, args: Args) -> bool:
    return all(label in response for label in ("My Answer:", "My Conclusion:", "Future Outlook:"))


@check("format:no_whitespace")
def no_whitespace(response: str, args: Args) -> bool:
    return not any(char.isspace() for char in response)


# words: positions ----------------------------------------------------------------------------

@check("words:keywords_specific_position")
def keywords_specific_position(response: str, args: Args) -> bool:
    keyword, nth, mth = args.text("keyword").strip(), args.int("n", minimum=1), args.int("m", minimum=1)
    sentences = split_sentences(response)
    if len(sentences) < nth:
        return False
    words = word_tokens(sentences[nth - 1])
    return len(words) >= mth and words[mth - 1] == keyword


@check("words:words_position")
def words_position(response: str, args: Args) -> bool:
    keyword = args.text("keyword").strip()
    words = word_tokens(response)
    return len(words) >= 2 and words[1] == words[-2] == keyword


# repeat: -------------------------------------------------------------------------------------

@check("repeat:repeat_change")
def repeat_change(response: str, args: Args) -> bool:
    original, answer = args.text("prompt_to_repeat").split(), response.split()
    if args.reference:
        return args.text("prompt_to_repeat") != response and answer[1:] == original[1:]
    return bool(answer) and answer[0] != original[0] and answer[1:] == original[1:]


@check("repeat:repeat_simple")
def repeat_simple(response: str, args: Args) -> bool:
    return response.strip().lower() == REPEAT_SIMPLE.lower()


@check("repeat:repeat_span")
def repeat_span(response: str, args: Args) -> bool:
    start, end = args.int("n_start"), args.int("n_end")
    words = args.text("prompt_to_repeat").strip().lower().split()
    return response.strip().lower().split() == words[start:end + (0 if args.reference else 1)]
