"""What a run asks of each of its files, and what each gives back, in a form that crosses processes.

A ``FileTask`` is everything besides a file's bytes that decides its output
(what of it decides a record is the cache's key), with the analyzer made
from it once; an ``Outcome`` is what a file gives back, computed in this
process or in a worker (``outcome``) or read from the cache (``cache``).
They live here, below the three modules that pass them around, so that the
cache needs neither of the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..analyze import Analyzer, decide_bound
from ..compare import deciding
from ..config import Config
from ..policies import POLICIES
from ..report import FileCounts, RunOptions
from ..retention.callees import configured
from ..rules import Severity

if TYPE_CHECKING:
    from ..report.file_record import FileRecord


@dataclass(frozen=True, slots=True)
class FileTask:
    """Everything besides a file's bytes that decides its output; picklable, for the ``--jobs`` workers.

    The cache's key holds only what decides a file's record (``identity``): the format and the options that
    only change how a record is rendered (``--quiet``, ``--explain``, colour, ``docs-url``) are left out.
    """

    format: str
    options: RunOptions
    #: the configuration's severities after command-line overrides: (code, level or None for off), sorted.
    severities: tuple[tuple[str, Severity | None], ...]
    max_file_size: int
    #: the configuration's ``[retention]`` entries (``retention/callees``): run-and-drop, keeps.
    retention: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    #: how each file is analyzed: made here, once, from the options (and sent to the workers with the task).
    analyzer: Analyzer = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compare = self.options.compare
        analyzer = Analyzer(POLICIES[self.options.policy], dict(self.severities),
                            deciding(compare) if compare else decide_bound, configured(*self.retention))
        object.__setattr__(self, "analyzer", analyzer)

    @classmethod
    def of(cls, format: str, options: RunOptions, settings: Config, max_file_size: int) -> FileTask:
        return cls(format, options, tuple(sorted(settings.severity.items())), max_file_size,
                   (settings.run_and_drop, settings.keeps))

    def identity(self) -> list[object]:
        """What of the task changes a file's record, as JSON data for the cache key (the ``[retention]`` entries
        only when there are some, so that the keys of a project without them stay what they were)."""
        identity: list[object] = [self.options.policy, list(self.options.compare),
                                  [[code, None if level is None else level.label] for code, level in self.severities]]
        if any(self.retention):
            identity.append([list(entries) for entries in self.retention])
        return identity


@dataclass(frozen=True, slots=True)
class Analyzed:
    path: str
    #: what every format renders the file from.
    record: FileRecord
    counts: FileCounts


@dataclass(frozen=True, slots=True)
class Failed:
    """A file that was not analyzed: unreadable, skipped on purpose, or an internal error."""

    path: str
    message: str
    #: True when the run must exit 2 (I/O and internal errors); False for files skipped on purpose.
    is_error: bool


Outcome = Analyzed | Failed
