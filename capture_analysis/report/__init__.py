"""Reporters: a file's record (``file_record``), then one module per output format.

A reporter renders each file from its record (``render``) and receives the
renderings file by file (``add``), failures to read or analyze a file
(``failure``), and the run's totals at the end (``finish``), so that nothing
needs every tree in memory at once.  ``FORMATS`` maps the ``--format`` names
to reporter classes.
"""

from __future__ import annotations

from .github import GithubReporter
from .json_report import JsonReporter
from .lsp import LspReporter
from .reporter import FileCounts, Piece, Reporter, RunOptions, Totals
from .sarif import SarifReporter
from .text import TextReporter

FORMATS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "lsp": LspReporter,
    "sarif": SarifReporter,
    "github": GithubReporter,
}

__all__ = ["FORMATS", "FileCounts", "Piece", "Reporter", "RunOptions", "Totals"]
