"""Rebuild the upstream-format fixtures of the pairwise, label, long-context, translation and SQL
benchmarks under tests/fixtures/upstream/ (a `wget -x` style mirror).

    .venv/bin/python tools/make_fixtures_pairwise_sql_translation.py

Every file has the real upstream layout (path, keys, columns and types, CSV header, zip members with
the nested dev_databases.zip of BIRD); the content is written for the tests (no upstream text), and the
output is byte-for-byte reproducible.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
UPSTREAM = HERE / "upstream"
ARENA = "raw.githubusercontent.com/lmarena/arena-hard-auto/main/data"
PATHS = {
    "arena_hard_questions": f"{ARENA}/arena-hard-v0.1/question.jsonl",
    "arena_hard_baseline": f"{ARENA}/arena-hard-v0.1/model_answer/gpt-4-0314.jsonl",
    "arena_hard_v2_questions": f"{ARENA}/arena-hard-v2.0/question.jsonl",
    "arena_hard_v2_hard": f"{ARENA}/arena-hard-v2.0/model_answer/o3-mini-2025-01-31.jsonl",
    "arena_hard_v2_creative": f"{ARENA}/arena-hard-v2.0/model_answer/gemini-2.0-flash-001.jsonl",
    "imo_gradingbench": "raw.githubusercontent.com/google-deepmind/superhuman/c1ee02e03d4cdb2ab21cd01ac927d895f5287fc8/imobench/gradingbench.csv",
    "graphwalks": "huggingface.co/datasets/openai/graphwalks/resolve/main/graphwalks_128k_and_shorter.parquet",
    "longbench_v2": "huggingface.co/datasets/THUDM/LongBench-v2/resolve/main/data.json",
    "wmt24pp": "huggingface.co/datasets/google/wmt24pp/resolve/main/en-{target}.jsonl",
    "birdbench": "bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip",
}
FIXED_TIME = (2024, 6, 27, 0, 0, 0)


def target(relative: str) -> Path:
    path = UPSTREAM / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_jsonl(relative: str, rows: list[dict]) -> None:
    target(relative).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


# -- arena-hard ----------------------------------------------------------------------------------------
ARENA_PROMPTS = [
    ("Write a Python function that merges two sorted lists into one sorted list without using sort().", "coding"),
    ("Explain the difference between a process and a thread to a new developer, with one example of each.", "os"),
    ("Draft a polite email asking a landlord to fix a leaking kitchen tap before the weekend.", "writing"),
    ("Give a step by step plan to learn basic SQL in two weeks, one hour a day.", "learning"),
    ("Compare binary search trees and hash tables for storing a phone book of a million entries.", "data"),
]


def _baseline_row(uid: str, prompt: str, answer: str, model: str, dict_content: bool) -> dict:
    content = {"answer": answer} if dict_content else answer
    return {"uid": uid, "ans_id": f"ans-{uid}", "model": model,
            "messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": content}],
            "tstamp": 1718000000.0, "metadata": {"token_len": len(answer.split())}}


def arena_hard() -> None:
    questions, answers = [], []
    for number, (prompt, cluster) in enumerate(ARENA_PROMPTS):
        uid = f"{number:04x}a1b2c3d4e5f6"
        questions.append({"uid": uid, "category": "arena-hard-v0.1", "cluster": cluster, "turns": [{"content": prompt}],
                          "prompt": prompt})
        answers.append(_baseline_row(uid, prompt, f"A short baseline reply about {cluster}: it covers the basics only.",
                                     "gpt-4-0314", dict_content=True))
    write_jsonl(PATHS["arena_hard_questions"], questions)
    write_jsonl(PATHS["arena_hard_baseline"], answers)


def arena_hard_v2() -> None:
    items = [
        ("Prove that the sum of two odd integers is even, in two sentences.", "hard_prompt", "math"),
        ("Write a bash one-liner that counts the lines of every .py file under the current folder.", "hard_prompt", "coding"),
        ("Write a four-line poem about a lighthouse keeper who has never seen the sea in daylight.", "creative_writing", "poetry"),
        ("Describe, as a short story opening, a city where it rains upwards every Tuesday.", "creative_writing", "story"),
        ("Design a database schema for a small library that lends books and board games.", "hard_prompt", "design"),
    ]
    questions, hard, creative = [], [], []
    for number, (prompt, category, sub) in enumerate(items):
        uid = f"v2{number:02d}ffee0011"
        questions.append({"uid": uid, "category": category, "subcategory": sub, "prompt": prompt})
        reply = f"A plain baseline reply ({sub}); it answers only part of the request."
        (hard if category == "hard_prompt" else creative).append(
            _baseline_row(uid, prompt, reply, "o3-mini-2025-01-31" if category == "hard_prompt" else "gemini-2.0-flash-001",
                          dict_content=category == "hard_prompt"))
    write_jsonl(PATHS["arena_hard_v2_questions"], questions)
    write_jsonl(PATHS["arena_hard_v2_hard"], hard)
    write_jsonl(PATHS["arena_hard_v2_creative"], creative)


# -- imo gradingbench ------------------------------------------------------------------------------------
def imo_gradingbench() -> None:
    header = ["Grading ID", "Problem ID", "Problem", "Solution", "Grading guidelines", "Response", "Points",
              "Reward", "Problem Source"]
    problem = "Show that for every positive integer n, the number n^3 - n is divisible by 6."
    solution = "n^3 - n = (n-1)n(n+1) is a product of three consecutive integers, so it is divisible by 2 and by 3."
    guide = "7 points for the factorisation and both divisibility arguments; 1 point for the factorisation alone."
    responses = [
        ("Factor n^3 - n = (n-1)n(n+1). Among three consecutive integers one is even and one is a multiple of 3.", 7, "Correct"),
        ("Factor as (n-1)n(n+1); one factor is even and one factor is divisible by three, except I skip n=1.", 6, "Almost"),
        ("We can write n^3 - n = (n-1)n(n+1), and then it should follow somehow.", 1, "Partial"),
        ("Try n = 2: 8 - 2 = 6, which is divisible by 6, so it holds for all n.", 0, "Incorrect"),
        ("By induction: for n=1 it is 0; the step adds 3n^2+3n = 3n(n+1), which is a multiple of 6.", 7, "Correct"),
    ]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for number, (response, points, reward) in enumerate(responses):
        writer.writerow([f"GB-{number:04d}", "PB-Basic-001", problem, solution, guide, response, points, reward,
                         "test fixture"])
    target(PATHS["imo_gradingbench"]).write_text(buffer.getvalue(), encoding="utf-8")


# -- graphwalks -----------------------------------------------------------------------------------------
def graphwalks() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    edges = [("a1f3", "b2e4"), ("a1f3", "c3d5"), ("b2e4", "d4c6"), ("c3d5", "d4c6"), ("d4c6", "e5b7"), ("c3d5", "f6a8")]
    graph = "\n".join(f"{u} -> {v}" for u, v in edges)
    tail = ("\nYou must end your reply with a line of the form: Final Answer: [node1, node2, ...]\n"
            "If there are no such nodes, write: Final Answer: []")
    items = [
        ("parents", "Find the parents of node d4c6.", ["b2e4", "c3d5"]),
        ("bfs", "Perform a BFS from node a1f3 with depth 2.", ["d4c6", "f6a8"]),
        ("parents", "Find the parents of node a1f3.", []),
        ("bfs", "Perform a BFS from node c3d5 with depth 1.", ["d4c6", "f6a8"]),
        ("parents", "Find the parents of node e5b7.", ["d4c6"]),
        # upstream lists some nodes among their own parents; the reference takes the node out of the gold
        ("parents", "Find the parents of node f6a8.", ["c3d5", "f6a8"]),
    ]
    longer = [("bfs", "Perform a BFS from node b2e4 with depth 2.", ["e5b7"])]  # stands in for the 256k-1M file
    schema = pa.schema([("prompt", pa.string()), ("answer_nodes", pa.list_(pa.string())),
                        ("prompt_chars", pa.int64()), ("problem_type", pa.string())])
    for path, chosen in ((PATHS["graphwalks"], items), (PATHS["graphwalks"].replace("128k_and_shorter", "256k_to_1mil"), longer)):
        rows = []
        for kind, ask, answer in chosen:
            prompt = f"You will be given a directed graph as a list of edges.\nGraph:\n{graph}\n\nOperation: {ask}{tail}"
            rows.append({"prompt": prompt, "answer_nodes": answer, "prompt_chars": len(prompt), "problem_type": kind})
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), target(path), compression="snappy")


# -- longbench v2 ---------------------------------------------------------------------------------------
def longbench_v2() -> None:
    story = ("The harbour town of Lerwen kept three lighthouses. The northern one was painted red in 1921, "
             "the eastern one was rebuilt in stone after a storm, and the southern one has never been lit. ")
    items = [
        ("Which lighthouse was painted red?", ["The northern one", "The eastern one", "The southern one", "None"], "A", "short"),
        ("What happened to the eastern lighthouse?", ["It was painted", "It was rebuilt in stone", "It was sold", "It fell"], "B", "medium"),
        ("How many lighthouses did Lerwen keep?", ["One", "Two", "Four", "Three"], "D", "long"),
        ("Which lighthouse has never been lit?", ["Northern", "Eastern", "Southern", "Western"], "C", "short"),
    ]
    rows = []
    for number, (question, choices, answer, length) in enumerate(items):
        rows.append({"_id": f"66f36490821e116aacb2{number:04x}", "domain": "Single-Document QA", "sub_domain": "Literary",
                     "difficulty": "easy" if number % 2 == 0 else "hard", "length": length, "question": question,
                     "choice_A": choices[0], "choice_B": choices[1], "choice_C": choices[2], "choice_D": choices[3],
                     "answer": answer, "context": story * (number + 2)})
    target(PATHS["longbench_v2"]).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


# -- wmt24pp --------------------------------------------------------------------------------------------
WMT_SEGMENTS = [
    ("The museum opens at nine on weekdays.", {"de_DE": "Das Museum öffnet werktags um neun.",
                                                "es_MX": "El museo abre a las nueve entre semana.",
                                                "fr_FR": "Le musée ouvre à neuf heures en semaine.",
                                                "it_IT": "Il museo apre alle nove nei giorni feriali.",
                                                "ja_JP": "博物館は平日の九時に開館します。"}),
    ("Please bring your own water bottle.", {"de_DE": "Bitte bringen Sie Ihre eigene Wasserflasche mit.",
                                             "es_MX": "Por favor, trae tu propia botella de agua.",
                                             "fr_FR": "Veuillez apporter votre propre gourde.",
                                             "it_IT": "Per favore, porta la tua borraccia.",
                                             "ja_JP": "水筒をご持参ください。"}),
    ("CANARY GUID 00000000-0000-4000-8000-000000000000", {}),
    ("Rain is expected in the afternoon.", {"de_DE": "Am Nachmittag wird Regen erwartet.",
                                            "es_MX": "Se espera lluvia por la tarde.",
                                            "fr_FR": "De la pluie est attendue dans l'après-midi.",
                                            "it_IT": "Nel pomeriggio è prevista pioggia.",
                                            "ja_JP": "午後は雨の予報です。"}),
]


WMT_TARGETS = ("ar_EG", "ar_SA", "bg_BG", "bn_IN", "ca_ES", "cs_CZ", "da_DK", "de_DE", "el_GR", "es_MX", "et_EE", "fa_IR", "fi_FI", "fil_PH", "fr_CA", "fr_FR", "gu_IN", "he_IL", "hi_IN", "hr_HR", "hu_HU", "id_ID", "is_IS", "it_IT", "ja_JP", "kn_IN", "ko_KR", "lt_LT", "lv_LV", "ml_IN", "mr_IN", "nl_NL", "no_NO", "pa_IN", "pl_PL", "pt_BR", "pt_PT", "ro_RO", "ru_RU", "sk_SK", "sl_SI", "sr_RS", "sv_SE", "sw_KE", "sw_TZ", "ta_IN", "te_IN", "th_TH", "tr_TR", "uk_UA", "ur_PK", "vi_VN", "zh_CN", "zh_TW", "zu_ZA")  # all 55 pairs


def wmt24pp() -> None:
    for target_code in WMT_TARGETS:
        rows = []
        for number, (source, targets) in enumerate(WMT_SEGMENTS):
            # the pairs without a written reference here get a tagged copy of the source as a stand-in
            reference = targets.get(target_code) or f"[{target_code}] {source}"
            rows.append({"lp": f"en-{target_code}", "domain": "news", "document_id": f"doc-{number // 2}",
                         "segment_id": number + 1, "is_bad_source": source.startswith("CANARY"), "source": source,
                         "target": reference, "original_target": reference})
        write_jsonl(PATHS["wmt24pp"].format(target=target_code), rows)


# -- bird -----------------------------------------------------------------------------------------------
def _sqlite_bytes(statements: list[str]) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "db.sqlite"
        connection = sqlite3.connect(path)
        connection.executescript(";\n".join(statements) + ";")
        connection.commit()
        connection.close()
        return path.read_bytes()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, FIXED_TIME), data)
    return buffer.getvalue()


def birdbench() -> None:
    schools = _sqlite_bytes([
        "CREATE TABLE schools (id INTEGER PRIMARY KEY, name TEXT, city TEXT, students INTEGER)",
        "INSERT INTO schools VALUES (1, 'Hill Primary', 'Fresno', 320), (2, 'Lake High', 'Oakland', 1210), "
        "(3, 'Oak Middle', 'Fresno', 640), (4, 'Bay Academy', 'Oakland', 455)",
    ])
    shop = _sqlite_bytes([
        "CREATE TABLE products (pid INTEGER PRIMARY KEY, title TEXT, price REAL)",
        "CREATE TABLE orders (oid INTEGER PRIMARY KEY, pid INTEGER REFERENCES products(pid), qty INTEGER)",
        "INSERT INTO products VALUES (1, 'Lamp', 19.5), (2, 'Desk', 120.0), (3, 'Chair', 45.25)",
        "INSERT INTO orders VALUES (10, 1, 2), (11, 3, 4), (12, 3, 1), (13, 2, 1)",
    ])
    questions = [
        {"question_id": 0, "db_id": "schools", "question": "How many schools are in Fresno?",
         "evidence": "Fresno refers to city = 'Fresno'", "SQL": "SELECT COUNT(*) FROM schools WHERE city = 'Fresno'",
         "difficulty": "simple"},
        {"question_id": 1, "db_id": "schools", "question": "List the names of schools with more than 500 students.",
         "evidence": "", "SQL": "SELECT name FROM schools WHERE students > 500", "difficulty": "simple"},
        {"question_id": 2, "db_id": "shop", "question": "What is the total quantity ordered of the product titled Chair?",
         "evidence": "total quantity refers to SUM(qty)",
         "SQL": "SELECT SUM(o.qty) FROM orders o JOIN products p ON o.pid = p.pid WHERE p.title = 'Chair'",
         "difficulty": "moderate"},
        {"question_id": 3, "db_id": "shop", "question": "Which product has the highest price?", "evidence": "",
         "SQL": "SELECT title FROM products ORDER BY price DESC LIMIT 1", "difficulty": "challenging"},
    ]
    inner = _zip({"dev_databases/schools/schools.sqlite": schools, "dev_databases/shop/shop.sqlite": shop})
    outer = _zip({"dev_20240627/dev.json": json.dumps(questions, indent=2).encode(),
                  "dev_20240627/dev_databases.zip": inner,
                  "__MACOSX/dev_20240627/._dev.json": b"\x00\x05\x16\x07"})
    target(PATHS["birdbench"]).write_bytes(outer)




# -- mrcr -----------------------------------------------------------------------------------------------
MRCR_PATH = "huggingface.co/datasets/openai/mrcr/resolve/main/{n}needle/{n}needle_{k}.parquet"
MRCR_TOPICS = ("tapirs", "lanterns", "glaciers", "teapots", "owls", "ferries")


def mrcr() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("prompt", pa.string()), ("answer", pa.string()), ("random_string_to_prepend", pa.string()),
                        ("n_needles", pa.int64()), ("desired_msg_index", pa.int64()), ("total_messages", pa.int64()),
                        ("n_chars", pa.int64()), ("date_added", pa.string())])
    for n in (2, 4, 8):
        for k in (0, 1):
            rows = []
            for number in range(2):
                topic = MRCR_TOPICS[(n + k + number) % len(MRCR_TOPICS)]
                prefix = f"q{n}{k}{number}Zx7"
                turns = []
                for needle in range(n):
                    turns += [{"role": "user", "content": f"write a short poem about {topic}"},
                              {"role": "assistant", "content": f"Poem {needle + 1} about {topic}: line {needle} sings."}]
                    turns += [{"role": "user", "content": "write a riddle about rivers"},
                              {"role": "assistant", "content": f"Riddle {needle}: I run but never walk."}]
                turns.append({"role": "user", "content": f"Prepend {prefix} to the 2nd (1 indexed) short poem about "
                                                          f"{topic}. Do not include any other text in your response."})
                text = json.dumps(turns)
                rows.append({"prompt": text, "answer": f"{prefix}Poem 2 about {topic}: line 1 sings.",
                             "random_string_to_prepend": prefix, "n_needles": n, "desired_msg_index": 3,
                             "total_messages": len(turns), "n_chars": len(text), "date_added": "04-12-2025"})
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), target(MRCR_PATH.format(n=n, k=k)),
                           compression="snappy")


# -- m-ArenaHard (v1 and v2.0): one parquet file per language ---------------------------------------------
M_ARENA_PATH = "huggingface.co/datasets/CohereLabs/{repo}/resolve/main/{lang}/test-00000-of-00001.parquet"
M_ARENA_LANGUAGES = ("ar", "cs", "de", "el", "en", "es", "fa", "fr", "he", "hi", "id", "it", "ja", "ko", "nl", "pl",
                     "pt", "ro", "ru", "tr", "uk", "vi", "zh")


def m_arena_hard() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    v1 = pa.schema([("question_id", pa.string()), ("cluster", pa.string()), ("category", pa.string()),
                    ("prompt", pa.string())])
    v2 = pa.schema([("question_id", pa.string()), ("category", pa.string()), ("subcategory", pa.string()),
                    ("prompt", pa.string()), ("language", pa.string())])
    v2_items = [("v200ffee0011", "hard_prompt", "math"), ("v202ffee0011", "creative_writing", "poetry"),
                ("v201ffee0011", "hard_prompt", "coding")]
    for lang in M_ARENA_LANGUAGES:
        rows = [{"question_id": f"{n:04x}a1b2c3d4e5f6", "cluster": "general", "category": "arena-hard-v0.1",
                 "prompt": f"({lang}) {ARENA_PROMPTS[n][0]}"} for n in range(2)]
        pq.write_table(pa.Table.from_pylist(rows, schema=v1),
                       target(M_ARENA_PATH.format(repo="m-ArenaHard", lang=lang)), compression="snappy")
        rows = [{"question_id": uid, "category": category, "subcategory": sub,
                 "prompt": f"({lang}) Task {uid} in the {sub} area: answer it well.", "language": lang}
                for uid, category, sub in v2_items]
        pq.write_table(pa.Table.from_pylist(rows, schema=v2),
                       target(M_ARENA_PATH.format(repo="m-ArenaHard-v2.0", lang=lang)), compression="snappy")


# -- ProofBench -----------------------------------------------------------------------------------------
def proof_bench_judge() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("problem_id", pa.string()), ("problem", pa.string()), ("model_solution", pa.string()),
                        ("marking_scheme", pa.string()), ("reference_solution", pa.string()),
                        ("expert_rating", pa.int64()), ("generator", pa.string())])
    problem = "Prove that the product of any two consecutive integers is even."
    proofs = [("One of n and n+1 is even, so n(n+1) is even.", 7),
              ("n(n+1) = n^2 + n; both terms have the same parity, so the sum is even.", 6),
              ("For n = 2 the product is 6, which is even, so it always holds.", 0),
              ("Consecutive integers are both odd, so the product is odd... no, even.", 1),
              ("If n is even we are done; if n is odd then n+1 is even. Hence n(n+1) is even.", 7)]
    rows = [{"problem_id": "PB-Test-1", "problem": problem, "model_solution": proof,
             "marking_scheme": "7: parity argument complete; 0: checks examples only.",
             "reference_solution": "Among two consecutive integers one is even.", "expert_rating": rating,
             "generator": f"model-{number}"} for number, (proof, rating) in enumerate(proofs)]
    path = "huggingface.co/datasets/wenjiema02/ProofBench/resolve/main/data/train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), target(path), compression="snappy")


# -- FLORES+ devtest ------------------------------------------------------------------------------------
FLORES_PATH = "huggingface.co/datasets/openlanguagedata/flores_plus/resolve/main/devtest/{code}.jsonl"
# every target the prepare script reads by default (all 219 FLORES+ devtest languages)
FLORES_TARGETS = tuple(code for code in json.loads((HERE.parents[1] / "benchmarks" / "flores200" / "languages.json")
                                                   .read_text(encoding="utf-8")) if code != "eng_Latn")
FLORES_ENGLISH = ("The bridge was closed for repairs last week.", "Volunteers planted trees along the river.",
                  "The festival draws visitors from many countries.")


def flores200() -> None:
    for code in ("eng_Latn", *FLORES_TARGETS):
        rows = []
        for number, sentence in enumerate(FLORES_ENGLISH):
            text = sentence if code == "eng_Latn" else f"[{code}] {sentence.rstrip('.')} ({number})."
            language, script = code.split("_")[:2]  # some codes add a glottocode: apc_Arab_nort3139
            rows.append({"id": number + 1, "iso_639_3": language, "iso_15924": script, "glottocode": "test1234",
                         "text": text, "url": f"https://en.wikinews.org/wiki/Example_{number}", "domain": "wikinews",
                         "topic": "travel", "has_image": 0, "has_hyperlink": 0, "last_updated": "2.1"})
        write_jsonl(FLORES_PATH.format(code=code), rows)


# -- Spider 2.0-Lite (SQLite part) ----------------------------------------------------------------------
SPIDER2 = "raw.githubusercontent.com/xlang-ai/Spider2/main/spider2-lite"
SPIDER2_DB_ZIP = "drive.usercontent.google.com/download"  # the query string is not part of the mirror path


def spider2_lite() -> None:
    league = _sqlite_bytes([
        "CREATE TABLE teams (team_id INTEGER PRIMARY KEY, team_name TEXT, city TEXT)",
        "CREATE TABLE matches (match_id INTEGER PRIMARY KEY, home INTEGER, away INTEGER, home_goals INTEGER, "
        "away_goals INTEGER, season TEXT)",
        "INSERT INTO teams VALUES (1, 'Rovers', 'Leeds'), (2, 'United', 'York'), (3, 'Athletic', 'Hull')",
        "INSERT INTO matches VALUES (1, 1, 2, 3, 1, '2019'), (2, 2, 3, 0, 0, '2019'), (3, 3, 1, 2, 2, '2020'), "
        "(4, 1, 3, 1, 0, '2020')",
    ])
    tasks = [
        {"instance_id": "local001", "db": "Soccer-League", "question": "How many goals were scored in season 2019?",
         "external_knowledge": None},
        {"instance_id": "local002", "db": "Soccer-League", "question": "List each team name with its number of home matches.",
         "external_knowledge": None},
        {"instance_id": "bq001", "db": "ga360", "question": "A BigQuery task that needs cloud credentials.",
         "external_knowledge": None},
        {"instance_id": "local003", "db": "Soccer-League", "question": "Give the average home goals per match, rounded to 2 decimals.",
         "external_knowledge": "goals.md"},
        {"instance_id": "local004", "db": "Soccer-League", "question": "Which city hosts the team with the most home goals?",
         "external_knowledge": None},
    ]
    write_jsonl(f"{SPIDER2}/spider2-lite.jsonl", tasks)
    standards = [{"instance_id": "local001", "condition_cols": [], "ignore_order": True, "toks": 9},
                 {"instance_id": "local002", "condition_cols": [0, 1], "ignore_order": True, "toks": 14},
                 {"instance_id": "local003", "condition_cols": [], "ignore_order": True, "toks": 11},
                 {"instance_id": "local004", "condition_cols": [], "ignore_order": False, "toks": 17}]
    write_jsonl(f"{SPIDER2}/evaluation_suite/gold/spider2lite_eval.jsonl", standards)
    gold = {
        "local001": ("SELECT SUM(home_goals + away_goals) AS goals FROM matches WHERE season = '2019'", {"": "goals\n4\n"}),
        "local002": ("SELECT t.team_name, COUNT(m.match_id) AS n FROM teams t LEFT JOIN matches m ON m.home = t.team_id "
                     "GROUP BY t.team_name", {"": "team_name,n\nAthletic,1\nRovers,2\nUnited,1\n"}),
        "local003": ("SELECT ROUND(AVG(home_goals), 2) AS avg_goals FROM matches", {"_a": "avg_goals\n1.5\n",
                                                                                   "_b": "avg_goals\n1.50\n"}),
        "local004": ("SELECT t.city FROM teams t JOIN matches m ON m.home = t.team_id GROUP BY t.team_id "
                     "ORDER BY SUM(m.home_goals) DESC LIMIT 1", {"": "city\nLeeds\n"}),
    }
    for instance_id, (sql, results) in gold.items():
        target(f"{SPIDER2}/evaluation_suite/gold/sql/{instance_id}.sql").write_text(sql + "\n", encoding="utf-8")
        for suffix, text in results.items():
            target(f"{SPIDER2}/evaluation_suite/gold/exec_result/{instance_id}{suffix}.csv").write_text(text, encoding="utf-8")
    target(SPIDER2_DB_ZIP).write_bytes(_zip({"Soccer-League.sqlite": league, "__MACOSX/._Soccer-League.sqlite": b"x"}))


BUILDERS = [arena_hard, arena_hard_v2, imo_gradingbench, graphwalks, longbench_v2, wmt24pp, birdbench, mrcr, m_arena_hard, proof_bench_judge, flores200, spider2_lite]


if __name__ == "__main__":
    for builder in BUILDERS:
        builder()
