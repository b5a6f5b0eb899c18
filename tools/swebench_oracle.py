"""The gold patch over SWE-bench instances, as many as can be built here: resolved rate against the expected
100%, each failure with its reason, build time and image size per instance and per repository.

    .venv/bin/python tools/swebench_oracle.py <prepared swebench_verified.jsonl> [--mirror DIR] \
        [--only ID ...] [--repo OWNER/NAME ...] [--per-repo N] [--extra-ca PEM ...] [--out results.json]

The prepared file comes from `python -m gym task=prepare benchmark=swebench_verified data.mirror=DIR`;
repositories are read from DIR/github.com/<owner>/<name>.git (else GitHub). Each instance: its image is
built (gym.swebench.environment, through podman), the gold patch and then no patch are graded in fresh
containers; the gold must resolve and the empty patch must not. Images are removed after each instance
unless --keep-images. Results go to --out as JSON and to stdout as a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gym.core.errors import GymError  # noqa: E402
from gym.runtime import BuildFailed, ContainerError, make_runtime, settings_from_config  # noqa: E402
from gym.swebench.environment import build_image, evaluate  # noqa: E402
from gym.swebench.specs import plan  # noqa: E402


def one(runtime, row: dict, mirror: str | None, keep: bool) -> dict:
    environment = plan(row)
    out = {"instance_id": row["instance_id"], "repo": row["repo"], "python": environment.python,
           "faithful": environment.faithful, "notes": environment.notes}
    if not environment.buildable:
        return {**out, "outcome": "not_buildable"}
    started = time.monotonic()
    try:
        built = build_image(runtime, row, environment, mirror, timeout=3600)
    except BuildFailed as exc:
        return {**out, "outcome": "build_error", "build_seconds": round(time.monotonic() - started, 1),
                "why": exc.output.strip().splitlines()[-3:] if exc.output else str(exc)}
    except GymError as exc:  # the repository at base_commit is not in the mirror (nor reachable)
        return {**out, "outcome": "no_repository", "why": str(exc)[-300:]}
    try:
        size = runtime.call("image", "inspect", "--format", "{{.Size}}", built.tag, timeout=300).strip()
    except ContainerError:  # podman too busy to answer: the size is unknown, the run goes on
        size = ""
    out.update(build_seconds=round(built.seconds, 1), build_cached=built.cached,
               image_mb=round(int(size) / 1e6) if size else None)
    try:
        gold = evaluate(runtime, built.tag, row, environment, row["patch"], timeout=1800)
        empty = evaluate(runtime, built.tag, row, environment, "", timeout=1800)
    except ContainerError as exc:  # the runtime failed, not the instance: no verdict
        return {**out, "outcome": "infra_error", "why": str(exc)[-300:]}
    finally:
        if not keep:
            runtime.remove_image(built.tag)
    tests = gold.report.get("tests_status") or {}
    failing = [t for kind in ("FAIL_TO_PASS", "PASS_TO_PASS") for t in (tests.get(kind) or {}).get("failure", [])]
    outcome = "ok" if gold.report["resolved"] and not empty.report["resolved"] else \
        "gold_unresolved" if not gold.report["resolved"] else "empty_resolved"
    return {**out, "outcome": outcome, "gold_resolved": gold.report["resolved"],
            "empty_resolved": empty.report["resolved"], "failing_with_gold": failing[:20],
            "gold_seconds": round(gold.seconds, 1),
            **({"gold_log_tail": gold.log[-3000:]} if outcome != "ok" else {})}  # the why of a failure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prepared", type=Path)
    parser.add_argument("--mirror")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--repo", nargs="*")
    parser.add_argument("--per-repo", type=int, default=None, help="at most N instances of each repository")
    parser.add_argument("--extra-ca", nargs="*", default=[])
    parser.add_argument("--keep-images", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("swebench_oracle.json"))
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.prepared.open(encoding="utf-8")]
    rows = [r for r in rows if (not args.only or r["instance_id"] in args.only) and (not args.repo or r["repo"] in args.repo)]
    if args.per_repo:
        seen: dict[str, int] = {}
        rows = [r for r in rows if seen.setdefault(r["repo"], 0) < args.per_repo and not seen.update({r["repo"]: seen[r["repo"]] + 1})]
    runtime = make_runtime(settings_from_config({"provider": "podman", "oci_runtime": "auto",
                                                 "ulimits": ["nofile=20000:20000", "nproc=32768:32768"],
                                                 "extra_ca_certs": args.extra_ca}))
    runtime.check()
    results = []
    for number, row in enumerate(rows, 1):
        result = one(runtime, row, args.mirror, args.keep_images)
        results.append(result)
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"[{number}/{len(rows)}] {row['instance_id']}: {result['outcome']} "
              f"(build {result.get('build_seconds', '-')} s, image {result.get('image_mb', '-')} MB, "
              f"faithful {result['faithful']})", flush=True)
    resolved = sum(r["outcome"] == "ok" for r in results)
    print(f"\noracle: {resolved}/{len(results)} resolved with the gold patch and unresolved without it "
          f"(expected: all); results in {args.out}")


if __name__ == "__main__":
    main()
