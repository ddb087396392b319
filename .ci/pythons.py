#!/usr/bin/env python3
"""Run the parsing and end-to-end tests on every Python minor version that pyproject.toml's requires-python claims.

`make test` runs the whole suite on one interpreter (Debian's /usr/bin/python3).  A claim such as ">=3.10,<3.14"
promises four minor versions, and they differ where it matters to boxcheck: Python 3.10 lacks the possessive
quantifiers of 3.11, and 3.11 before 3.11.5 matched them wrongly.  So each claimed minor version gets an
interpreter, a virtual environment of its own made by it (.venv-3.10/ ..., git-ignored) with `.[test]` installed,
and a run of SUBSET.  A claimed version without an interpreter fails the run: a claim nobody tests is not kept.

Interpreters: for each minor version, Debian's /usr/bin/python3 where it is that version (the Python the README's
set-up targets), else the newest patch release of it under pyenv ($PYENV_ROOT, default /root/.pyenv).

    /usr/bin/python3 .ci/pythons.py            # every claimed version (CI)
    /usr/bin/python3 .ci/pythons.py --list     # only which interpreter stands for each claimed version
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the tests load this module on every claimed version; tomli is boxcheck's dependency on 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = Path("/usr/bin/python3")
#: parsing (the repairs, the constructs, the positions), the command line end to end, bad input, and two output
#: formats against their golden files: what an interpreter's `re`, `tomllib`/`tomli`, text handling and
#: multiprocessing decide.
SUBSET = ("tests/test_parsing.py", "tests/test_constructs.py", "tests/test_positions.py", "tests/test_cli.py",
          "tests/test_robustness.py", "tests/test_format_sarif.py", "tests/test_format_text_and_json.py")
#: the only form of requires-python accepted: a lower and an upper bound, so that the claimed versions are a list.
CLAIM = re.compile(r"^\s*>=\s*3\.(\d+)\s*,\s*<\s*3\.(\d+)\s*$")


def claimed_minors(requires_python: str) -> list[tuple[int, int]]:
    """The minor versions ``requires_python`` admits; an open-ended or other claim is refused (ValueError)."""
    match = CLAIM.match(requires_python)
    if match is None:
        raise ValueError(f"requires-python {requires_python!r} is not of the form '>=3.X,<3.Y': the versions it "
                         "claims must be a finite list, each tested")
    low, high = int(match.group(1)), int(match.group(2))
    if high <= low:
        raise ValueError(f"requires-python {requires_python!r} admits no version")
    return [(3, minor) for minor in range(low, high)]


def version_of(python: Path) -> tuple[int, int, int] | None:
    """The version ``python`` runs as, or None if it does not run."""
    try:
        done = subprocess.run([str(python), "-c", "import sys; print(*sys.version_info[:3])"],
                              capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return None
    parts = done.stdout.split()
    return (int(parts[0]), int(parts[1]), int(parts[2])) if done.returncode == 0 and len(parts) == 3 else None


def interpreters(minors: list[tuple[int, int]], system: Path, pyenv_root: Path) -> dict[tuple[int, int], Path]:
    """An interpreter for each minor version that has one: ``system`` where it is that version, else pyenv's
    newest patch release of it."""
    found: dict[tuple[int, int], tuple[tuple[int, int, int], Path]] = {}
    for python in sorted((pyenv_root / "versions").glob("3.*/bin/python")):
        version = version_of(python)
        if version is not None and version[:2] in minors and (version[:2] not in found
                                                              or version > found[version[:2]][0]):
            found[version[:2]] = (version, python)
    chosen = {minor: python for minor, (_, python) in found.items()}
    system_version = version_of(system)
    if system_version is not None and system_version[:2] in minors:
        chosen[system_version[:2]] = system
    return chosen


def environment(minor: tuple[int, int], python: Path) -> Path:
    """``.venv-3.X/``, made by ``python`` and holding ``.[test]``; remade when another interpreter made it, and
    installed into again when pyproject.toml changed (as the Makefile does for .venv/)."""
    venv = ROOT / f".venv-{minor[0]}.{minor[1]}"
    made_by = venv / ".made-by"
    if not made_by.is_file() or made_by.read_text() != str(python):
        subprocess.run([str(python), "-m", "venv", "--clear", str(venv)], check=True)
        made_by.write_text(str(python))
    installed = venv / ".installed"
    if not installed.is_file() or installed.stat().st_mtime < (ROOT / "pyproject.toml").stat().st_mtime:
        # pure Python (setup.py), which would take minutes to compile for each; but not for the interpreter that
        # made .venv/: its pure install in place would remove the compiled build `make` made for it
        pure = {} if python == SYSTEM_PYTHON else {"BOXCHECK_PURE": "1"}
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "-e", ".[test]"], cwd=ROOT, check=True, env={**os.environ, **pure})
        installed.touch()
    return venv / "bin" / "python"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="only show the interpreter of each claimed version")
    args = parser.parse_args()
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    try:
        minors = claimed_minors(requires)
    except ValueError as error:
        print(f"pythons: {error}", file=sys.stderr)
        return 2
    chosen = interpreters(minors, SYSTEM_PYTHON, Path(os.environ.get("PYENV_ROOT", "/root/.pyenv")))
    for minor in minors:
        print(f"pythons: {minor[0]}.{minor[1]}: {chosen.get(minor, 'MISSING')}")
    missing = [f"{major}.{minor}" for major, minor in minors if (major, minor) not in chosen]
    if missing:
        print(f"pythons: requires-python {requires!r} claims {', '.join(missing)}, and no interpreter here is: "
              f"install {'them' if len(missing) > 1 else 'it'} (pyenv install) or change the claim and the README",
              file=sys.stderr)
        return 1
    if args.list:
        return 0
    failed = []
    for minor in minors:
        python = environment(minor, chosen[minor])
        print(f"pythons: {minor[0]}.{minor[1]}: {len(SUBSET)} test files with {chosen[minor]}", flush=True)
        if subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUBSET],
                          cwd=ROOT, check=False).returncode != 0:
            failed.append(f"{minor[0]}.{minor[1]}")
    if failed:
        print(f"pythons: the tests failed on Python {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
