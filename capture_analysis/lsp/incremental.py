"""The worker side: bring a document's tree up to date with its edits, then analyze it.

Everything here runs on the server's single analysis thread, which alone
owns the trees: jobs run in the order they were submitted, and every job
applies its snapshot's edits even when the analysis is no longer wanted, so
the tree never misses an edit.  The analysis itself is the whole-file
pipeline (``analyze.Analyzer``), from a tree that was re-parsed with edits
instead of from scratch (the scope model
and the escape graph are file-wide; re-binding one function alone would
have to re-resolve every capture that crosses it, and the measured time of
a whole 5,000-line file is in ``benchmarks/results/``).
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..analyze import Analyzer, FileAnalysis, decide_bound
from ..batch.linked import beside
from ..diagnose import Diagnostic
from ..fixes import Fix, declare_const_fixes, own_block_fixes
from ..linking.interface import Interface
from ..linking.resolve import key
from ..parsing import ParsedFile, new_parser, repaired, uses_tsx
from ..policies import POLICIES
from ..retention.callees import configured
from .documents import Snapshot
from .hover import BindingIndex
from .settings import Settings
from .suppress import suppression_fixes
from .tree_text import TreeText

#: an analysis that took longer (CPU seconds) has its hovers' index and its code actions made with it, on the
#: analysis thread; a quicker one leaves them to the first request (``TreeKeeper.run``).
PREPARED_ABOVE_SECONDS = 0.25


class Fixes:
    """The code actions of one analysis, made on the first request for them, or with a slow analysis.

    They read the syntax tree, which the next edit changes in place on the analysis thread; so they read a
    copy taken with the analysis (``Tree.copy``: tree-sitter's way to use a tree on another thread, which
    later edits of the original leave alone).  Asked on the event loop, once the analysis is handed over.
    """

    __slots__ = ("_analysis", "_file", "_fixes", "_shown")

    def __init__(self, analysis: FileAnalysis, file: ParsedFile, shown: list[Diagnostic]):
        self._analysis = analysis
        self._file = file
        self._shown = shown
        self._fixes: list[Fix] | None = None

    def all(self) -> list[Fix]:
        if self._fixes is None:
            analysis, file = self._analysis, self._file
            self._fixes = (declare_const_fixes(analysis, file.tree)
                           + suppression_fixes(file, analysis.diagnostics, self._shown)
                           + own_block_fixes(analysis, file.tree))
        return self._fixes


@dataclass(frozen=True, slots=True)
class RevisionAnalyzed:
    """A finished analysis of one revision, with what hover and code actions ask of it, made on first use."""

    uri: str
    revision: int
    version: int | None
    analysis: FileAnalysis
    diagnostics: list[Diagnostic]
    index: BindingIndex
    fixes: Fixes
    #: wall-clock seconds spent parsing (incrementally or not) and analyzing, and the analysis thread's CPU
    #: seconds for both (what the work costs when other processes compete for the machine).
    parse_seconds: float
    analyze_seconds: float
    cpu_seconds: float
    incremental: bool
    #: what the document exports to the documents that import it, and the files its imports were read from.
    interface: Interface
    consulted: frozenset[str]


@dataclass(frozen=True, slots=True)
class RevisionSkipped:
    """Not analyzed on purpose: the document is larger than ``maxFileSize``."""

    uri: str
    revision: int
    version: int | None
    message: str


@dataclass(frozen=True, slots=True)
class RevisionStale:
    """A newer revision exists: the edits were applied to the tree, the analysis was not run."""

    revision: int


@dataclass(frozen=True, slots=True)
class RevisionFailed:
    revision: int
    message: str


RevisionOutcome = RevisionAnalyzed | RevisionSkipped | RevisionStale | RevisionFailed


def analyze_tree(parsed: ParsedFile, settings: Settings) -> FileAnalysis:
    """What the command line makes of this file, from the parse given: its ``shown`` diagnostics are what it
    prints (but for a file the configuration excludes, which it does not analyze)."""
    return linked_tree(parsed, settings, {}).analysis


@dataclass(frozen=True, slots=True)
class Linked:
    """One document's analysis, with what it tells the documents that import it and what it read of others."""

    analysis: FileAnalysis
    interface: Interface
    #: the files whose interfaces its slots were resolved from, by ``resolve.key``.
    consulted: frozenset[str]


def linked_tree(parsed: ParsedFile, settings: Settings, workspace: Mapping[str, Interface]) -> Linked:
    """``analyze_tree``, where the open documents (``workspace``, by ``resolve.key``) say what they export."""
    config = settings.config
    analyzer = Analyzer(POLICIES[settings.policy], config.severities_for(parsed.path), decide_bound,
                        configured(config.run_and_drop, config.keeps))
    analysis = analyzer.parsed(parsed)
    interface = analysis.graph.interface(analysis.source)
    # closures handed to functions of other files: what those do with them, read from the open documents and
    # the files on disk
    landings, consulted = beside(parsed.path, interface, workspace)
    if landings:
        analysis = replace(analyzer, imported=landings).parsed(parsed)
    return Linked(analysis, interface, consulted)


