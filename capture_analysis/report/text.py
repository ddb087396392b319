"""``--format text``: compiler-style diagnostics for people.

    path:line:col: severity[CODE] message
      12 |   let count = start;
         |       ^^^^^

then, per file, the functions that allocate, and a final totals line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import TextIO

from .. import rules
from ..analyze import FileAnalysis
from ..compare import ComparedAnalysis, render_table
from ..diagnose import Diagnostic
from ..records import SHOWN, Site, capped
from ..rules import Severity
from ..source import SourceFile
from . import evidence
from .base import Reporter, RunOptions, Totals
from .style import PLAIN, Style

#: a name at a step's offset (JavaScript identifiers are Unicode letters, digits, `_` and `$`).
WORD = re.compile(r"[\w$]+")


def display_width(text: str) -> int:
    """Terminal cells: wide (CJK, most emoji) characters take two, combining marks none."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def frame(source: SourceFile, start: int, end: int, *, width: int = 0, style: Style = PLAIN,
          caret: Callable[[str], str] | None = None, label: str = "") -> list[str]:
    """The source line with a caret run under ``start..end`` (first line only), aligned in terminal cells.

    ``width``: the gutter's, so that the frames of one diagnostic line up; ``caret`` paints the carets,
    ``label`` follows them.
    """
    pos = source.position(start)
    line_start = source.position_offset_of_line(pos.line)
    text = source.line_text(pos.line).expandtabs(1)
    line_end = line_start + len(source.line_text(pos.line).encode("utf-8"))
    prefix = source.data[line_start:start].decode("utf-8", "replace").expandtabs(1)
    marked = source.data[start:max(start, min(end, line_end))].decode("utf-8", "replace").expandtabs(1)
    gutter = str(pos.line).rjust(width)
    pad = style.gutter(" " * len(gutter) + " |")
    carets = (caret or str)("^" * max(1, display_width(marked)))
    return [f"  {style.gutter(gutter + ' |')} {text}",
            f"  {pad} {' ' * display_width(prefix)}{carets}{' ' + label if label else ''}"]


def token_end(source: SourceFile, offset: int) -> int:
    """The end of the name (or else the one character) at ``offset``, where a step's caret run stops."""
    rest = source.data[offset:offset + 256].split(b"\n", 1)[0].decode("utf-8", "ignore")
    word = WORD.match(rest)
    return offset + len((word.group() if word else rest[:1]).encode("utf-8", "surrogatepass"))


def render_diagnostic(analysis: FileAnalysis, diagnostic: Diagnostic, *, show_source: bool = True,
                      explain: bool = False, style: Style = PLAIN) -> list[str]:
    source = analysis.source
    pos = source.position(diagnostic.start)
    level = diagnostic.level
    lines = [f"{style.path(f'{source.path}:{pos}:')} "
             f"{style.severity(level, f'{level.label}[{diagnostic.rule.code}]')} {diagnostic.message}"]
    if not show_source:
        return lines
    steps = diagnostic.evidence if explain else []
    subject = diagnostic.decision or diagnostic.retention
    width = max([len(str(pos.line)), *(len(str(source.position(s.offset).line)) for s in steps)]) if steps else 0
    lines.extend(frame(source, diagnostic.start, diagnostic.end, width=width, style=style,
                       caret=partial(style.severity, level)))
    for index, step in enumerate(steps):
        lines.append(f"  {style.note(f'= note {index + 1}/{len(steps)}, {evidence.label(step)}:')} "
                     f"{evidence.meaning(subject, index)}")
        lines.extend(frame(source, step.offset, token_end(source, step.offset), width=width, style=style,
                           caret=style.note_caret, label=step.text))
    return lines


def render_file(analysis: FileAnalysis, diagnostics: Iterable[Diagnostic], *, quiet: bool = False,
                explain: bool = False, style: Style = PLAIN) -> list[str]:
    out: list[str] = []
    for diagnostic in type_notes_once(diagnostics):
        out.extend(render_diagnostic(analysis, diagnostic, show_source=not quiet, explain=explain, style=style))
    if quiet:
        return out
    allocating = [f for f in analysis.functions if f.sites]
    if allocating:
        out.append(f"{style.path(f'{analysis.path}:')} allocations per call of each function")
        for report in allocating:
            pos = analysis.source.position(report.closure.start)
            sites = capped([site_words(site) for site in report.sites[:SHOWN]], len(report.sites))
            name = report.closure.name or f"<{report.closure.kind.value}>"
            once = f", {report.once} once per program" if report.once else ""
            out.append(f"  {name} ({pos}): {report.per_call} per call, {report.per_iteration} per iteration{once}: "
                       f"{sites}")
    return out


def site_words(site: Site) -> str:
    """``context{a, b, c, d and 12 more} per iteration``."""
    names = capped([d.binding.name for d in site.decisions[:SHOWN]], len(site.decisions))
    return f"{site.kind.value}{{{names}}}" + {"per-iteration": " per iteration", "once": " once"}.get(
        site.multiplicity, "")


def type_notes_once(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """A file's BX004 notes as one: the first, with the count of the others (JSON and the editor keep each).

    One grammar gap repeated over a large file (a hundred variance annotations
    before the parser learned them) would otherwise bury every other line.
    """
    shown = list(diagnostics)
    notes = [d for d in shown if d.rule is rules.UNSUPPORTED_TYPE_SYNTAX]
    if len(notes) < 2:
        return shown
    first = replace(notes[0], message=f"{notes[0].message} (and {len(notes) - 1} more in this file; "
                                      "`--format json` lists each)")
    return [first if d is notes[0] else d for d in shown
            if d is notes[0] or d.rule is not rules.UNSUPPORTED_TYPE_SYNTAX]


def totals_line(totals: Totals) -> str:
    counts = totals.by_severity
    parts = [plural(counts[Severity.ERROR], "error"), plural(counts[Severity.WARNING], "warning")]
    if counts[Severity.INFO] or counts[Severity.HINT]:
        parts.append(plural(counts[Severity.INFO] + counts[Severity.HINT], "note"))
    if totals.unreadable:
        parts.append(f"{totals.unreadable} not analyzed")
    files = totals.files
    return (f"{plural(files, 'file')}, {plural(totals.functions, 'function')}: "
            f"{plural(totals.per_call, 'allocation')} per call, {totals.per_iteration} per iteration"
            + (f", {totals.once} once per program" if totals.once else "") + f"; {', '.join(parts)}")


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class TextReporter(Reporter):
    """``--quiet`` leaves only the diagnostic lines: no source, no allocations, no table, no totals."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.style = Style(options.color)

    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> str:
        lines = render_file(analysis, diagnostics, quiet=self.options.quiet, explain=self.options.explain,
                            style=self.style)
        if isinstance(analysis, ComparedAnalysis) and not self.options.quiet:
            lines.extend(render_table(analysis, analysis.comparison))
        return "\n".join(lines) + "\n" if lines else ""

    def add(self, piece: str) -> None:
        self.out.write(piece)

    def finish(self, totals: Totals) -> None:
        if not self.options.quiet:
            self.out.write(totals_line(totals) + "\n")
