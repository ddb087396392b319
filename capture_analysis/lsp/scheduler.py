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

Requests (hover, code actions) need the analysis of the revision they were
sent against: they start it at once instead of waiting for the timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from .documents import Document
from .incremental import Analyzed, Outcome, Stale, TreeKeeper
from .settings import Settings


class Scheduler:
    def __init__(self, settings_for: Callable[[Document], Settings],
                 publish: Callable[[Document, Outcome], None]):
        self.settings_for = settings_for
        self.publish = publish
        self.keeper = TreeKeeper()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="boxcheck-analysis")
        self.documents: dict[str, Document] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.running: dict[str, tuple[int, asyncio.Future[Outcome]]] = {}
        self.latest: dict[str, Analyzed] = {}

    # -- events -----------------------------------------------------------------------------

    def open(self, document: Document) -> None:
        self.forget(document.uri)
        self.documents[document.uri] = document
        self.now(document)

    def changed(self, document: Document, delay_seconds: float) -> None:
        self.later(document, delay_seconds)

    def close(self, uri: str) -> None:
        self.forget(uri)

    def refresh(self) -> None:
        """Analyze every open document again (the settings changed)."""
        for document in list(self.documents.values()):
            self.reanalyze(document)

    def reanalyze(self, document: Document) -> None:
        """Analyze at once under a new revision, so that a running analysis of the old one is not published."""
        document.revision += 1
        self.now(document)

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
        self.running.pop(uri, None)
        self.latest.pop(uri, None)

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
        job = self.executor.submit(self.keeper.run, snapshot, settings, lambda: document.revision)
        future = asyncio.wrap_future(job)
        self.running[document.uri] = (snapshot.revision, future)
        future.add_done_callback(partial(self.finished, document))

    def finished(self, document: Document, future: asyncio.Future[Outcome]) -> None:
        if self.running.get(document.uri, (0, None))[1] is future:
            del self.running[document.uri]
        if future.cancelled() or self.documents.get(document.uri) is not document:
            return
        outcome = future.result()
        if isinstance(outcome, Stale) or outcome.revision != document.revision:
            return
        if isinstance(outcome, Analyzed):
            self.latest[document.uri] = outcome
        self.publish(document, outcome)

    async def current(self, document: Document) -> Outcome:
        """The outcome for the document's present revision, analyzing it now if needed.

        A ``Stale`` outcome means the document changed while waiting: the request's answer would be outdated.
        """
        revision = document.revision
        latest = self.latest.get(document.uri)
        if latest is not None and latest.revision == revision:
            return latest
        running = self.running.get(document.uri)
        if running is None or running[0] != revision:
            self.now(document)
            running = self.running.get(document.uri)
            if running is None:
                return Stale(revision)
        # shield: a cancelled request must not cancel the job, whose edits the tree needs.
        outcome = await asyncio.shield(running[1])
        if outcome.revision != document.revision or self.documents.get(document.uri) is not document:
            return Stale(revision)
        return outcome
