"""The tool_call verifier against BFCL's own checker.

* every case of tests/fixtures/bfcl_parity.jsonl (the gold calls of every fixture row and each kind of
  mistake, in native and prompt naming) gets the verdict the upstream checker gave it, recorded by
  tools/make_bfcl_parity.py; each case is tagged with the rule it exercises;
* the gold answer of every fixture row scores 1 through the whole verifier (native tool calls and prompt
  text), except the rows whose ground truth the upstream checker itself rejects (docs/tool-calls.md);
* the Java/JavaScript converters reproduce the upstream converters' own test cases;
* irrelevance, relevance, decode failures and the greedy parallel matching behave as upstream.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.toolcalls import ToolCall, render_calls
from gym.toolcalls.gold import calls_as_text, gold_calls, language_of
from gym.verifiers import bfcl_ast
from gym.verifiers.tool_call import ToolCallVerifier
from gym.verifiers.tool_call_types import Unconvertible, java_value, js_value

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DATA = (FIXTURES / "upstream/raw.githubusercontent.com/ShishirPatil/gorilla/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
        / "berkeley-function-call-leaderboard/bfcl_eval/data")
# Rows whose ground truth BFCL's checker rejects (found by running it over all of BFCL v4's data).
REJECTED_BY_UPSTREAM = {"simple_java_36", "simple_java_64", "simple_java_65", "live_simple_106-63-0",
                        "live_simple_112-68-0", "live_multiple_507-149-4", "live_multiple_862-181-3",
                        "live_multiple_964-207-0"}


def _values(value):
    if isinstance(value, dict) and set(value) == {"__tuple__"}:
        return tuple(_values(v) for v in value["__tuple__"])
    if isinstance(value, dict):
        return {k: _values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_values(v) for v in value]
    return value


def _rows() -> dict[str, dict]:
    rows = {}
    for path in sorted(DATA.glob("BFCL_v4_*.json")):
        if path.stem.startswith("BFCL_v4_multi_turn_"):  # benchmark=bfcl_multi_turn's entries (an episode benchmark)
            continue
        category = path.stem.removeprefix("BFCL_v4_")
        answers_path = DATA / "possible_answer" / path.name
        answers = {a["id"]: a["ground_truth"] for a in map(json.loads, answers_path.read_text().splitlines())} \
            if answers_path.exists() else {}
        for row in map(json.loads, path.read_text().splitlines()):
            rows[row["id"]] = {"functions": row["function"], "ground_truth": answers.get(row["id"]),
                               "metadata": {"id": row["id"], "category": category}}
    return rows


ROWS = _rows()
CASES = [json.loads(line) for line in (FIXTURES / "bfcl_parity.jsonl").read_text().splitlines()]


def test_the_parity_table_covers_every_rule_and_category():
    rules = {case["rule"] for case in CASES}
    assert {"gold", "wrong_type", "extra_param", "missing_required", "wrong_value", "missing_parallel_call",
            "swapped_parallel_order", "string_normalisation", "int_for_float", "tuple_for_list"} <= rules
    assert {case["category"] for case in CASES} == {c for c in {r["metadata"]["category"] for r in ROWS.values()}
                                                     if "relevance" not in c}


@pytest.mark.parametrize("rule", sorted({case["rule"] for case in CASES}))
def test_every_case_gets_the_upstream_verdict(rule):
    wrong = []
    for case in (c for c in CASES if c["rule"] == rule):
        row = ROWS[case["id"]]
        try:
            bfcl_ast.check(row["functions"], _values(case["calls"]), row["ground_truth"], case["category"],
                           language_of(case["category"]), case["native"])
            valid, kind = True, None
        except bfcl_ast.Failure as failure:
            valid, kind = False, failure.kind
        if valid != case["valid"]:
            wrong.append((case["id"], case["native"], case["error_type"], kind))
    assert not wrong


@pytest.mark.parametrize("native", [True, False])
def test_gold_answers_score_one_except_the_rows_upstream_rejects(native):
    verifier = ToolCallVerifier(mode="native" if native else "prompt")
    scores = {}
    for row_id, row in ROWS.items():
        if row["ground_truth"] is None:
            continue
        category = row["metadata"]["category"]
        calls = gold_calls(row["functions"], row["ground_truth"], language_of(category), native)
        verdict = verifier.verify(row, "", calls) if native else \
            verifier.verify(row, calls_as_text(calls, "python_list", language_of(category)))
        scores[row_id] = verdict.reward
    assert {row_id for row_id, score in scores.items() if score != 1.0} == REJECTED_BY_UPSTREAM
    assert len(scores) > 80


def test_the_docs_list_the_rejected_rows():
    page = (Path(__file__).resolve().parents[2] / "docs" / "tool-calls.md").read_text(encoding="utf-8")
    assert all(f"`{row_id}`" in page for row_id in REJECTED_BY_UPSTREAM)


def _row(category):
    return next(row for row in ROWS.values() if row["metadata"]["category"] == category)


def test_irrelevance_and_relevance():
    verifier = ToolCallVerifier()
    irrelevant = _row("irrelevance")
    name = irrelevant["functions"][0]["name"]
    assert verifier.verify(irrelevant, "I cannot do that with these functions.", []).reward == 1.0
    assert verifier.verify(irrelevant, "", [ToolCall(name, {"weight": 1.0})]).reward == 0.0  # a call: wrong
    assert verifier.verify(irrelevant, "", [ToolCall(name, None, "{broken")]).reward == 1.0  # no valid call
    assert verifier.verify(irrelevant, f"[{name}(weight=1.0)]").reward == 0.0  # prompt mode: decodes
    assert verifier.verify(irrelevant, "No function fits.").reward == 1.0
    relevant = _row("live_relevance")
    name = relevant["functions"][0]["name"]
    assert verifier.verify(relevant, "", [ToolCall(name, {"prompt": "x"})]).reward == 1.0  # any call counts
    assert verifier.verify(relevant, "Here is an answer.", []).reward == 0.0
    assert verifier.verify(relevant, "[]").reward == 0.0  # an empty list is no call


def test_decode_failures_are_wrong_never_errors():
    verifier = ToolCallVerifier()
    row = _row("simple_python")
    name = row["functions"][0]["name"]
    broken = verifier.verify(row, "", [ToolCall(name, None, '{"base": 10,')])
    assert broken.reward == 0.0 and broken.details["error_type"] == "ast_decoder:decoder_failed"
    assert verifier.verify(row, "The area is 25.", []).details["error_type"] == "ast_decoder:decoder_failed"
    assert verifier.verify(row, "not [python(").reward == 0.0
    assert ToolCallVerifier(format="hermes").verify(row, "<tool_call>{oops</tool_call>").reward == 0.0


def test_native_names_have_dots_replaced_prompt_names_keep_them():
    row = next(r for r in ROWS.values() if "." in r["functions"][0]["name"] and r["metadata"]["category"] == "simple_java")
    for native in (True, False):
        calls = gold_calls(row["functions"], row["ground_truth"], "java", native)
        assert ("." in calls[0].name) is (not native)
    dotted = gold_calls(row["functions"], row["ground_truth"], "java", native=False)
    assert ToolCallVerifier().verify(row, "", dotted).reward == 0.0  # a native call must use the sent name


def test_parallel_matching_is_greedy_in_expected_order():
    """Each expected call takes the first free model call that passes; a model call that fits two expected
    calls goes to the first, even when another assignment would match both (upstream's behaviour)."""
    doc = {"name": "f", "description": "", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}},
                                                          "required": ["x"]}}
    truth = [{"f": {"x": [1, 2]}}, {"f": {"x": [1]}}]
    with pytest.raises(bfcl_ast.Failure):
        bfcl_ast.check([doc], [{"f": {"x": 1}}, {"f": {"x": 2}}], truth, "parallel", "python", False)
    bfcl_ast.check([doc], [{"f": {"x": 2}}, {"f": {"x": 1}}], truth, "parallel", "python", False)


