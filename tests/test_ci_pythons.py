"""`.ci/pythons.py`: the Python versions requires-python claims, the interpreter that stands for each, and the
README's sentence about them."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT

SCRIPT = ROOT / ".ci" / "pythons.py"


def pythons() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_pythons", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_python(path: Path, version: str) -> Path:
    """An executable that answers the version question as a Python of ``version`` would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version.replace('.', ' ')}\n")
    path.chmod(0o755)
    return path


def test_a_bounded_claim_is_the_list_of_its_minor_versions_and_an_open_one_is_refused():
    ci = pythons()
    assert ci.claimed_minors(">=3.10,<3.14") == [(3, 10), (3, 11), (3, 12), (3, 13)]
    assert ci.claimed_minors(" >= 3.11 , < 3.12 ") == [(3, 11)]
    for claim in (">=3.10", ">3.10,<3.14", ">=3.10,<3.10", "~=3.10"):
        with pytest.raises(ValueError, match="requires-python"):
            ci.claimed_minors(claim)


def test_the_system_python_stands_for_its_version_and_pyenv_s_newest_patch_for_the_others(tmp_path: Path):
    ci = pythons()
    system = fake_python(tmp_path / "usr" / "python3", "3.11.2")
    pyenv = tmp_path / "pyenv"
    for version in ("3.10.4", "3.10.13", "3.11.7", "3.12.1", "3.9.18"):
        fake_python(pyenv / "versions" / version / "bin" / "python", version)
    chosen = ci.interpreters([(3, 10), (3, 11), (3, 12), (3, 13)], system, pyenv)
    assert chosen == {(3, 10): pyenv / "versions" / "3.10.13" / "bin" / "python", (3, 11): system,
                      (3, 12): pyenv / "versions" / "3.12.1" / "bin" / "python"}


def test_a_claimed_version_without_an_interpreter_fails_the_run(tmp_path: Path):
    """With no pyenv, at most the system's Python is found: the other claimed versions are missing, exit 1."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--list"], capture_output=True, text=True, check=False,
                          env={"PYENV_ROOT": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "MISSING" in done.stdout and "no interpreter here is" in done.stderr


def test_the_readme_says_which_versions_are_claimed_and_tested():
    ci = pythons()
    requires = ci.tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    minors = [f"{major}.{minor}" for major, minor in ci.claimed_minors(requires)]
    readme = (ROOT / "README.md").read_text()
    sentence = re.search(r"boxcheck runs on Python ([\d., and]+) \(`requires-python = \"([^\"]+)\"`\)", readme)
    assert sentence is not None
    assert re.findall(r"\d+\.\d+", sentence.group(1)) == minors and sentence.group(2) == requires
