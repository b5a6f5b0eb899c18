"""SWE-bench without containers: prepare from upstream's layout, environment plans, scripts, and grading
real test logs exactly as the swebench package grades them.

The logs under tests/fixtures/real/swebench/logs/ are what gym's container run of pallets__flask-5014 wrote
(gold patch, then no patch): apply step + eval script output, as SWE-bench's harness logs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gym.swebench.grading import grade, summary
from gym.swebench import instances
from gym.swebench.instances import InstanceError, instance_row
from gym.swebench.scripts import (CONSTRAINTS, checkout, dockerfile, eval_script, requirements_text,
                                  setup_env_script, venv_launchers)
from gym.swebench.specs import facts, plan

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real" / "swebench"
MIRROR = ROOT / "tests" / "fixtures" / "upstream"
FLASK_GIT = MIRROR / "github.com" / "pallets" / "flask.git"


@pytest.fixture(scope="module")
def flask_row():
    return instance_row(json.loads((REAL / "pallets__flask-5014.json").read_text(encoding="utf-8")))


def test_prepare_keeps_upstream_layout_through_the_cli(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=swebench_verified",
                           f"data.mirror={MIRROR}", "data.offline=true", f"data.root={tmp_path}",
                           f"hydra.run.dir={tmp_path / 'run'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {json.loads(line)["instance_id"]: json.loads(line)
            for line in (tmp_path / "swebench_verified" / "swebench_verified.jsonl").open()}
    assert sorted(rows) == ["pallets__flask-5014", "sympy__sympy-20916"]
    sympy = rows["sympy__sympy-20916"]
    assert (sympy["environment"]["python"], sympy["environment"]["log_parser"]) == ("3.9", "parse_log_sympy")
    assert sympy["FAIL_TO_PASS"] == ["test_super_sub"] and sympy["environment"]["faithful"] is True
    row = rows["pallets__flask-5014"]
    assert row["version"] == "2.3"
    assert row["FAIL_TO_PASS"] == ["tests/test_blueprints.py::test_empty_name_not_allowed"]
    assert len(row["PASS_TO_PASS"]) == 59 and row["question"] == row["problem_statement"]
    assert row["environment"]["python"] == "3.11" and row["environment"]["faithful"] is True
    assert row["environment"]["log_parser"] == "parse_log_flask" and "unscorable" not in row
    manifest = json.loads((tmp_path / "swebench_verified" / "manifest.json").read_text())
    assert manifest["upstream_rows"]["kept"] == 2


def test_lite_prepares_from_upstreams_layout_through_the_cli(tmp_path):
    """Lite's file is read as Verified's is; its rows are rows of SWE-bench's test split that Lite names."""
    done = subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=swebench_lite",
                           "data.mirror=tests/fixtures/upstream", "data.offline=true", f"data.root={tmp_path}",
                           f"hydra.run.dir={tmp_path / 'run'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {json.loads(line)["instance_id"]: json.loads(line)
            for line in (tmp_path / "swebench_lite" / "swebench_lite.jsonl").open()}
    lite_ids = (REAL / "lite_instance_ids.txt").read_text(encoding="utf-8").split()
    assert len(set(lite_ids)) == 300 and set(rows) <= set(lite_ids)
    assert sorted(rows) == ["astropy__astropy-12907", "sphinx-doc__sphinx-8595"]
    astropy = rows["astropy__astropy-12907"]
    assert astropy["FAIL_TO_PASS"] == ["astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]",
                                       "astropy/modeling/tests/test_separable.py::test_separable[compound_model9-result9]"]
    assert len(astropy["PASS_TO_PASS"]) == 13 and "difficulty" not in astropy  # Verified's own field
    assert (astropy["environment"]["python"], astropy["environment"]["log_parser"]) == ("3.9", "parse_log_astropy")
    sphinx = rows["sphinx-doc__sphinx-8595"]
    assert sphinx["FAIL_TO_PASS"] == ["tests/test_ext_autodoc_automodule.py::test_empty_all"]
    assert sphinx["PASS_TO_PASS"] == [] and sphinx["environment"]["log_parser"] == "parse_log_sphinx"
    assert "tox" in sphinx["environment"]["test_cmd"]


