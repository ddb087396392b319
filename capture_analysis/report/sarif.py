"""``--format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run; ``tool.driver.rules`` is the whole catalogue, so a result's
``ruleIndex`` is stable across runs.  Regions are 1-based with columns in
UTF-16 code units (``columnKind: utf16CodeUnits``) and exclusive end
columns, exactly the positions of the text and JSON formats.  Relative paths
stay relative to ``%SRCROOT%`` (the working directory), which is what GitHub
code scanning expects from a run at the repository root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from .. import __version__
from ..analyze import Diagnostic, FileAnalysis
from ..rules import RULES, Rule
from ..source import SourceFile
from .base import Reporter, RunOptions, Totals, indented_json, json_array
from .lsp import diagnostic_data

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
#: stands for the results while the rest of the log is written; the results (a run's ``results`` is 4 levels
#: deep: log, runs, run, results) were rendered as text, file by file.
RESULTS = "\x00boxcheck results\x00"
RESULT_DEPTH = 4


def artifact_location(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(os.path.normpath(path)).as_posix()), "uriBaseId": SRCROOT}


def region(source: SourceFile, start: int, end: int) -> dict[str, int]:
    first, last = source.position(start), source.position(end)
    return {"startLine": first.line, "startColumn": first.column, "endLine": last.line, "endColumn": last.column}


def physical_location(source: SourceFile, start: int, end: int) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": artifact_location(source.path),
                                 "region": region(source, start, end)}}


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {"text": rule.doc(), "markdown": rule.doc()},
        "defaultConfiguration": {"level": rule.severity.sarif},
    }


def result(analysis: FileAnalysis, diagnostic: Diagnostic) -> dict[str, Any]:
    source = analysis.source
    out: dict[str, Any] = {
        "ruleId": diagnostic.rule.code,
        "ruleIndex": list(RULES).index(diagnostic.rule.code),
        "level": diagnostic.level.sarif,
        "message": {"text": diagnostic.message},
        "locations": [physical_location(source, diagnostic.start, diagnostic.end)],
    }
    if diagnostic.related:
        out["relatedLocations"] = [
            {"id": index, **physical_location(source, start, end), "message": {"text": message}}
            for index, (start, end, message) in enumerate(diagnostic.related)
        ]
    data = diagnostic_data(analysis, diagnostic)
    if data is not None:
        out["properties"] = data
    return out


def log(results: list[dict[str, Any]] | str, notifications: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "boxcheck", "version": __version__,
                                "rules": [rule_descriptor(rule) for rule in RULES.values()]}},
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
            "columnKind": "utf16CodeUnits",
            "results": results,
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
        }],
    }


class SarifReporter(Reporter):
    """Results are kept as text; the log is written once, at the end."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.results: list[str] = []
        self.notifications: list[dict[str, Any]] = []

    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> list[str]:
        return [indented_json(result(analysis, d), RESULT_DEPTH) for d in diagnostics]

    def add(self, piece: list[str]) -> None:
        self.results.extend(piece)

    def failure(self, path: str, message: str) -> None:
        self.notifications.append({
            "level": "error",
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(path)}}],
        })

    def finish(self, totals: Totals) -> None:
        text = json.dumps(log(RESULTS, self.notifications), indent=2, ensure_ascii=False)
        results = json_array(self.results, RESULT_DEPTH - 1)
        self.out.write(text.replace(json.dumps(RESULTS), results, 1) + "\n")
