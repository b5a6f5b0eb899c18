"""The math family's answer normalisation, checked against the rules of the MATH reference graders.

Each row of PARITY is (gold, model answer, expected reward, where the rule comes from):
* hendrycks: `is_equiv` / `strip_string` of the MATH release (drops \\left/\\right, \\!, `^\\circ`, `\\$`,
  `\\%`, a unit after `\\text{ `, turns \\dfrac/\\tfrac into \\frac, `.5` into `0.5`, `x = 5` into `5`)
* prm800k: the PRM800K grader (units and `\\text{}` wrappers dropped, properly grouped commas removed,
  `\\%`/`\\$`/degrees dropped, then a SymPy comparison)
* qwen: Qwen2.5-Math's `strip_string` (trailing full stop, `\\text{}` units, `{,}` thousands, percent)
* minerva: lm-eval's minerva_math `normalize_final_answer` (the `.$` -> `$` substitution, `\\$` and
  `{,}` removed, `^\\circ` / `^{\\circ}` and unit words removed, `\\text{x}` -> x, `100,000` -> 100000)
"""

from __future__ import annotations

import pytest

from gym.verifiers import make_verifier
from gym.verifiers import math as math_module
from gym.verifiers.math_normalize import normalize_answer

PARITY = [
    # percent: every grader strips the percent sign, so N% and N are the same answer
    (r"25\%", r"\boxed{25}", 1.0, "hendrycks, prm800k, qwen"),
    ("20", r"\boxed{20\%}", 1.0, "hendrycks, prm800k, qwen"),
    (r"12.5\%", r"\boxed{12.5}", 1.0, "hendrycks"),
    ("40", r"\boxed{40 \%}", 1.0, "hendrycks"),
    ("15", r"\boxed{15 percent}", 1.0, "prm800k"),
    ("75", r"\boxed{75\text{\%}}", 1.0, "qwen"),
    (r"25\%", r"\boxed{26}", 0.0, "any"),
    # thousands separators
    (r"10{,}000", r"\boxed{10000}", 1.0, "minerva, qwen"),
    ("10000", r"\boxed{10{,}000}", 1.0, "minerva, qwen"),
    ("1234567", r"\boxed{1,234,567}", 1.0, "minerva, prm800k"),
    ("10000", r"\boxed{10\,000}", 1.0, "prm800k"),
    ("10000", r"\boxed{10,\!000}", 1.0, "minerva"),
    ("1234.5", r"\boxed{1,234.5}", 1.0, "prm800k"),
    (r"10{,}000", r"\boxed{10{,}001}", 0.0, "any"),
    # degrees
    (r"30^\circ", r"\boxed{30}", 1.0, "hendrycks, minerva"),
    ("30", r"\boxed{30^{\circ}}", 1.0, "hendrycks, minerva"),
    ("45", r"\boxed{45\degree}", 1.0, "prm800k"),
    ("60", r"\boxed{60°}", 1.0, "prm800k"),
    ("90", r"\boxed{90\text{ degrees}}", 1.0, "minerva"),
    (r"30^\circ", r"\boxed{60^\circ}", 0.0, "any"),
    # units in \text{}
    ("5", r"\boxed{5\text{ cm}}", 1.0, "hendrycks, qwen"),
    (r"12\text{ inches}", r"\boxed{12}", 1.0, "hendrycks, qwen"),
    ("36", r"\boxed{36\text{ square units}}", 1.0, "hendrycks, minerva"),
    ("10", r"\boxed{10\mbox{ feet}}", 1.0, "minerva"),
    ("3", r"\boxed{3\,\mathrm{m}^2}", 1.0, "prm800k"),
    (r"\text{Tuesday}", r"\boxed{\text{Tuesday}}", 1.0, "all: a text answer stays text"),
    (r"\text{(C)}", r"\boxed{\text{(C)}}", 1.0, "minerva"),
    # money
    (r"\$5.50", r"\boxed{5.50}", 1.0, "hendrycks, minerva"),
    ("18", r"\boxed{\$18}", 1.0, "hendrycks, minerva"),
    (r"\$32", r"\boxed{\$ 32}", 1.0, "hendrycks"),
    ("18", r"\boxed{\$19}", 0.0, "any"),
    # trailing full stop
    ("5", r"\boxed{5.}", 1.0, "minerva, qwen"),
    (r"\frac{1}{2}", r"\boxed{\frac{1}{2}.}", 1.0, "minerva, qwen"),
    ("7", r"\boxed{7\text{.}}", 1.0, "minerva"),
    # the rest of strip_string, which math-verify covers by itself
    (r"\frac{1}{2}", r"\boxed{\dfrac{1}{2}}", 1.0, "hendrycks"),
    (r"\frac{1}{2}", r"\boxed{\tfrac12}", 1.0, "hendrycks"),
    ("0.5", r"\boxed{.5}", 1.0, "hendrycks"),
    ("5", r"\boxed{x = 5}", 1.0, "hendrycks"),
    (r"\left(1, 2\right)", r"\boxed{(1,2)}", 1.0, "hendrycks"),
    (r"\sqrt{2}", r"\boxed{\sqrt2}", 1.0, "hendrycks, minerva"),
    # combinations
    (r"\$1{,}250", r"\boxed{1250}", 1.0, "hendrycks + minerva"),
    ("72", r"\boxed{72^\circ.}", 1.0, "qwen + hendrycks"),
    ("2500", r"\boxed{\$2,500.}", 1.0, "prm800k + qwen"),
]


