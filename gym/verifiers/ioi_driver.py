"""The IOI judge that runs inside gym's sandbox (native mode: g++ and fork/exec allowed), standard library only.

It reads one job (JSON on stdin): the grader files, the solution, the problem's grader_config and the tests.
It compiles as IOI's CMS compile script does (`g++ -DEVAL -std=gnu++17 -O2 -pipe -s` of graders/<problem>.cpp
with grader.cpp / stub.cpp, then the checker and the manager; the solution first, so that a compilation error
costs no grader compile), then runs each test as the reference's run script does, and writes one JSON line per test: {"test", "score", "feedback", "time_s"}.

* Batch: the program reads input.txt, under the task's wall-clock time limit and an address-space limit of
  its memory limit (`ulimit -v`), with an unlimited stack; the checker (checker/checker <in> <out> <answer>)
  prints the score, or without one the output must equal the expected one up to whitespace (`diff -b`).
* Communication: FIFOs per process, the solution's processes (`<exe> [i] < m_to_u > u_to_m`) and the
  manager (`manager u0_to_m m_to_u0 ...` reading input.txt) under the time limit; the manager (or a
  checker) prints the score.

A timeout (exit 124/137/143 or killed at the limit) scores 0 with "Time limit exceeded", another non-zero
exit 0 with "Runtime error"; a score is the float the manager/checker prints (unreadable: 0). With
`stop_on_zero`, tests stop at the first 0 (a subtask scores the minimum of its tests).
"""

import base64
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

TIMEOUT_CODES = (124, 137, 143)


def _write(path, text, encoding="utf-8"):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding=encoding, errors="surrogateescape") as handle:
        handle.write(text)


def _compile(command, limit):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return "compilation timed out"
    return None if done.returncode == 0 else (done.stderr or done.stdout)[-3000:] or f"exit {done.returncode}"


def build(job):
    """Write the files and compile (the solution first: a compilation error needs no grader program);
    None, or the compiler's complaint."""
    for name, content in job["grader_files"]:
        if content:
            _write(name, content)
    problem = job["problem"]
    _write(f"graders/{problem}.cpp", job["solution"])
    limit, prebuilt, built = job["compile_timeout"], job.get("prebuilt") or {}, {}
    sources = [f"graders/{problem}.cpp"] + [p for p in ("graders/grader.cpp", "graders/stub.cpp") if os.path.exists(p)]
    include = ["-I", job["include"]] if job.get("include") else []  # a precompiled bits/stdc++.h, same flags
    error = _compile(["g++", "-DEVAL", "-std=gnu++17", "-O2", "-pipe", "-s", *include, "-o", f"graders/{job['code']}",
                      *sources], limit)
    if error is not None:
        return f"Compilation error: {error}"
    for source, target in (("checker/checker.cpp", "checker/checker"), ("graders/manager.cpp", "graders/manager")):
        if target in prebuilt:  # the grader's own programs, compiled by an earlier run (same grader files)
            with open(target, "wb") as handle:
                handle.write(base64.b64decode(prebuilt[target]))
            os.chmod(target, 0o755)
        elif os.path.exists(source):
            error = _compile(["g++", "-x", "c++", "-std=gnu++17", "-O2", "-o", target, source], limit)
            if error:
                return f"could not compile {source}: {error}"
            with open(target, "rb") as handle:
                built[target] = base64.b64encode(handle.read()).decode()
    if built:
        emit({"built": built})
    return None


def _limits(memory):
    def apply():
        stack = resource.getrlimit(resource.RLIMIT_STACK)[1]  # `ulimit -s unlimited`, or as far as the sandbox allows
        resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
        if memory:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            value = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
            resource.setrlimit(resource.RLIMIT_AS, (value, value))
    return apply


class _Forked:
    """A solution process whose stdin and stdout are FIFOs: opened after fork, in the shell's order (stdin
    first), which blocks until the manager opens the other ends, so the parent must not wait for the exec."""

    def __init__(self, argv, reading, writing, memory):
        self.returncode = None
        self.pid = os.fork()
        if self.pid == 0:
            try:
                _limits(memory)()
                os.dup2(os.open(reading, os.O_RDONLY), 0)
                os.dup2(os.open(writing, os.O_WRONLY), 1)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 2)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self):
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


def _kill(processes):
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait()


def _exit_verdict(code, timed_out, limit):
    if timed_out or code in TIMEOUT_CODES or code == -signal.SIGKILL:
        return 0.0, f"Time limit exceeded ({limit}s)"
    if code != 0:
        return 0.0, f"Runtime error with exit code {code}"
    return None


