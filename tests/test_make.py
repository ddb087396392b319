"""``make demo`` and ``make test`` work in a project virtual environment, as on a stock Debian or Ubuntu.

The Makefile is run for real, in a scratch folder, with a stand-in for the
Python that makes the environment: it writes down every command it is
given, so the tests see what ``make`` runs (and what it does not run a
second time) without installing anything.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="no `make` on this machine")

#: the stand-in interpreter: `-c` is the Makefile's question "can you make a venv?", answered by $HAS_VENV;
#: `-m venv DIR` makes DIR/bin/python, a stand-in too; `--version` says the build is $BUILT (what the install
#: made of boxcheck); everything is logged to $MAKE_LOG, with BOXCHECK_PURE when it is set.
FAKE_PYTHON = """#!/bin/sh
echo "${BOXCHECK_PURE:+BOXCHECK_PURE=$BOXCHECK_PURE }$0 $*" >> "$MAKE_LOG"
if [ "$1" = -c ]; then exit "$HAS_VENV"; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
  exit "$VENV_STATUS"
fi
if [ "$3" = --version ]; then echo "boxcheck 0.1.0 ($BUILT)"; fi
exit 0
"""
INSTALL = ".venv/bin/python -m pip install --quiet --disable-pip-version-check -e .[test,lsp,cluster]"
#: the question a compiled install asks afterwards: did the core compile?
VERSION = ".venv/bin/python -m capture_analysis --version"


def executable(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder the Makefile runs in: its own pyproject.toml, nothing installed."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    executable(tmp_path / "python3", FAKE_PYTHON)
    return tmp_path


def make(project: Path, *targets: str, has_venv: bool = True, venv_status: int = 0, built: str = "compiled",
         python: str | None = None, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    """Run the project's Makefile; returns its exit code, the commands the stand-in Pythons ran, and stderr."""
    log = project / "make.log"
    log.unlink(missing_ok=True)
    outside = {k: v for k, v in os.environ.items() if k != "BOXCHECK_PURE"}
    done = subprocess.run(
        [MAKE, "-s", "-f", str(ROOT / "Makefile"), *targets, f"PYTHON={python or project / 'python3'}"],
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**outside, **(env or {}), "MAKE_LOG": str(log), "HAS_VENV": "0" if has_venv else "1",
             "VENV_STATUS": str(venv_status), "BUILT": built})
    commands = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return done.returncode, [c.replace(str(project) + "/", "") for c in commands], done.stderr


def test_demo_makes_the_venv_installs_into_it_and_runs_boxcheck_with_its_python(project):
    code, commands, _ = make(project, "demo")
    assert code == 0
    assert commands == [
        "python3 -c import ensurepip, venv",
        "python3 -m venv .venv",
        INSTALL,
        VERSION,
        ".venv/bin/python -m capture_analysis examples/",
    ]


def test_a_second_run_installs_nothing_until_pyproject_changes(project):
    assert make(project, "demo")[0] == 0
    code, commands, _ = make(project, "demo", "test")
    assert code == 0
    assert commands == [".venv/bin/python -m capture_analysis examples/", ".venv/bin/python -m pytest -q"]
    later = (project / ".venv" / ".installed-compiled").stat().st_mtime + 10
    os.utime(project / "pyproject.toml", (later, later))
    code, commands, _ = make(project, "test")
    assert commands == [INSTALL, VERSION, ".venv/bin/python -m pytest -q"]


def test_a_compiled_install_is_made_again_when_a_source_changes(project):
    """Its extension modules would hide the edit: the source is compiled again."""
    source = project / "capture_analysis" / "bind" / "binder.py"
    source.parent.mkdir(parents=True)
    source.write_text("", encoding="utf-8")
    assert make(project, "demo")[0] == 0
    assert make(project, "demo")[1] == [".venv/bin/python -m capture_analysis examples/"]
    later = (project / ".venv" / ".installed-compiled").stat().st_mtime + 10
    os.utime(source, (later, later))
    assert make(project, "demo")[1] == [INSTALL, VERSION, ".venv/bin/python -m capture_analysis examples/"]


def test_pure_installs_pure_python_and_a_compiled_install_comes_back_after_it(project):
    """setup.py, told BOXCHECK_PURE=1, builds no extension module and removes those a compiled install left."""
    assert make(project, "demo")[0] == 0
    code, commands, err = make(project, "test", "PURE=1")
    assert code == 0 and err == ""
    assert commands == [f"BOXCHECK_PURE=1 {INSTALL}", ".venv/bin/python -m pytest -q"]
    # the environment's BOXCHECK_PURE=1 is the same build: nothing to install
    assert make(project, "test", env={"BOXCHECK_PURE": "1"})[1] == ["BOXCHECK_PURE=1 .venv/bin/python -m pytest -q"]
    assert make(project, "test")[1] == [INSTALL, VERSION, ".venv/bin/python -m pytest -q"]


def test_a_build_that_could_not_compile_says_so_in_one_line_and_make_compiled_tries_again(project):
    code, _, err = make(project, "demo", built="pure Python")
    assert code == 0
    assert len(err.splitlines()) == 1, err
    assert "installed as pure Python" in err and "apt-get install gcc python3-dev" in err
    assert "make compiled" in err
    assert make(project, "demo", built="pure Python")[1] == [".venv/bin/python -m capture_analysis examples/"]
    code, commands, err = make(project, "compiled")
    assert code == 0 and err == ""
    assert commands == [INSTALL, VERSION]


def test_without_python3_venv_make_stops_with_one_line_that_says_what_to_install(project):
    code, commands, err = make(project, "test", has_venv=False)
    assert code != 0
    assert commands == ["python3 -c import ensurepip, venv"]
    assert len(err.splitlines()) == 1, err
    assert "venv module is missing" in err and "sudo apt-get install python3-venv" in err
    assert not (project / ".venv").exists()


def test_the_real_interpreter_without_ensurepip_gets_the_same_line(project, tmp_path):
    """Debian without python3-venv: the stdlib's ``ensurepip`` is not there; here it cannot be imported."""
    hidden = tmp_path / "hide"
    hidden.mkdir()
    (hidden / "ensurepip.py").write_text("raise ImportError('python3-venv is not installed')\n", encoding="utf-8")
    code, _, err = make(project, "demo", python=sys.executable, env={"PYTHONPATH": str(hidden)})
    assert code != 0
    assert err.count("\n") == 1 and "sudo apt-get install python3-venv" in err
    assert not (project / ".venv").exists()


def test_a_missing_interpreter_is_named(project):
    code, _, err = make(project, "demo", python=str(project / "no-such-python3"))
    assert code != 0 and len(err.splitlines()) == 1
    assert "no-such-python3" in err and "make PYTHON=" in err


def test_a_venv_that_failed_half_way_is_removed_so_the_next_run_starts_again(project):
    code, _, _ = make(project, "demo", venv_status=1)
    assert code != 0
    assert not (project / ".venv").exists()
    code, commands, _ = make(project, "demo")
    assert code == 0 and "python3 -m venv .venv" in commands


def test_lint_runs_ruff_and_mypy_with_the_venvs_python(project):
    code, commands, _ = make(project, "lint")
    assert code == 0
    assert commands[-2:] == [".venv/bin/python -m ruff check capture_analysis tests benchmarks .ci setup.py",
                             ".venv/bin/python -m mypy"]
