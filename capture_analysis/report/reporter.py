"""The reporter interface and the totals of a run."""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..rules import Severity
from .file_record import FileRecord, findings


@dataclass(slots=True)
class RunOptions:
    policy: str = "optimal"
    quiet: bool = False
    explain: bool = False
    #: ``--compare``: the policies shown side by side, the first one the baseline of the differences.
    compare: tuple[str, ...] = ()
    #: text: ANSI colour (``report.style``), decided once per run from ``--color``, the environment and the terminal.
    color: bool = False
    #: lsp, sarif: the page each rule links to (``--docs-url``, ``docs-url``); ``None``: lsp links to the page in
    #: the package, sarif (read on another machine) to none.
    docs_url: str | None = None
    #: text: the overview (counts by rule, the files with the most findings) instead of the files' findings.
    statistics: bool = False
    #: text: print the hints too (the command line hides them unless ``--show-hints`` or ``--fail-on hint``, as
    #: ``tsc`` leaves its suggestions to editors); they are counted either way.
    show_hints: bool = True
    #: text: the findings of one place (``--explain PATH:LINE``, ``batch/place``), without the totals line.
    place: bool = False


#: One file's share of a report, as the format renders it from the file's record; ``add`` takes it in order.
Piece = Any


@dataclass(frozen=True, slots=True)
class FileCounts:
    """What the totals and the exit code need from one file, without its analysis."""

    functions: int
    per_call: int
    per_iteration: int
    #: the severity of each diagnostic shown, in order.
    levels: tuple[Severity, ...]
    #: sites made once per program (``results.Site.once``).
    once: int = 0

    @classmethod
    def of(cls, analysis: FileAnalysis, shown: list[Diagnostic]) -> FileCounts:
        return cls(len(analysis.functions), sum(f.per_call for f in analysis.functions),
                   sum(f.per_iteration for f in analysis.functions), tuple(d.level for d in shown),
                   sum(f.once for f in analysis.functions))


@dataclass(slots=True)
class Totals:
    """What a run adds up over its files: the totals line, ``--statistics``, the JSON ``summary``, the exit code.

    Findings count as they are shown: suppressed ones and rules turned ``off`` never reach a record, and
    every severity counts, hints and infos included (``--fail-on`` decides only the exit code).
    """

    files: int = 0
    functions: int = 0
    per_call: int = 0
    per_iteration: int = 0
    once: int = 0
    unreadable: int = 0
    by_severity: dict[Severity, int] = field(default_factory=lambda: dict.fromkeys(Severity, 0))
    #: the findings of each rule at each severity: ``(code, name, severity label)`` -> count.
    by_rule: dict[tuple[str, str, str], int] = field(default_factory=dict)
    #: the files with findings, each with its count per severity (``by_severity``'s order, most severe first).
    by_file: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: ``--compare``: the run's ``[per_call, per_iteration, once]`` under each policy, in the order named.
    compared: list[list[int]] = field(default_factory=list)
    #: ``--compare``: the files where nothing allocates under any of the policies.
    unallocating: int = 0
    #: ``--baseline`` (``batch/adoption``): the findings it recorded, left out; those it recorded and the run no
    #: longer finds.  ``--since``: the findings that stand on no changed line, left out.  ``None``: not asked.
    baselined: int | None = None
    baseline_unmatched: int | None = None
    unchanged: int | None = None
    #: ``--counts``: the measured run's ``summary.measured``, and its account in the text report.
    measured: dict[str, Any] | None = None
    measured_text: list[str] = field(default_factory=list)

    def count(self, counts: FileCounts, record: FileRecord) -> None:
        self.files += 1
        self.functions += counts.functions
        self.per_call += counts.per_call
        self.per_iteration += counts.per_iteration
        self.once += counts.once
        if counts.levels:
            for level in counts.levels:
                self.by_severity[level] += 1
            self.by_file[record["path"]] = tuple(counts.levels.count(level) for level in SEVERITIES)
            by_rule = self.by_rule
            for diagnostic in findings(record):
                found = diagnostic["json"]
                key = (found["code"], found["rule"], found["severity"])
                by_rule[key] = by_rule.get(key, 0) + 1
        if record["compared"]:
            if not self.compared:
                self.compared = [[0, 0, 0] for _ in record["compared"]]
            for total, counted in zip(self.compared, record["compared"], strict=True):
                for index, value in enumerate(counted):
                    total[index] += value
            self.unallocating += not record["table"]

    def fails(self, fail_on: Severity | None, max_warnings: int | None = None) -> bool:
        """Whether the exit code is 1: a finding at ``fail_on`` or above, where ``max_warnings`` (ESLint's
        ``--max-warnings``) takes the warnings out of ``fail_on``'s hands: they fail only when there are more."""
        counted = [level for level in Severity if fail_on is not None and level >= fail_on]
        if max_warnings is not None:
            if self.by_severity[Severity.WARNING] > max_warnings:
                return True
            counted = [level for level in counted if level is not Severity.WARNING]
        return any(self.by_severity[level] for level in counted)


