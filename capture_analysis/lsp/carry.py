"""What the editor shows while the text has a syntax error, and answers from an analysis of an older text.

Typing leaves the text broken between most keystrokes.  The analysis of a
broken text is conservative around the error (a function with a syntax
error has unknown captures) and tree-sitter's recovery can spread the error
over many lines, so publishing it as it is floods the editor with findings
that go away one keystroke later.  Instead, while the text has a syntax
error, the server publishes the syntax errors and keeps the findings of the
last analysis without one, for the functions that no edit since touches
(``shown``).  A finding's *function* is the one that declares its binding:
everything that decides the binding (its references, the closures that
capture it, their writes) is inside it, so an edit outside leaves the
finding as it was, up to where the lines moved.  The syntax errors
themselves need no say in this: the text parsed when the findings were
made, so its errors come from the edits since.  tree-sitter's error
recovery, on the other hand, can make one ERROR node of a whole file,
which would be no guide to which functions are damaged.

Whatever is carried to a newer text goes through its ``EditMap``: ranges
are moved, and the ``line:column`` positions inside messages and hovers are
rewritten to where those places are now (a position inside edited text is
left as it was).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from .. import rules
from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..model import Closure, FileModel
from ..report.lsp import lsp_diagnostic
from ..source import PositionEncoding, SourceFile
from .edit_map import EditMap

SYNTAX_CODES = frozenset({rules.SYNTAX_ERROR.code, rules.UNSUPPORTED_TYPE_SYNTAX.code})
#: a 1-based ``line:column`` as the reports write it (``source.Position``), also inside site ids (``f@3:5#0``).
POSITION = re.compile(r"\b(\d+):(\d+)\b")

Span = tuple[int, int]


def broken(analysis: FileAnalysis) -> bool:
    """The text has a syntax error (syntax the parser only does not understand, BX004, is not one)."""
    return any(not problem.type_only for problem in analysis.syntax)


def innermost_closure(model: FileModel, start: int, end: int) -> Closure:
    """The innermost function whose text contains ``[start, end)`` (the module at worst)."""
    closure = model.module
    while True:
        inner = next((c for c in closure.children if c.start <= start and end <= c.end), None)
        if inner is None:
            return closure
        closure = inner


def owner(model: FileModel, diagnostic: Diagnostic) -> Closure:
    """The function whose text decides the finding: its binding's, else the one around it."""
    if diagnostic.decision is not None:
        return diagnostic.decision.binding.closure
    return innermost_closure(model, diagnostic.start, diagnostic.end)


def owner_span(model: FileModel, diagnostic: Diagnostic) -> Span:
    """A syntax error is its own owner: it is kept only as long as no edit touches it."""
    if diagnostic.rule.code in SYNTAX_CODES:
        return diagnostic.start, diagnostic.end
    closure = owner(model, diagnostic)
    return closure.start, closure.end


def moved_positions(text: str, old: SourceFile, edits: EditMap, new: SourceFile) -> str:
    """``text`` with each ``line:column`` of ``old`` that an edit did not replace rewritten for ``new``."""
    return Moves(old, edits, new).text(text)


