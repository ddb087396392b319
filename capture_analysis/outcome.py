"""What one file contributes to a run, in a form that crosses processes and fits in the cache.

A ``FileAnalysis`` holds the whole scope model and escape graph of a file:
too big to send back from a ``--jobs`` worker, and nothing a later run could
reuse.  So a file is reduced, where it was analyzed, to an ``Analyzed``
outcome: the reporter's rendering of it (``Reporter.render``) and the counts
that the totals and the exit code need.  The run loop only ever adds
outcomes to the reporter, in input order, whether they were computed in this
process, in a worker, or read from the cache; so the output is the same
byte for byte in all three cases.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING

from . import collector, suppressions
from .analyze import FileAnalysis, analyze_source
from .compare import analyzer
from .config import Config
from .loading import LoadError, checked, read
from .policies import POLICIES, Policy
from .report import FORMATS, FileCounts, Piece, Reporter, RunOptions
from .rules import Severity
from .source import SourceFile

if TYPE_CHECKING:
    from .cache import Cache

Analyze = Callable[[SourceFile, Policy], FileAnalysis]


@dataclass(frozen=True, slots=True)
class Job:
    """Everything besides a file's bytes that decides its output; hashable, picklable, and the cache's key."""

    format: str
    options: RunOptions
    #: the configuration's severities after command-line overrides: (code, level or None for off), sorted.
    severities: tuple[tuple[str, Severity | None], ...]
    max_file_size: int

    @classmethod
    def of(cls, format: str, options: RunOptions, settings: Config, max_file_size: int) -> Job:
        return cls(format, options, tuple(sorted(settings.severity.items())), max_file_size)

    def __hash__(self) -> int:
        return hash((self.format, astuple(self.options), self.severities, self.max_file_size))

    def identity(self) -> list[object]:
        """What of the job changes a file's rendering, as JSON data for the cache key."""
        return [self.format, list(astuple(self.options)),
                [[code, None if level is None else level.label] for code, level in self.severities]]


@dataclass(frozen=True, slots=True)
class Analyzed:
    path: str
    piece: Piece
    counts: FileCounts


@dataclass(frozen=True, slots=True)
class Failed:
    """A file that was not analyzed: unreadable, skipped on purpose, or an internal error."""

    path: str
    message: str
    #: True when the run must exit 2 (I/O and internal errors); False for files skipped on purpose.
    is_error: bool


Outcome = Analyzed | Failed

_renderers: dict[Job, Reporter] = {}


def renderer(job: Job) -> Reporter:
    """A reporter used only for ``render``, which depends on the options and never on earlier files."""
    if job not in _renderers:
        _renderers[job] = FORMATS[job.format](io.StringIO(), job.options)
    return _renderers[job]


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
    """Analyze, apply the configuration and the suppression comments, render, and store under ``key``.

    The collector is paused for the whole file and the file's model collected as soon as it is rendered
    (``collector.paused``): ``lib/typescript.js`` gets no collection at all while it is analyzed.
    """
    with collector.paused():
        result = rendered(loaded, job, analyze)
    if isinstance(result, Analyzed) and key is not None and cache is not None:
        cache.put(key, result)
    return result


def rendered(loaded: SourceFile, job: Job, analyze: Analyze | None) -> Outcome:
    """The file's rendering and counts; its analysis is garbage when this returns."""
    try:
        if analyze is None:
            analyze = analyzer(job.options.compare) if job.options.compare else analyze_source
        analysis = analyze(loaded, POLICIES[job.options.policy])
        settings = Config(severity=dict(job.severities))
        shown = settings.apply(suppressions.apply(analysis.source, analysis.diagnostics))
        return Analyzed(loaded.path, renderer(job).render(analysis, shown), FileCounts.of(analysis, shown))
    except Exception as error:  # one bad file must not lose the others
        return internal_error(loaded.path, error)