@pytest.fixture(scope="module")
def verifier():
    v = make_verifier("math", {"workers": 2, "timeout": 20})
    yield v
    v.close()


@pytest.mark.parametrize("gold, answer, expected, rule", PARITY, ids=[f"{i}-{r[0]}|{r[1]}" for i, r in enumerate(PARITY)])
def test_parity_with_math_graders(verifier, gold, answer, expected, rule):
    verdict = verifier.verify({"expected_answer": gold}, f"Working... so the answer is {answer}")
    assert verdict.reward == expected, (rule, verdict.details)
    assert verdict.details["parse_errors"] == 0, verdict.details


def test_percent_is_both_the_number_and_its_fraction(verifier):
    """math-verify's reading of N% (kept): it also equals N/100, which the string graders would reject."""
    assert verifier.verify({"expected_answer": r"25\%"}, r"\boxed{0.25}").reward == 1.0
    assert verifier.verify({"expected_answer": "0.05"}, r"\boxed{5\%}").reward == 1.0


@pytest.mark.parametrize("raw, normal", [
    (r"25\%", r"25\%"), ("25%", r"25\%"), (r"25 \text{ percent}", r"25 \%"), (r"10{,}000", "10000"),
    (r"1\,000\,000", "1000000"), ("1,234,567", "1234567"), ("(1,234)", "(1,234)"), ("1,2", "1,2"),
    (r"30^{\circ}", "30"), (r"30^\circ\text{C}", "30"), (r"\$5", "5"), ("5.", "5"), ("0.5", "0.5"),
    (r"5\text{ cm}^2", "5"), (r"\text{(A)}", r"\text{(A)}"), (r"x \text{ or } y", r"x \text{ or } y"),
    (r"\frac{1}{2}\text{ hours}.", r"\frac{1}{2}"), ("", ""), (".", "."),
])
def test_normalize_answer(raw, normal):
    assert normalize_answer(raw) == normal


def test_workers_use_gyms_antlr_runtime(verifier):
    """The workers load ANTLR 4.13.2 next to Hydra's 4.9 pin, so constructs the stale 4.9.3 parser of
    latex2sympy2_extended cannot read parse: percentages and a bare \\gamma / \\Gamma."""
    for gold, answer, printed in [(r"25\%", r"\boxed{25\%}", "0.25"), (r"0.5\%", r"\boxed{0.005}", "0.005"),
                                  (r"2\gamma", r"\boxed{2 \cdot \gamma}", "2*EulerGamma"),
                                  (r"\Gamma", r"\boxed{\Gamma}", "EulerGamma")]:
        verdict = verifier.verify({"expected_answer": gold}, answer)
        assert verdict.details["parse_errors"] == 0, verdict.details
        assert verdict.reward == 1.0 and verdict.extracted_answer == printed, verdict.details
    assert verifier._pool.antlr_version == "4.13.2"
    import hydra  # noqa: F401  (the parent keeps Hydra's own runtime)
    from importlib.metadata import version

    assert version("antlr4-python3-runtime").startswith("4.9")


