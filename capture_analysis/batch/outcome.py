"""What one file contributes to a run, in a form that crosses processes and fits in the cache.

A ``FileAnalysis`` holds the whole scope model and escape graph of a file:
too big to send back from a ``--jobs`` worker, and nothing a later run could
reuse.  So a file is reduced, where it was analyzed, to an ``Analyzed``
outcome: its record (``report.file_record``: what every format renders from)
and the counts that the totals and the exit code need.  The run loop only
ever renders and adds records, in input order, whether they were computed
in this process, in a worker, or read from the cache; so the output is the
same byte for byte in all three cases, and in every format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..report import FileCounts
from ..report.file_record import file_record
from ..source import SourceFile
from . import gc_tuning
from .fixing import fixed_outcome
from .loading import LoadError, checked, read
from .tasks import Analyzed, Failed, FileTask, Outcome, internal_error

if TYPE_CHECKING:
    from ..analyze import Analyzer
    from .cache import Cache


@dataclass(frozen=True, slots=True)
class Read:
    """A file's bytes as the parent process read them to look it up in the cache, and their key: a miss is
    analyzed from these, so a file is read and hashed once."""

    data: bytes
    key: str


def outcome_of(loaded: SourceFile, task: FileTask, cache: Cache | None = None) -> Outcome:
    """A loaded source (standard input, a test), via the cache when given."""
    key = None
    if cache is not None:
        key = cache.key(loaded.path, loaded.data)
        cached = cache.get(key, loaded.path)
        if cached is not None:
            return cached
    return fresh(loaded, task, cache, key)


def looked_up(path: str, task: FileTask, cache: Cache) -> Outcome | Read:
    """A cache hit or a file that cannot be read; else what was read, for the analysis of a miss."""
    raw = read(path, task.max_file_size)
    if isinstance(raw, LoadError):
        return Failed(path, raw.message, raw.is_error)
    key = cache.key(path, raw)
    cached = cache.get(key, path)
    return cached if cached is not None else Read(raw, key)


def outcome_at(path: str, task: FileTask, cache: Cache | None = None, already: Read | None = None) -> Outcome:
    """A file, read once; a cache hit is found from its bytes, before they are decoded or checked.  ``already``:
    the cache was asked, and missed, with these bytes."""
    if already is None and cache is not None:
        found = looked_up(path, task, cache)
        if not isinstance(found, Read):
            return found
        already = found
    if already is not None:
        raw: bytes | LoadError = already.data
        key: str | None = already.key
    else:
        raw, key = read(path, task.max_file_size), None
    if isinstance(raw, LoadError):
        return Failed(path, raw.message, raw.is_error)
    if task.fix is not None:
        return fixed_outcome(path, raw, task)
    loaded = checked(path, raw, task.max_file_size)
    if isinstance(loaded, LoadError):
        return Failed(path, loaded.message, loaded.is_error)
    return fresh(loaded, task, cache, key)


def fresh(loaded: SourceFile, task: FileTask, cache: Cache | None, key: str | None) -> Outcome:
    """Analyze, make the record, and store it under ``key``: complete for the JSON format, the only one that
    shows the bindings; the cache marks an incomplete record as such (``Cache.put``).

    The collector is paused for the whole file and the file's model collected as soon as its record is made
    (``gc_tuning.paused``): ``lib/typescript.js`` gets no collection at all while it is analyzed.
    """
    result = analyzed(loaded, task, complete=task.format == "json")
    if isinstance(result, Analyzed) and key is not None and cache is not None:
        cache.put(key, result)
    return result


def analyzed(loaded: SourceFile, task: FileTask, complete: bool, analyzer: Analyzer | None = None) -> Outcome:
    """``recorded`` with the collector paused; where the cache is not at hand (a ``--scheduler`` worker, whose
    client keeps it), ``complete`` says whether the record must serve it."""
    with gc_tuning.paused():
        return recorded(loaded, task, complete, analyzer)


def recorded(loaded: SourceFile, task: FileTask, complete: bool = True, analyzer: Analyzer | None = None) -> Outcome:
    """The file's record and counts; its analysis is garbage when this returns.

    ``complete``: whether the record must serve every format (the JSON format shows all of it); a run in
    another format spares the rest, and so does its cache entry, which only a JSON run re-analyzes.
    ``analyzer``: the file's, when it was not chosen by its path here (``FileTask.analyzer_for``).
    """
    try:
        analyzer = analyzer or task.analyzer(loaded.path)
        analysis = analyzer.lean(loaded)
        # a file analyzed again with its imports resolved keeps the interface of its first analysis (``linking``)
        interface = analysis.graph.interface(analysis.source) if analyzer.imported is None else None
        analysis.release_tree()
        analysis.graph.release()  # a record reads the findings, which hold their escape paths, not the graph
        done = Analyzed(loaded.path, file_record(analysis, analysis.shown, complete=complete,
                                                 explained=task.options.explain),
                        FileCounts.of(analysis, analysis.shown), interface=interface)
        analysis.release()  # freed by refcounting once dropped, not by the collection (``FileAnalysis.release``)
        return done
    except Exception as error:  # one bad file must not lose the others
        return internal_error(loaded.path, error)