class Moves:
    """Where each ``line:column`` of ``old`` lies in ``new``, through ``edits``, each place worked out once: the
    findings of one publish name the same places again and again (the 368 findings kept while the 5,000-line
    benchmark file is broken: 1,264 positions in their messages and data, 697 of them distinct)."""

    def __init__(self, old: SourceFile, edits: EditMap, new: SourceFile):
        self.old = old
        self.edits = edits
        self.new = new
        self.known: dict[str, str] = {}

    def text(self, text: str) -> str:
        return text if self.edits.identity else POSITION.sub(self.move, text)

    def move(self, match: re.Match[str]) -> str:
        found = match.group(0)
        moved = self.known.get(found)
        if moved is None:
            moved = self.known[found] = self.moved(found, int(match.group(1)), int(match.group(2)))
        return moved

    def moved(self, found: str, line: int, column: int) -> str:
        if not 1 <= line <= self.old.line_count:
            return found
        offset = self.old.offset_at(line - 1, column - 1, PositionEncoding.UTF16)
        if str(self.old.position(offset)) != found:
            return found
        moved = self.edits.forward(offset)
        return found if moved is None else str(self.new.position(moved))

    def data(self, data: Any) -> Any:
        """A diagnostic's ``data`` with its positions moved: a site id (``f@3:5#0``), and every ``{line, column}``
        (the closures BX107 names)."""
        if isinstance(data, dict):
            moved = {key: self.data(value) if isinstance(value, (dict, list)) else value
                     for key, value in data.items()}
            if isinstance(data.get("site"), str):
                moved["site"] = self.text(data["site"])
            if isinstance(data.get("line"), int) and isinstance(data.get("column"), int):
                line, _, column = self.text(f"{data['line']}:{data['column']}").partition(":")
                moved["line"], moved["column"] = int(line), int(column)
            return moved
        if isinstance(data, list):
            return [self.data(item) if isinstance(item, (dict, list)) else item for item in data]
        return data


@dataclass(frozen=True, slots=True)
class Entry:
    """One published diagnostic and the byte spans it was placed from."""

    lsp: dict[str, Any]
    #: the range, then each related location's range, in the analyzed text.
    spans: tuple[Span, ...]
    owner: Span


def relocated(entry: Entry, moves: Moves, encoding: PositionEncoding) -> dict[str, Any] | None:
    """The diagnostic placed in ``moves.new``; None when an edit touched its range. Related locations that an
    edit touched are dropped."""
    edits, new = moves.edits, moves.new
    if edits.identity:
        return entry.lsp
    ranges = [edits.span(start, end) for start, end in entry.spans]
    if ranges[0] is None:
        return None
    out = dict(entry.lsp)
    out["range"] = new.lsp_range(*ranges[0], encoding)
    out["message"] = moves.text(entry.lsp["message"])
    if "data" in entry.lsp:
        out["data"] = moves.data(entry.lsp["data"])
    if "relatedInformation" in entry.lsp:
        related = []
        for info, span in zip(entry.lsp["relatedInformation"], ranges[1:], strict=True):
            if span is not None:
                location = {**info["location"], "range": new.lsp_range(*span, encoding)}
                related.append({**info, "location": location, "message": moves.text(info["message"])})
        out["relatedInformation"] = related
    return out


def typed_lines(old: SourceFile, edits: EditMap, new: SourceFile) -> tuple[frozenset[int], int]:
    """The 0-based lines of ``old`` that ``edits`` typed in, and the first line that may lie elsewhere in ``new``
    (an edit that types or deletes a line break moves every line after it; else the line count).  Every other
    line before that one is in ``new`` at the same line, byte for byte."""
    typed = set()
    moved_from = old.line_count
    for before, after in pairwise(edits.pieces):
        # the bytes between two runs, in both texts (the runs count the sentinel byte before the text)
        old_start, old_end = before.old + before.length - 1, after.old - 1
        typed.add(old.line_of(old_end))
        if old.data.find(b"\n", old_start, old_end) >= 0 \
                or new.data.find(b"\n", before.new + before.length - 1, after.new - 1) >= 0:
            moved_from = min(moved_from, old.line_of(old_start))
    return frozenset(typed), moved_from


def entry_lines(entry: Entry) -> frozenset[int]:
    """Every 0-based line of the analyzed text that the entry's placement depends on: its ranges' ends, and each
    line that a ``line:column`` in its messages names, or a ``line`` in its data (more than ``Moves.data`` moves:
    a line too many only costs the entry the short way)."""
    lsp = entry.lsp
    where = lsp["range"]
    lines = {where["start"]["line"], where["end"]["line"]}
    texts = [lsp["message"]]
    for info in lsp.get("relatedInformation", ()):
        where = info["location"]["range"]
        lines.add(where["start"]["line"])
        lines.add(where["end"]["line"])
        texts.append(info["message"])
    waiting = [lsp["data"]] if "data" in lsp else []
    while waiting:
        item = waiting.pop()
        if isinstance(item, dict):
            if isinstance(item.get("line"), int):
                lines.add(item["line"] - 1)
            if isinstance(item.get("site"), str):
                texts.append(item["site"])
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
    lines.update([int(line) - 1 for line, _ in POSITION.findall("\n".join(texts))])
    return frozenset(lines)


