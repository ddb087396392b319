"""Setuptools reads the project from pyproject.toml; this file adds what it cannot say: the documentation inside
the package, and the analysis core compiled to C with mypyc, where a C compiler and the Python headers are.

The command line and the rules name pages of ``docs/`` (``boxcheck lsp --help``: docs/lsp.md; a rule's text:
docs/parsing.md), and ``--format json`` is described by docs/schema/boxcheck-1.json: a wheel carries the whole
folder as ``capture_analysis/docs/``, beside the rules page generated there, so that what the command names is
installed with it.  An editable install reads the checkout, where ``docs/`` is.

The core (parse, bind, flow, escape, decide and the policies, retention, the model and the records) takes about a
quarter less time compiled (docs/performance.md, "Compiled build"); the same sources run unchanged as pure Python,
which is what a build falls back to, with one line that says why, when this machine cannot compile them: no C
compiler, no ``Python.h``, or no mypyc.  ``BOXCHECK_PURE=1`` (``make PURE=1``) asks for the pure-Python package on
purpose: the one to develop with, since a module compiled in place hides later edits of its source until it is
built again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from glob import glob
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"

#: the modules compiled, as mypyc is given them: every module of the pipeline's core that runs per file. The
#: commands, the reporters, the language server and the batch machinery stay interpreted: their time is spent
#: elsewhere (I/O, JSON, pygls). None of them may subclass a compiled class, which mypyc forbids (``policies/``
#: subclasses ``decide.BindingDecider``, so it is compiled too). tests/test_packaging.py holds each compiled
#: module to the strict mypy settings of pyproject.toml.
COMPILED = (
    "capture_analysis/source.py",
    "capture_analysis/words.py",
    "capture_analysis/creation.py",
    "capture_analysis/model.py",
    "capture_analysis/results.py",
    "capture_analysis/parsing/*.py",
    "capture_analysis/bind/*.py",
    "capture_analysis/flow/*.py",
    "capture_analysis/escape.py",
    "capture_analysis/parameters.py",
    "capture_analysis/linking/links.py",
    "capture_analysis/decide.py",
    "capture_analysis/policies/*.py",
    "capture_analysis/allocations.py",
    "capture_analysis/v8_scopes.py",
    "capture_analysis/retention/*.py",
    "capture_analysis/report/file_record.py",
    "capture_analysis/report/json_text.py",
)
#: left interpreted inside the packages above, each with why.
INTERPRETED = {
    "capture_analysis/parsing/rewriting.py": "mypyc 2.4 stops on it with an internal error (a generator over a "
                                             "bytearray); it only runs on the files that need a repair",
}
#: the setup.py commands that build the extension; the others (``egg_info``, ``dist_info``: the metadata that pip
#: asks for before it builds) need none, and translating the core to C takes a minute each time.
BUILDS = frozenset({"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"})
#: the one extension module that holds the compiled code (each module's own is a shim that imports it). It is
#: a top-level module, beside the package: mypyc 2.4 derives a compiled module's ``__file__`` and a package's
#: ``__path__`` from where it lies, and gets them wrong when it lies inside the package.
GROUP = "capture_analysis_compiled"
SLOWER = "takes about a third more time"
#: the setup.py commands that build into the source tree, the extension modules beside their sources.
IN_PLACE = frozenset({"editable_wheel", "develop", "--inplace"})


def compiled_sources(root: Path = Path()) -> list[str]:
    """The source files of ``COMPILED``, relative to ``root``, sorted."""
    found = {str(Path(path).relative_to(root)) for pattern in COMPILED for path in glob(str(root / pattern))}
    return sorted(found - set(INTERPRETED))


def compiler_problem() -> str | None:
    """Why this machine cannot build an extension module, or None: a C file that includes ``Python.h`` is
    compiled with the compiler and flags an extension would get (``CC`` and ``CFLAGS`` included)."""
    from distutils import ccompiler  # setuptools' own copy, since setuptools is imported: as mypyc does
    from distutils import sysconfig as distutils_sysconfig

    compiler = ccompiler.new_compiler()
    distutils_sysconfig.customize_compiler(compiler)
    command = getattr(compiler, "compiler_so", None)
    if command and shutil.which(command[0]) is None:
        return f"no C compiler: `{command[0]}` is not installed (Debian, Ubuntu: apt-get install gcc)"
    include = sysconfig.get_paths()["include"]
    if not Path(include, "Python.h").is_file():
        return f"no Python headers: {include}/Python.h is missing (Debian, Ubuntu: apt-get install python3-dev)"
    if not command:  # MSVC: no command line to run, only its own way to compile
        return None
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder, "probe.c")
        probe.write_text("#include <Python.h>\nint probe(void) { return Py_IsInitialized(); }\n", encoding="utf-8")
        done = subprocess.run([*command, f"-I{include}", "-c", str(probe), "-o", str(probe.with_suffix(".o"))],
                              capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        return f"the C compiler `{command[0]}` failed: {said[0] if said else f'exit code {done.returncode}'}"
    return None


def build_problem() -> str | None:
    """Why the build is pure Python, or None when the core is compiled."""
    if os.environ.get("BOXCHECK_PURE", "") not in ("", "0"):
        return "BOXCHECK_PURE is set"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with mypy, which pyproject.toml's build requirements name)"
    return compiler_problem()


def in_place_extensions(root: Path = Path()) -> list[Path]:
    """The extension modules an earlier build left in the source tree under ``root`` for this interpreter (those
    of another Python version are no concern of its build: it never imports them)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")  # what a build names them: ".cpython-311-x86_64-linux-gnu.so"
    return sorted(path for pattern in (f"capture_analysis/**/*{suffix}", f"{GROUP}__mypyc{suffix}")
                  for path in root.glob(pattern))


def extensions(commands: list[str]) -> list[object]:
    """The extension modules for these setup.py commands; in place, the ones an earlier build left are removed
    first: after a build that falls back to pure Python they would hide the sources, and import a shared
    module that the editable install no longer finds."""
    if BUILDS.isdisjoint(commands):
        return []
    if not IN_PLACE.isdisjoint(commands):
        for path in in_place_extensions():
            path.unlink()
    problem = build_problem()
    if problem is not None:
        print(f"boxcheck: building pure Python, without the compiled core ({problem}); it {SLOWER}",
              file=sys.stderr)
        return []
    from mypyc.build import mypycify

    return list(mypycify(compiled_sources(), group_name=GROUP))


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        shutil.copytree(DOCS, Path(self.build_lib) / "capture_analysis" / "docs", dirs_exist_ok=True)


if __name__ == "__main__":  # as setuptools runs it; tests/test_packaging.py imports it
    setup(cmdclass={"build_py": BuildWithDocs}, ext_modules=extensions(sys.argv[1:]))
