"""``--format text``: compiler-style diagnostics for people.

    path:line:col: severity[CODE] message
      12 |   let count = start;
         |       ^^^^^

then, per file, the functions that allocate (and the ``--compare`` table), and
at the end the ``--compare`` headline and a totals line; or, with
``--statistics``, only the overview of ``statistics`` and the totals line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, TextIO

from .. import rules
from ..compare import headline
from ..rules import Severity
from ..words import SHOWN, capped, plural
from .file_record import DiagnosticRecord, FileRecord, Frame, findings, severity
from .json_text import lines
from .reporter import SEVERITIES, Reporter, RunOptions, Totals
from .statistics import statistics
from .style import PLAIN, Style

UNSUPPORTED = rules.UNSUPPORTED_TYPE_SYNTAX.code
HINT = Severity.HINT.label


def frame(at: Frame, *, width: int = 0, style: Style = PLAIN, caret: Callable[[str], str] | None = None,
          label: str = "") -> list[str]:
    """A record's source line with a caret run under the finding, aligned in terminal cells.

    ``width``: the gutter's, so that the frames of one diagnostic line up; ``caret`` paints the carets,
    ``label`` follows them.
    """
    line, text, before, marked = at
    gutter = str(line).rjust(width)
    pad = style.gutter(" " * len(gutter) + " |")
    carets = (caret or str)("^" * marked)
    return [f"  {style.gutter(gutter + ' |')} {text}",
            f"  {pad} {' ' * before}{carets}{' ' + label if label else ''}"]


def render_diagnostic(path: str, diagnostic: DiagnosticRecord, *, show_source: bool = True, explain: bool = False,
                      style: Style = PLAIN) -> list[str]:
    found = diagnostic["json"]
    level = severity(diagnostic)
    line, column, code = found["line"], found["column"], found["code"]
    lines = [f"{style.path(f'{path}:{line}:{column}:')} "
             f"{style.severity(level, f'{level.label}[{code}]')} {found['message']}"]
    if not show_source:
        return lines
    steps = diagnostic.get("evidence", []) if explain else []
    width = max(len(str(found["line"])), *(len(str(step[2][0])) for step in steps)) if steps else 0
    lines.extend(frame(diagnostic["frame"], width=width, style=style, caret=partial(style.severity, level)))
    for index, (label, meaning, at, text) in enumerate(steps):
        lines.append(f"  {style.note(f'= note {index + 1}/{len(steps)}, {label}:')} {meaning}")
        lines.extend(frame(at, width=width, style=style, caret=style.note_caret, label=text))
    return lines


#: the key ``--counts`` adds to a function's JSON record: in the records' text, a name or any other string
#: holding it would be escaped (``\"measured\":``).
MEASURED = '"measured":'


def render_file(record: FileRecord, *, quiet: bool = False, explain: bool = False,
                style: Style = PLAIN, show_hints: bool = True) -> Iterator[str]:
    """The file's lines, one at a time as they are written: a file full of findings is never whole in memory
    as text (33 MB for the 6 MB generated file of docs/performance.md)."""
    path = record["path"]
    for diagnostic in type_notes_once(record):
        if show_hints or diagnostic["json"]["severity"] != HINT:
            yield from render_diagnostic(path, diagnostic, show_source=not quiet, explain=explain, style=style)
    if quiet or not record["allocating"]:
        return
    functions = lines(record["functions"])
    allocating: Iterable[dict[str, Any]] = (json.loads(functions[index]) for index in record["allocating"])
    if MEASURED in record["functions"]:  # a measured run (``counts``): what it allocated most first
        allocating = sorted(allocating, key=lambda f: -max(f.get("measured", {}).get("allocations", {}).values(),
                                                           default=0))
    yield f"{style.path(f'{path}:')} allocations per call of each function"
    for function in allocating:
        allocations = function["allocations"]
        sites = allocations["sites"]
        shown = capped([site_words(site) for site in sites[:SHOWN]], len(sites))
        name = function["name"] or f"<{function['kind']}>"
        once = f", {allocations['once']} once per program" if allocations["once"] else ""
        yield (f"  {name} ({function['line']}:{function['column']}): {allocations['per_call']} per call, "
               f"{allocations['per_iteration']} per iteration{once}: {shown}{measured_words(function)}")


def measured_words(function: dict[str, Any]) -> str:
    """``; measured: 1,200 calls, 19,200 allocations (legacy), 1,200 (optimal)``: what a ``--counts`` run made."""
    measured = function.get("measured")
    if measured is None:
        return ""
    made = ", ".join(f"{n:,} ({policy})" for policy, n in measured["allocations"].items())
    loops = f", {measured['iterations']:,} iterations" if measured["iterations"] else ""
    return f"; measured: {measured['calls']:,} calls{loops}, allocations {made}"


def site_words(site: dict[str, Any]) -> str:
    """``context{a, b, c, d and 12 more} per iteration``, from a function record's site."""
    names = capped(site["bindings"][:SHOWN], len(site["bindings"]))
    return f"{site['kind']}{{{names}}}" + {"per-iteration": " per iteration", "once": " once"}.get(
        site["multiplicity"], "")


