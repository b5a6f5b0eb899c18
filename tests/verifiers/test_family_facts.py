"""A verifier family declares its own facts on its Verifier class, and the layers above read them through the
registry: a new family is its module (plus its registry line), its base config and its tests.

Held three ways: every registered family's declarations are well-formed; no module outside gym/verifiers
keeps a table of family names or compares a family to a name; and a family that exists only in one module
(registered at test time) runs end to end through collect, aggregate, the reference server and serve."""

from __future__ import annotations

import ast
import json
import sys
import types
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.tasks import e2e
from gym.verifiers import FAMILIES, Verdict, Verifier, family_class, make_verifier
from gym.verifiers.base import details_of

GYM = Path(__file__).resolve().parents[2] / "gym"
BOOLEAN_FACTS = ("inline", "needs_judge", "takes_panel", "uses_tool_calls", "strict")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_registered_family_declares_its_facts(name):
    cls = family_class(name)
    assert issubclass(cls, Verifier) and cls.family == name
    assert all(isinstance(getattr(cls, fact), bool) for fact in BOOLEAN_FACTS), name
    assert isinstance(cls.headlines, tuple) and all(isinstance(key, str) for key in cls.headlines)
    # a family that runs on serve's event loop does no blocking work: no judge call, no worker
    assert not (cls.inline and (cls.needs_judge or cls.takes_panel or "workers" in cls.OPTIONS)), name
    # a family with its own aggregate figures also writes their line; headlines come from those figures
    assert cls.overrides("summary_line") == cls.overrides("family_metrics"), name
    assert not cls.headlines or cls.overrides("family_metrics"), name
    assert not cls.takes_panel or cls.needs_judge, name  # a panel is several judges


def test_the_base_declares_nothing_a_family_must_opt_into():
    plain = type("Plain", (Verifier,), {"family": "plain"})()
    assert not (plain.inline or plain.needs_judge or plain.uses_tool_calls or plain.tools_per_task)
    assert plain.request({}, [{"role": "user", "content": "q"}], "chat") == ([{"role": "user", "content": "q"}],
                                                                             None, None)
    assert plain.family_metrics([], None) is None and plain.mock_answer({}, "", "4", True, "") is None
    assert make_verifier("tool_call").tools_per_task and make_verifier("iheval").tools_per_task
    with make_verifier("math", {"workers": 1}) as math:
        assert not math.tools_per_task


def _family_names(node: ast.AST) -> list[str]:
    """The distinct registered family names among a literal collection's elements (a dict's keys)."""
    elements = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    return sorted({e.value for e in elements if isinstance(e, ast.Constant) and e.value in FAMILIES})


def _names_a_family(node: ast.AST) -> bool:
    """`family`, `x.family`, `x.verifier_family` or str(...) of one."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "str" and node.args:
        node = node.args[0]
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name in ("family", "verifier_family")


def test_no_module_outside_the_verifiers_keeps_a_table_of_family_names_or_tests_for_one():
    found = []
    for path in sorted(GYM.rglob("*.py")):
        if path.relative_to(GYM).parts[0] == "verifiers":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(GYM.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, (ast.Dict, ast.Set, ast.List, ast.Tuple)) and len(_family_names(node)) >= 2:
                found.append(f"{where} lists families {_family_names(node)}")
            if isinstance(node, ast.Compare) and any(map(_names_a_family, [node.left, *node.comparators])) and \
                    any(isinstance(c, ast.Constant) and c.value in FAMILIES for c in [node.left, *node.comparators]):
                found.append(f"{where} compares a family to a name")
    assert found == []


# -- a family that lives in one module only ------------------------------------------------------------------

class ToyVerifier(Verifier):
    """Right when the reply is the gold answer in the family's own wrapping, TOY<...>."""

    family = "toy"
    inline = True

    def verify(self, row: dict, response: str) -> Verdict:
        text = response.strip()
        return Verdict(float(text == f"TOY<{row['expected_answer']}>"), text,
                       {"family": "toy", "wrapped": text.startswith("TOY<")})

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        return f"TOY<{final}>"

    @classmethod
    def family_metrics(cls, rows: list[dict], stats) -> dict:
        wrapped = sum(bool(details_of(r).get("wrapped")) for r in rows)
        return {"wrapped": wrapped, "rollouts": len(rows), "pass@1": stats.mean_ci(stats.per_task(rows)[None])}

    @classmethod
    def summary_line(cls, entry: dict) -> str:
        fm = entry["family_metrics"]
        return f"{fm['wrapped']} of {fm['rollouts']} replies wrapped the toy way"


@pytest.fixture
def toy_family(monkeypatch):
    module = types.ModuleType("toy_family")
    module.ToyVerifier = ToyVerifier
    monkeypatch.setitem(sys.modules, "toy_family", module)
    monkeypatch.setitem(FAMILIES, "toy", "toy_family:ToyVerifier")


def test_a_family_declared_in_its_module_runs_through_collect_aggregate_and_the_reference_server(
        toy_family, data_dir, tmp_path, capsys):
    rows = [{"question": f"What is {i} plus {i + 2}?", "expected_answer": str(2 * i + 2)} for i in range(8)]
    source = tmp_path / "toy.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    run = tmp_path / "run"
    e2e.run(compose(["task=e2e", "benchmark=local", f"benchmark.dataset.path={source}", "benchmark.verifier.family=toy",
                     "model=mock", "model.mock.accuracy=0.5", "num_repeats=2", "progress=false", f"+run_dir={run}"]))
    rollouts = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    # the reference server wrote every answer, right or wrong, in the toy family's shape
    assert len(rollouts) == 16 and all(r["verifier"]["wrapped"] for r in rollouts)
    assert 0 < sum(r["reward"] for r in rollouts) < 16
    (entry,) = json.loads((run / "metrics.json").read_text())["benchmarks"].values()
    assert entry["family_metrics"]["family"] == "toy"
    assert entry["family_metrics"]["wrapped"] == entry["family_metrics"]["rollouts"] == 16
    assert entry["family_metrics"]["pass@1"]["value"] == entry["pass@1"]["value"]
    assert "16 of 16 replies wrapped the toy way" in capsys.readouterr().out


def test_serve_verifies_an_inline_family_on_its_event_loop(toy_family):
    from gym.core.schema import BenchmarkConfig, VerifierConfig
    from gym.rollouts.benchmark import Benchmark
    from gym.serve.catalog import Served
    from gym.serve.service import Service
    from gym.serve.sessions import Sessions

    def served_one(name: str, family: str, options: dict) -> Served:
        config = BenchmarkConfig(name=name, verifier=VerifierConfig(family=family, options=options))
        return Served(Benchmark(config, Path("-"), make_verifier(family, options), "{question}"), rows=[])

    served = {name: served_one(name, family, options)
              for name, family, options in (("toy_bench", "toy", {}), ("math_bench", "math", {"workers": 1}))}
    service = Service(served, Sessions(max_sessions=4, ttl=60.0))
    try:
        assert service.inline("toy_bench", "verify") and not service.inline("math_bench", "verify")
        assert not service.inline("toy_bench", "step")
    finally:
        served["math_bench"].verifier.close()
