"""The server without a process of its own: one job on this thread (`analyzed`), or the whole server on a thread."""

from __future__ import annotations

import io
import os
import textwrap
import threading

from capture_analysis import config
from capture_analysis.lsp.documents import Document
from capture_analysis.lsp.incremental import RevisionAnalyzed, TreeKeeper
from capture_analysis.lsp.settings import Settings

DEFAULT_SETTINGS = Settings("optimal", config.Config(), 1 << 24)


def analyzed(code: str, path: str = "test.ts", settings: Settings = DEFAULT_SETTINGS) -> RevisionAnalyzed:
    document = Document.open("file:///" + path, path, 1, textwrap.dedent(code))
    outcome = TreeKeeper().run(document.snapshot(), settings, lambda: document.revision)
    assert isinstance(outcome, RevisionAnalyzed), outcome
    return outcome


class ServerThread:
    """``boxcheck lsp`` in this process, on a thread of its own, over two pipes: for an ``LspClient`` that speaks
    LSP to it as an editor does while the test looks at the server's objects (a weak reference to an analysis).

    It has what the client uses of a ``Popen``: the pipes, ``poll``, ``wait`` and ``kill``.
    """

    def __init__(self) -> None:
        from capture_analysis.lsp.server import build

        to_server, self.stdin = (os.fdopen(fd, mode) for fd, mode in zip(os.pipe(), ("rb", "wb"), strict=True))
        self.stdout, from_server = (os.fdopen(fd, mode) for fd, mode in zip(os.pipe(), ("rb", "wb"), strict=True))
        #: the server's ends of the pipes, which a process would close by exiting.
        self.ends = (to_server, from_server)
        self.stderr = io.BytesIO()
        self.pid = os.getpid()
        self.server = build()
        self.thread = threading.Thread(target=self.server.start_io, args=self.ends, daemon=True)
        self.thread.start()

    @property
    def returncode(self) -> int | None:
        """As ``boxcheck lsp`` exits: 0 after a ``shutdown`` request, else 1."""
        return None if self.thread.is_alive() else 0 if self.server.shut_down else 1

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        self.thread.join(timeout)
        return self.returncode

    def kill(self) -> None:
        """Hang up: the server reads the end of its input and stops; then its ends close, as at a process's exit."""
        self.stdin.close()
        self.thread.join(60)
        for end in self.ends:
            end.close()
