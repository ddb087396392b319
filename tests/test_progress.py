"""The progress line on stderr (``batch/progress.py``): after a second, on a terminal only, redrawn in place and
erased at the end; never in a pipe, with ``-q`` or in the language server; free when off."""

from __future__ import annotations

import io
import multiprocessing
import os
import threading
import time
from contextlib import redirect_stderr, redirect_stdout

import networkx as nx
import pytest

from capture_analysis.batch import progress as progress_module
from capture_analysis.batch.progress import DELAY, OFF, Progress, fork_safe, is_pipe, progress_for
from capture_analysis.batch.workers import start_method
from capture_analysis.cli import main
from capture_analysis.commands.architecture import module_graph

from .conftest import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    """A stream that says it is a terminal; ``screen`` shows what a terminal would display of what it got."""

    def isatty(self) -> bool:
        return True

    def screen(self) -> list[str]:
        lines = [""]
        column = 0
        for char in self.getvalue():
            if char == "\r":
                column = 0
            elif char == "\n":
                lines.append("")
                column = 0
            else:
                line = lines[-1]
                lines[-1] = line[:column] + char + line[column + 1:]
                column += 1
        return lines


def started(total: int = 3) -> tuple[Progress, Terminal, Clock]:
    clock, terminal = Clock(), Terminal()
    return Progress(terminal, total, clock), terminal, clock


def test_nothing_is_drawn_in_the_first_second():
    progress, terminal, clock = started()
    progress.advance()
    clock.now += DELAY - 0.01
    progress.tick()
    assert terminal.getvalue() == ""


def test_the_line_shows_files_done_the_total_and_the_time_and_is_redrawn_in_place():
    progress, terminal, clock = started(3)
    progress.advance()
    clock.now += 1.3
    progress.tick()
    assert terminal.getvalue() == "\rboxcheck: 1 of 3 files, 1.3s"
    progress.advance()
    clock.now += 10
    progress.tick()
    assert terminal.screen() == ["boxcheck: 2 of 3 files, 11.3s"]


def test_a_shorter_line_blanks_the_rest_of_the_longer_one():
    progress, terminal, clock = started(1)
    clock.now += 12.0
    progress.tick()
    progress.started = clock.now - 1.5
    progress.tick()
    assert terminal.screen() == ["boxcheck: 0 of 1 file, 1.5s "]


def test_the_line_is_erased_at_the_end():
    progress, terminal, clock = started()
    clock.now += 2
    progress.tick()
    progress.__exit__(None, None, None)
    assert terminal.screen() == [" " * len("boxcheck: 0 of 3 files, 2.0s")]
    assert terminal.getvalue().endswith("\r")
    progress.tick()  # a tick after the end draws nothing
    assert terminal.screen()[0].strip() == ""


def test_a_guarded_write_erases_the_line_first():
    progress, terminal, clock = started()
    clock.now += 2
    progress.tick()
    report = progress.guard(terminal)
    report.write("a.ts:1:1: warning[BX101] ...\n")
    assert terminal.screen() == ["a.ts:1:1: warning[BX101] ...", ""]
    progress.tick()
    assert terminal.screen() == ["a.ts:1:1: warning[BX101] ...", "boxcheck: 0 of 3 files, 2.0s"]
    report.write("")  # a file that adds nothing (--statistics) leaves the line be
    assert terminal.screen() == ["a.ts:1:1: warning[BX101] ...", "boxcheck: 0 of 3 files, 2.0s"]


def test_progress_only_where_a_person_watches(tmp_path):
    terminal = Terminal()
    environ = {"TERM": "xterm"}
    assert isinstance(progress_for(terminal, io.StringIO(), 5, quiet=False, environ=environ), Progress)
    with open(tmp_path / "report.txt", "w", encoding="utf-8") as file:
        assert isinstance(progress_for(terminal, file, 5, quiet=False, environ=environ), Progress)
    assert progress_for(io.StringIO(), io.StringIO(), 5, quiet=False, environ=environ) is OFF  # stderr piped
    assert progress_for(terminal, io.StringIO(), 5, quiet=True, environ=environ) is OFF
    assert progress_for(terminal, io.StringIO(), 5, quiet=False, environ={"TERM": "dumb"}) is OFF
    read, write = os.pipe()
    with os.fdopen(read) as _, os.fdopen(write, "w") as pipe:
        assert is_pipe(pipe)
        assert progress_for(terminal, pipe, 5, quiet=False, environ=environ) is OFF  # `boxcheck src | less`


def test_off_costs_nothing_it_hands_the_streams_back_unwrapped():
    stream = io.StringIO()
    assert OFF.guard(stream) is stream
    with OFF as off:
        off.advance()
    assert stream.getvalue() == ""


def test_the_thread_draws_and_workers_may_still_be_forked(monkeypatch):
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.001)
    terminal = Terminal()
    # threads an earlier test left running (Dask's IO loop, process-wide) decide the start method on their own
    before = set(threading.enumerate())
    with Progress(terminal, 2) as progress:
        deadline = time.monotonic() + 10
        while not terminal.getvalue() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert progress.thread is not None and fork_safe(progress.thread)
        assert all(fork_safe(thread) for thread in threading.enumerate() if thread not in before)
        if "fork" in multiprocessing.get_all_start_methods() and all(map(fork_safe, before)):
            assert start_method().get_start_method() == "fork"
    assert terminal.getvalue().startswith("\rboxcheck: 0 of 2 files, ")
    assert terminal.screen()[0].strip() == ""
    assert not progress.thread.is_alive()


def test_another_thread_still_makes_workers_spawn():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not fork_safe(other)
        assert start_method().get_start_method() == "spawn"
    finally:
        stop.set()
        other.join()


def run_on_a_terminal(monkeypatch, *args: str) -> tuple[str, Terminal]:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.0001)
    monkeypatch.setenv("TERM", "xterm")
    out, err = io.StringIO(), Terminal()
    with redirect_stdout(out), redirect_stderr(err):
        main(["--no-cache", "--jobs", "1", *args])
    return out.getvalue(), err


def test_a_run_on_a_terminal_shows_progress_and_leaves_nothing_of_it(monkeypatch):
    out, err = run_on_a_terminal(monkeypatch, "examples/", "tests/unicode/")
    assert "boxcheck: " in err.getvalue() and " of 6 files, " in err.getvalue()
    assert all(not line.strip() for line in err.screen())
    plain = io.StringIO()
    with redirect_stdout(plain), redirect_stderr(io.StringIO()):
        main(["--no-cache", "--jobs", "1", "examples/", "tests/unicode/"])
    assert out == plain.getvalue()


def test_quiet_runs_show_no_progress(monkeypatch):
    _, err = run_on_a_terminal(monkeypatch, "-q", "examples/")
    assert err.getvalue() == ""


@pytest.mark.parametrize("server", ["capture_analysis.commands.lsp", "capture_analysis.lsp.server"])
def test_the_language_server_never_reaches_the_progress_line(server):
    assert not nx.has_path(module_graph(), server, "capture_analysis.batch.progress")
