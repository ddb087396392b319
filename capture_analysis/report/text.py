"""``--format text``: compiler-style diagnostics for people.

    path:line:col: severity[CODE] message
      12 |   let count = start;
         |       ^^^^^

then, per file, the functions that allocate, and a final totals line.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import replace

from .. import rules
from ..analyze import FileAnalysis
from ..compare import ComparedAnalysis, render_table
from ..diagnose import Diagnostic
from ..rules import Severity
from ..source import SourceFile
from .base import Reporter, Totals


def display_width(text: str) -> int:
    """Terminal cells: wide (CJK, most emoji) characters take two, combining marks none."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def frame(source: SourceFile, start: int, end: int) -> list[str]:
    """The source line with a caret run under ``start..end`` (first line only), aligned in terminal cells."""
    pos = source.position(start)
    line_start = source.position_offset_of_line(pos.line)
    text = source.line_text(pos.line).expandtabs(1)
    line_end = line_start + len(source.line_text(pos.line).encode("utf-8"))
    prefix = source.data[line_start:start].decode("utf-8", "replace").expandtabs(1)
    marked = source.data[start:max(start, min(end, line_end))].decode("utf-8", "replace").expandtabs(1)
    gutter = str(pos.line)
    pad = " " * len(gutter)
    return [f"  {gutter} | {text}", f"  {pad} | {' ' * display_width(prefix)}{'^' * max(1, display_width(marked))}"]


def render_diagnostic(analysis: FileAnalysis, diagnostic: Diagnostic, *, show_source: bool = True,
                      explain: bool = False) -> list[str]:
    source = analysis.source
    pos = source.position(diagnostic.start)
    lines = [f"{source.path}:{pos}: {diagnostic.level.label}[{diagnostic.rule.code}] {diagnostic.message}"]
    if show_source:
        lines.extend(frame(source, diagnostic.start, diagnostic.end))
    if explain and diagnostic.decision is not None:
        for step in diagnostic.decision.evidence:
            lines.append(f"  = {source.position(step.offset)}: {step.text}")
    return lines


def render_file(analysis: FileAnalysis, diagnostics: Iterable[Diagnostic], *, quiet: bool = False,
                explain: bool = False) -> list[str]:
    out: list[str] = []
    for diagnostic in type_notes_once(diagnostics):
        out.extend(render_diagnostic(analysis, diagnostic, show_source=not quiet, explain=explain))
    if quiet:
        return out
    allocating = [f for f in analysis.functions if f.sites]
    if allocating:
        out.append(f"{analysis.path}: allocations per call of each function")
        for report in allocating:
            pos = analysis.source.position(report.closure.start)
            sites = ", ".join(
                f"{site.kind.value}{{{', '.join(d.binding.name for d in site.decisions)}}}"
                + (" per iteration" if site.per_iteration else "")
                for site in report.sites
            )
            name = report.closure.name or f"<{report.closure.kind.value}>"
            out.append(f"  {name} ({pos}): {report.per_call} per call, {report.per_iteration} per iteration: {sites}")
    return out


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
            f"{plural(totals.per_call, 'allocation')} per call, {totals.per_iteration} per iteration; "
            f"{', '.join(parts)}")


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class TextReporter(Reporter):
    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> str:
        lines = render_file(analysis, diagnostics, quiet=self.options.quiet, explain=self.options.explain)
        if isinstance(analysis, ComparedAnalysis) and not self.options.quiet:
            lines.extend(render_table(analysis, analysis.comparison))
        return "\n".join(lines) + "\n" if lines else ""

    def add(self, piece: str) -> None:
        self.out.write(piece)

    def finish(self, totals: Totals) -> None:
        self.out.write(totals_line(totals) + "\n")