def test_bad_instances_are_named():
    with pytest.raises(InstanceError, match="no patch"):
        instance_row({"instance_id": "x", "repo": "a/b", "base_commit": "c", "problem_statement": "p",
                      "test_patch": "t", "version": "1", "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]"})
    with pytest.raises(InstanceError, match="FAIL_TO_PASS is not a JSON list"):
        instance_row({"instance_id": "x", "repo": "a/b", "base_commit": "c", "problem_statement": "p", "patch": "d",
                      "test_patch": "t", "version": "1", "FAIL_TO_PASS": "[oops", "PASS_TO_PASS": "[]"})


def test_plans_follow_swebench_v4_specs_and_say_when_a_stand_in_is_unfaithful():
    flask = plan({"repo": "pallets/flask", "version": "2.3"})
    assert (flask.python, flask.base_image, flask.install) == ("3.11", "debian:bookworm", "python -m pip install -e .")
    assert "Werkzeug==2.3.7" in flask.pip_packages and flask.requirements_paths == ["requirements/dev.txt"]
    xarray = plan({"repo": "pydata/xarray", "version": "2022.06"})
    assert xarray.faithful is False and any("environment.yml" in note for note in xarray.notes)
    sklearn = plan({"repo": "scikit-learn/scikit-learn", "version": "1.3"})
    assert sklearn.faithful is False and any("numpy" in note for note in sklearn.notes)
    requests = plan({"repo": "psf/requests", "version": "2.0"})
    assert requests.faithful is True and requests.base_image == "debian:bullseye"  # conda's `pytest` = pip's
    unknown = plan({"repo": "pallets/flask", "version": "9.9"})
    assert unknown.buildable is False and "no environment spec" in unknown.notes[0]
    assert facts()["parsers"]["django/django"] == "parse_log_django"


def test_old_pythons_get_their_ubuntu_stand_in_and_a_pip_that_supports_them():
    from gym.runtime.bases import stand_in_for

    django = plan({"repo": "django/django", "version": "3.0"})
    assert (django.python, django.base_image) == ("3.6", "ubuntu:18.04")
    assert (stand_in_for("ubuntu:18.04").release, stand_in_for("ubuntu:16.04").release) == ("bionic", "xenial")
    assert "pip install --index-url https://pypi.org/simple --upgrade 'pip<22'" in dockerfile(django)
    django_py35 = plan({"repo": "django/django", "version": "1.9"})
    assert "'pip<21'" in dockerfile(django_py35)
    assert "set +u && source /opt/testbed/bin/activate && set -u" in setup_env_script(django_py35, None)
    flask = dockerfile(plan({"repo": "pallets/flask", "version": "2.3"}))
    assert "pip install --upgrade 'pip" not in flask and "exec -a" not in flask  # 3.11: its own pip, a plain venv
    assert "set +u" not in setup_env_script(plan({"repo": "pallets/flask", "version": "2.3"}), None)