def type_notes_once(record: FileRecord) -> Iterator[DiagnosticRecord]:
    """A file's findings with its BX004 notes as one: the first, with the count of the others (JSON and the
    editor keep each), decoded one at a time.

    One grammar gap repeated over a large file (a hundred variance annotations
    before the parser learned them) would otherwise bury every other line.
    The notes are counted first where a finding's text names the rule at all.
    """
    notes = sum(1 for d in findings(record) if d["json"]["code"] == UNSUPPORTED) \
        if any(UNSUPPORTED in text for text in record["diagnostics"]) else 0
    first = True
    for diagnostic in findings(record):
        if notes < 2 or diagnostic["json"]["code"] != UNSUPPORTED:
            yield diagnostic
        elif first:
            first = False
            found = diagnostic["json"]
            message = f"{found['message']} (and {notes - 1} more in this file; `--format json` lists each)"
            yield {**diagnostic, "json": {**found, "message": message}}


def totals_line(totals: Totals, hints_hidden: bool = False) -> str:
    """The last line of a run: its files, functions and allocations, and its findings named by severity as
    the diagnostic lines name them (``error``, ``warning``, ``info``, ``hint``); infos and hints only when
    there are any, and hidden hints said to be hidden, with the option that shows them."""
    counts = totals.by_severity
    parts = [plural(counts[level], level.label) for level in SEVERITIES
             if counts[level] or level >= Severity.WARNING]
    if hints_hidden and counts[Severity.HINT]:
        parts[-1] += " (not shown; --show-hints shows them)"
    if totals.unreadable:
        parts.append(f"{totals.unreadable} not analyzed")
    if totals.baselined:
        parts.append(f"{totals.baselined} in the baseline")
    if totals.unchanged:
        parts.append(f"{totals.unchanged} in unchanged code")
    files = totals.files
    return (f"{plural(files, 'file')}, {plural(totals.functions, 'function')}: "
            f"{plural(totals.per_call, 'allocation')} per call, {totals.per_iteration} per iteration"
            + (f", {totals.once} once per program" if totals.once else "") + f"; {', '.join(parts)}")


class TextReporter(Reporter):
    """``--quiet`` leaves only the diagnostic lines: no source, no allocations, no table, no headline, no totals.
    ``--statistics`` prints the overview instead of the files (as ruff does), with or without ``--quiet``."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.style = Style(options.color)

    def render(self, record: FileRecord) -> Iterator[str]:
        """Each line of the file's share, as it is written."""
        if self.options.statistics:
            return
        yield from render_file(record, quiet=self.options.quiet, explain=self.options.explain, style=self.style,
                               show_hints=self.options.show_hints)
        if not self.options.quiet:
            yield from record["table"]

    def add(self, piece: Iterable[str]) -> None:
        self.out.writelines(line + "\n" for line in piece)

    def finish(self, totals: Totals) -> None:
        if (self.options.quiet or self.options.place) and not self.options.statistics:
            return
        lines = statistics(totals, self.style) if self.options.statistics else []
        if self.options.compare:
            lines.extend(headline(self.options.compare, totals.compared or [[0, 0, 0]] * len(self.options.compare),
                                  totals.files, totals.unallocating, listed=not self.options.statistics,
                                  measured=totals.measured))
        lines.extend(totals.measured_text)
        lines.append(totals_line(totals, hints_hidden=not self.options.show_hints and not self.options.statistics))
        self.out.write("\n".join(lines) + "\n")
