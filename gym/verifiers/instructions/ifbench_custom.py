"""IFBench (allenai/IFBench) custom tasks: fixed requests with one checkable answer shape each."""

from __future__ import annotations

import csv
import io
import re
import string

from gym.verifiers.instructions.registry import Args, check
from gym.verifiers.instructions.text import ascii_fold, split_sentences, strip_punctuation, without_punctuation

NORTHERN_CAPITALS = ("Reykjavik", "Helsinki", "Oslo", "Tallinn", "Stockholm", "Riga", "Moscow", "Copenhagen",
                     "Vilnius", "Minsk", "Dublin", "Berlin", "Amsterdam", "Warsaw", "London", "Brussels", "Prague",
                     "Luxembourg", "Paris", "Vienna", "Bratislava", "Budapest", "Vaduz", "Chisinau", "Bern",
                     "Ljubljana", "Zagreb")
_DAYS_IN_MONTH = {1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}


@check("custom:multiples")
def multiples(response: str, args: Args) -> bool:
    """Counting 10..50 printing only multiples of 7: exactly the numbers 14 21 28 35 42 49, in order."""
    return re.findall(r"\d+", response.replace(",", ", ")) == [str(n) for n in range(14, 51, 7)]


@check("custom:mcq_count_length")
def mcq_count_length(response: str, args: Args) -> bool:
    """Four "Question" blocks with five A-E options each, question texts growing longer, no preamble."""
    if not response.startswith("Question"):
        return False
    blocks = [b.strip() for b in re.split(r"\n*(?:Question \d+[\.|\):;]?\s*)", response) if b.strip()]
    if len(blocks) != 4:
        return False
    lengths = []
    for block in blocks:
        question, option_count, in_options = "", 0, False
        for line in block.split("\n"):
            if re.match(r"^[A-Ea-e][\.|\)]\s*\w+", line.strip()):
                option_count, in_options = option_count + 1, True
            elif not in_options:
                question += " " + line.strip()
        if option_count != 5:
            return False
        lengths.append(len(question.strip()))
    return all(a < b for a, b in zip(lengths, lengths[1:]))


@check("custom:reverse_newline")
def reverse_newline(response: str, args: Args) -> bool:
    """African countries one per line from Zimbabwe down, in reverse alphabetical order (at least 52 lines)."""
    lines = [strip_punctuation(line) for line in response.split("\n")]
    lines = [line for line in lines if line]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    names = [ascii_fold(line) for line in lines[start:]]
    return names == sorted(names, reverse=True)


@check("custom:word_reverse")
def word_reverse(response: str, args: Args) -> bool:
    """Read backwards word by word, the answer names the bald eagle."""
    words = without_punctuation(response.lower().strip()).split()
    return "bald eagle" in " ".join(reversed(words))


@check("custom:character_reverse")
def character_reverse(response: str, args: Args) -> bool:
    return "elgae dlab" in response.lower()


@check("custom:sentence_alphabet")
def sentence_alphabet(response: str, args: Args) -> bool:
    """26 sentences whose first words start with a, b, c, ... z."""
    sentences = split_sentences(response)
    if len(sentences) != 26:
        return False
    for letter, sentence in zip(string.ascii_lowercase, sentences):
        words = sentence.split()
        if not words or words[0][0].lower() != letter:
            return False
    return True


@check("custom:european_capitals_sort")
def european_capitals_sort(response: str, args: Args) -> bool:
    """European capitals north of 45°, comma separated, from the highest latitude down."""
    names = [name.strip() for name in ascii_fold(response).split(",") if name.strip()]
    return tuple(names) == NORTHERN_CAPITALS


def _csv_rows(text: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


@check("custom:csv_city")
def csv_city(response: str, args: Args) -> bool:
    rows = _csv_rows(response)
    return len(rows) == 8 and rows[0] == ["ID", "Country", "City", "Year", "Count"] and \
        all(len(row) == 5 for row in rows[1:])


def _quoted_table(response: str, columns: tuple[str, ...], separator: str, count: int,
                  delimiter: str = ",") -> list[list[str]] | None:
    """The `count` rows, double quotes kept in the fields, when the first line is the header `columns`
    (each bare or quoted, joined by the regex `separator`) and every row has that many fields; else None."""
    header = response.split("\n")[0].strip()
    if not re.match(r"^" + separator.join(f'({c}|"{c}")' for c in columns) + r"$", header):
        return None
    rows = _csv_rows(response.replace('"', '"""'), delimiter=delimiter)  # '"""' keeps the quotes in the fields
    if len(rows) != count or any(len(row) != len(columns) for row in rows[1:]):
        return None
    return rows


@check("custom:csv_special_character")
def csv_special_character(response: str, args: Args) -> bool:
    """Header, 14 rows of 5 fields, and some field a double-quoted value holding a special character."""
    rows = _quoted_table(response, ("ProductID", "Category", "Brand", "Price", "Stock"), r",[ \t]*", 15)
    return rows is not None and any(re.match(r'".*[^\d\w\s].*"', field) for row in rows[1:] for field in row)


@check("custom:csv_quotes")
def csv_quotes(response: str, args: Args) -> bool:
    """Tab-delimited header and 3 rows, every field in double quotes."""
    rows = _quoted_table(response, ("StudentID", "Subject", "Grade", "Semester", "Score"), r"\t *", 4, "\t")
    if rows is None:
        return False
    fields = [field.strip() for row in rows for field in row]
    return all(len(field) >= 2 and field[0] == '"' and field[-1] == '"' for field in fields)


@check("custom:date_format_list")
def date_format_list(response: str, args: Args) -> bool:
    """Comma separated YYYY-MM-DD dates within Napoleon's lifetime (1769-1821), nothing else."""
    for item in response.strip().split(","):
        match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", item.strip())
        if not match:
            return False
        year, month, day = (int(part) for part in match.groups())
        if not 1769 <= year <= 1821 or not 1 <= month <= 12 or not 1 <= day <= _DAYS_IN_MONTH[month]:
            return False
    return True
