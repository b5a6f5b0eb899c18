"""A real single-node SLURM cluster for the tests (and perf/slurm_overhead.py): munged, slurmctld and slurmd
from Debian's slurm-wlm and munge, with a munge key, a slurm.conf and all state in one temp dir.

Loopback only (the controller and the node listen on free ports of 127.0.0.1), no accounting, the node
described as the machine is (`slurmd -C`: its CPUs and memory) plus two GPUs backed by /dev/null and
/dev/zero, so a job asking for GPUs gets CUDA_VISIBLE_DEVICES as on a GPU node. Client commands (sbatch,
squeue, scontrol) find the cluster through SLURM_CONF, which `env` holds; nothing under /etc is touched.
The daemons run in the foreground as children of the test run and get SIGTERM when it dies, however it
dies, so no cluster outlives the tests.
Two settings differ from SLURM's defaults to keep the tests short: a requeued job may start again after
6 s instead of 121 s (cred_expire=5) and the scheduler looks at pending jobs every second (sched_interval=1).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
NEEDED = (*DAEMONS, "sbatch", "squeue", "scontrol", "scancel", "srun")
INSTALL = "apt-get install -y slurm-wlm munge"


class ClusterUnavailable(Exception):
    """Why there is no cluster here (the SLURM tests skip with this as their reason)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _find(name: str) -> str | None:
    return shutil.which(name) or next((str(p) for p in (Path("/usr/sbin") / name, Path("/sbin") / name)
                                       if p.is_file()), None)


def _stop_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent (the test run) dies (Linux prctl PR_SET_PDEATHSIG)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1


def _node_line() -> str:
    """The node as slurmd sees this machine (`slurmd -C`), memory rounded down so it never exceeds it."""
    out = subprocess.run([_find("slurmd"), "-C"], capture_output=True, text=True, timeout=30).stdout
    fields = dict(part.split("=", 1) for part in out.split() if "=" in part)
    memory = int(fields.get("RealMemory", "1024"))
    return (f"NodeName={fields['NodeName']} NodeAddr=127.0.0.1 CPUs={fields.get('CPUs', os.cpu_count())} "
            f"RealMemory={memory - memory // 20} Gres=gpu:2 State=UNKNOWN")


SLURM_CONF = """\
ClusterName=gymtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/sock/munge.socket,cred_expire=5
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
GresTypes=gpu
{node}
PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


class SlurmCluster:
    """Start with `with SlurmCluster() as cluster:`; `cluster.env` is the environment its commands need."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.env: dict[str, str] = {}
        self.pids: list[int] = []

    def __enter__(self) -> "SlurmCluster":
        missing = [name for name in NEEDED if _find(name) is None]
        if missing:
            raise ClusterUnavailable(f"SLURM is not installed ({', '.join(missing)} missing): {INSTALL}")
        if os.geteuid() != 0:
            raise ClusterUnavailable("starting slurmctld and slurmd for the tests needs root")
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gym-slurm-"))
        root = self.root
        root.chmod(0o755)  # munged wants every directory above its socket open to all
        for name, mode in (("munge", 0o700), ("sock", 0o755), ("state", 0o755), ("spool", 0o755), ("log", 0o755)):
            (root / name).mkdir(mode=mode)
        key = root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        socket_path = root / "sock" / "munge.socket"
        self._start_daemon(_find("munged"), "--foreground", f"--key-file={key}", f"--socket={socket_path}",
                           f"--pid-file={root / 'munge' / 'munged.pid'}", f"--log-file={root / 'log' / 'munged.log'}",
                           f"--seed-file={root / 'munge' / 'munged.seed'}", what="munged", ready=socket_path.exists)
        conf = root / "slurm.conf"
        conf.write_text(SLURM_CONF.format(host=socket.gethostname().split(".")[0], root=root, node=_node_line(),
                                          ctld_port=_free_port(), d_port=_free_port()))
        (root / "gres.conf").write_text("Name=gpu File=/dev/null\nName=gpu File=/dev/zero\n")
        self.env = {"SLURM_CONF": str(conf)}
        self._start_daemon(_find("slurmctld"), "-D", "-i", what="slurmctld",
                           ready=lambda: self.command("sinfo", "--noheader", check=False).returncode == 0)
        self._start_daemon(_find("slurmd"), "-D", what="slurmd", ready=lambda: True)
        self._wait_idle()

    def _start_daemon(self, *command: str, what: str, ready) -> None:
        """A daemon in the foreground as this process's child, told to stop when this process dies (so a
        killed test run leaves no cluster behind); waits until `ready()`."""
        log = open(self.root / "log" / f"{what}.out", "w")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, **self.env}, preexec_fn=_stop_with_parent)
        self.pids.append(proc.pid)
        deadline = time.monotonic() + 30
        while not ready():
            if proc.poll() is not None or time.monotonic() > deadline:
                out = (self.root / "log" / f"{what}.out").read_text(errors="replace").strip()
                raise ClusterUnavailable(f"{what} did not start: {(out or self.log_tail(what))[-300:]}")
            time.sleep(0.02)

    def _wait_idle(self) -> None:
        deadline = time.monotonic() + 30
        state = ""
        while time.monotonic() < deadline:
            state = self.command("sinfo", "--noheader", "--format=%T", check=False).stdout.strip()
            if state.startswith("idle"):
                return
            time.sleep(0.05)
        raise ClusterUnavailable(f"the node never became idle (sinfo: {state or 'no answer'}): {self.log_tail('slurmd')}")

    def log_tail(self, what: str) -> str:
        path = (self.root / "log" / f"{what}.log") if self.root else None
        try:
            return " | ".join(path.read_text(errors="replace").strip().splitlines()[-3:]) if path else ""
        except OSError:
            return "(no log)"

    def command(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(args, capture_output=True, text=True, timeout=60, check=check,
                              env={**os.environ, **self.env})

    def state(self, job_id: str) -> str:
        """A job's state as squeue sees it ('' once it has left the queue)."""
        out = self.command("squeue", "--noheader", "--array", "--states=all", f"--jobs={job_id.split('_')[0]}",
                           "--format=%i %T", check=False).stdout
        return next((line.split()[1] for line in out.splitlines() if line.split()[0] == job_id), "")

    def __exit__(self, *exc: object) -> None:
        if self.pids and self.env:  # jobs still there are cancelled before their node goes away
            jobs = self.command("squeue", "--noheader", "--format=%A", check=False).stdout.split()
            if jobs:
                self.command("scancel", *sorted(set(jobs)), check=False)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and self.command("squeue", "--noheader", check=False).stdout.strip():
                    time.sleep(0.05)
        for pid in reversed(self.pids):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        for pid in self.pids:  # our children: reaped, not left as zombies; killed if they do not stop
            deadline = time.monotonic() + 15
            try:
                while os.waitpid(pid, os.WNOHANG) == (0, 0):
                    if time.monotonic() > deadline:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        break
                    time.sleep(0.02)
            except (ChildProcessError, ProcessLookupError):
                pass
        self.pids = []
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


def cluster_fixture():
    """A pytest fixture (module scope) of a running cluster; its tests skip with one reason where there is none."""
    import pytest

    @pytest.fixture(scope="module")
    def slurm():
        try:
            with SlurmCluster() as cluster:
                yield cluster
        except ClusterUnavailable as exc:
            pytest.skip(f"no SLURM cluster: {exc}")

    return slurm
