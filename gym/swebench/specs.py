"""Per-repository environment facts (SWE-bench v4.1.0) and the stand-in gym builds from them.

SWE-bench's images are conda environments made from `MAP_REPO_VERSION_TO_SPECS` (its Python version,
`packages`: a requirements file read at the environment-setup commit, a conda environment.yml, or a list
of conda packages; `pip_packages`; `pre_install`; `install`; `test_cmd`). Those facts are in
specs_v4.1.0.json (written by tools/swebench_specs.py from SWE-bench's tag v4.1.0, with its MIT licence).

Where conda cannot be reached, gym builds the same environment from a distribution base that carries
the right Python minor version (`PYTHON_BASES`), with a venv and pip. `plan(row)` says what that is and
whether it is faithful: a requirements file or pip packages install the same way; an environment.yml or a
conda package list is installed with pip under the same names, which can differ from conda's builds
(compiled libraries, pins conda resolves differently), so such an instance is marked `faithful: false`
with the reason, and its verdict is reported beside that note.

What pip picks today drifts from what upstream's images had (a newer docutils, a release PyPI no longer
serves). SWE-bench also publishes the environment exported from each of its original Verified images;
environments_v4.1.0.json (written by tools/swebench_environments.py, same tag and licence) keeps their
pip-installable pins, which the stand-in uses as pip constraints (`EnvironmentPlan.pins`); what only conda
had (its interpreter, compiled libraries) is named in the notes.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

SPECS_FILE = Path(__file__).with_name("specs_v4.1.0.json")
ENVIRONMENTS_FILE = Path(__file__).with_name("environments_v4.1.0.json")
# Python minor version -> the distribution image whose archive carries it (the runtime's stand-in bases)
PYTHON_BASES = {"3.5": "ubuntu:16.04", "3.6": "ubuntu:18.04", "3.7": "ubuntu:18.04", "3.8": "ubuntu:20.04",
                "3.9": "debian:bullseye", "3.10": "ubuntu:22.04", "3.11": "debian:bookworm",
                "3.12": "ubuntu:24.04", "3.13": "debian:trixie"}
# conda packages whose conda builds (compiled, linked against conda's libraries) pip's wheels may not match
CONDA_BUILDS = {"numpy", "scipy", "pandas", "cython", "matplotlib", "scikit-learn", "astropy", "h5py", "pyarrow"}
LINKED_PYTHON = "--current-env"  # in a test command: tox-current-env runs a link to the venv's python


def conda_names(packages: str) -> set[str]:
    """The package names of a conda package list ("'numpy==1.19.2' pytest 'pandas<2.0.0'")."""
    names = set()
    for word in packages.split():
        name = word.strip("'\"")
        for mark in "<>=!~ ":
            name = name.split(mark, 1)[0]
        names.add(name.lower())
    return names


@lru_cache(maxsize=1)
def facts() -> dict:
    return json.loads(SPECS_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def exported_environments() -> dict:
    return json.loads(ENVIRONMENTS_FILE.read_text(encoding="utf-8"))


def exported_environment(instance_id: str) -> dict | None:
    """The packages of upstream's own image of `instance_id` ({"python", "pins", "conda_only"}), if published."""
    known = exported_environments()
    index = known["instances"].get(instance_id)
    return None if index is None else known["environments"][index]


