"""``--format lsp``: ``textDocument/publishDiagnostics`` params, one object per file.

The same functions build what ``boxcheck lsp`` publishes, so the command
line and the language server can never disagree about a range.  Ranges are
LSP 3.17: 0-based lines, ``character`` in the negotiated position encoding
(UTF-16 unless the client offered another), exclusive ends.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..model import Closure
from ..records import FunctionReport, Retention
from ..source import PositionEncoding, SourceFile
from .base import Reporter, RunOptions, StreamedArray, Totals, indented_json

SOURCE = "boxcheck"


def document_uri(path: str) -> str:
    """The ``file://`` URI of a path as given: absolute, symbolic links left alone (editors keep them too)."""
    return Path(os.path.abspath(path)).as_uri()


def function_of(analysis: FileAnalysis, diagnostic: Diagnostic) -> FunctionReport | None:
    """The report of the function that declares the diagnostic's binding."""
    decision = diagnostic.decision
    return analysis.report_of.get(decision.binding.closure) if decision is not None else None


def diagnostic_data(analysis: FileAnalysis, diagnostic: Diagnostic) -> dict[str, Any] | None:
    """What a code action or a hover needs without re-running the analysis: the decision and its cost."""
    decision = diagnostic.decision
    if diagnostic.retention is not None:
        return retention_data(analysis, diagnostic.retention)
    if decision is None:
        return None
    site = decision.site
    report = function_of(analysis, diagnostic)
    return {
        "binding": decision.binding.name,
        "storage": decision.storage.value,
        "site": site.id if site is not None else None,
        "multiplicity": site.multiplicity if site is not None else None,
        "function": report.closure.name if report is not None else None,
        "allocations": {
            "per_call": report.per_call if report is not None else 0,
            "per_iteration": report.per_iteration if report is not None else 0,
            "once": report.once if report is not None else 0,
        },
    }


def retention_data(analysis: FileAnalysis, retention: Retention) -> dict[str, Any]:
    """A BX107 finding's facts: the binding, the closures that keep it and those that use it, the context."""
    def closure(c: Closure) -> dict[str, Any]:
        pos = analysis.source.position(c.start)
        return {"name": c.name, "line": pos.line, "column": pos.column}

    return {
        "binding": retention.binding.name,
        "function": retention.binding.closure.name,
        "retained_by": [closure(c) for c in retention.retained_by[:5]],
        "retained_by_count": len(retention.retained_by),
        "referenced_by": [closure(c) for c in retention.referenced_by],
        "context": retention.context,
    }


def lsp_diagnostic(analysis: FileAnalysis, diagnostic: Diagnostic, uri: str,
                   position_encoding: PositionEncoding | str = PositionEncoding.UTF16,
                   docs_url: str | None = None) -> dict[str, Any]:
    """One LSP ``Diagnostic``; ``uri`` is the document's, used for the related locations.

    ``codeDescription.href`` is the rule's section of the page at ``docs_url``, by default the page inside the
    installed package: the language server runs where the editor's files are, so that link always opens, and
    always documents the version that reported the finding.
    """
    source: SourceFile = analysis.source
    encoding = PositionEncoding(position_encoding)
    rule = diagnostic.rule
    out: dict[str, Any] = {
        "range": source.lsp_range(diagnostic.start, diagnostic.end, encoding),
        "severity": diagnostic.level.lsp,
        "code": rule.code,
        "codeDescription": {"href": rule.href(docs_url)},
        "source": SOURCE,
        "message": diagnostic.message,
    }
    if diagnostic.related:
        out["relatedInformation"] = [
            {"location": {"uri": uri, "range": source.lsp_range(start, end, encoding)}, "message": message}
            for start, end, message in diagnostic.related
        ]
    data = diagnostic_data(analysis, diagnostic)
    if data is not None:
        out["data"] = data
    return out


def publish_params(analysis: FileAnalysis, diagnostics: list[Diagnostic],
                   position_encoding: PositionEncoding | str = PositionEncoding.UTF16,
                   docs_url: str | None = None) -> dict[str, Any]:
    """``PublishDiagnosticsParams`` for one file: ``{uri, diagnostics}``."""
    uri = document_uri(analysis.path)
    return {"uri": uri,
            "diagnostics": [lsp_diagnostic(analysis, d, uri, position_encoding, docs_url) for d in diagnostics]}


class LspReporter(Reporter):
    """Writes a JSON array of publish params, file by file; files that could not be read are left out (stderr
    has them)."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.params = StreamedArray(out, 0)

    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> str:
        return indented_json(publish_params(analysis, diagnostics, docs_url=self.options.docs_url), 1)

    def add(self, piece: str) -> None:
        self.params.add(piece, str)

    def finish(self, totals: Totals) -> None:
        self.params.finish("", "\n")
