"""The reporter interface and the totals of a run."""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..analyze import Diagnostic, FileAnalysis
from ..rules import Severity


@dataclass(slots=True)
class RunOptions:
    policy: str = "optimal"
    quiet: bool = False
    explain: bool = False
    #: ``--compare``: the policies shown side by side, the first one the baseline of the differences.
    compare: tuple[str, ...] = ()


#: One file's share of a report, as JSON data (str, int, list, dict, None): small enough to cross a process
#: boundary and to be stored in the cache, where a ``FileAnalysis`` is neither.
Piece = Any


@dataclass(frozen=True, slots=True)
class FileCounts:
    """What the totals and the exit code need from one file, without its analysis."""

    functions: int
    per_call: int
    per_iteration: int
    #: the severity of each diagnostic shown, in order.
    levels: tuple[Severity, ...]

    @classmethod
    def of(cls, analysis: FileAnalysis, shown: list[Diagnostic]) -> FileCounts:
        return cls(len(analysis.functions), sum(f.per_call for f in analysis.functions),
                   sum(f.per_iteration for f in analysis.functions), tuple(d.level for d in shown))


@dataclass(slots=True)
class Totals:
    files: int = 0
    functions: int = 0
    per_call: int = 0
    per_iteration: int = 0
    unreadable: int = 0
    by_severity: dict[Severity, int] = field(default_factory=lambda: {s: 0 for s in Severity})

    def add(self, analysis: FileAnalysis, shown: list[Diagnostic]) -> None:
        self.count(FileCounts.of(analysis, shown))

    def count(self, counts: FileCounts) -> None:
        self.files += 1
        self.functions += counts.functions
        self.per_call += counts.per_call
        self.per_iteration += counts.per_iteration
        for level in counts.levels:
            self.by_severity[level] += 1


def indented_json(value: Any, depth: int) -> str:
    """``value`` as ``json.dumps(indent=2)`` writes it ``depth`` levels deep in a document.

    Formats that indent their whole document render each file's part this way, so that ``finish`` only
    joins text (``json_array``); JSON strings hold no raw newline, so re-indenting the lines is exact.
    """
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)


def json_array(items: list[str], depth: int) -> str:
    """An array of items made by ``indented_json(item, depth + 1)``, as ``json.dumps(indent=2)`` writes it."""
    if not items:
        return "[]"
    inner = "\n" + "  " * (depth + 1)
    return "[" + inner + ("," + inner).join(items) + "\n" + "  " * depth + "]"


class Reporter(abc.ABC):
    """Base class: every format reports files; failures and the end are optional.

    A file is reported in two steps, ``render`` then ``add``, so that ``--jobs`` workers can render
    and the cache can store what the parent adds, in input order, without ever holding the analyses.
    """

    def __init__(self, out: TextIO, options: RunOptions):
        self.out = out
        self.options = options

    def file(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> None:
        """One analyzed file, with the diagnostics to show (after configuration and suppressions)."""
        self.add(self.render(analysis, diagnostics))

    @abc.abstractmethod
    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> Piece:
        """The file's share of the output; it must depend only on this file, the options and the format."""

    @abc.abstractmethod
    def add(self, piece: Piece) -> None:
        """Take one rendered file (in input order)."""

    def failure(self, path: str, message: str) -> None:
        """A file that could not be read or analyzed; the message is also printed on stderr."""

    def finish(self, totals: Totals) -> None:
        """Called once after the last file."""