def test_a_venv_python_started_through_a_link_keeps_its_venv_as_tox_current_env_needs(tmp_path):
    """sphinx's test command is `tox --current-env`, which runs `.tox/py39/bin/python`, a link to the venv's
    python; through a plain venv's link Python runs without the venv, through the launchers with it."""
    sphinx = plan({"repo": "sphinx-doc/sphinx", "version": "3.5"})
    assert sphinx.test_cmd.startswith("tox --current-env") and venv_launchers("python3.9") in dockerfile(sphinx)
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    (tmp_path / "tox").mkdir()
    (tmp_path / "tox" / "python").symlink_to(tmp_path / "venv" / "bin" / python)

    def prefix() -> str:
        done = subprocess.run([str(tmp_path / "tox" / "python"), "-c", "import sys; print(sys.prefix)"],
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert prefix() != str(tmp_path / "venv")
    line = venv_launchers(python, str(tmp_path / "venv"), str(Path(sys.executable).resolve()))
    subprocess.run(["bash", "-c", line.removeprefix("RUN ")], check=True)
    assert prefix() == str(tmp_path / "venv")


def test_eval_script_runs_the_test_patch_files_between_swebench_markers(flask_row):
    environment = plan(flask_row)
    script = eval_script(flask_row, environment)
    assert instances.test_directives(flask_row, facts()["non_test_exts"]) == ["tests/test_blueprints.py"]
    assert "\npytest -rA tests/test_blueprints.py\nSWEBENCH_TEST_EXIT_CODE=$?\n" in script
    assert script.index(">>>>> Start Test Output") < script.index("pytest -rA") < script.index(">>>>> End Test Output")
    assert script.count(f"git checkout {flask_row['base_commit']} tests/test_blueprints.py") == 2
    django = {"repo": "django/django", "test_patch": "diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py\n"}
    assert instances.test_directives(django, facts()["non_test_exts"]) == ["admin_views.tests"]


def test_repository_and_requirements_come_from_the_git_mirror(flask_row, tmp_path):
    checkout(str(FLASK_GIT), flask_row["base_commit"], tmp_path / "repo")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path / "repo", capture_output=True, text=True)
    assert head.stdout.strip() == flask_row["base_commit"]
    refs = subprocess.run(["git", "for-each-ref"], cwd=tmp_path / "repo", capture_output=True, text=True).stdout
    assert refs.count("\n") == 1 and "refs/heads/main" in refs  # no remote, no newer branch or tag
    requirements = requirements_text(FLASK_GIT, flask_row["environment_setup_commit"], ["requirements/dev.txt"])
    assert "-r " not in requirements and "pytest==" in requirements and "sphinx==" in requirements.lower()
    script = setup_env_script(plan(flask_row), requirements)
    assert f"python -m pip install -c {CONSTRAINTS} -r /root/requirements.txt" in script


def test_grading_agrees_with_swebench_on_real_logs(flask_row):
    from swebench.harness.log_parsers import PARSER_REGISTRY

    gold = (REAL / "logs" / "pallets__flask-5014.gold.log").read_text(encoding="utf-8")
    empty = (REAL / "logs" / "pallets__flask-5014.empty.log").read_text(encoding="utf-8")
    resolved, unresolved = grade(flask_row, gold, flask_row["patch"]), grade(flask_row, empty, "")
    assert resolved["resolved"] is True and unresolved["resolved"] is False
    assert summary(resolved) == {"FAIL_TO_PASS": {"success": 1, "failure": 0}, "PASS_TO_PASS": {"success": 59, "failure": 0}}
    assert summary(unresolved) == {"FAIL_TO_PASS": {"success": 0, "failure": 1}, "PASS_TO_PASS": {"success": 59, "failure": 0}}
    marked = gold.split(">>>>> Start Test Output")[1].split(">>>>> End Test Output")[0]
    assert resolved["status_map"] == PARSER_REGISTRY["parse_log_flask"](marked, None)
    assert unresolved["status_map"]["tests/test_blueprints.py::test_empty_name_not_allowed"] == "FAILED"
    failed_apply = grade(flask_row, ">>>>> Patch Apply Failed\n", "garbage")
    assert failed_apply["resolved"] is False and failed_apply["patch_successfully_applied"] is False


def test_a_runtime_failure_while_grading_is_no_verdict():
    """podman's own failure (exit 125, its `Error: ...`: the container gone mid-run, as seen when a grading
    container was removed under a run) raises, so the trial is a verifier_error, never an unresolved 0."""
    from gym.runtime import ContainerError, ExecResult
    from gym.swebench.environment import runtime_checked

    gone = ExecResult(125, "Error: can only create exec sessions on running containers: container state improper", 0.1)
    with pytest.raises(ContainerError, match="container state improper"):
        runtime_checked(gone)
    failing_tests = ExecResult(1, "+ pytest -rA tests/test_blueprints.py\nFAILED tests/test_blueprints.py::x\n", 2.0)
    assert runtime_checked(failing_tests) is failing_tests


