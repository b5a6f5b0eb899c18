"""What runs in an instance's container: the environment build, the patch, the eval script.

Each mirrors SWE-bench's harness (v4.1.0's test_spec/python.py and run_evaluation.py) with a venv at
/opt/testbed in place of the conda env `testbed`:

* the build context: the repository at `base_commit` (from a git mirror, or GitHub where reachable;
  newer commits and tags are not kept, as upstream removes them), the requirements file read at the
  environment-setup commit, a Dockerfile on the distribution base with the spec's Python, and the setup
  scripts (requirements or packages, `pip_packages`, `pre_install`, `install`, then a commit so `git diff`
  shows only the agent's changes); where upstream publishes its image's packages (`plan.pins`), every
  `pip install` of the set-up runs with them as constraints (`-c`), less the names the steps pin themselves;
* `APPLY_COMMANDS`: the agent's patch is tried with `git apply`, `git apply --reject`, then `patch --fuzz=5`;
* `eval_script`: reset the test files, apply the test patch, run the spec's test command on the test
  patch's files between SWE-bench's start and end markers, record the test command's exit code (as
  swebench 5.x's `record_test_exit_code`), reset the test files again.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from gym.core.errors import GymError
from gym.swebench.instances import modified_files, test_directives
from gym.swebench.specs import LINKED_PYTHON, EnvironmentPlan, exact_pins, facts, requirement_name

WORKDIR = "/testbed"
VENV = "/opt/testbed"
HEREDOC = "EOF_114329324912"
APPLY_COMMANDS = ("git apply --verbose", "git apply --verbose --reject", "patch --batch --fuzz=5 -p1 -i")
TEST_EXIT_CODE = ">>>>> Test Exit Code"  # swebench 5.x's marker, read by its grading
APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed"
CONSTRAINTS = "/root/constraints.txt"
# names upstream's set-up rewrites in requirements files because PyPI yanked them; an image that had the old
# name installed it (an exact pin still installs a yanked release), and then it is kept
RENAMES = {"types-pkg_resources": "types-setuptools"}
# the venv of an old Python gets its distribution's pip (xenial: 8.1, bionic: 9.0), too old for today's PyPI
# (manylinux2014 wheels, Requires-Python; its default index is the retired pypi.python.org): it is replaced
# from PyPI by the last pip that supports that Python, as a conda environment of that Python has it
PIP_FOR_PYTHON = {"3.5": "pip<21", "3.6": "pip<22", "3.7": "pip<24.1"}
# bionic keeps distutils out of the standard library and its pythonX.Y-venv does not pull it in: without it the
# venv's ensurepip (Ubuntu's pip 9) fails
APT_FOR_PYTHON = {"3.6": "python3-distutils", "3.7": "python3-distutils"}
# tox-current-env (sphinx's test command, LINKED_PYTHON) runs `.tox/<env>/bin/python`, a link to the venv's
# python: started through a link outside the venv, Python finds no pyvenv.cfg beside sys.executable and runs
# without the venv. A conda env is a real prefix and has no such trouble; here the venv's pythons become
# launchers that start the interpreter under the venv's own name, wherever they are linked from.


def activate(plan: EnvironmentPlan) -> str:
    """The line that activates the venv in a `set -u` script (Python 3.5's activate reads unset variables)."""
    line = f"source {VENV}/bin/activate"
    return f"set +u && {line} && set -u" if plan.python == "3.5" else line


def venv_launchers(python: str, venv: str = VENV, binary: str | None = None) -> str:
    """A RUN line that turns the venv's python, python3 and pythonX.Y into launchers naming the venv
    (`binary`: the interpreter, the distribution's /usr/bin/pythonX.Y)."""
    launcher = f'#!/bin/bash\\nexec -a {venv}/bin/{python} {binary or "/usr/bin/" + python} "$@"\\n'
    return (f"RUN for name in python python3 {python}; do printf '{launcher}' > {venv}/bin/$name.new "
            f"&& chmod 755 {venv}/bin/$name.new && mv -f {venv}/bin/$name.new {venv}/bin/$name; done")


def repository_source(repo: str, mirror: str | None) -> str:
    """Where the repository's git history comes from: `<mirror>/github.com/<repo>.git` (a local directory
    or URL, the layout of every gym mirror), else GitHub."""
    if mirror:
        root = str(mirror).rstrip("/")
        if "://" not in root:  # a local directory: absolute, so git reads it from any working directory
            root = str(Path(root).expanduser().resolve())
        return f"{root}/github.com/{repo}.git"
    return f"https://github.com/{repo}.git"


def _git(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise GymError(f"git {' '.join(args[:2])} failed: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.stdout


def checkout(source: str, commit: str, dest: Path) -> None:
    """The repository at `commit` in `dest`, on branch main, without a remote or newer history."""
    _git("clone", "-q", "--no-checkout", source, str(dest))
    _git("checkout", "-q", "-B", "main", commit, cwd=dest)
    for ref in _git("for-each-ref", "--format=%(refname)", "refs/heads", "refs/tags", cwd=dest).split():
        if ref != "refs/heads/main":
            _git("update-ref", "-d", ref, cwd=dest)
    _git("remote", "remove", "origin", cwd=dest)
    _git("reflog", "expire", "--expire=now", "--all", cwd=dest)
    _git("gc", "-q", "--prune=now", cwd=dest)
    (dest / ".git" / "index").unlink()  # stat data, different each time: rebuilt in the image (setup_repo.sh)


def _show(source_dir: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=source_dir, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def requirements_text(source_dir: Path, commit: str, paths: list[str], pins: list[str] = ()) -> str | None:
    """The first of `paths` that exists at `commit`, its `-r` includes inlined one level deep (their lines
    first), `-e .`, comments and `.[test` lines left out: SWE-bench's get_requirements_by_commit (its renames
    but those of a name upstream's image had, per `pins`)."""
    for path in paths:
        text = _show(source_dir, commit, path)
        if text is not None:
            break
    else:
        return None
    folder = "/".join(path.split("/")[:-1])
    skip = ("-e .", "#", ".[test")
    own, included = [], []
    for line in text.split("\n"):
        if line.strip().startswith("-r"):
            name = line[len("-r"):].strip()
            extra = _show(source_dir, commit, f"{folder}/{name}" if folder else name)
            included += [item for item in (extra or "").split("\n") if not item.strip().startswith(skip)]
        elif not line.strip().startswith(skip):
            own.append(line)
    included.append("\n".join(own))
    text, had = "\n".join(included), {requirement_name(pin) for pin in pins}
    for old, new in RENAMES.items():
        text = text if requirement_name(old) in had else text.replace(old, new)
    return text


def environment_yml_packages(text: str) -> list[str]:
    """pip requirement strings for an environment.yml: its conda entries by name (`a=1.2` → `a==1.2`, python
    and channels left out) and its `pip:` section as it stands."""
    import yaml

    found: list[str] = []
    for entry in (yaml.safe_load(text) or {}).get("dependencies") or []:
        if isinstance(entry, dict):
            found += [str(item) for item in entry.get("pip") or []]
        elif isinstance(entry, str) and not entry.split("=")[0].strip() in ("python", "pip"):
            name, _, version = entry.partition("=")
            found.append(f"{name.strip()}=={version.lstrip('=')}" if version and "*" not in version else name.strip())
    return found


def constraints_text(plan: EnvironmentPlan, requirements: str | None) -> str:
    """The pins of upstream's image as a constraints file, less the names the requirements file (or the
    environment.yml) pins itself."""
    yml = plan.packages == "environment.yml" and requirements
    stated = exact_pins(*(environment_yml_packages(requirements) if yml else [requirements or ""]))
    return "".join(f"{pin}\n" for pin in plan.pins if requirement_name(pin) not in stated)


def constrained(command: str, plan: EnvironmentPlan) -> str:
    """`command` with the constraints file on each `pip install` it runs (when upstream's pins are known)."""
    return command.replace("pip install", f"pip install -c {CONSTRAINTS}") if plan.pins else command


def setup_env_script(plan: EnvironmentPlan, requirements: str | None) -> str:
    lines = []
    if plan.packages == "requirements.txt" and requirements is not None:
        lines.append("python -m pip install -r /root/requirements.txt")
    elif plan.packages == "environment.yml" and requirements is not None:
        packages = environment_yml_packages(requirements)
        if packages:
            lines.append("python -m pip install " + " ".join(shlex.quote(p) for p in packages))
    elif plan.packages and plan.packages not in ("requirements.txt", "environment.yml"):
        lines.append(f"python -m pip install {plan.packages}")
    if plan.pip_packages:
        lines.append("python -m pip install " + " ".join(shlex.quote(p) for p in plan.pip_packages))
    return "\n".join(["#!/bin/bash", "set -euxo pipefail", activate(plan),
                      *(constrained(line, plan) for line in lines)]) + "\n"


def setup_repo_script(plan: EnvironmentPlan) -> str:
    lines = ["#!/bin/bash", "set -euxo pipefail", activate(plan), f"cd {WORKDIR}",
             "git reset -q",  # the index the build context left out
             *(constrained(line, plan) for line in [*plan.pre_install, *([plan.install] if plan.install else [])]),
             "git config --global user.email setup@swebench.config", "git config --global user.name SWE-bench",
             "git commit --allow-empty -qam SWE-bench"]
    return "\n".join(lines) + "\n"


def dockerfile(plan: EnvironmentPlan, preamble: str = "") -> str:
    python = f"python{plan.python}"
    return "\n".join([
        f"FROM {plan.base_image}", preamble.rstrip(),
        "ENV DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1",
        "RUN apt-get update && apt-get install -y --no-install-recommends git patch ca-certificates "
        f"build-essential {python} {python}-venv {python}-dev {APT_FOR_PYTHON.get(plan.python, '')}".rstrip()
        + " && rm -rf /var/lib/apt/lists/*",
        f"RUN {python} -m venv {VENV}",
        *([venv_launchers(python)] if LINKED_PYTHON in (plan.test_cmd or "") else []),
        f"ENV PATH={VENV}/bin:$PATH VIRTUAL_ENV={VENV}",
        *([f"RUN python -m pip install --index-url https://pypi.org/simple --upgrade "
           f"'{PIP_FOR_PYTHON[plan.python]}' && python -m pip install --upgrade setuptools wheel "
           "&& python -m pip --version"] if plan.python in PIP_FOR_PYTHON else []),
        "COPY requirements.txt constraints.txt setup_env.sh setup_repo.sh /root/",
        "RUN bash /root/setup_env.sh",
        f"COPY repo {WORKDIR}",
        "RUN bash /root/setup_repo.sh",
        f"WORKDIR {WORKDIR}", ""])


def build_context(row: dict, plan: EnvironmentPlan, mirror: str | None, dest: Path, preamble: str = "") -> Path:
    """Write the instance's build context into `dest` (Dockerfile, repo/, scripts); returns `dest`."""
    if not plan.buildable:
        raise GymError(f"{row['instance_id']}: cannot be built here ({'; '.join(plan.notes)})")
    dest.mkdir(parents=True, exist_ok=True)
    checkout(repository_source(row["repo"], mirror), row["base_commit"], dest / "repo")
    requirements = None
    if plan.packages in ("requirements.txt", "environment.yml"):  # read at the environment-setup commit
        origin = repository_source(row["repo"], mirror)
        source = Path(origin) if Path(origin).is_dir() else dest / "source"
        if source != Path(origin):
            _git("clone", "-q", "--bare", "--filter=blob:none", origin, str(source))
        requirements = requirements_text(source, row["environment_setup_commit"], plan.requirements_paths,
                                         plan.pins)
        if source != Path(origin):
            shutil.rmtree(source)
    (dest / "requirements.txt").write_text(requirements or "", encoding="utf-8")
    (dest / "constraints.txt").write_text(constraints_text(plan, requirements), encoding="utf-8")
    (dest / "setup_env.sh").write_text(setup_env_script(plan, requirements), encoding="utf-8")
    (dest / "setup_repo.sh").write_text(setup_repo_script(plan), encoding="utf-8")
    (dest / "Dockerfile").write_text(dockerfile(plan, preamble), encoding="utf-8")
    return dest


def eval_script(row: dict, plan: EnvironmentPlan) -> str:
    known = facts()
    test_files = " ".join(modified_files(row["test_patch"]))
    reset = f"git checkout {row['base_commit']} {test_files}"
    test_command = " ".join([plan.test_cmd or "", *test_directives(row, known["non_test_exts"])])
    lines = ["#!/bin/bash", "set -uxo pipefail", activate(plan), f"cd {WORKDIR}",
             *plan.eval_commands, f"git config --global --add safe.directory {WORKDIR}", f"cd {WORKDIR}",
             "git status", "git show", f"git -c core.fileMode=false diff {row['base_commit']}",
             activate(plan), *([plan.install] if plan.install else []), reset,
             f"git apply -v - <<'{HEREDOC}'\n{row['test_patch']}\n{HEREDOC}",
             f": '{known['start_test_output']}'", test_command, "SWEBENCH_TEST_EXIT_CODE=$?",
             f": '{known['end_test_output']}'", f'echo "{TEST_EXIT_CODE}: $SWEBENCH_TEST_EXIT_CODE"', reset]
    return "\n".join(lines) + "\n"


def apply_script(patch_path: str) -> str:
    """Apply the agent's patch as SWE-bench does (each command in turn until one works); the log says
    APPLY_PATCH_FAIL when none does, which grades as unresolved."""
    tries = " || ".join(f"{command} {patch_path}" for command in APPLY_COMMANDS)
    return (f"cd {WORKDIR}\nif [ ! -s {patch_path} ]; then echo 'empty patch'; exit 0; fi\n"
            f"if {tries}; then echo '>>>>> Applied Patch'; else echo '{APPLY_PATCH_FAIL}'; exit 1; fi\n")