class Carried:
    """The findings of one analysis, and the map from its text to the document's current one."""

    def __init__(self, analysis: FileAnalysis, diagnostics: Sequence[Diagnostic], uri: str,
                 encoding: PositionEncoding, edits: EditMap):
        self.source = analysis.source
        self.encoding = encoding
        self.edits = edits
        self.entries = [Entry(lsp_diagnostic(analysis, d, uri, encoding),
                              ((d.start, d.end), *((start, end) for start, end, _ in d.related)),
                              owner_span(analysis.model, d))
                        for d in diagnostics]
        self.lines: list[frozenset[int]] | None = None

    def placed(self, source: SourceFile) -> list[dict[str, Any]]:
        """The findings whose owner no edit since touched, placed in ``source`` (the current text).

        An edit moves no line before it, nor any other line unless it types or deletes a line break: a finding
        that names none of the lines typed in (its ranges' ends, the ``line:column`` in its messages and data)
        and none that may have moved is placed as it was, with no position worked out again
        (``tests/test_lsp_carry.py`` checks that it is what ``relocated`` makes of it).
        """
        edits = self.edits
        if edits.identity:
            return [entry.lsp for entry in self.entries]
        out = []
        moves = Moves(self.source, edits, source)
        typed, moved_from = typed_lines(self.source, edits, source)
        untyped = [lines.isdisjoint(typed) and max(lines) < moved_from for lines in self.named_lines()]
        for entry, as_was in zip(self.entries, untyped, strict=True):
            if edits.span(*entry.owner) is None:
                continue
            if as_was and all(edits.span(start, end) is not None for start, end in entry.spans):
                out.append(entry.lsp)
                continue
            moved = relocated(entry, moves, self.encoding)
            if moved is not None:
                out.append(moved)
        return out

    def named_lines(self) -> list[frozenset[int]]:
        """The 0-based lines of the analyzed text that each entry names, made on the first publish that asks."""
        if self.lines is None:
            self.lines = [entry_lines(entry) for entry in self.entries]
        return self.lines


def position_key(diagnostic: dict[str, Any]) -> tuple[int, int]:
    start = diagnostic["range"]["start"]
    return start["line"], start["character"]


def shown(analysis: FileAnalysis, diagnostics: Sequence[Diagnostic], uri: str, encoding: PositionEncoding,
          edits: EditMap, kept: Carried | None, source: SourceFile) -> tuple[list[dict[str, Any]], Carried | None]:
    """What to publish for an analysis whose text ``edits`` maps to ``source``, and what to keep.

    Without a syntax error: its findings, which are kept.  With one: its syntax errors, and the kept
    findings of the functions no edit touched since; for a document never seen without a syntax error,
    its own findings, but none of a function that contains a syntax error (they are conservative).
    """
    if not broken(analysis):
        carried = Carried(analysis, diagnostics, uri, encoding, edits)
        return carried.placed(source), carried
    syntax = Carried(analysis, [d for d in diagnostics if d.rule.code in SYNTAX_CODES], uri, encoding, edits)
    if kept is None:
        own = [d for d in diagnostics if d.rule.code not in SYNTAX_CODES
               and not owner(analysis.model, d).has_syntax_error]
        findings = Carried(analysis, own, uri, encoding, edits).placed(source)
    else:
        findings = kept.placed(source)
    return sorted(syntax.placed(source) + findings, key=position_key), kept
