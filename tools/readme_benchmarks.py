"""Regenerate README.md's benchmark table from the catalog (conf/benchmark/*.yaml).

    .venv/bin/python tools/readme_benchmarks.py           # rewrite the section between the markers
    .venv/bin/python tools/readme_benchmarks.py --check   # exit 1 if README.md is out of date

The section sits between `<!-- benchmarks:begin -->` and `<!-- benchmarks:end -->`; everything else in
README.md is left alone. One row per verifier family: how it decides (FAMILY_NOTES) and its benchmarks,
marked `*` when gated, `J` when graded by an LLM judge, and with their languages when not English only.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gym.data.catalog import load_catalog  # noqa: E402

README = ROOT / "README.md"
BEGIN, END = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"

FAMILY_NOTES = {
    "math": "math-verify equivalence with `\\boxed{gold}` (last box wins; `#### n` and plain numbers too) after "
            "the MATH graders' normalisation (below), in long-lived worker processes with a hard time limit",
    "mcq": "the letter after \"Answer:\" or in the last `\\boxed{}`, multilingual per-row patterns",
    "ifeval": "the instruction checkers, strict and loose (Punkt sentences, NLTK word tokens); all must pass; "
              "`compat` below",
    "ifbench": "the instruction checkers, strict and loose; the fraction passed; `compat` below",
    "qa": "normalised exact match / F1 with generated aliases",
    "exact": "normalised exact or set match of the final answer",
    "judge": "an LLM judge through the same client (retries, typed failures; a judge failure is `infra_error`, "
             "never 0); some check with math-verify first",
    "code": "generated code against the tests in a [sandbox](#code-sandbox) (bubblewrap, else namespaces): an "
            "allow-listed read-only view, no network, a fresh interpreter under seccomp and rlimits; a pass is "
            "reported by the test side, never inferred from an exit status (fill-in-the-middle: prefix + answer + suffix)",
    "pairwise": "an LLM judge compares the answer with a baseline answer in both orders; pass@1 is the win rate "
                "(ties half), with a bootstrap CI and per category",
    "sql": "the last `sql` code block and the gold query run on the task's SQLite database (read-only, time limit, "
           "row cap); equal result sets score 1",
    "long_context": "deterministic checks (node-set F1, prefix + similarity ratio, boxed letter); pass@1 per "
                    "prompt-size bucket with context-length refusals counted",
    "label": "the model grades: its verdict label (\"Judgement: Yes/No\" or a 4-way grade) against the gold label; "
             "accuracy, precision/recall/F1 or MAE",
    "translation": "sentence BLEU (reward) and chrF with sacrebleu; corpus BLEU and chrF per language pair, summed "
                   "from each rollout's segment statistics (equal to sacrebleu's corpus scores)",
    "tool_call": "the model's function calls (native `tool_calls`, or text in BFCL's `[f(a=1)]` or Hermes format) "
                 "checked by BFCL's AST rules: name, required and unexpected parameters, types, allowed values; "
                 "[tool calls](#tool-calls-and-bfcl)",
    "typed": "the last answer in the wrapper the prompt asked for (`\\boxed{}` or `((...))`), compared as a whole "
             "count or a yes/no",
    "episode": "a whole multi-turn episode with a simulated user (`user=`) and tools over a database, graded as "
               "τ²-bench: final database hash vs the gold actions', required strings, environment assertions "
               "(bfcl_multi_turn: BFCL's multi-turn checker, every turn's API states and results against the gold "
               "run's); pass^k beside pass@k; [agents and tools](#agents-and-tools)",
}


def _label(entry) -> str:
    marks = ("*" if entry.gated else "") + (" J" if entry.needs_judge and entry.verifier != "judge" else "")
    if entry.languages == ["en"]:
        return f"{entry.name}{marks}"
    shown = f"{len(entry.languages)} languages" if len(entry.languages) > 4 else ", ".join(entry.languages)
    return f"{entry.name}{marks} ({shown})"


def section() -> str:
    entries = sorted(load_catalog(), key=lambda e: e.name)
    by_family: dict[str, list] = defaultdict(list)
    for entry in entries:
        by_family[entry.verifier].append(entry)
    multilingual = sum(1 for e in entries if e.languages != ["en"])
    lines = [BEGIN,
             f"{len(entries)} benchmarks ({multilingual} multilingual, with per-language results), each with a real "
             "`prepare.py` against its upstream source (`*` = gated, needs `HF_TOKEN`; `J` = also needs a judge). "
             "Generated from the catalog by `tools/readme_benchmarks.py`.", "",
             "| verifier family | how it decides | benchmarks |", "|---|---|---|"]
    order = [f for f in FAMILY_NOTES if f in by_family] + sorted(f for f in by_family if f not in FAMILY_NOTES)
    for family in order:
        names = ", ".join(_label(e) for e in by_family[family])
        lines.append(f"| `{family}` ({len(by_family[family])}) | {FAMILY_NOTES.get(family, '')} | {names} |")
    lines.append(END)
    return "\n".join(lines)


def updated(text: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{README}: markers {BEGIN} / {END} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + section() + tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is out of date")
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    new = updated(text)
    if args.check:
        if new != text:
            print("README.md's benchmark table is out of date: run tools/readme_benchmarks.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        tmp = README.with_suffix(".md.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(README)
    print(f"README.md: {len(load_catalog())} benchmarks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
