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
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote, urlsplit

from .. import __version__
from ..rules import RULES, Rule
from .file_record import DiagnosticRecord, FileRecord, findings, severity
from .reporter import Reporter, RunOptions, StreamedArray, Totals, indented_json

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
#: stands for the results in the log's text; they are written file by file (``StreamedArray``).
RESULTS = "\x00boxcheck results\x00"
#: a result's depth: log, runs, run, results, result.
RESULT_DEPTH = 4
#: inline code in a rule's Markdown: plain text keeps its text, without the backticks.
CODE_SPAN = re.compile(r"`([^`]+)`")


def artifact_location(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(os.path.normpath(path)).as_posix()), "uriBaseId": SRCROOT}


def region(span: list[int]) -> dict[str, int]:
    """A record's ``[line, column, end_line, end_column]``."""
    return {"startLine": span[0], "startColumn": span[1], "endLine": span[2], "endColumn": span[3]}


def physical_location(path: str, span: list[int]) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": artifact_location(path), "region": region(span)}}


def rule_descriptor(rule: Rule, docs_url: str | None = None) -> dict[str, Any]:
    """The whole documentation rides along in ``help`` (code scanning shows it); each text is plain, with its
    Markdown beside it.

    ``helpUri`` only with a ``docs-url`` that is not a ``file:`` URL: a log is read on another machine (a code
    scanning service), where the page inside the package that wrote it is no link at all.
    """
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": CODE_SPAN.sub(r"\1", rule.summary), "markdown": rule.summary},
        "fullDescription": {"text": CODE_SPAN.sub(r"\1", rule.what), "markdown": rule.what},
    }
    if docs_url is not None and urlsplit(docs_url).scheme != "file":
        descriptor["helpUri"] = rule.href(docs_url)
    descriptor["help"] = {"text": plain_text(rule.doc()), "markdown": rule.doc()}
    descriptor["defaultConfiguration"] = {"level": rule.severity.sarif}
    return descriptor


def plain_text(markdown: str) -> str:
    """A rule's Markdown (``Rule.doc()``) as SARIF's ``help.text``, which viewers show where they render no
    Markdown: headings as their words, fenced code indented by four spaces, tables as aligned columns, list
    items with their dash, and inline code without its backticks."""
    out: list[str] = []
    lines = markdown.strip("\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            end = lines.index("```", index + 1)
            out.extend(f"    {code}".rstrip() for code in lines[index + 1:end])
            index = end + 1
        elif line.startswith("|"):
            rows: list[list[str]] = []
            while index < len(lines) and lines[index].startswith("|"):
                cells = [CODE_SPAN.sub(r"\1", cell.strip()) for cell in lines[index].strip().strip("|").split("|")]
                if not all(cell and set(cell) <= set("-:") for cell in cells):  # not the |---| line
                    rows.append(cells)
                index += 1
            widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
            for row in rows:
                out.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        else:
            out.append(CODE_SPAN.sub(r"\1", line.lstrip("#").strip() if line.startswith("#") else line))
            index += 1
    return "\n".join(out) + "\n"


def result(path: str, diagnostic: DiagnosticRecord) -> dict[str, Any]:
    found = diagnostic["json"]
    out: dict[str, Any] = {
        "ruleId": found["code"],
        "ruleIndex": list(RULES).index(found["code"]),
        "level": severity(diagnostic).sarif,
        "message": {"text": found["message"]},
        "locations": [physical_location(path, [found["line"], found["column"], found["end_line"],
                                               found["end_column"]])],
    }
    if "related" in diagnostic:
        out["relatedLocations"] = [
            {"id": index, **physical_location(path, place), "message": {"text": place[4]}}
            for index, place in enumerate(diagnostic["related"])
        ]
    if "data" in diagnostic:
        out["properties"] = diagnostic["data"]
    return out


def log(results: list[dict[str, Any]] | str, notifications: list[dict[str, Any]],
        docs_url: str | None = None) -> dict[str, Any]:
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "boxcheck", "version": __version__,
                                "rules": [rule_descriptor(rule, docs_url) for rule in RULES.values()]}},
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
            "columnKind": "utf16CodeUnits",
            "results": results,
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
        }],
    }


class SarifReporter(Reporter):
    """Writes the results file by file; the invocation, with the files that failed, ends the log."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.results = StreamedArray(out, RESULT_DEPTH - 1)
        self.notifications: list[dict[str, Any]] = []

    def render(self, record: FileRecord) -> Iterator[str]:
        """Each result as it is written: a large file's are never all in memory at once."""
        return (indented_json(result(record["path"], d), RESULT_DEPTH) for d in findings(record))

    def add(self, piece: Iterable[str]) -> None:
        for item in piece:
            self.results.add(item, self.head)

    def around(self) -> tuple[str, str]:
        """The log's text before and after its results."""
        text = json.dumps(log(RESULTS, self.notifications, self.options.docs_url), indent=2,
                          ensure_ascii=False) + "\n"
        head, _, tail = text.partition(json.dumps(RESULTS))
        return head, tail

    def head(self) -> str:
        return self.around()[0]

    def failure(self, path: str, message: str) -> None:
        self.notifications.append({
            "level": "error",
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(path)}}],
        })

    def finish(self, totals: Totals) -> None:
        self.results.finish(*self.around())
