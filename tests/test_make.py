"""``make demo`` and ``make test`` work in a project virtual environment, as on a stock Debian or Ubuntu.

The Makefile is run for real, in a scratch folder, with a stand-in for the
Python that makes the environment: it writes down every command it is
given, so the tests see what ``make`` runs (and what it does not run a
second time) without installing anything.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from .conftest import ROOT

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="no `make` on this machine")

#: the stand-in interpreter: `-c` is the Makefile's question "can you make a venv?", answered by $HAS_VENV;
#: `-m venv DIR` makes DIR/bin/python, a stand-in too; `--version` says the build is $BUILT (what the install
#: made of boxcheck); everything is logged to $MAKE_LOG, with BOXCHECK_PURE when it is set.
FAKE_PYTHON = """#!/bin/sh
printf '%s\n' "${BOXCHECK_PURE:+BOXCHECK_PURE=$BOXCHECK_PURE }$0 $*" >> "$MAKE_LOG"
if [ "$1" = -c ]; then exit "$HAS_VENV"; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
  exit "$VENV_STATUS"
fi
if [ "$3" = --version ]; then echo "boxcheck 0.1.0 ($BUILT)"; fi
exit 0
"""
#: boxcheck and its dependencies, no extra: all that ``make demo`` needs.
INSTALL = ".venv/bin/python -m pip install --quiet --disable-pip-version-check -e ."
#: the extras' requirements, read from pyproject.toml and installed without boxcheck (which would be built again).
EXTRAS = [".venv/bin/python -c import importlib, sys; toml = importlib.import_module(\"tomllib\" if sys.version_info "
          ">= (3, 11) else \"tomli\"); extras = toml.load(open(\"pyproject.toml\", \"rb\"))[\"project\"]"
          "[\"optional-dependencies\"]; print(\"\\n\".join(requirement for name in sys.argv[1:] for requirement in "
          "extras[name])) test lsp cluster",
          ".venv/bin/python -m pip install --quiet --disable-pip-version-check -r .venv/extras-requirements.txt.new"]
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
         python: str | None = None, env: dict[str, str] | None = None,
         printed: list[str] | None = None) -> tuple[int, list[str], str]:
    """Run the project's Makefile; returns its exit code, the commands the stand-in Pythons ran, and stderr;
    ``printed`` receives the lines of its standard output."""
    log = project / "make.log"
    log.unlink(missing_ok=True)
    outside = {k: v for k, v in os.environ.items() if k != "BOXCHECK_PURE"}
    done = subprocess.run(
        [MAKE, "-s", "-f", str(ROOT / "Makefile"), *targets, f"PYTHON={python or project / 'python3'}"],
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**outside, **(env or {}), "MAKE_LOG": str(log), "HAS_VENV": "0" if has_venv else "1",
             "VENV_STATUS": str(venv_status), "BUILT": built})
    commands = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    if printed is not None:
        printed.extend(done.stdout.splitlines())
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
    assert make(project, "test")[0] == 0
    code, commands, _ = make(project, "demo", "test")
    assert code == 0
    assert commands == [".venv/bin/python -m capture_analysis examples/", ".venv/bin/python -m pytest -q"]
    later = (project / ".venv" / ".installed-compiled").stat().st_mtime + 10
    os.utime(project / "pyproject.toml", (later, later))
    code, commands, _ = make(project, "test")
    assert commands == [INSTALL, VERSION, *EXTRAS, ".venv/bin/python -m pytest -q"]


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
    assert commands == [f"BOXCHECK_PURE=1 {INSTALL}", *EXTRAS, ".venv/bin/python -m pytest -q"]
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


def test_demo_installs_no_extra_and_says_in_one_line_that_compiling_takes_minutes(project):
    printed: list[str] = []
    code, commands, _ = make(project, "demo", printed=printed)
    assert code == 0
    assert not any("-r .venv/extras-requirements" in command for command in commands)
    assert printed == ["boxcheck: installing into .venv/ and compiling its analysis core with mypyc, which takes a "
                       "few minutes (PURE=1 installs pure Python at once)"]
    printed.clear()
    assert make(project, "demo", "PURE=1", printed=printed)[0] == 0
    assert printed == [], "nothing to compile"


def test_ci_builds_boxcheck_once_for_demo_lint_and_test(project):
    """.ci/run's order: `make demo` installs boxcheck; `make lint` adds the extras; `make test` installs nothing."""
    assert make(project, "demo")[1][-3:] == [INSTALL, VERSION, ".venv/bin/python -m capture_analysis examples/"]
    assert make(project, "lint")[1] == [*EXTRAS, ".venv/bin/python -m ruff check capture_analysis tests benchmarks "
                                        ".ci setup.py", ".venv/bin/python -m mypy"]
    assert make(project, "test")[1] == [".venv/bin/python -m pytest -q"]
    assert make(project, "extras")[1] == []


def test_the_extras_requirements_are_those_of_pyproject(project):
    """The command `make extras` runs, run by this Python in the repository, lists every requirement of the
    three extras (the stand-in interpreter above only logs it)."""
    dry = subprocess.run([MAKE, "-s", "-n", "-f", str(ROOT / "Makefile"), "extras", f"PYTHON={sys.executable}"],
                         cwd=project, capture_output=True, text=True, timeout=60, check=True)
    (listing,) = [line for line in dry.stdout.splitlines() if line.startswith(".venv/bin/python -c ")]
    command = listing.split(" > ", 1)[0].replace(".venv/bin/python", shlex.quote(sys.executable), 1)
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, check=True)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert done.stdout.splitlines() == extras["test"] + extras["lsp"] + extras["cluster"]
    assert "pytest>=8" in extras["test"] and "pygls>=2.0" in extras["lsp"]