class TreeKeeper:
    """The latest tree of every open document, and the analysis thread's parsers; used from that thread only."""

    def __init__(self) -> None:
        self.trees: dict[str, ParsedFile] = {}
        #: the interface of every open document's latest analysis, by ``resolve.key`` of its path: what the
        #: documents that import it read, saved or not.
        self.workspace: dict[str, Interface] = {}
        #: the ``workspace`` key of each document's path, by URI.
        self.keys: dict[str, str] = {}
        self.parsers = {tsx: new_parser(tsx) for tsx in (False, True)}
        #: the buffer of every parse's pieces (``TreeText``).
        self.piece = bytearray()

    def forget(self, uri: str) -> None:
        self.trees.pop(uri, None)
        self.workspace.pop(self.keys.pop(uri, ""), None)

    def update(self, snapshot: Snapshot) -> tuple[ParsedFile, bool]:
        """The parse of ``snapshot``'s text, and whether it was re-parsed from the previous tree.

        Where the old or the new text has a syntax error, tree-sitter's error recovery may
        give an incremental parse another tree than a fresh one (a random-edit test found
        one), and the editor would then show other diagnostics than the command line: such
        a text is parsed from scratch, and repaired as the command line repairs it.  A
        repaired tree is a parse of a rewritten copy, so no incremental parse starts from it.
        A document just opened has no tree here: the scheduler forgets a document's tree when it
        forgets the document (on close, or when a second ``didOpen`` replaces it).
        """
        old = self.trees.get(snapshot.uri)
        if old is not None and not snapshot.edits:
            return old, True
        if old is not None and (old.repaired or old.tree.root_node.has_error):
            old = None
        if old is not None:
            for edit in snapshot.edits:
                old.tree.edit(edit.start_byte, edit.old_end_byte, edit.new_end_byte,
                              edit.start_point, edit.old_end_point, edit.new_end_point)
        parser = self.parsers[uses_tsx(snapshot.source.path)]
        self.trees.pop(snapshot.uri, None)  # a failure below must not leave a half-edited tree behind
        text = TreeText(snapshot.source.data, self.piece)
        tree = text.parse(parser, old.tree if old is not None else None)
        if old is not None and tree.root_node.has_error:
            old = None
            tree = text.parse(parser)
        parsed = repaired(parser, snapshot.source, tree)
        self.trees[snapshot.uri] = parsed
        return parsed, old is not None

    def run(self, snapshot: Snapshot, settings: Settings, current_revision: Callable[[], int]) -> RevisionOutcome:
        """One job.  Never raises: a failure is an outcome, and the next job parses from scratch."""
        try:
            if len(snapshot.source.data) > settings.max_file_size:
                self.forget(snapshot.uri)
                return RevisionSkipped(snapshot.uri, snapshot.revision, snapshot.version,
                               f"boxcheck: {snapshot.uri} is larger than maxFileSize ({settings.max_file_size} "
                               "bytes): not analyzed")
            started, cpu_started = time.perf_counter(), time.thread_time()
            syntax, incremental = self.update(snapshot)
            parsed = time.perf_counter()
            if current_revision() != snapshot.revision:
                return RevisionStale(snapshot.revision)
            linked = linked_tree(syntax, settings, self.workspace)
            analysis = linked.analysis
            self.keys[snapshot.uri] = key(syntax.path)
            self.workspace[self.keys[snapshot.uri]] = linked.interface
            shown = [] if settings.excluded else analysis.shown
            fixes = Fixes(analysis, dataclasses.replace(syntax, tree=syntax.tree.copy()), shown)
            index = BindingIndex(analysis)
            if time.thread_time() - cpu_started > PREPARED_ABOVE_SECONDS:
                # Most analyses (one per keystroke) are replaced before any request: a quick one leaves its
                # index and code actions to the first request (4-5 ms of each on the benchmark file).  A slow
                # one makes them here, where they cost a tenth of the analysis, rather than hold the event loop
                # (a second each on ``lib/typescript.js``).
                index.prepare()
                fixes.all()
            done = time.perf_counter()
            return RevisionAnalyzed(snapshot.uri, snapshot.revision, snapshot.version, analysis, shown, index,
                                    fixes, parsed - started, done - parsed, time.thread_time() - cpu_started,
                                    incremental, linked.interface, linked.consulted)
        except Exception:  # one bad document must not stop the server
            self.forget(snapshot.uri)
            return RevisionFailed(snapshot.revision, traceback.format_exc())
