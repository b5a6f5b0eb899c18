"""What became of every upstream row when a prepare selects a split or a subset: seen = kept + left out
+ skipped, with seen counting the whole upstream file, not only what one rule touched.

τ²'s counts come from upstream's own task files at the pinned commit (tests/fixtures/real/tau2-bench:
retail 114 tasks = 74 train + 40 test, airline 50 = 30 + 20), prepared through the command line."""

from __future__ import annotations

import re
import shutil

import pytest

from gym.core.config import compose
from gym.data.prepare_context import read_manifest
from gym.tasks import prepare

from conftest import REAL_DATA, UPSTREAM, run_gym

TAU2 = UPSTREAM / "raw.githubusercontent.com/sierra-research/tau2-bench/a2c024725189473d2d7cea3a5cfdbcc67478e41f"
# (benchmark, split) -> (kept, seen), from upstream's tasks.json and split_tasks.json
TAU2_COUNTS = {
    ("tau2_retail", "train"): (74, 114), ("tau2_retail", "test"): (40, 114), ("tau2_retail", "base"): (114, 114),
    ("tau2_retail", "null"): (114, 114),
    ("tau2_airline", "train"): (30, 50), ("tau2_airline", "test"): (20, 50), ("tau2_airline", "base"): (50, 50),
    ("tau2_airline", "null"): (50, 50),
}


def test_tau2_splits_count_every_upstream_task(tmp_path):
    mirror = tmp_path / "mirror"
    tau2 = mirror / TAU2.relative_to(UPSTREAM)
    shutil.copytree(TAU2, tau2)
    for domain in ("retail", "airline"):  # upstream's whole task files over the fixture's test-split ones
        for name in ("tasks.json", "split_tasks.json"):
            shutil.copy(REAL_DATA / "tau2-bench" / domain / name, tau2 / "data/tau2/domains" / domain / name)
    result = run_gym("-m", "task=prepare", "benchmark=tau2_retail,tau2_airline", "+prepare_args.split=train,test,base,null",
                     f"data.mirror={mirror}", f"hydra.sweep.dir={tmp_path / 'sweep'}",
                     env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr[-2000:]
    lines = re.findall(r"^(tau2_\w+)\s+ok\s+(\d+)\s+(\d+) of (\d+)(?: \((\d+) left out\))?", result.stdout, re.M)
    got = [(name, int(rows), int(seen), int(left or 0)) for name, rows, kept, seen, left in lines]
    want = [(name, kept, seen, seen - kept) for (name, _), (kept, seen) in TAU2_COUNTS.items()]
    assert got == want, result.stdout[-3000:]
    manifest = read_manifest(tmp_path / "data/tau2_airline/tau2_airline.jsonl")  # the sweep's last job: split=null
    assert manifest["upstream_rows"]["seen"] == 50 and manifest["upstream_rows"]["kept"] == 50


# Prepares that select a subset, on their upstream-format fixtures: (benchmark, prepare_args overrides)
SUBSETS = [
    ("bfcl", ["+prepare_args.categories=[simple_python]"]),
    ("bfcl_multi_turn", ["+prepare_args.categories=[base]"]),
    ("physics", ["+prepare_args.languages=[en]"]),
    ("proof_bench_judge", ["+prepare_args.max_proof_tokens=40"]),
    ("livecodebench", ["+prepare_args.end_date=2025-01-01"]),
    ("mrcr", ["+prepare_args.files=[2needle/2needle_0.parquet]"]),
    ("wmt24pp", ["+prepare_args.targets=[de_DE]"]),
    ("tau2_telecom", ["+prepare_args.split=small"]),
    ("flores200", ["+prepare_args.targets=[fra_Latn]"]),
    ("mmlu_prox", ["+prepare_args.languages=[de]"]),
    ("polymath", ["+prepare_args.languages=[en]", "+prepare_args.levels=[low]"]),
    ("ugphysics", ["+prepare_args.subjects=[Thermodynamics]"]),
    ("mgsm", ["+prepare_args.languages=[de]"]),
    ("gpqa-x", ["+prepare_args.languages=[de]"]),
    ("aime24-x", ["+prepare_args.languages=[de]"]),
    ("graphwalks", ["+prepare_args.files=[graphwalks_128k_and_shorter.parquet]"]),
    ("global_mmlu_lite", ["+prepare_args.languages=[de]"]),
    ("mmlu", ["+prepare_args.split=test"]),
    ("human_eval_infilling", ["+prepare_args.split=random_span"]),
    ("tau2_mock", ["+prepare_args.split=base"]),
]


@pytest.mark.parametrize("name,args", SUBSETS, ids=[name for name, _ in SUBSETS])
def test_subset_counts_add_up(name, args, data_dir):
    prepare.run(compose(["task=prepare", f"benchmark={name}", f"data.mirror={UPSTREAM}", *args]))
    path = data_dir / name / f"{name}.jsonl"
    counts = read_manifest(path)["upstream_rows"]
    assert counts["kept"] == len(path.read_text().splitlines()) > 0
    assert counts["seen"] == counts["kept"] + counts["left_out"] + counts["skipped"], counts
    assert counts["left_out"] == sum(counts["left_out_by_reason"].values())
