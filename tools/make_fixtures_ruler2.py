"""Upstream-layout fixtures for ruler2 (RULER v2): the files its generators read, in the layout Hugging Face
serves them: cais/mmlu's `all` config (test: the questions asked, auxiliary_train: the haystack questions)
and hotpotqa/hotpot_qa's distractor train shards (the haystack documents). The distractor validation file
(the questions asked) is hotpotqa_closedbook's fixture (tools/make_fixtures.py), shared as upstream
shares it. Every row is a stand-in written for gym's tests (a few after well-known HotpotQA rows, reworded). Questions hold
what the generators must carry through: runs of spaces and newlines (collapsed), quotes, backslashes and
non-ASCII text. Build: .venv/bin/python tools/make_fixtures_ruler2.py
"""

from __future__ import annotations

from pathlib import Path

UPSTREAM = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "upstream"
MMLU = "huggingface.co/datasets/cais/mmlu/resolve/main/all/{split}-00000-of-00001.parquet"
HOTPOT_TRAIN = "huggingface.co/datasets/hotpotqa/hotpot_qa/resolve/main/distractor/train-0000{shard}-of-00002.parquet"

MMLU_TEST = [  # (question, choices, answer index, subject)
    ("What is the capital of France?", ["Madrid", "Rome", "Paris", "Berlin"], 2, "high_school_geography"),
    ("How many days are in a leap year?", ["365", "366", "364", "360"], 1, "elementary_mathematics"),
    ("Which gas do plants take in\nfor photosynthesis?", ["Oxygen", "Nitrogen", "Carbon dioxide", "Helium"], 2,
     "high_school_biology"),
    ("The word \"laconic\" means:", ["talkative", "using few words", "angry", "lazy"], 1, "miscellaneous"),
    ("Solve for $x$:  $2x + 3 = 11$.", ["3", "4", "5", "8"], 1, "high_school_mathematics"),
    ("Which of these is a prime number?", ["21", "27", "29", "33"], 2, "elementary_mathematics"),
    ("Who wrote 'Pride and Prejudice'?", ["Jane Austen", "Emily Brontë", "Mary Shelley", "George Eliot"], 0,
     "high_school_european_history"),
    ("What is $\\frac{1}{2} + \\frac{1}{4}$?", ["$\\frac{3}{4}$", "$\\frac{1}{6}$", "$\\frac{2}{6}$", "$1$"], 0,
     "elementary_mathematics"),
    ("Which organ pumps blood through the body?", ["Liver", "Heart", "Lung", "Kidney"], 1, "anatomy"),
    ("The speed of light in vacuum is about:", ["3×10^8 m/s", "3×10^6 m/s", "340 m/s", "1.5×10^8 m/s"], 0,
     "high_school_physics"),
    ("In economics, GDP stands for:", ["Gross Domestic Product", "General Debt Position", "Gross Dollar Price",
                                       "Global Demand Projection"], 0, "high_school_macroeconomics"),
    ("Which statement about the function f(x) = x^2 is true?", ["It is odd", "It is even", "It is linear",
                                                                "It is periodic"], 1, "college_mathematics"),
]

MMLU_AUX = [  # auxiliary_train rows: the haystack (its own sources upstream: ARC, OBQA, RACE, ...)
    ("Which of these objects is magnetic?", ["a wooden spoon", "an iron nail", "a glass cup", "a rubber ball"], 1),
    ("What causes the seasons on Earth?", ["distance to the Sun", "the tilt of Earth's axis", "the Moon",
                                           "ocean currents"], 1),
    ("A student pours water into a freezer tray. What happens to the water overnight?", ["it boils", "it freezes",
                                                                                         "it evaporates", "it melts"], 1),
    ("Which tool measures   temperature?", ["ruler", "thermometer", "scale", "barometer"], 1),
    ("Which is a renewable resource?", ["coal", "oil", "wind", "natural gas"], 2),
    ("The passage says the author \"never looked back\". What does this suggest?", ["regret", "resolve", "fear",
                                                                                    "confusion"], 1),
    ("Which animal is a mammal?", ["shark", "frog", "whale", "eagle"], 2),
    ("What is the main job of the roots of a plant?", ["make food", "take in water", "make seeds", "attract bees"], 1),
    ("Which unit is used to measure force?", ["newton", "joule", "watt", "pascal"], 0),
    ("A ball rolls down a hill.\tWhich energy change occurs?", ["kinetic to potential", "potential to kinetic",
                                                                "chemical to light", "heat to sound"], 1),
    ("Which layer of Earth is the thinnest?", ["crust", "mantle", "outer core", "inner core"], 0),
    ("Why does the writer mention the café in Zürich?", ["to set the scene", "to argue a point", "to list prices",
                                                         "to end the story"], 0),
    ("Which of these is a chemical change?", ["melting ice", "cutting paper", "burning wood", "dissolving sugar"], 2),
    ("What do bees collect from flowers?", ["nectar", "sand", "salt", "seeds"], 0),
    ("Which planet is closest to the Sun?", ["Venus", "Mercury", "Earth", "Mars"], 1),
    ("How many legs does an insect have?", ["four", "six", "eight", "ten"], 1),
    ("Which material conducts electricity best?", ["copper", "plastic", "wood", "glass"], 0),
    ("What is the boiling point of water at sea level?", ["50 °C", "90 °C", "100 °C", "120 °C"], 2),
    ("Which word best replaces 'rapid' in the sentence?", ["slow", "quick", "late", "quiet"], 1),
    ("What does a food chain show?", ["how energy moves", "how rocks form", "how rain falls", "how wind blows"], 0),
    ("Which part of the cell holds its genetic material?", ["membrane", "nucleus", "wall", "vacuole"], 1),
    ("Which of the following is a solution?", ["salt water", "sand and water", "oil and water", "ice"], 0),
    ("What is $3 \\times 4$?", ["7", "12", "34", "1"], 1),
    ("Which season follows winter?", ["summer", "autumn", "spring", "winter"], 2),
]