# The upstream converters' own test cases (their expected values)
@pytest.mark.parametrize("text, declared, item, expected", [
    ("true", "boolean", None, True), ("123", "integer", None, 123), ("-123", "integer", None, -123),
    ("3.14f", "float", None, 3.14), ("3.14", "double", None, 3.14), ("123L", "long", None, 123),
    ("-123L", "long", None, -123), ("abc", "String", None, "abc"), ("new int[]{1, 2, 3}", "Array", None, [1, 2, 3]),
    ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", None, ["a", "b"]),
    ('new HashMap<String, String>() {{ put("key", "value"); }}', "HashMap", None, {"key": "value"}),
    ("3f", "float", None, 3.0), ("3e3F", "float", None, 3e3), ("3.14e-2", "double", None, 3.14e-2),
    ("9223372036854775807L", "long", None, 9223372036854775807), ("123", "any", None, "123"),
    ("new int[]{}", "Array", None, []), ("new ArrayList<>()", "ArrayList", None, []), ("new HashMap<>()", "HashMap", None, {}),
    ('new Object[]{1, "abc", true}', "Array", None, [1, "abc", True]),
    ('new ArrayList<>(Arrays.asList(1, "abc", true))', "ArrayList", None, [1, "abc", True]),
    ('new HashMap<String, Object>() {{ put("key1", 1); put("key2", "value"); put("key3", true); }}', "HashMap", None,
     {"key1": 1, "key2": "value", "key3": True}),
    ("new int[] { 1, 2, 3 }", "Array", None, [1, 2, 3]), ("new HashMap<>() {{ }}", "HashMap", None, {}),
    ('new HashMap<String, String>() { { put("key", "value"); } }', "HashMap", None, {"key": "value"}),
    ("new long[]{1L, 2L, 3L}", "Array", "long", [1, 2, 3]), ("new long[]{1L, 2, 3L}", "Array", "long", [1, "2", 3]),
    ("new long[]{1L, 2.0, 3L}", "Array", "long", [1, "2.0", 3]),
    ("new ArrayList<Integer>(Arrays.asList(1, 2, 3))", "ArrayList", "integer", [1, 2, 3]),
    ("new ArrayList<Float>() {{ add(1.0f); add(2.0f); add(3.0f); }}", "ArrayList", "float", [1.0, 2.0, 3.0]),
    ("new ArrayList<Boolean>(Arrays.asList(true, false, true))", "ArrayList", "boolean", [True, False, True]),
    ("new ArrayList<Character>() {{ add('a'); add('b'); add('c'); }}", "ArrayList", "char", ["a", "b", "c"]),
    ("abc", "integer", None, "abc"), ("3.14", "float", None, "3.14"), ("a", "char", None, "a"),
])
def test_java_converter(text, declared, item, expected):
    assert java_value(text, declared, item) == expected