def requirement_name(requirement: str) -> str:
    """The normalised (PEP 503) name of a requirement string ("Jinja2==3.0.3" -> "jinja2")."""
    name = re.split(r"[<>=!~;\[ @]", requirement.strip().strip("'\""), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def exact_pins(*texts: str) -> set[str]:
    """The names that requirement lines or words pin exactly (`name==version`)."""
    return {requirement_name(word) for text in texts for word in re.split(r"[\s]+", text or "") if "==" in word}


def spec_for(repo: str, version: str) -> dict | None:
    return (facts()["specs"].get(repo) or {}).get(str(version))


@dataclass
class EnvironmentPlan:
    """What gym builds for one instance, and how far it is from upstream's conda image."""

    python: str | None
    base_image: str | None
    packages: str | None  # requirements.txt | environment.yml | a conda package list | None
    requirements_paths: list[str] = field(default_factory=list)  # where the requirements file may be
    pip_packages: list[str] = field(default_factory=list)
    pre_install: list[str] = field(default_factory=list)
    install: str | None = None
    eval_commands: list[str] = field(default_factory=list)
    test_cmd: str | None = None
    log_parser: str | None = None
    pins: list[str] = field(default_factory=list)  # upstream's image's packages: pip constraints of the set-up
    buildable: bool = True
    faithful: bool = True
    notes: list[str] = field(default_factory=list)

    def to_row(self) -> dict:
        return asdict(self)


def plan(row: dict) -> EnvironmentPlan:
    """The environment plan of a prepared row (`repo`, `version`, `instance_id`)."""
    repo, version = row["repo"], str(row["version"])
    spec, known = spec_for(repo, version), facts()
    parser = known["parsers"].get(repo)
    if spec is None:
        return EnvironmentPlan(None, None, None, log_parser=parser, buildable=False, faithful=False,
                               notes=[f"SWE-bench v4.1.0 has no environment spec for {repo} {version}"])
    python = str(spec.get("python"))
    packages = spec.get("packages")
    result = EnvironmentPlan(
        python, PYTHON_BASES.get(python), packages,
        requirements_paths=list(known["requirements_paths"].get(repo) or []),
        pip_packages=list(spec.get("pip_packages") or []), pre_install=list(spec.get("pre_install") or []),
        install=spec.get("install"), eval_commands=list(spec.get("eval_commands") or []),
        test_cmd=test_cmd if isinstance(test_cmd := spec.get("test_cmd"), (str, type(None))) else " ".join(test_cmd),
        log_parser=parser)
    if result.base_image is None:
        result.buildable, result.faithful = False, False
        result.notes.append(f"no distribution base carries Python {python}")
    if result.test_cmd is None:
        result.buildable = False
        result.notes.append(f"SWE-bench v4.1.0 gives no test command for {repo} {version}")
    if parser is None:
        result.buildable = False
        result.notes.append(f"SWE-bench names no log parser for {repo}")
    if packages == "environment.yml":
        result.faithful = False
        result.requirements_paths = list(known["environment_yml_paths"].get(repo) or [])
        result.notes.append("upstream builds a conda environment from environment.yml; gym installs its pip-"
                            "installable entries with pip (conda-only packages and conda's builds differ)")
    elif packages and packages != "requirements.txt":
        compiled = sorted(conda_names(packages) & CONDA_BUILDS)
        result.faithful = not compiled
        result.notes.append(f"upstream installs conda packages ({packages}); gym installs the same names with pip"
                            + (f" (conda's own builds of {', '.join(compiled)} may differ)" if compiled else ""))
    if LINKED_PYTHON in (result.test_cmd or ""):
        result.notes.append("the test command runs tox-current-env's link to the venv's python; the venv's pythons "
                            "are launchers that keep the venv when started through a link (conda's env is a prefix)")
    if known["repo_install"].get(repo):
        result.pre_install.insert(0, known["repo_install"][repo])
    exported = exported_environment(row.get("instance_id", ""))
    if exported is None:
        result.notes.append(f"conda's Python {python} stands in as the distribution's Python {python} in a venv")
        return result
    # the spec's own exact pins stand (a later step of upstream's set-up may have moved them, as its image shows)
    stated = exact_pins(packages if packages not in ("requirements.txt", "environment.yml") else "",
                        *result.pip_packages)
    result.pins = [pin for pin in exported["pins"] if requirement_name(pin) not in stated]
    result.notes.append(f"pip is constrained to the {len(result.pins)} versions of upstream's image "
                        f"(SWE-bench's exported environment); conda alone gave it: "
                        + ", ".join(exported["conda_only"]))
    result.notes.append(f"conda's Python {exported['python']} stands in as the distribution's Python {python} "
                        "in a venv")
    return result