#: the severities, most severe first: the order of ``Totals.by_file`` and of every count the text prints.
SEVERITIES = tuple(sorted(Severity, reverse=True))


def indented_json(value: Any, depth: int) -> str:
    """``value`` as ``json.dumps(indent=2)`` writes it ``depth`` levels deep in a document.

    Formats that indent their whole document render each file's part this way, so that it can be written
    as it comes (``StreamedArray``); JSON strings hold no raw newline, so re-indenting the lines is exact.
    """
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)


def indented_array(items: Iterable[str], depth: int) -> Iterator[str]:
    """The array of ``items``, each already ``indented_json`` one level deeper, as ``indented_json`` lays it out
    ``depth`` levels deep, a piece at a time."""
    inner = "\n" + "  " * (depth + 1)
    empty = True
    for item in items:
        yield ("[" if empty else ",") + inner
        yield item
        empty = False
    yield "[]" if empty else "\n" + "  " * depth + "]"


class StreamedArray:
    """The one array of a JSON document that grows with the files, written item by item as they come.

    The text before the array is written with the first item (``head`` is asked for then), and the rest of
    the document by ``finish``, so a report holds no file's output once it is written: the JSON, SARIF and
    LSP documents of a whole repository stream like the text format does.  Items, separators and brackets
    are laid out as ``json.dumps(indent=2)`` lays out an array ``depth`` levels deep.
    """

    def __init__(self, out: TextIO, depth: int):
        self.out = out
        self.count = 0
        self.inner = "\n" + "  " * (depth + 1)
        self.close = "\n" + "  " * depth + "]"

    def add(self, item: str | Iterable[str], head: Callable[[], str]) -> None:
        """``item``: its text, or its pieces in order, written as they come."""
        self.out.write(head() + "[" + self.inner if self.count == 0 else "," + self.inner)
        if isinstance(item, str):
            self.out.write(item)
        else:
            self.out.writelines(item)
        self.count += 1

    def finish(self, head: str, tail: str) -> None:
        """``head`` and ``tail``: the document's text before and after the array."""
        self.out.write((self.close if self.count else head + "[]") + tail)


class Reporter(abc.ABC):
    """Base class: every format reports files; failures and the end are optional.

    A file is reported in two steps, ``render`` then ``add``, both from the file's record
    (``file_record``): ``--jobs`` workers and the cache hand records to the parent, which renders and adds
    them in input order without ever holding the analyses.
    """

    def __init__(self, out: TextIO, options: RunOptions):
        self.out = out
        self.options = options

    @abc.abstractmethod
    def render(self, record: FileRecord) -> Piece:
        """The file's share of the output; it must depend only on this file's record, the options and the format."""

    @abc.abstractmethod
    def add(self, piece: Piece) -> None:
        """Take one rendered file (in input order)."""

    def failure(self, path: str, message: str) -> None:  # noqa: B027 (a hook: a format may add nothing)
        """A file that could not be read or analyzed; the message is also printed on stderr."""

    def finish(self, totals: Totals) -> None:  # noqa: B027 (a hook: a format may add nothing)
        """Called once after the last file."""