def test_parser_failures_are_counted_not_compared_as_text(monkeypatch, caplog):
    """Without gym's runtime (the 4.9.3 parser), a percentage cannot be parsed: the verdict says so."""
    monkeypatch.setattr(math_module, "ANTLR_WHEEL", "/nonexistent/antlr.whl")
    v = make_verifier("math", {"workers": 1, "timeout": 20})
    try:
        verdict = v.verify({"expected_answer": r"25\%"}, r"The answer is \boxed{30\%}")
        assert verdict.reward == 0.0
        assert verdict.details["parse_errors"] == 2
        assert set(verdict.details["parse_error"]) == {"gold", "predicted"}
        assert "AttributeError" in verdict.details["parse_error"]["gold"]
        assert v._pool.antlr_version.startswith("4.9")
        assert "instead of gym's 4.13.2" in caplog.text
        fine = v.verify({"expected_answer": r"\frac{1}{2}"}, r"\boxed{0.5}")
        assert fine.reward == 1.0 and fine.details["parse_errors"] == 0
    finally:
        v.close()


def test_parse_errors_are_summed_in_metrics(monkeypatch, tmp_path, capsys):
    """Real verdicts (from workers that lack gym's runtime) written as collect writes them, then task=aggregate:
    metrics.json carries the run's parse error count per benchmark, last row per key."""
    import json

    from gym.model.client import Completion
    from gym.core.config import compose
    from gym.tasks import aggregate
    from gym.rollouts.row import make_rollout

    monkeypatch.setattr(math_module, "ANTLR_WHEEL", "/nonexistent/antlr.whl")
    v = make_verifier("math", {"workers": 1, "timeout": 20})
    rows = []
    try:
        for task, (gold, answer) in enumerate([(r"25\%", r"\boxed{25\%}"), ("7", r"\boxed{7}"), (r"\frac12", r"\boxed{50\%}")]):
            for rollout in range(2):
                completion = Completion(status="ok", text=answer)
                rows.append(make_rollout("math-500", "m", {"expected_answer": gold}, [], task, rollout,
                                         f"k{task}-{rollout}", completion, v))
    finally:
        v.close()
    rows.append({**rows[0], "verifier": {**rows[0]["verifier"], "parse_errors": 0}})  # a redone row wins
    rows.append({**rows[4], "benchmark": "gsm8k", "key": "other"})
    path = tmp_path / "run" / "rollouts.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = compose(["task=aggregate", f"+run_dir={tmp_path / 'out'}", f"rollouts={path}"])
    aggregate.run(cfg)
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    # task 0: gold and answer unreadable (2 per rollout, one rollout redone clean); task 2: the answer (1 each)
    assert metrics["benchmarks"]["math-500"]["parse_errors"] == 2 + 2
    assert metrics["benchmarks"]["gsm8k"]["parse_errors"] == 1
    assert "math-500: 4 LaTeX parse error(s)" in capsys.readouterr().out


def test_shipped_antlr_runtime_is_the_published_wheel():
    import hashlib
    from pathlib import Path

    data = Path(math_module.ANTLR_WHEEL).read_bytes()
    assert hashlib.sha256(data).hexdigest() == "fe3835eb8d33daece0e799090eda89719dbccee7aa39ef94eed3818cafa5a7e8"


def test_the_stale_parsers_gaps_are_exactly_the_known_ones():
    """tools/latex_parser_diff.py compares latex2sympy2_extended's 4.9.3 and 4.13.2 parsers rule by rule:
    the only grammar difference is the bare \\gamma / \\Gamma atom, the only missing accessor the one every
    percentage trips over. A dependency update that changes this shows up here."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "tools" / "latex_parser_diff.py")], capture_output=True,
                          text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["runtimes"][0].startswith("4.9") and found["runtimes"][1] == "4.13.2"
    assert list(found["rules"]) == ["PSParser.atom"] and found["rules"]["PSParser.atom"]["only_old"] == []
    assert found["missing_in_old"] == {"AtomContext": ["FUNC_GAMMA"]}
