"""What a run asks of each of its files, and what each gives back, in a form that crosses processes.

A ``FileTask`` is everything besides a file's bytes that decides its output
(what of it decides a record is the cache's key), with the analyzers made
from it; an ``Outcome`` is what a file gives back, computed in this
process or in a worker (``outcome``) or read from the cache (``cache``).
They live here, below the three modules that pass them around, so that the
cache needs neither of the others.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
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
    from ..linking.interface import Interface
    from ..report.file_record import FileRecord
    from .baseline import Baseline
    from .changed_lines import ChangedLines


class FixMode(enum.Enum):
    """What ``--fix`` does with a file's fixed text (``fixing``)."""

    #: ``--fix``: write it over the file.
    WRITE = "write"
    #: ``--fix --diff``: a unified diff of the changes; nothing is written.
    DIFF = "diff"
    #: ``--fix`` on standard input: the whole text, for standard output.
    STDOUT = "stdout"


@dataclass(frozen=True, slots=True)
class FixRequest:
    """What ``--fix`` asks of every file of the run."""

    mode: FixMode
    #: what the run leaves out of its findings (``--baseline``, ``--since``): their fixes are left out too.
    baseline: Baseline | None = None
    since: ChangedLines | None = None


@dataclass(frozen=True, slots=True)
class FileTask:
    """Everything besides a file's bytes that decides its output; picklable, for the ``--jobs`` workers.

    The cache's key holds only what decides a file's record (``identity``): the format and the options that
    only change how a record is rendered (``--quiet``, ``--explain``, colour, ``docs-url``) are left out.
    """

    format: str
    options: RunOptions
    #: the configuration with the command line's rule options: which rules run in each file, at what level.
    settings: Config
    max_file_size: int
    #: ``--fix``: each file is fixed, then its findings are what remains (``fixing``).
    fix: FixRequest | None = None
    #: how the files are analyzed, one analyzer per distinct set of rule levels (per-file overrides make
    #: several): made in each process as its files ask (the task travels to the workers without them).
    analyzers: dict[tuple[tuple[str, Severity | None], ...], Analyzer] = field(
        init=False, repr=False, compare=False, default_factory=dict)

    def __reduce__(self) -> tuple[type[FileTask], tuple[object, ...]]:
        """The analyzers stay behind: each process makes its own (the parent makes some when it analyzes a file
        again, ``linked``), and a compiled ``Policy`` is not unpickled (mypyc's frozen dataclasses).  Not
        ``__getstate__``: Python 3.11.2's ``dataclass(slots=True)`` replaces it on a frozen class."""
        return FileTask, (self.format, self.options, self.settings, self.max_file_size, self.fix)

    @classmethod
    def of(cls, format: str, options: RunOptions, settings: Config, max_file_size: int) -> FileTask:
        return cls(format, options, settings, max_file_size)

    def analyzer(self, path: str) -> Analyzer:
        """How the file at ``path`` is analyzed: the run's policies, and the rule levels of that file."""
        return self.analyzer_for(self.settings.severities_for(path))

    def analyzer_for(self, levels: Mapping[str, Severity | None]) -> Analyzer:
        """The analyzer of a file whose rule levels are ``levels``: a ``--scheduler`` worker is given each
        file's, resolved by the client, where a relative path means what the user meant (``batch/cluster``)."""
        key = tuple(levels.items())
        analyzer = self.analyzers.get(key)
        if analyzer is None:
            compare = self.options.compare
            analyzer = Analyzer(POLICIES[self.options.policy], levels, deciding(compare) if compare else decide_bound,
                                configured(self.settings.run_and_drop, self.settings.keeps))
            self.analyzers[key] = analyzer
        return analyzer

    def identity(self) -> list[object]:
        """What of the task changes a file's record, as JSON data for the cache key: the per-file overrides with
        the rest, since the key holds each file's path (the ``[retention]`` entries only when there are some)."""
        identity: list[object] = [self.options.policy, list(self.options.compare), self.settings.rules_identity()]
        retention = (self.settings.run_and_drop, self.settings.keeps)
        if any(retention):
            identity.append([list(entries) for entries in retention])
        return identity


@dataclass(frozen=True, slots=True)
class Fixed:
    """What ``--fix`` did to a file (with ``--diff``: would do)."""

    #: the findings fixed (BX107, moved into a block of their own).
    findings: int
    #: the ``let`` declarations declared ``const``.
    declarations: int
    #: ``FixMode.DIFF``: the unified diff of the changes.
    diff: str = ""
    #: ``FixMode.STDOUT``: the whole text, fixed or not.
    text: bytes | None = None
    #: why fixes were left out, if some were.
    note: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.findings or self.declarations)


@dataclass(frozen=True, slots=True)
class Analyzed:
    path: str
    #: what every format renders the file from.
    record: FileRecord
    counts: FileCounts
    #: ``--fix``: what was fixed before the file was analyzed for its record.
    fixed: Fixed | None = None
    #: what the file tells the files that import it (``linking``); ``None`` under ``--fix``.
    interface: Interface | None = None


@dataclass(frozen=True, slots=True)
class Failed:
    """A file that was not analyzed: unreadable, skipped on purpose, or an internal error."""

    path: str
    message: str
    #: True when the run must exit 2 (I/O and internal errors); False for files skipped on purpose.
    is_error: bool


Outcome = Analyzed | Failed


def internal_error(path: str, error: BaseException) -> Failed:
    return Failed(path, f"internal error: {type(error).__name__}: {error} (please report this with the file)", True)