# hotpotqa distractor train rows: (id, question, answer, type, level, supporting titles, [(title, sentences)])
HOTPOT_TRAIN_ROWS = [
    [("5a7a06935542990198eaf050", "Which magazine was started first, Arthur's Magazine or First for Women?",
      "Arthur's Magazine", "comparison", "medium", ["Arthur's Magazine", "First for Women"],
      [("Radio City (Indian radio station)", ["Radio City is India's first private FM radio station.",
                                              " It was started on 3 July 2001."]),
       ("Arthur's Magazine", ["Arthur's Magazine (1844–1846) was an American literary periodical published in "
                              "Philadelphia in the 19th century."]),
       ("First for Women", ["First for Women is a woman's magazine published by Bauer Media Group in the USA.",
                            " The magazine was started in 1989."])]),
     ("5a879ab05542996e4f30887e", "The Oberoi family is part of a hotel company that has a head office in what city?",
      "Delhi", "bridge", "medium", ["Oberoi family", "The Oberoi Group"],
      [("Oberoi family", ["The Oberoi family is an Indian family that is famous for its involvement in hotels."]),
       ("The Oberoi Group", ["The Oberoi Group is a hotel company with its head office in Delhi."]),
       ("Ritz-Carlton Jakarta", ["The Ritz-Carlton Jakarta is a hotel and skyscraper in Jakarta, Indonesia."])])],
    [("5a8d7341554299441c6b9fe5", "What nationality was James Henry Miller's wife?", "American", "bridge", "hard",
      ["James Henry Miller", "Peggy Seeger"],
      [("Peggy Seeger", ["Margaret \"Peggy\" Seeger (born June 17, 1935) is an American folksinger."]),
       ("James Henry Miller", ["James Henry Miller (25 January 1915 – 22 October 1989), better known by his stage "
                               "name Ewan MacColl, was an English folk singer.", " He was married to Peggy Seeger."]),
       ("Radio City (Indian radio station)", ["Radio City is India's first private FM radio station.",
                                              " It was started on 3 July 2001."])]),
     ("5a82171f5542990a1d231f4a", "Were Scott Derrickson and Ed Wood of the same nationality?", "yes", "comparison",
      "hard", ["Scott Derrickson", "Ed Wood"],
      [("Scott Derrickson", ["Scott Derrickson (born July 16, 1966) is an American director."]),
       ("Ed Wood", ["Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker."]),
       ("Tyler Bates", ["Tyler Bates is an American musician and composer of film scores."]),
       ("Doctor Strange (2016 film)", ["Doctor Strange is a 2016 film directed by Scott Derrickson."])])],
]


def mmlu() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("question", pa.string()), ("subject", pa.string()), ("choices", pa.list_(pa.string())),
                        ("answer", pa.int64())])
    test = [{"question": q, "subject": s, "choices": c, "answer": a} for q, c, a, s in MMLU_TEST]
    aux = [{"question": q, "subject": "", "choices": c, "answer": a} for q, c, a in MMLU_AUX]
    for split, rows in (("test", test), ("auxiliary_train", aux)):
        path = UPSTREAM / MMLU.format(split=split)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="snappy")


def hotpot_train() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        ("id", pa.string()), ("question", pa.string()), ("answer", pa.string()), ("type", pa.string()),
        ("level", pa.string()),
        ("supporting_facts", pa.struct([("title", pa.list_(pa.string())), ("sent_id", pa.list_(pa.int32()))])),
        ("context", pa.struct([("title", pa.list_(pa.string())), ("sentences", pa.list_(pa.list_(pa.string())))])),
    ])
    for shard, items in enumerate(HOTPOT_TRAIN_ROWS):
        rows = [{"id": qid, "question": q, "answer": a, "type": kind, "level": level,
                 "supporting_facts": {"title": support, "sent_id": [0] * len(support)},
                 "context": {"title": [t for t, _ in paragraphs], "sentences": [s for _, s in paragraphs]}}
                for qid, q, a, kind, level, support, paragraphs in items]
        path = UPSTREAM / HOTPOT_TRAIN.format(shard=shard)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="snappy")


if __name__ == "__main__":
    mmlu()
    hotpot_train()
