"""Record what BFCL's own AST checker says about gold and perturbed calls on the fixture rows.

    python tools/make_bfcl_parity.py <dir holding upstream's bfcl_eval package>

Runs the upstream checker (ShishirPatil/gorilla at make_fixtures_bfcl.COMMIT, eval_checker/ast_eval and its
type converters, imported from a checkout outside this repository; its model_config import stubbed with
the two name conventions: "fc" replaces dots in names, "prompt" keeps them) and writes
tests/fixtures/bfcl_parity.jsonl: one case per line {id, category, native, rule, calls, valid, error_type}.
tests/verifiers/test_tool_call_verifier.py replays every case through gym's verifier and expects the same verdict.
"""

from __future__ import annotations

import copy
import json
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
sys.path.insert(0, str(HERE.parents[1]))

from make_fixtures_bfcl import DATA, ROOT  # noqa: E402

from gym.toolcalls.gold import gold_calls  # noqa: E402

CALL_CATEGORIES = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
                   "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")


def language_of(category: str) -> str:
    return "javascript" if "javascript" in category else "java" if "java" in category else "python"


def perturbations(calls: list[dict], doc_of) -> list[tuple[str, list[dict]]]:
    """(rule, calls) pairs derived from the gold calls, one per kind of mistake."""
    out = []
    if not calls:
        return out
    name, args = next(iter(calls[0].items()))
    doc = doc_of(name)
    required = set(doc["parameters"].get("required", [])) if doc else set()
    for param in list(args)[:2]:
        value = args[param]
        for rule, new in (("wrong_type", 12345 if not isinstance(value, int) or isinstance(value, bool) else "12345"),
                          ("wrong_type", [value])):
            out.append((rule, _with(calls, name, param, new)))
        out.append(("missing_required" if param in required else "missing_optional", _without(calls, name, param)))
        if isinstance(value, str):
            out.append(("wrong_value", _with(calls, name, param, value + " and more")))
            out.append(("string_normalisation", _with(calls, name, param, value.upper().replace(" ", "_") + ".")))
        if isinstance(value, float) and value.is_integer():
            out.append(("int_for_float", _with(calls, name, param, int(value))))
        if isinstance(value, list):
            out.append(("tuple_for_list", _with(calls, name, param, tuple(value))))
    out.append(("extra_param", _with(calls, name, "unexpected_param_xyz", 1)))
    if doc:
        optional = [p for p in doc["parameters"]["properties"] if p not in args]
        if optional:
            out.append(("documented_but_unexpected", _with(calls, name, optional[0], "some value")))
    out.append(("wrong_function_name", [{name + "_v2": args}] + calls[1:]))
    out.append(("no_call", []))
    if len(calls) > 1:
        out.append(("missing_parallel_call", calls[:-1]))
        out.append(("swapped_parallel_order", list(reversed(calls))))
        out.append(("extra_parallel_call", calls + calls[:1]))
    else:
        out.append(("extra_call", calls + calls))
    return out


def _with(calls, name, param, value):
    changed = copy.deepcopy(calls)
    changed[0][name][param] = value
    return changed


def _without(calls, name, param):
    changed = copy.deepcopy(calls)
    del changed[0][name][param]
    return changed


def jsonable(value):
    if isinstance(value, tuple):
        return {"__tuple__": [jsonable(v) for v in value]}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def main(upstream: str) -> None:
    sys.path.insert(0, upstream)
    config = types.ModuleType("bfcl_eval.constants.model_config")
    config.MODEL_CONFIG_MAPPING = {"fc": types.SimpleNamespace(underscore_to_dot=True),
                                   "prompt": types.SimpleNamespace(underscore_to_dot=False)}
    sys.modules["bfcl_eval.constants.model_config"] = config
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    languages = {"python": Language.PYTHON, "java": Language.JAVA, "javascript": Language.JAVASCRIPT}
    cases = []
    for category in CALL_CATEGORIES:
        name = f"BFCL_v4_{category}.json"
        rows = [json.loads(line) for line in (ROOT / DATA / name).read_text().splitlines()]
        answers = {a["id"]: a["ground_truth"] for a in map(json.loads, (ROOT / DATA / "possible_answer" / name)
                                                            .read_text().splitlines())}
        for row in rows:
            truth = answers[row["id"]]
            for native in (True, False):
                docs = {(f["name"].replace(".", "_") if native else f["name"]): f for f in row["function"]}
                gold = [{c.name: c.arguments} for c in gold_calls(row["function"], truth, language_of(category), native)]
                for rule, calls in [("gold", gold)] + perturbations(gold, docs.get):
                    result = ast_checker(copy.deepcopy(row["function"]), copy.deepcopy(calls), copy.deepcopy(truth),
                                         languages[language_of(category)], category, "fc" if native else "prompt")
                    cases.append({"id": row["id"], "category": category, "native": native, "rule": rule,
                                  "calls": jsonable(calls), "valid": bool(result["valid"]),
                                  "error_type": result.get("error_type")})
    (HERE / "bfcl_parity.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases),
                                             encoding="utf-8")
    print(f"{len(cases)} cases, {sum(c['valid'] for c in cases)} valid")


if __name__ == "__main__":
    main(sys.argv[1])
