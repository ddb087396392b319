"""The reporter interface and the totals of a run."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TextIO

from ..analyze import Diagnostic, FileAnalysis
from ..rules import Severity


@dataclass(slots=True)
class RunOptions:
    policy: str = "optimal"
    quiet: bool = False
    explain: bool = False


@dataclass(slots=True)
class Totals:
    files: int = 0
    functions: int = 0
    per_call: int = 0
    per_iteration: int = 0
    unreadable: int = 0
    by_severity: dict[Severity, int] = field(default_factory=lambda: {s: 0 for s in Severity})

    def add(self, analysis: FileAnalysis, shown: list[Diagnostic]) -> None:
        self.files += 1
        self.functions += len(analysis.functions)
        self.per_call += sum(f.per_call for f in analysis.functions)
        self.per_iteration += sum(f.per_iteration for f in analysis.functions)
        for diagnostic in shown:
            self.by_severity[diagnostic.level] += 1


class Reporter(abc.ABC):
    """Base class: every format reports files; failures and the end are optional."""

    def __init__(self, out: TextIO, options: RunOptions):
        self.out = out
        self.options = options

    @abc.abstractmethod
    def file(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> None:
        """One analyzed file, with the diagnostics to show (after configuration and suppressions)."""

    def failure(self, path: str, message: str) -> None:
        """A file that could not be read or analyzed; the message is also printed on stderr."""

    def finish(self, totals: Totals) -> None:
        """Called once after the last file."""
