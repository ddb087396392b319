"""Golden outputs of the command line: inputs, runs, and comparison with ``tests/golden/``.

Outputs are made stable before they are compared: the repository's own
``file://`` URI (in LSP ``uri``/``href`` and SARIF base URIs) becomes
``file:///ROOT``, so the golden files do not depend on the checkout's place.
``make golden`` (``BOXCHECK_UPDATE_GOLDEN=1``) rewrites them after an intended change.
"""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stdout

from capture_analysis.cli import main

from .conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
#: what golden tests run on: the examples and the non-ASCII fixtures, as paths relative to the root.
INPUTS = sorted(p.relative_to(ROOT).as_posix()
                for p in [*(ROOT / "examples").glob("*.ts"), *(ROOT / "tests" / "unicode").glob("*.ts")])
ROOT_URI = ROOT.as_uri()


def run_cli(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    """Run ``boxcheck`` in-process; the caller has ``chdir``-ed to the root."""
    out = io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(out):
            code = main(list(args))
    finally:
        sys.stdin = saved
    return code, out.getvalue()


def stable(text: str) -> str:
    return text.replace(ROOT_URI, "file:///ROOT")


def golden_name(path: str, suffix: str) -> str:
    return path.replace("/", "__") + suffix


def check_golden(name: str, text: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("BOXCHECK_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"{golden} is missing; run `make golden`"
    assert text == golden.read_text(encoding="utf-8"), \
        f"{name} differs from its golden file; run `make golden` if the change is intended"
