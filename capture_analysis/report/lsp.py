"""``--format lsp``: ``textDocument/publishDiagnostics`` params, one object per file.

The same functions build what ``boxcheck lsp`` publishes, so the command
line and the language server can never disagree about a range.  Ranges are
LSP 3.17: 0-based lines, ``character`` in the negotiated position encoding
(UTF-16 unless the client offered another), exclusive ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..rules import RULES, Severity
from ..source import PositionEncoding, SourceFile
from .file_record import DiagnosticRecord, FileRecord, diagnostic_data, findings, severity
from .reporter import Reporter, RunOptions, StreamedArray, Totals, indented_array, indented_json

SOURCE = "boxcheck"


def document_uri(path: str) -> str:
    """The ``file://`` URI of a path as given: absolute, symbolic links left alone (editors keep them too)."""
    return Path(os.path.abspath(path)).as_uri()


def record_range(span: list[int]) -> dict[str, dict[str, int]]:
    """A record's ``[line, column, end_line, end_column]`` (1-based, UTF-16) as an LSP ``Range``."""
    return {"start": {"line": span[0] - 1, "character": span[1] - 1},
            "end": {"line": span[2] - 1, "character": span[3] - 1}}


def diagnostic_of(diagnostic: DiagnosticRecord, uri: str, docs_url: str | None = None) -> dict[str, Any]:
    """One LSP ``Diagnostic`` from a finding's record (``--format lsp``); ``uri`` is the document's."""
    found = diagnostic["json"]
    related = diagnostic.get("related", [])
    ranges = [record_range([found["line"], found["column"], found["end_line"], found["end_column"]]),
              *(record_range(place) for place in related)]
    return lsp_of(found["code"], severity(diagnostic), found["message"], diagnostic.get("data"), uri, docs_url,
                  ranges, [place[4] for place in related])


def lsp_diagnostic(analysis: FileAnalysis, diagnostic: Diagnostic, uri: str,
                   position_encoding: PositionEncoding | str = PositionEncoding.UTF16,
                   docs_url: str | None = None) -> dict[str, Any]:
    """What the language server publishes: what ``diagnostic_of`` makes of the finding's record, with the
    ranges measured in the encoding the client negotiated (``tests/test_format_lsp.py`` compares the two)."""
    source: SourceFile = analysis.source
    encoding = position_encoding if isinstance(position_encoding, PositionEncoding) else \
        PositionEncoding(position_encoding)  # a call of an Enum class runs Python code, a few µs per finding
    spans = [(diagnostic.start, diagnostic.end), *((start, end) for start, end, _ in diagnostic.related)]
    return lsp_of(diagnostic.rule.code, diagnostic.level, diagnostic.message, diagnostic_data(analysis, diagnostic),
                  uri, docs_url, [source.lsp_range(start, end, encoding) for start, end in spans],
                  [message for _, _, message in diagnostic.related])


def lsp_of(code: str, level: Severity, message: str, data: dict[str, Any] | None, uri: str, docs_url: str | None,
           ranges: list[dict[str, Any]], related: list[str]) -> dict[str, Any]:
    """The one place an LSP ``Diagnostic`` is made: ``ranges`` holds the finding's and then each related place's.

    ``codeDescription.href`` is the rule's section of the page at ``docs_url``, by default the page inside the
    installed package: the language server runs where the editor's files are, so that link always opens, and
    always documents the version that reported the finding.
    """
    rule = RULES[code]
    out: dict[str, Any] = {
        "range": ranges[0],
        "severity": level.lsp,
        "code": rule.code,
        "codeDescription": {"href": rule.href(docs_url)},
        "source": SOURCE,
        "message": message,
    }
    if related:
        out["relatedInformation"] = [{"location": {"uri": uri, "range": at}, "message": text}
                                     for at, text in zip(ranges[1:], related, strict=True)]
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

    def render(self, record: FileRecord) -> Iterator[str]:
        """The file's publish params as ``indented_json(params, 1)`` lays them out, a diagnostic at a time."""
        uri = document_uri(record["path"])
        docs_url = self.options.docs_url
        yield "{\n    \"uri\": " + json.dumps(uri, ensure_ascii=False) + ",\n    \"diagnostics\": "
        yield from indented_array((indented_json(diagnostic_of(d, uri, docs_url), 3)
                                   for d in findings(record)), 2)
        yield "\n  }"

    def add(self, piece: Iterable[str]) -> None:
        self.params.add(piece, str)

    def finish(self, totals: Totals) -> None:
        self.params.finish("", "\n")
