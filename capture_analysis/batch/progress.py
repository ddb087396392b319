"""Progress of a long run on the terminal: ``boxcheck: 120 of 963 files, 3.2s``, on one line of stderr.

A run over a large repository, or over one 9 MB file, would otherwise print
nothing for seconds.  The line appears once a run has taken ``DELAY``
seconds, is redrawn in place (``\\r``) every ``INTERVAL`` seconds by a thread
of its own, so the elapsed time moves even while one large file is being
analyzed (but for the seconds tree-sitter parses a 9 MB file: it holds the
interpreter meanwhile), and is erased when the run ends.  It is shown only
where a person watches: standard error is a terminal and the report does
not go into a pipe (``boxcheck src | less`` must not draw over the pager),
never with ``-q``; the language server never makes one.

Off, it costs the run nothing: ``progress_for`` hands back ``OFF``, whose
``advance`` does nothing, and the run's streams unwrapped.  On, whatever the
run writes to standard output or standard error goes through ``guard``,
which erases the line first under the same lock as the thread's drawing, so
a diagnostic never lands in the middle of it.

Forking with a thread running can deadlock the child on a lock that thread
held; ``--jobs`` forks its workers, so the drawing lock is taken around
every fork (``os.register_at_fork``), the child never draws, and the
workers may still be forked (``batch.workers.start_method`` asks
``fork_safe``).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Mapping
from typing import TextIO, cast

from ..words import plural

#: seconds before the line first appears, and between redraws.
DELAY = 1.0
INTERVAL = 0.2
#: the one lock around every drawing and every guarded write, taken around a fork as well.
LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=LOCK.acquire, after_in_parent=LOCK.release, after_in_child=LOCK.release)


class Progress:
    """The line for ``total`` files, drawn on ``stream``; ``clock`` gives seconds (``time.monotonic``)."""

    def __init__(self, stream: TextIO, total: int, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        self.total = total
        self.clock = clock
        self.done = 0
        self.started = clock()
        #: the width of the line on the terminal now; 0 when nothing is drawn.
        self.drawn = 0
        self.stopped = threading.Event()
        self.thread: Ticker | None = None

    def advance(self) -> None:
        """One more file done; the next ``tick`` shows it."""
        self.done += 1

    def line(self) -> str:
        return f"boxcheck: {self.done} of {plural(self.total, 'file')}, {self.clock() - self.started:.1f}s"

    def tick(self) -> None:
        """Draw the line over the previous one, once the run has lasted ``DELAY`` seconds."""
        if self.clock() - self.started < DELAY:
            return
        with LOCK:
            if self.stopped.is_set():
                return
            text = self.line()
            self.stream.write("\r" + text + " " * max(0, self.drawn - len(text)))
            self.stream.flush()
            self.drawn = len(text)

    def erase(self) -> None:
        """Blank the line and put the cursor back at its start; the caller holds ``LOCK``."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0

    def guard(self, stream: TextIO) -> TextIO:
        """``stream``, each write of which first erases the line (the next tick draws it again); a stream to
        reporters and ``print``, which only write and flush."""
        return cast("TextIO", Guarded(stream, self))

    def __enter__(self) -> Progress:
        self.thread = Ticker(target=self.run, name="boxcheck-progress", daemon=True)
        self.thread.start()
        return self

    def run(self) -> None:
        while not self.stopped.wait(INTERVAL):
            self.tick()

    def __exit__(self, *exc_info: object) -> None:
        with LOCK:
            self.stopped.set()
            self.erase()
        if self.thread is not None:
            self.thread.join()


class Ticker(threading.Thread):
    """The thread that redraws the line: the one thread besides the main one that a fork may leave behind,
    since its lock is held around every fork (``fork_safe``)."""


class Guarded:
    """A text stream whose writes erase the progress line first, under the drawing lock."""

    def __init__(self, stream: TextIO, progress: Progress):
        self.stream = stream
        self.progress = progress

    def write(self, text: str) -> int:
        if not text:  # a file that adds nothing to the report (``--statistics``) leaves the line alone
            return 0
        with LOCK:
            self.progress.erase()
            written = self.stream.write(text)
            self.stream.flush()
            return written

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


class Off:
    """No progress: what a run has off a terminal, in a pipe or with ``-q``; every method does nothing."""

    def advance(self) -> None:
        pass

    def guard(self, stream: TextIO) -> TextIO:
        return stream

    def __enter__(self) -> Off:
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass


OFF = Off()


def wanted(stderr: TextIO, output: TextIO, quiet: bool, environ: Mapping[str, str]) -> bool:
    """A person watches: standard error is a terminal (not ``TERM=dumb``), the report goes to that terminal
    or into a file, not a pipe, and ``-q`` was not asked."""
    return not quiet and environ.get("TERM") != "dumb" and is_terminal(stderr) and not is_pipe(output)


def progress_for(stderr: TextIO, output: TextIO, total: int, *, quiet: bool,
                 environ: Mapping[str, str]) -> Progress | Off:
    return Progress(stderr, total) if wanted(stderr, output, quiet, environ) else OFF


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def is_pipe(stream: TextIO) -> bool:
    """A pipe or a socket; a stream without a descriptor (a test's ``StringIO``) is neither."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def fork_safe(thread: threading.Thread) -> bool:
    """The main thread, or the progress line's (``Ticker``): no other thread may run when a worker is forked."""
    return thread is threading.main_thread() or isinstance(thread, Ticker)
