"""The server's analysis pipeline without a process: a document, a snapshot, one job on this thread."""

from __future__ import annotations

import textwrap

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
