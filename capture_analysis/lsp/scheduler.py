"""When to analyze, and which result may be published.

Every change bumps the document's *revision* and (re)starts a debounce
timer; when it fires, a snapshot of the text and its pending edits goes to
the one analysis thread.  Jobs run in order, and a job whose revision is no
longer the document's applies its edits to the tree but skips the analysis.
A finished analysis is published only if its revision is still the
document's: revisions only grow, so an older analysis can never replace a
newer one, however the threads interleave::

    didChange v1 -> timer ... didChange v2 -> timer restarted ... fires: job(v2) -> publish v2
    job(v3) running ... didChange v4: job(v3) finishes, revision is v4's -> dropped; job(v4) -> publish v4

A document whose last analysis took longer than ``onSaveAboveMs`` is
analyzed on open and save only (``Document.on_save``): on a file that takes
seconds, analyzing on change would keep the one thread busy with texts that
are outdated before they are done.  Such a document's analysis is published
even when the text changed while it ran, through the map of the edits made
since (``lsp/carry.py``): otherwise typing during the analysis of a save
would leave nothing published until the next save.

Requests (hover, code actions) never wait for an analysis: they are
answered from the latest one (``latest``), through the edits made since.

A document's imports are read from the other open documents, saved or not,
and from the files on disk (DESIGN 2.2.1).  When what a document exports
changes (its interface: its functions' parameter tags and where they are),
the open documents whose imports were read from it are analyzed again; an
interface is made from its own file's text alone, so that wave stops there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from ..linking.resolve import key
from . import memory
from .documents import Document
from .edit_map import EditMap
from .incremental import RevisionAnalyzed, RevisionOutcome, RevisionSkipped, RevisionStale, TreeKeeper
from .settings import Settings


class Scheduler:
    def __init__(self, settings_for: Callable[[Document], Settings],
                 publish: Callable[[Document, RevisionOutcome, EditMap], None],
                 log: Callable[[str], None]):
        self.settings_for = settings_for
        self.publish = publish
        self.log = log
        self.keeper = TreeKeeper()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="boxcheck-analysis")
        self.documents: dict[str, Document] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        #: the latest analysis of each document, and the map from its text to the current one.
        self.latest: dict[str, tuple[RevisionAnalyzed, EditMap]] = {}

    # -- events -----------------------------------------------------------------------------

    def open(self, document: Document) -> None:
        self.forget(document.uri)
        self.documents[document.uri] = document
        self.now(document)

    def changed(self, document: Document, delay_seconds: float) -> None:
        if document.on_save:
            return
        self.later(document, delay_seconds)

    def close(self, uri: str) -> None:
        document = self.documents.get(uri)
        self.forget(uri)
        if document is not None:
            self.importers_of(document)  # they read its file from disk again

    def refresh(self) -> None:
        """Analyze every open document again (the settings changed)."""
        for document in list(self.documents.values()):
            self.reanalyze(document)

    def reanalyze(self, document: Document) -> None:
        """Analyze at once under a new revision, so that a running analysis of the old one is not published."""
        document.revision += 1
        self.now(document)

    def importers_of(self, document: Document) -> None:
        """Analyze again the open documents whose imports were read from ``document``'s file: what it exports has
        changed (or it was opened or closed, so they read its text instead of the file's, or the other way)."""
        changed = key(document.path)
        for uri, (latest, _) in list(self.latest.items()):
            importer = self.documents.get(uri)
            if importer is not None and importer is not document and changed in latest.consulted:
                self.reanalyze(importer)

    def stop(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- scheduling -------------------------------------------------------------------------

    def forget(self, uri: str) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        if self.documents.pop(uri, None) is not None:
            self.executor.submit(self.keeper.forget, uri)
        latest = self.latest.pop(uri, None)
        if latest is not None:
            memory.free(latest[0])

    def later(self, document: Document, delay_seconds: float) -> None:
        timer = self.timers.pop(document.uri, None)
        if timer is not None:
            timer.cancel()
        if delay_seconds <= 0:
            self.launch(document)
        else:
            self.timers[document.uri] = asyncio.get_running_loop().call_later(delay_seconds, self.launch, document)

    def now(self, document: Document) -> None:
        self.later(document, 0)

    def launch(self, document: Document) -> None:
        self.timers.pop(document.uri, None)
        if self.documents.get(document.uri) is not document:
            return
        snapshot = document.snapshot()
        settings = self.settings_for(document)
        edits = document.track()

        def wanted() -> int:
            """The revision the job must still be for: any, for a document analyzed on save."""
            return snapshot.revision if document.on_save else document.revision

        job = self.executor.submit(self.keeper.run, snapshot, settings, wanted)
        asyncio.wrap_future(job).add_done_callback(partial(self.finished, document, settings, edits))

    def finished(self, document: Document, settings: Settings, edits: EditMap,
                 future: asyncio.Future[RevisionOutcome]) -> None:
        """Publish the job's outcome, or drop it; then free the analysis that is now dead.

        Whatever a job that ran to the end made either replaced the document's previous analysis or was
        dropped: one dead analysis, freed here before another joins it (``memory``).
        """
        dead = self.settle(document, settings, edits, future)
        if dead is not None:
            memory.free(dead)

    def settle(self, document: Document, settings: Settings, edits: EditMap,
               future: asyncio.Future[RevisionOutcome]) -> RevisionOutcome | None:
        """Publish or drop the job's outcome; the one now dead: the outcome dropped, or the analysis it
        replaced (``None`` when nothing was made, or the document had none)."""
        if future.cancelled():
            document.untrack(edits)
            return None
        outcome = future.result()
        if self.documents.get(document.uri) is not document:
            document.untrack(edits)
            return outcome
        if isinstance(outcome, RevisionAnalyzed):
            self.pace(document, outcome, settings)
        current = outcome.revision == document.revision
        saved = document.on_save and isinstance(outcome, RevisionAnalyzed)
        if isinstance(outcome, RevisionStale):
            document.untrack(edits)
            return None
        if not (current or saved):
            document.untrack(edits)
            return outcome
        dead: RevisionOutcome | None = None
        exports_changed = False
        if isinstance(outcome, RevisionAnalyzed):
            previous = self.latest.get(document.uri)
            if previous is not None:
                document.untrack(previous[1])
                dead = previous[0]
            exports_changed = previous is None or previous[0].interface != outcome.interface
            self.latest[document.uri] = (outcome, edits)
        else:
            document.untrack(edits)
            dead = outcome
            if isinstance(outcome, RevisionSkipped):
                latest = self.latest.pop(document.uri, None)
                dead = latest[0] if latest is not None else outcome
        self.publish(document, outcome, edits)
        if exports_changed:
            self.importers_of(document)
        return dead

    def pace(self, document: Document, outcome: RevisionAnalyzed, settings: Settings) -> None:
        """Switch the document to analysis on save when this one took longer than the setting, and back.

        The analysis thread's CPU time measures what the file costs; wall-clock time would also count the
        other processes of a busy machine, and switch small files for as long as the machine is busy.
        """
        milliseconds = outcome.cpu_seconds * 1000
        slow = milliseconds > settings.on_save_above_ms
        if slow and not document.on_save and not document.told_on_save:
            document.told_on_save = True
            self.log(f"boxcheck: analyzing {document.uri} took {milliseconds / 1000:.1f} s of CPU, more than "
                     f"onSaveAboveMs ({settings.on_save_above_ms} ms): it is analyzed when it is opened or saved, "
                     "not as you type")
        document.on_save = slow

    def view(self, uri: str) -> tuple[Document, RevisionAnalyzed, EditMap] | None:
        """The latest analysis of an open document, and the map from its text to the current one."""
        document = self.documents.get(uri)
        latest = self.latest.get(uri)
        return None if document is None or latest is None else (document, *latest)