@pytest.mark.parametrize("text, declared, item, expected", [
    ("true", "Boolean", None, True), ("123", "integer", None, 123), ("3.14", "float", None, 3.14),
    ("123n", "Bigint", None, 123), ("abc", "String", None, "abc"), ("[1, 2, 3]", "array", None, [1, 2, 3]),
    ("new Array(1, 2, 3)", "array", None, [1, 2, 3]), ("{'key': 'value'}", "dict", None, {"key": "value"}),
    ("{'key': 123}", "dict", None, {"key": 123}), ("{'key': true}", "dict", None, {"key": True}),
    ("[]", "array", None, []), ("{}", "dict", None, {}), ("[1, 'two', true]", "array", None, [1, "two", True]),
    ("{'key1': 123, 'key2': 'value', 'key3': false}", "dict", None, {"key1": 123, "key2": "value", "key3": False}),
    ("-123", "integer", None, -123), ("-3.14", "float", None, -3.14),
    ("[1.1, 2.2, 3.3]", "array", "float", [1.1, 2.2, 3.3]), ("[1n, 2n, 3n]", "array", "Bigint", [1, 2, 3]),
    ("new Array(false, true, false)", "array", "Boolean", [False, True, False]),
    ('["hello", "world", "!"]', "array", "String", ["hello", "world", "!"]),
    (" [ [ 1, 2 ], [ 3,   4], [5, 6]]", "array", "array", [[1, 2], [3, 4], [5, 6]]),
    ("new Array([1, 2], [3, 4], [5, 6])", "array", "array", [[1, 2], [3, 4], [5, 6]]),
    ('{"initialState": initialStateObject, "reducers": reducersMap, "middlewares": ["loggerMiddleware"], '
     '"enhancers": ["applyMiddleware", "myMiddleWare"]}', "dict", None,
     {"initialState": "initialStateObject", "reducers": "reducersMap", "middlewares": ["loggerMiddleware"],
      "enhancers": ["applyMiddleware", "myMiddleWare"]}),
    ("123.45", "integer", None, "123.45"), ("123", "Bigint", None, "123"), ("3.14abc", "float", None, "3.14abc"),
])
def test_javascript_converter(text, declared, item, expected):
    assert js_value(text, declared, item) == expected


def test_types_the_upstream_cannot_convert():
    for declared in ("Set", "Queue", "Stack", "Hashtable", "Integer"):
        with pytest.raises(Unconvertible):
            java_value("x", declared)
    with pytest.raises(Unconvertible):
        js_value("x", "number")