def _score(text):
    try:
        return float(text.strip())
    except ValueError:
        return 0.0


def _lines(text):
    """Lines as `diff -b` compares them: runs of blanks as one, none at the end of a line."""
    text = text[:-1] if text.endswith("\n") else text
    return [re.sub(r"[ \t\r\f\v]+", " ", line).rstrip() for line in text.split("\n")]


def _checked(output_path, expected, feedback_default):
    """Score of a finished run's output: the checker's, or a whitespace-insensitive comparison."""
    if os.path.exists("checker/checker"):
        _write("correct_output.txt", expected, "latin-1")
        done = subprocess.run(["checker/checker", "input.txt", "correct_output.txt", output_path],
                              capture_output=True, text=True, errors="replace")
        return _score(done.stdout), done.stderr.strip()[-500:] or feedback_default
    with open(output_path, encoding="latin-1") as handle:  # diff -b against `echo "$(cat expected)"`
        same = _lines(handle.read()) == _lines(expected.rstrip("\n") + "\n")
    return (1.0, "Output is correct (diff)") if same else (0.0, "Output isn't correct (diff)")


def run_batch(job, expected, limit, memory):
    with open("input.txt", "rb") as stdin, open("output.txt", "wb") as stdout:
        process = subprocess.Popen([f"graders/{job['code']}"], stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL,
                                   preexec_fn=_limits(memory))
        try:
            code, timed_out = process.wait(timeout=limit), False
        except subprocess.TimeoutExpired:
            _kill([process])
            code, timed_out = process.returncode, True
    verdict = _exit_verdict(code, timed_out, limit)
    return verdict or _checked("output.txt", expected, "")


def run_communication(job, expected, limit, memory):
    config = job["config"]
    count = int(config.get("task_type_parameters_Communication_num_processes") or 1)
    fifo_io = config.get("task_type_parameters_Communication_user_io") == "fifo_io"
    arguments, users = [], []
    for index in range(count):
        folder = f"fifo{index}"
        os.makedirs(folder, exist_ok=True)
        to_manager, to_user = f"{folder}/u{index}_to_m", f"{folder}/m_to_u{index}"
        for path in (to_manager, to_user):
            if not os.path.exists(path):
                os.mkfifo(path)
        arguments += [to_manager, to_user]
        extra = [str(index)] if count != 1 else []
        if fifo_io:
            users.append(subprocess.Popen([f"graders/{job['code']}", to_user, to_manager, *extra],
                                          stderr=subprocess.DEVNULL, preexec_fn=_limits(memory)))
        else:
            users.append(_Forked([f"graders/{job['code']}", *extra], to_user, to_manager, memory))
    custom = config.get("task_type_parameters_Communication_manager_args")
    with open("input.txt", "rb") as stdin, open("output.txt", "wb") as stdout:
        manager = subprocess.Popen(["graders/manager", *arguments, *(custom.split() if custom else [])], stdin=stdin,
                                   stdout=stdout, stderr=subprocess.PIPE, preexec_fn=_limits(memory))
        try:
            _, errors = manager.communicate(timeout=limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill([manager])
            errors, timed_out = b"", True
    _kill(users)
    verdict = _exit_verdict(manager.returncode, timed_out, limit)
    if verdict:
        return verdict
    feedback = errors.decode("utf-8", "replace").strip()[-500:]
    if expected and os.path.exists("checker/checker"):
        return _checked("output.txt", expected, feedback)
    with open("output.txt", encoding="utf-8", errors="replace") as handle:
        return _score(handle.read()), feedback


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    job = json.loads(sys.stdin.read())
    problem_error = build(job)
    config = job["config"]
    limit = float(config.get("time_limit") or 1.0) * job.get("time_scale", 1.0)
    memory = int(config.get("memory_limit") or 0)
    runner = run_communication if config.get("task_type") == "Communication" else run_batch
    for name, test_input, expected in job["tests"]:
        started = time.monotonic()
        if problem_error:
            score, feedback = 0.0, problem_error[-3000:]
        else:
            _write("input.txt", test_input, "latin-1")
            try:
                score, feedback = runner(job, expected, limit, memory)
            except OSError as exc:
                score, feedback = 0.0, f"Runtime error: {exc}"
        emit({"test": name, "score": score, "feedback": feedback, "time_s": round(time.monotonic() - started, 3)})
        if score == 0.0 and job.get("stop_on_zero", True):
            break


if __name__ == "__main__":
    main()
