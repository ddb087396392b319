"""``--format github``: workflow commands that GitHub Actions turns into annotations.

    ::warning file=src/a.ts,line=6,col=7,endLine=6,endColumn=12,title=BX101 heap-capture::`total` needs ...

Values are escaped as ``@actions/core`` escapes them: ``%``, CR and LF in
the message; those and ``:`` and ``,`` in properties.  Columns are 1-based
UTF-16, as in every other format.  Annotations may carry columns only on a
single line, so a multi-line range keeps its lines and drops its columns.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from ..rules import Severity
from .file_record import DiagnosticRecord, FileRecord, findings, severity
from .reporter import Reporter, Totals

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.HINT: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: dict[str, str | int], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{name} {props}::{escape_data(message)}"


def display_path(path: str) -> str:
    return PurePath(os.path.normpath(path)).as_posix()


def annotation(path: str, diagnostic: DiagnosticRecord) -> str:
    found = diagnostic["json"]
    properties: dict[str, str | int] = {"file": display_path(path), "line": found["line"]}
    if found["line"] == found["end_line"]:
        properties.update(col=found["column"], endLine=found["end_line"], endColumn=found["end_column"])
    else:
        properties["endLine"] = found["end_line"]
    properties["title"] = f"{found['code']} {found['rule']}"
    return command(COMMANDS[severity(diagnostic)], properties, found["message"])


class GithubReporter(Reporter):
    def render(self, record: FileRecord) -> str:
        return "".join(annotation(record["path"], d) + "\n" for d in findings(record))

    def add(self, piece: str) -> None:
        self.out.write(piece)

    def failure(self, path: str, message: str) -> None:
        self.out.write(command("error", {"file": display_path(path), "title": "boxcheck"}, message) + "\n")

    def finish(self, totals: Totals) -> None:
        """Annotations only: the log needs no totals line."""
