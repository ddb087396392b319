"""docs/first-run.md shows what boxcheck prints: its `$ boxcheck` transcripts are run on the corpus's moment.js
and rxjs.

Each fenced block whose first line is a ``$ boxcheck`` command is run as one
shell script in a fresh folder holding ``moment.js`` and ``rxjs/`` (rxjs's
``src/``; so the page's cache section starts from an empty cache), with ``boxcheck`` this checkout's and
standard error merged into the output, as a terminal shows it.  A line
``...`` in the page stands for any number of lines.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PAGE = ROOT / "docs" / "first-run.md"
MOMENT = Path("moment@2.31.0") / "moment.js"
RXJS = Path("rxjs@7.8.2") / "src"
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: the page commits to a throwaway repository (``--since``): on any machine, whoever git thinks the user is.
GIT_IDENTITY = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER")
                for what, value in (("NAME", "boxcheck"), ("EMAIL", "boxcheck@example.com"))}


def transcripts(page: str) -> list[tuple[list[str], list[str]]]:
    """Each checked block's commands, and its text (commands and outputs) line by line."""
    out = []
    for block in FENCE.findall(page):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ boxcheck "):
            out.append(([line[2:] for line in lines if line.startswith("$ ")], lines))
    return out


def matches(expected: list[str], got: list[str]) -> bool:
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line.rstrip()) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line.rstrip() + "\n" for line in got)) is not None


def test_the_page_has_transcripts_and_elisions_are_recognized():
    found = transcripts(PAGE.read_text(encoding="utf-8"))
    assert len(found) >= 5
    assert matches(["$ a", "...", "b"], ["$ a", "x", "y", "b"]) and not matches(["$ a", "b"], ["$ a", "x", "b"])


@pytest.mark.corpus
@pytest.mark.parametrize("index", range(len(transcripts(PAGE.read_text(encoding="utf-8")))))
def test_each_transcript_is_what_boxcheck_prints(corpus, tmp_path, index):
    commands, expected = transcripts(PAGE.read_text(encoding="utf-8"))[index]
    shutil.copy(corpus / MOMENT, tmp_path / "moment.js")
    shutil.copytree(corpus / RXJS, tmp_path / "rxjs")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "boxcheck"
    wrapper.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m capture_analysis \"$@\"\n")
    wrapper.chmod(0o755)
    script = "".join(f"echo {shlex.quote('$ ' + command)}\n{command}\n" for command in commands)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
           **GIT_IDENTITY}
    env.pop("BOXCHECK_NO_CACHE", None)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, timeout=300)
    got = done.stdout.rstrip("\n").split("\n")
    assert matches(expected, got), "docs/first-run.md differs from what boxcheck prints:\n" + done.stdout
