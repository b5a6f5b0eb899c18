"""GSM8K (openai/grade-school-math): grade-school word problems with a numeric final answer.

Upstream rows are `{"question": str, "answer": str}` where `answer` is a worked solution with
`<<expr=value>>` calculator annotations, ending in `#### <final answer>`. Prepared rows:

    {"question": ..., "expected_answer": "18", "reference_solution": <solution without <<...>>>,
     "metadata": {"split": "test", "source_index": 0}}

The gold is always a string: thousands commas removed and integral values written without a
decimal point ("1,450,000" -> "1450000"), the same value the reference harness stores as a number.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, number_text

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL_TEMPLATE = "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/{split}.jsonl"
SPLITS = ("test", "train")

# Known-wrong upstream answers, keyed by the exact question text, with the corrected gold. This is the
# list the reference harness applies (NeMo Skills' gsm8k `fixes`, reused by NeMo Gym). All eleven
# questions are in the *train* split: on the 1,319-row test split the table changes nothing, so test
# scores stay comparable with every other GSM8K number. Keyed by text rather than line index so a
# re-ordered upstream file cannot move a fix onto the wrong question. Comments give the arithmetic.
ANSWER_FIXES: dict[str, str] = {
    # 3/4*7000 + 4/5*5000 + 1/2*3000 = 5250 + 4000 + 1500
    "Mr. Finnegan has 3 tanks with a capacity of 7000 gallons, 5000 gallons, and 3000 gallons, respectively. "
    "If he fills the first tank up to 3/4 full, the second tank with water up to 4/5 of its capacity, and the "
    "third tank up to half of its capacity, how many gallons in total are in the tanks?": "10750",
    # 2x + 5 = x/2 + 20  ->  x = 10
    "If you double a number and add 5 to the result, then that's 20 more than half of the original number. "
    "What's the original number?": "10",
    # Kept as the reference has it; a literal reading (500 + 800 bees * 0.7 L) gives 1060.
    "John has 2 hives of bees.  One of the hives has 1000 bees and produces 500 liters of honey.  The second "
    "has 20% fewer bees but each bee produces 40% more honey.  How much honey does he produce?": "2740",
    # Kept as the reference has it; a literal reading (30 chips - 15 white - 3 blue) gives 12.
    "Three blue chips are in a jar which is 10% of the entire chips. If 50% of the chips are white and the "
    "rest are green, how many green chips are there?": "15",
    # 120 min * 1.6 = 192 min at $100/min
    "Janet filmed a new movie that is 60% longer than her previous 2-hour long movie.  Her previous movie "
    "cost $50 per minute to film, and the newest movie cost twice as much per minute to film as the previous "
    "movie.  What was the total amount of money required to film Janet's entire newest film?": "19200",
    # 24 correct answers * 2 + 4 perfect rounds * 4 bonus
    "Students at Highridge High earn 2 points for each correct answer during a quiz bowl If a student "
    "correctly answers all the questions in a round, the student is awarded an additional 4 point bonus. "
    "They played a total of five rounds each consisting of five questions. If James only missed one "
    "question, how many points did he get?": "64",
    # (5*10 + 10*2) + (6*3 + 10*2)
    "Robert and Teddy are planning to buy snacks for their friends.  Robert orders five boxes of pizza at $10 "
    "each box and ten cans of soft drinks at $2 each. Teddy buys six hamburgers at $3 each and an additional "
    "ten cans of soft drinks. How much do they spend in all?": "108",
    # Kept as the reference has it: the windfall alone, 1.5 * (250000 + 52*2000).
    "James invests $2000 a week into his bank account.  He had $250,000 in his account when the year started.  "
    "At the end of the year, he gets a windfall that is worth 50% more than what he has in his bank account.   "
    "How much money does he have?": "531000",
    # house 60 + 60 + 240 = 360 min, outside 720 min, split three ways = 360 min
    "James does chores around the class.  There are 3 bedrooms, 1 living room, and 2 bathrooms to clean.  The "
    "bedrooms each take 20 minutes to clean.  The living room takes as long as the 3 bedrooms combined.  The "
    "bathroom takes twice as long as the living room.  He also cleans the outside which takes twice as long "
    "as cleaning the house.  He splits the chores with his 2 siblings who are just as fast as him.  How long, "
    "in hours, does he work?": "6",
    # 50 * (1 - 0.40 - 0.34)
    "During one game, a total of 50 people attended a baseball team\u2019s games. Forty percent and "
    "thirty-four percent of the audiences are supporters of the first and second teams, respectively. How "
    "many people attended the game did not support either of the teams?": "13",
    # 09:00 minus 90 minutes; the only non-numeric gold
    "Pete has to take a 10-minute walk down to the train station and then board a 1hr 20-minute train to LA. "
    "When should he leave if he cannot get to LA later than 0900 hours? (24-hr time)": "07:30",
}

_CALCULATOR = re.compile(r"<<.*?>>")


def normalize_number(text: str) -> str | None:
    """'1,450,000' -> '1450000', '3.0' -> '3', '0.5' -> '0.5'; None when not a number."""
    return number_text(text)


def split_answer(answer: str) -> tuple[str, str] | None:
    """(reference solution without calculator annotations, final answer text) or None."""
    if answer.count("####") != 1:
        return None
    solution, final = answer.split("####")
    return _CALCULATOR.sub("", solution).strip(), final.strip()


def convert(item: dict[str, Any], index: int, split: str) -> tuple[dict[str, Any] | None, str | None]:
    """One upstream row -> (prepared row, None) or (None, why it is malformed)."""
    question, answer = item.get("question"), item.get("answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    if not isinstance(answer, str):
        return None, "missing 'answer'"
    parts = split_answer(answer)
    if parts is None:
        return None, "'answer' must contain exactly one '####' marker"
    solution, final = parts
    metadata: dict[str, Any] = {"split": split, "source_index": index}
    gold = ANSWER_FIXES.get(question)
    if gold is not None:
        metadata["upstream_answer"] = final
    else:
        gold = normalize_number(final)
        if gold is None:
            return None, f"final answer {final!r} is not a number"
    return {"question": question, "expected_answer": gold, "reference_solution": solution, "metadata": metadata}, None


def convert_rows(items: list[dict[str, Any]], split: str = "test") -> list[tuple[int, dict | None, str | None]]:
    """(index, row, problem) for each upstream row, in file order."""
    return [(index, *convert(item, index, split)) for index, item in enumerate(items)]


def prepare(ctx: PrepareContext, split: str = "test") -> Path:
    if split not in SPLITS:
        raise GymError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    raw = ctx.fetch(URL_TEMPLATE.format(split=split))
    rows = []
    for index, row, problem in convert_rows(ctx.read_jsonl(raw), split):
        ctx.keep(rows, (row, problem), f"{raw}: record {index + 1}")
    return ctx.write_rows(rows)
