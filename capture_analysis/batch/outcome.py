"""What one file contributes to a run, in a form that crosses processes and fits in the cache.

A ``FileAnalysis`` holds the whole scope model and escape graph of a file:
too big to send back from a ``--jobs`` worker, and nothing a later run could
reuse.  So a file is reduced, where it was analyzed, to an ``Analyzed``
outcome: its record (``report.record``: what every format renders from)
and the counts that the totals and the exit code need.  The run loop only
ever renders and adds records, in input order, whether they were computed
in this process, in a worker, or read from the cache; so the output is the
same byte for byte in all three cases, and in every format.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from .. import suppressions
from ..analyze import FileAnalysis, analyze_source
from ..compare import analyzer
from ..config import Config
from ..policies import POLICIES, Policy
from ..report import FileCounts
from ..report.record import file_record
from ..rules import CONTEXT_RETENTION
from ..source import SourceFile
from . import collector
from .jobs import Analyzed, Failed, Job, Outcome
from .loading import LoadError, checked, read

if TYPE_CHECKING:
    from .cache import Cache

Analyze = Callable[[SourceFile, Policy], FileAnalysis]


def internal_error(path: str, error: BaseException) -> Failed:
    return Failed(path, f"internal error: {type(error).__name__}: {error} (please report this with the file)", True)


def outcome_of(loaded: SourceFile, job: Job, cache: Cache | None = None, analyze: Analyze | None = None) -> Outcome:
    """A loaded source (standard input, a test), via the cache when given."""
    key = None
    if cache is not None:
        key = cache.key(loaded.path, loaded.data)
        cached = cache.get(key, loaded.path)
        if cached is not None:
            return cached
    return fresh(loaded, job, cache, key, analyze)


def outcome_at(path: str, job: Job, cache: Cache | None = None, analyze: Analyze | None = None) -> Outcome:
    """A file, read once; a cache hit is found from its bytes, before they are decoded or checked."""
    raw = read(path, job.max_file_size)
    if isinstance(raw, LoadError):
        return Failed(path, raw.message, raw.is_error)
    key = None
    if cache is not None:
        key = cache.key(path, raw)
        cached = cache.get(key, path)
        if cached is not None:
            return cached
    loaded = checked(path, raw, job.max_file_size)
    if isinstance(loaded, LoadError):
        return Failed(path, loaded.message, loaded.is_error)
    return fresh(loaded, job, cache, key, analyze)


def fresh(loaded: SourceFile, job: Job, cache: Cache | None, key: str | None, analyze: Analyze | None) -> Outcome:
    """Analyze, apply the configuration and the suppression comments, make the record, and store it under ``key``.

    The collector is paused for the whole file and the file's model collected as soon as its record is made
    (``collector.paused``): ``lib/typescript.js`` gets no collection at all while it is analyzed.
    """
    with collector.paused():
        result = recorded(loaded, job, analyze, complete=cache is not None or job.format == "json")
    if isinstance(result, Analyzed) and key is not None and cache is not None:
        cache.put(key, result)
    return result


def recorded(loaded: SourceFile, job: Job, analyze: Analyze | None, complete: bool = True) -> Outcome:
    """The file's record and counts; its analysis is garbage when this returns.

    ``complete``: whether the record must serve every format (the JSON format shows all of it, and the cache
    keeps it for a run in any format); a run in another format without the cache spares the rest.
    """
    try:
        settings = Config(severity=dict(job.severities))
        if analyze in (None, analyze_source) and not job.options.compare \
                and settings.severity.get(CONTEXT_RETENTION.code, True) is None:
            analyze = partial(analyze_source, retain=False)  # BX107 is off: spare the retention analysis
        if analyze is None:
            analyze = analyzer(job.options.compare) if job.options.compare else analyze_source
        analysis = analyze(loaded, POLICIES[job.options.policy])
        shown = settings.apply(suppressions.apply(analysis.source, analysis.diagnostics))
        return Analyzed(loaded.path, file_record(analysis, shown, complete=complete), FileCounts.of(analysis, shown))
    except Exception as error:  # one bad file must not lose the others
        return internal_error(loaded.path, error)