def _tool(name: str):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(ROOT / "tools"))


@pytest.mark.parametrize("instance_id", ["sphinx-doc__sphinx-8595", "sympy__sympy-20916"])
def test_upstreams_exported_environments_are_read_into_pins_and_conda_only_packages(instance_id):
    import yaml

    from gym.swebench.specs import exported_environment

    exported = yaml.safe_load((REAL / f"{instance_id}.environment.yml").read_text(encoding="utf-8"))
    found = _tool("swebench_environments").split(exported)
    assert found == exported_environment(instance_id)  # the data file is what the tool makes of upstream's file
    assert found["python"] == "3.9.20" and "openssl=3.0.15" in found["conda_only"]
    assert not {"pip", "setuptools", "wheel", "python"} & {pin.split("==")[0] for pin in found["pins"]}
    if instance_id == "sympy__sympy-20916":  # conda's Python packages are pins too; pip's section as well
        assert {"flake8==7.1.1", "mpmath==1.3.0", "flake8-comprehensions==3.15.0"} <= set(found["pins"])
    else:
        assert "docutils==0.21.2" in found["pins"]


def test_the_set_up_installs_under_upstreams_pins_except_what_its_own_steps_pin():
    from gym.swebench.scripts import constrained, constraints_text, setup_repo_script

    sphinx = plan(json.loads((REAL / "sphinx-doc__sphinx-8595.json").read_text(encoding="utf-8")))
    assert "docutils==0.21.2" in sphinx.pins and "tox==4.16.0" not in sphinx.pins  # the spec pins tox itself
    assert not any(pin.lower().startswith("jinja2==") for pin in sphinx.pins)  # nor Jinja2 (3.0.3, then <3.0)
    assert any("conda alone gave it" in note and "openssl=3.0.15" in note for note in sphinx.notes)
    assert "conda's Python 3.9.20 stands in" in sphinx.notes[-1]
    env = setup_env_script(sphinx, None)
    assert f"python -m pip install -c {CONSTRAINTS} tox==4.16.0" in env
    repo = setup_repo_script(sphinx)
    assert f"python -m pip install -c {CONSTRAINTS} -e .[test]" in repo
    assert "sed -i 's/pytest/pytest -rA/' tox.ini" in repo  # other steps as they were
    assert constraints_text(sphinx, "docutils==0.21.2\nsix\n").count("docutils") == 0  # the file's own pin stands
    assert "docutils==0.21.2\n" in constraints_text(sphinx, "six\n")
    matplotlib = plan({"repo": "matplotlib/matplotlib", "version": "3.5",
                       "instance_id": "matplotlib__matplotlib-22719"})
    assert matplotlib.packages == "environment.yml" and "numpydoc==1.8.0" in matplotlib.pins
    yml = "dependencies:\n  - numpydoc=1.5.0\n  - pytest\n"  # the environment.yml's own pins stand too
    assert "numpydoc" not in constraints_text(matplotlib, yml) and "pytest==" in constraints_text(matplotlib, yml)
    unknown = plan({"repo": "pallets/flask", "version": "2.3", "instance_id": "pallets__flask-1"})
    assert unknown.pins == [] and constrained("python -m pip install -e .", unknown) == "python -m pip install -e ."


def test_a_yanked_name_upstreams_image_had_is_kept_in_the_requirements(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "requirements_test_min.txt").write_text("pytest~=6.2\ntypes-pkg_resources==0.1.3\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "r"],
                   check=True)
    pylint = plan({"repo": "pylint-dev/pylint", "version": "2.9", "instance_id": "pylint-dev__pylint-4551"})
    assert "types-pkg-resources==0.1.3" in pylint.pins
    paths = ["requirements_test_min.txt"]
    assert "types-pkg_resources==0.1.3" in requirements_text(tmp_path, "HEAD", paths, pylint.pins)
    assert "types-setuptools==0.1.3" in requirements_text(tmp_path, "HEAD", paths)  # upstream's rename otherwise
