"""What users of ruff and ESLint reach for: ``--help`` that lists the commands and exit codes, ``-q`` that
prints only the diagnostic lines, colour on a terminal and never in a pipe unless asked."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.cli import SUBCOMMANDS, main
from capture_analysis.report.style import wants_color

from .conftest import ROOT

#: a warning (BX102): the loop copies `i`, which the closure writes, into each iteration.
MUTATED = "export function f(n: number) { for (let i = 0; i < n; i++) keep(() => i++); }\n"
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_info:
                code = int(exit_info.code or 0)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def mutated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("a.ts").write_text(MUTATED, encoding="utf-8")
    return "a.ts"


def test_help_lists_every_subcommand_and_the_exit_codes():
    code, out, _ = run("--help")
    assert code == 0
    commands = out[out.index("commands:"):out.index("exit codes:")]
    assert sorted(re.findall(r"^  boxcheck (\w+)", commands, re.MULTILINE)) == sorted(SUBCOMMANDS)
    codes = out[out.index("exit codes:"):]
    assert re.findall(r"^  (\d)  ", codes, re.MULTILINE) == ["0", "1", "2"]
    assert "--fail-on" in codes and "skipped" in codes


def test_quiet_prints_only_the_diagnostic_lines(mutated):
    code, out, _ = run("-q", "--explain", mutated)
    assert code == 1
    assert out.splitlines() == [next(line for line in run(mutated)[1].splitlines() if "warning[BX102]" in line)]


def test_quiet_on_a_clean_file_prints_nothing(mutated):
    Path("clean.ts").write_text("export const f = (n: number) => () => n;\n", encoding="utf-8")
    assert run("-q", "clean.ts")[:2] == (0, "")


def test_no_colour_in_a_pipe_and_the_text_is_what_it_was(mutated):
    plain = run(mutated)[1]
    assert "\x1b[" not in plain
    assert run("--color", "never", mutated, env={"FORCE_COLOR": "1"})[1] == plain


@pytest.mark.parametrize("how", [("--color", "always"), ("FORCE_COLOR", "1")])
def test_colour_marks_path_severity_code_and_caret_and_nothing_else(mutated, how):
    env = {how[0]: how[1]} if how[0] == "FORCE_COLOR" else {}
    args = [*how] if how[0] == "--color" else []
    plain = run(mutated)[1]
    coloured = run(*args, mutated, env=env)[1]
    assert ESCAPE.sub("", coloured) == plain
    first, source, caret = coloured.splitlines()[:3]
    assert first.startswith("\x1b[1ma.ts:1:41:\x1b[0m \x1b[1;33mwarning[BX102]\x1b[0m `i` needs")
    assert caret.endswith("\x1b[1;33m^\x1b[0m")
    assert "\x1b[1;34m1 |\x1b[0m" in source


def test_no_color_wins_over_force_color(mutated):
    assert "\x1b[" not in run(mutated, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})[1]


@pytest.mark.parametrize(("choice", "env", "tty", "expected"), [
    ("auto", {}, True, True),
    ("auto", {}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"NO_COLOR": ""}, True, True),         # no-color.org: set *and not empty*
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("auto", {"FORCE_COLOR": ""}, False, False),
    ("auto", {"TERM": "dumb"}, True, False),
    ("always", {"NO_COLOR": "1"}, False, True),      # the command line wins over the environment
    ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_when_to_colour(choice, env, tty, expected):
    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    assert wants_color(choice, Stream(), env) is expected


def test_colour_on_a_real_terminal_and_not_into_a_pipe(tmp_path):
    """boxcheck as a process, its standard output a pseudo-terminal, then a pipe."""
    (tmp_path / "a.ts").write_text(MUTATED, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["PYTHONPATH"] = str(ROOT)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "capture_analysis", "a.ts"], cwd=tmp_path, env=env,
                              stdout=follower, stderr=subprocess.PIPE, timeout=60)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all is read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 1
    assert b"\x1b[1;33mwarning[BX102]\x1b[0m" in b"".join(chunks)
    piped = subprocess.run([sys.executable, "-m", "capture_analysis", "a.ts"], cwd=tmp_path, env=env,
                           capture_output=True, timeout=60)
    assert b"warning[BX102]" in piped.stdout and b"\x1b[" not in piped.stdout
