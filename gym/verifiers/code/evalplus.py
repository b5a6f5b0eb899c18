"""EvalPlus (HumanEval+ / MBPP+) for the code verifier: its per-output rules and special oracles, MBPP+
input rebuilding, and the expected outputs and times from running the canonical solution."""

from __future__ import annotations

from typing import Any, Callable

from gym.verifiers.code.compare import close
from gym.verifiers.code.driver import wire_value


def _is_floats(value: Any) -> bool:
    return isinstance(value, float) or (isinstance(value, (list, tuple)) and bool(value)
                                        and all(isinstance(item, float) for item in value))


def _poly(coefficients: list, x: float) -> float:
    return sum(c * x**i for i, c in enumerate(coefficients))


MBPP_SET_EQUAL = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum",
                  "intersection_array", "find_dissimilar", "Diff"}
MBPP_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}  # outputs compared as "is not None"


def evalplus_matches(dataset: str, entry_point: str, args: list, got: Any, expected: Any, atol: float) -> bool:
    """EvalPlus' rule for one output, special oracles included."""
    try:
        exact = got == expected
        if dataset == "mbpp":
            if entry_point == "are_equivalent":  # Mbpp/164: the reference output is unreliable
                return True
            if entry_point == "sum_div":
                exact = exact or got == 0
            elif entry_point == "surface_Area":
                base, height = args
                exact = exact or abs(got - round(base**2 + 2 * base * ((base / 2) ** 2 + height**2) ** 0.5)) <= atol
            elif entry_point == "digit_distance_nums":
                one, two = str(args[0]), str(args[1])
                width = max(len(one), len(two))
                exact = exact or got == sum(abs(int(a) - int(b)) for a, b in zip(one.zfill(width), two.zfill(width)))
            elif entry_point in MBPP_SET_EQUAL:
                exact = set(got) == set(expected)
            elif entry_point in MBPP_NOT_NONE:
                exact = got == expected if isinstance(got, bool) else expected == (got is not None)
        elif entry_point == "find_zero":  # HumanEval/32: any root will do
            return isinstance(got, (int, float)) and abs(_poly(args[0], got)) <= atol
        if exact:
            return True
        atol = atol or (1e-6 if _is_floats(expected) else 0)
        if not atol or type(got) is not type(expected):
            return False
        return close(got, expected, atol, rtol=1e-7)
    except Exception:  # an output that cannot even be compared is wrong
        return False


def mbpp_inputs(task_id: str, inputs: list) -> list:
    """MBPP+ stores tuples, sets and complex numbers as JSON lists/strings; rebuild them per task as
    EvalPlus does before calling anything (the reference outputs are computed on these)."""
    number = int(str(task_id).rsplit("/", 1)[-1]) if str(task_id).rsplit("/", 1)[-1].isdigit() else -1
    tup = tuple

    def deep(value):
        return tuple(deep(item) for item in value) if isinstance(value, list) else value

    rules = {
        "args": lambda inp: [tup(a) for a in inp],
        "nested": lambda inp: [[tup(x) for x in a] for a in inp],
        "first_nested": lambda inp: [[tup(x) for x in inp[0]], inp[1]],
        "second": lambda inp: [inp[0], tup(inp[1])],
        "first": lambda inp: [tup(inp[0]), *inp[1:]],
        "nested_args": lambda inp: [tup(tup(x) for x in a) for a in inp],
        "deep": deep,
        115: lambda inp: [[set(item) if isinstance(item, list) and item else {} for item in inp[0]]],
        124: lambda inp: (float(inp[0]), complex(inp[1])),
        252: lambda inp: [complex(inp[0])],
        278: lambda inp: [tup(tup(x) if isinstance(x, list) else x for x in inp[0])],
        722: lambda inp: [{key: tup(value) for key, value in inp[0].items()}, *inp[1:]],
    }
    groups = {"args": (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726,
                       740, 744, 809),
              "nested": (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780),
              "first_nested": (75, 413, 444, 753), "second": (106, 750),
              "first": (250, 405, 446, 617, 720, 763, 808, 307), "nested_args": (259, 401, 445),
              "deep": (580, 615, 791)}
    rule = rules.get(number) or next((rules[name] for name, members in groups.items() if number in members), None)
    return [rule(inp) for inp in inputs] if rule else inputs


def reference_outputs(call: Callable[..., tuple[dict[str, list], str | None]], code: str, task_id: str, dataset: str,
                      entry: str, inputs: dict) -> dict:
    """{phase: {"values", "times"}} of the canonical solution `code` on each phase's inputs, run through
    `call` (CodeVerifier._call); RuntimeError when it fails on any of them."""
    phases = [{"name": phase, "inputs": inputs[phase], "limits": [60.0] * len(inputs[phase])}
              for phase in ("base", "plus")]
    messages, trouble = call(code, entry, False, phases, 60.0, 900.0)
    truth = {}
    for phase in ("base", "plus"):
        got = messages.get(phase, [])
        if len(got) != len(inputs[phase]) or any("error" in m for m in got):
            problem = next((m["error"] for m in got if "error" in m), None) or trouble
            raise RuntimeError(f"reference solution of {task_id or entry} failed on its {phase} inputs: "
                               f"{problem or 'no output'}")
        values = [wire_value(m) for m in got]
        if dataset == "mbpp" and entry in MBPP_NOT_NONE:
            values = [value is not None for value in values]
        truth[phase] = {"values": values, "times": [m["time"] for m in got]}
    return truth
