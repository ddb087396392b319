"""``--explain PATH:LINE[:COL]``: the findings at one place of a file, explained, and nothing else.

The whole file's evidence is a long read (177 lines on one file of
``@xyflow/system``) when the question is about one line, the one an editor
or a CI log points at.  A place narrows the run's one file, as ``adoption``
narrows a run's findings, after the file is analyzed (or read from the
cache):

* ``PATH:LINE``: the findings whose range covers the line, and, in JSON,
  the bindings declared on it;
* ``PATH:LINE:COL``: the finding whose range holds that position (its start
  included, its end not), and, in JSON, the binding whose name does; a
  column counts UTF-16 code units from 1, as every position boxcheck prints.

The text format prints those findings with their evidence, without the
file's allocation summary or the totals line; JSON lists those findings and
bindings, the functions that declare the bindings, and a summary that
counts only them.  A place with no finding says so in one line (on standard
error in the formats read by programs), with the findings nearby: those
whose evidence passes through the line, else the file's others.  That is no
error: exit code 0, as for a file with no finding.  A place outside the file
(a line past its end, a column past its line's) is one: exit code 2.

``PATH:LINE`` is read as a place only when no file or directory has that
name: a directory named ``src:12`` is explained whole, as before; the
line number ends the text, so ``v:2.ts:7`` is line 7 of ``v:2.ts``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..report.file_record import DiagnosticRecord, FileRecord, findings, packed_of, severity
from ..report.json_text import lines
from ..source import utf16_length
from ..words import capped, plural
from .loading import LoadError, load
from .tasks import Analyzed, Outcome

PLACE = re.compile(r"^(?P<path>.+?):(?P<line>[1-9]\d*)(?::(?P<column>[1-9]\d*))?$")


class PlaceError(Exception):
    """A place that is not in its file: a usage error (exit 2), with this message."""


@dataclass(slots=True)
class Place:
    path: str
    line: int
    column: int | None = None
    #: the file was analyzed; the findings kept, and the positions (``line:column``) of the others, the nearest
    #: first: on the line (when a column was given), with evidence on it, anywhere in the file.
    seen: bool = False
    found: int = 0
    near: list[list[str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Place | None:
        """The place ``text`` names, or ``None`` when it names a path (one that exists, or no place)."""
        match = PLACE.match(text)
        if match is None or os.path.exists(text):
            return None
        column = match["column"]
        return cls(match["path"], int(match["line"]), None if column is None else int(column))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" + ("" if self.column is None else f":{self.column}")

    def refusal(self, args: argparse.Namespace) -> str | None:
        """Why the run cannot explain this place, if it cannot: a place is the run's one input, in its file."""
        if args.paths or args.stdin_filename is not None:
            return f"--explain {self} explains one place: give no other PATH"
        try:
            self.check(args.max_file_size)
        except PlaceError as error:
            return str(error)
        return None

    def check(self, max_bytes: int) -> None:
        """Raises ``PlaceError`` when the place is not in its file; a file that cannot be read is left to the run,
        which says why as for any file."""
        if os.path.isdir(self.path):
            raise PlaceError(f"--explain {self}: {self.path} is a directory; a place is in a file")
        source = load(self.path, max_bytes)
        if isinstance(source, LoadError):
            return
        if self.line > source.line_count:
            raise PlaceError(f"--explain {self}: {self.path} has {plural(source.line_count, 'line')}")
        units = utf16_length(source.line_text(self.line).encode("utf-8", "surrogatepass"))
        if self.column is not None and self.column > units + 1:
            raise PlaceError(f"--explain {self}: line {self.line} of {self.path} has {plural(units, 'column')}")

    def narrow(self, outcome: Outcome) -> Outcome:
        """The file's findings and bindings at the place, and the functions that declare those bindings."""
        if not isinstance(outcome, Analyzed):
            return outcome
        record = outcome.record
        decoded = list(findings(record))
        kept = [d for d in decoded if self.holds(d["json"])]
        others = [d for d in decoded if d not in kept]
        self.seen = True
        self.found += len(kept)
        self.near = [[at(d) for d in others if d["json"]["line"] <= self.line <= d["json"]["end_line"]],
                     [at(d) for d in others if self.line in d.get("lines", ())],
                     [at(d) for d in others]]
        counts = dataclasses.replace(outcome.counts, levels=tuple(severity(d) for d in kept))
        narrowed: FileRecord = {**record, "diagnostics": packed_of(record, decoded, kept), "allocating": [],
                                "table": []}
        if record["bindings"] is not None:
            bindings = [text for text in lines(record["bindings"]) if self.names(json.loads(text))]
            owners = {owner(json.loads(text)) for text in bindings}
            functions = [text for text in lines(record["functions"]) if owner_of(json.loads(text)) in owners]
            allocations = [json.loads(text)["allocations"] for text in functions]
            narrowed["bindings"], narrowed["functions"] = "\n".join(bindings), "\n".join(functions)
            counts = dataclasses.replace(counts, functions=len(functions),
                                         per_call=sum(a["per_call"] for a in allocations),
                                         per_iteration=sum(a["per_iteration"] for a in allocations),
                                         once=sum(a["once"] for a in allocations))
        return dataclasses.replace(outcome, record=narrowed, counts=counts)

    def holds(self, found: dict[str, Any]) -> bool:
        """Whether a finding's range covers the line, or holds the position."""
        if self.column is None:
            return bool(found["line"] <= self.line <= found["end_line"])
        start, end = (found["line"], found["column"]), (found["end_line"], found["end_column"])
        position = (self.line, self.column)
        return start <= position < end or start == end == position

    def names(self, binding: dict[str, Any]) -> bool:
        """Whether a binding is declared on the line, or its name holds the position."""
        if binding["line"] != self.line:
            return False
        width = utf16_length(binding["name"].encode("utf-8", "surrogatepass"))
        return self.column is None or binding["column"] <= self.column < binding["column"] + width

    def finish(self, out: TextIO) -> None:
        """The line that says there is no finding at the place, and where the nearest are."""
        if self.found or not self.seen:
            return
        on_line, through, anywhere = self.near
        if on_line:
            near = f"line {self.line} has {findings_at(on_line)}"
        elif through:
            near = f"the evidence of {findings_at(through)} passes through line {self.line}"
        elif anywhere:
            near = f"the file has {findings_at(anywhere)}"
        else:
            near = "the file has none"
        print(f"boxcheck: no finding at {self} ({near})", file=out)


def findings_at(positions: list[str]) -> str:
    return f"{'the finding' if len(positions) == 1 else 'the findings'} at {capped(positions)}"


def at(diagnostic: DiagnosticRecord) -> str:
    found = diagnostic["json"]
    return f"{found['line']}:{found['column']}"


def owner(binding: dict[str, Any]) -> tuple[int, int] | None:
    """The position of the function that declares a binding (``None``: the module)."""
    function = binding["function"]
    return None if function is None else (function["line"], function["column"])


def owner_of(function: dict[str, Any]) -> tuple[int, int]:
    return function["line"], function["column"]
