"""Rows of the shapes the real upstream files hold, which the reference keeps and gym once rejected or
read short: each goes through task=prepare -> collect (model=mock) and is scored; the manifest says what
became of every upstream row, and a row gym cannot score is kept and reported, never dropped."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.data.prepare_context import read_manifest
from gym.tasks import collect, prepare
from tests.prepare_helpers import local_mirror, make_ctx, script, upstream_file


def prepared(name: str, data_dir, mirror: str) -> tuple[list[dict], dict]:
    prepare.run(compose(["task=prepare", f"benchmark={name}", f"data.mirror={mirror}", "judge=mock"]))
    path = data_dir / name / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()], read_manifest(path)


def scored(name: str, tmp_path, mirror: str) -> dict[int, dict]:
    """The rollout of every prepared task (by task index), collected from the reference server (always right)."""
    run_dir = tmp_path / f"run-{name}"
    collect.run(compose(["task=collect", f"benchmark={name}", f"data.mirror={mirror}", "judge=mock", "model=mock",
                         "model.mock.accuracy=1.0", "num_repeats=1", "progress=false", f"+run_dir={run_dir}"]))
    rollouts = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
    return {r["task_index"]: r for r in rollouts}


def test_mbpp_plus_input_empty_object_is_no_extra_inputs(tmp_path, data_dir, mirror_url):
    raw = [json.loads(line) for line in gzip.decompress(upstream_file(script("mbpp").URL).read_bytes()).splitlines()]
    assert any(item["task_id"] == "Mbpp/793" and item["plus_input"] == {} for item in raw)  # the real shape
    rows, manifest = prepared("mbpp", data_dir, mirror_url)
    index = next(i for i, row in enumerate(rows) if row["metadata"]["task_id"] == "Mbpp/793")
    assert rows[index]["plus_input"] == [] and rows[index]["base_input"]
    assert manifest["upstream_rows"]["seen"] == manifest["upstream_rows"]["kept"] == len(raw)
    rollout = scored("mbpp", tmp_path, mirror_url)[index]
    assert rollout["status"] == "ok" and rollout["reward"] == 1.0, rollout["verifier"]
    with pytest.raises(GymError, match="must be lists"):  # any other object is still not a list of inputs
        bad = {**raw[0], "plus_input": {"x": 1}}
        ctx = make_ctx("mbpp", tmp_path / "bad", local_mirror(tmp_path / "bad", {
            script("mbpp").URL: gzip.compress((json.dumps(bad) + "\n").encode())}))
        script("mbpp").prepare(ctx)


def test_human_eval_infilling_keeps_an_empty_middle(tmp_path, data_dir, mirror_url):
    rows, manifest = prepared("human_eval_infilling", data_dir, mirror_url)
    index = next(i for i, row in enumerate(rows) if row["canonical_solution"] == "")
    assert rows[index]["metadata"]["task_id"] == "RandomSpanInfilling/HumanEval/7/10"
    assert rows[index]["expected_answer"] == "" and manifest["upstream_rows"]["unscorable"] == 0
    rollout = scored("human_eval_infilling", tmp_path, mirror_url)[index]
    assert rollout["status"] == "ok" and rollout["reward"] == 1.0, rollout["verifier"]  # prefix + "" + suffix passes


def test_secque_reads_the_dataset_field_names(tmp_path, data_dir, mirror_url):
    rows, manifest = prepared("secque", data_dir, mirror_url)
    assert [row["metadata"]["question_type"] for row in rows] == ["Analysis", "Comparison", "Ratio", "Risk"]
    ratio = rows[2]
    assert ratio["expected_answer"] == "1.8" and ratio["metadata"]["qid"] == "R-1"
    assert ratio["context"].startswith("Example Corp 10-K form") and "Current assets" in ratio["context"]
    assert [row["metadata"]["source_index"] for row in rows] == [0, 1, 2, 3]
    assert len(manifest["sources"]) == 4 and manifest["upstream_rows"]["kept"] == 4
    rollout = scored("secque", tmp_path, mirror_url)[2]
    assert rollout["status"] == "ok" and rollout["reward"] == 1.0


def test_physics_keeps_every_form_of_a_doubly_nested_answer(tmp_path, data_dir, mirror_url):
    rows, manifest = prepared("physics", data_dir, mirror_url)
    index = next(i for i, row in enumerate(rows) if row["question"].startswith("A right triangle"))
    assert rows[index]["expected_answer"] == "3, 4, 5"  # [[\boxed{3}, \boxed{4}, \boxed{5}]], not "3"
    counts = manifest["upstream_rows"]
    assert (counts["seen"], counts["kept"], counts["left_out"]) == (4, 3, 1)  # the Chinese row, as the reference
    assert list(counts["left_out_by_reason"].values()) == [1]
    rollout = scored("physics", tmp_path, mirror_url)[index]
    assert rollout["status"] == "ok" and rollout["reward"] == 1.0
    module = script("physics")
    assert module.gold_answer([["\\boxed{a}"], ["b", "\\boxed{c}"]]) == "a, b, c"
    assert module.gold_answer([["\\boxed{20} m/s"]]) == "\\boxed{20} m/s"  # not one box as a whole: as written


def test_a_row_gym_cannot_score_is_kept_and_reported(tmp_path, data_dir, capsys):
    """A SecQue row with a blank reference answer: the reference keeps it, so gym keeps it too, marks it,
    lists it in the manifest and prints it; collect does not ask the model for it (no answer could be
    scored against nothing) and says how many such tasks it left out."""
    module = script("secque")
    files = {f"{module.BASE}/{name}": b"" for name in module.FILES}
    good = {"QID": "R-1", "Question": "Ratio?", "ground_truth_answer": "1.8", "question_type": "Ratio",
            "context_markdown_with_headers": "Current assets: 900. Current liabilities: 500."}
    files[f"{module.BASE}/{module.FILES[2]}"] = "".join(json.dumps(item) + "\n" for item in (
        good, {**good, "QID": "R-2", "ground_truth_answer": "  "})).encode()
    mirror = local_mirror(tmp_path, files)
    rows, manifest = prepared("secque", data_dir, mirror)
    assert [row["metadata"]["qid"] for row in rows] == ["R-1", "R-2"]
    assert "unscorable" not in rows[0] and "ground_truth_answer" in rows[1]["unscorable"]
    assert manifest["upstream_rows"] == {"seen": 2, "kept": 2, "left_out": 0, "left_out_by_reason": {},
                                         "skipped": 0, "unscorable": 1}
    assert len(manifest["unscorable_rows"]) == 1 and "QID R-2" in manifest["unscorable_rows"][0]
    assert "1 unscorable" in capsys.readouterr().out  # the prepare table says so
    rollouts = scored("secque", tmp_path, mirror)  # the unscorable task is not sent: no answer could be scored
    assert {index: (r["status"], r["reward"]) for index, r in rollouts.items()} == {0: ("ok", 1.0)}
    run = json.loads((tmp_path / "run-secque" / "run.json").read_text())
    assert run["unscorable_tasks"] == 1 and run["status"] == "done"
    assert "unscorable tasks not sent: 1" in capsys.readouterr().out


REAL = {  # benchmark: (the real upstream file the repository holds, rows the reference keeps)
    "gsm8k": ("tests/fixtures/real/gsm8k/test.jsonl", 1319),
    "human_eval": ("tests/fixtures/real/humanevalplus/HumanEvalPlus.jsonl.gz", 164),
    "ifeval": ("tests/fixtures/ifeval/input_data.jsonl", 541),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_upstream_files_keep_the_reference_row_count(name, tmp_path, data_dir):
    path, reference_rows = REAL[name]
    url = script(name).URL_TEMPLATE.format(split="test") if name == "gsm8k" else script(name).URL
    mirror = local_mirror(tmp_path, {url: (Path(__file__).resolve().parents[2] / path).read_bytes()})
    rows, manifest = prepared(name, data_dir, mirror)
    assert len(rows) == reference_rows
    assert manifest["upstream_rows"] == {"seen": reference_rows, "kept": reference_rows, "left_out": 0,
                                         "left_out_by_reason": {}, "skipped": 0, "unscorable": 0}


def test_a_gold_of_several_boxes_keeps_every_box():
    """UGPhysics stores a multi-part answer as one string of boxes; the reference keeps it whole, so the
    gold must hold every part, not the last box alone."""
    ugphysics = script("ugphysics")
    assert ugphysics.gold_answer("\\boxed{3}, \\boxed{4}") == "3, 4"
    assert ugphysics.gold_answer("\\boxed{\\frac{1}{2}} and \\boxed{2}") == "\\frac{1}{2}, 2"
    assert ugphysics.gold_answer("$\\boxed{20}$") == "20"
    assert ugphysics.gold_answer(["\\boxed{1}", "\\boxed{2}"]) == "1, 2"
