"""One file's record: what every format renders a file from, so that one analysis serves them all.

A ``FileAnalysis`` holds the whole model and escape graph of a file: too big
to send back from a ``--jobs`` worker or to store in the cache.  What the
formats show of it is much smaller, and the same for all of them: the
findings with their positions, their facts and their evidence, the
functions' allocations, the bindings' decisions, the source lines the
findings point at.  A record holds exactly that, as JSON data with every
position resolved, so that the text, JSON, SARIF, LSP and GitHub formats, and
each rendering option (``--quiet``, ``--explain``, colour, ``docs-url``),
render from it without the analysis.  The cache stores records, not
rendered output: a run in another format, or with other rendering options,
reads the cache instead of analyzing again.

A record (``FileRecord``) has:

``path``         the file as given.
``bindings``     JSON's binding records (``JsonText.binding``), compact
                 JSON text, one per line.
``functions``    JSON's function records, the same way (with ``policies``
                 under ``--compare``).
``allocating``   the indexes of the functions that allocate, the only ones
                 the text format lists.
``diagnostics``  one ``DiagnosticRecord`` per finding shown, in order, each
                 as compact JSON text (``findings`` decodes them one at a
                 time): as dicts they were three quarters of a record, and
                 the records of a large file stood beside its whole analysis
                 at the peak of its memory.
``table``        the ``--compare`` table of the text format, else empty (also
                 under ``--compare`` when no function allocates under any
                 of the policies: the run counts such files, and the text
                 format does not list them).
``probes``       where a measured run is read for each function that allocates
                 (``report.probes``), which ``--counts`` weights the record by:
                 their list as compact JSON text (``""`` when none), which
                 only ``--counts`` decodes; as nested lists they were a
                 quarter of a record of many small functions.
``compared``     under ``--compare``, the file's allocations under each
                 policy, in the order named: ``[per_call, per_iteration,
                 once]``, which the run adds up into its headline; else
                 empty.

A run that neither shows JSON nor keeps its records (text, SARIF, LSP or
GitHub without the cache) makes them *incomplete*: no bindings (``None``),
and only the functions that allocate, which spares it about 4% of a run's
time.  Only the text format under ``--explain`` prints a finding's evidence:
a run without ``--explain`` makes records without it (``explained`` false),
which spares it a third of their memory, a tenth of its peak on a file full
of findings.

``explained``    whether each finding's record holds its ``evidence``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from typing import Any, TypedDict

from ..analyze import FileAnalysis
from ..compare import ComparedAnalysis, policies_json, render_table
from ..diagnose import Diagnostic, footprint
from ..model import Closure
from ..results import FunctionReport, Retention
from ..rules import Severity
from ..source import SourceFile
from . import evidence
from .json_text import COMPACT, PACKED, RETAINERS_SHOWN, JsonText
from .probes import Probe, probes

#: a name at a step's offset (JavaScript identifiers are Unicode letters, digits, `_` and `$`).
WORD = re.compile(r"[\w$]+")

#: ``[line, text, cells before, cells marked]``: a source line (tabs as one space) and, in terminal cells,
#: where the finding starts on it and how wide it is there (at least one cell).
Frame = list[Any]


class DiagnosticRecord(TypedDict, total=False):
    #: JSON's diagnostic: code, rule, severity, line, column, end_line, end_column, message.
    json: dict[str, Any]
    #: ``[line, column, end_line, end_column, message]`` of each related place (the capturing closures, ...).
    related: list[list[Any]]
    #: the finding's facts for a code action or a hover (LSP ``data``, SARIF ``properties``), when it has any.
    data: dict[str, Any]
    frame: Frame
    #: ``[label, meaning, frame, text]`` of each step of the chain ``--explain`` prints.
    evidence: list[list[Any]]
    #: the functions around the finding, outermost first (``diagnose.footprint``): part of a baseline's key.
    enclosing: str
    #: the 1-based lines the finding's evidence touches, sorted (``diagnose.footprint``), for ``--since``.
    lines: list[int]


class FileRecord(TypedDict):
    path: str
    bindings: str | None
    functions: str
    allocating: list[int]
    diagnostics: list[str]
    table: list[str]
    compared: list[list[int]]
    probes: str
    explained: bool


#: a record's severity label back to the level (``Severity.label``).
LEVELS = {level.label: level for level in Severity}


def severity(diagnostic: DiagnosticRecord) -> Severity:
    return LEVELS[diagnostic["json"]["severity"]]


def file_record(analysis: FileAnalysis, diagnostics: list[Diagnostic], *, complete: bool = True,
                explained: bool = True) -> FileRecord:
    source = analysis.source
    records = JsonText(source)
    allocating = [index for index, report in enumerate(analysis.functions) if report.sites]
    reports = analysis.functions if complete else [analysis.functions[index] for index in allocating]
    listed = {report.closure: index for index, report in enumerate(reports)}
    by_policy = (dict(zip(analysis.comparison.policies, analysis.comparison.reports, strict=True))
                 if isinstance(analysis, ComparedAnalysis) else {})
    by_policy.setdefault(analysis.policy.name, analysis.report_of)
    # each part is made whole before the next starts, the one with the most pieces first: each one's pieces are
    # garbage before the next part's are made
    bindings = records.bindings(analysis.decisions) if complete else None
    functions = "\n".join([function_text(analysis, records, report) for report in reports])
    shown_lines: dict[int, str] = {}
    return {
        "path": source.path,
        "bindings": bindings,
        "functions": functions,
        "allocating": allocating if complete else list(range(len(allocating))),
        "diagnostics": [PACKED(diagnostic_record(analysis, records, d, shown_lines, explained)) for d in diagnostics],
        "table": render_table(analysis, analysis.comparison) if isinstance(analysis, ComparedAnalysis) else [],
        "compared": ([[c.per_call, c.per_iteration, c.once] for c in analysis.comparison.totals()]
                     if isinstance(analysis, ComparedAnalysis) else []),
        "probes": probes_text(probes(source, by_policy, listed)),
        "explained": explained,
    }


def function_text(analysis: FileAnalysis, records: JsonText, report: FunctionReport) -> str:
    """A function's JSON record as compact text; under ``--compare``, with its allocations under each policy."""
    if not isinstance(analysis, ComparedAnalysis):
        return records.function_text(report)
    function = records.function(report)
    function["policies"] = policies_json(analysis.comparison, report.closure)
    return COMPACT(function)


def findings(record: FileRecord) -> Iterator[DiagnosticRecord]:
    """The record's findings, decoded one at a time."""
    return map(json.loads, record["diagnostics"])


def packed_of(record: FileRecord, decoded: list[DiagnosticRecord], kept: Collection[DiagnosticRecord]) -> list[str]:
    """The record's texts of the findings ``kept`` holds, in order, where ``decoded`` is ``list(findings(record))``
    and ``kept`` some of its dicts (a filter's choice is read from them, and the texts kept as they were)."""
    chosen = {id(diagnostic) for diagnostic in kept}
    return [text for text, diagnostic in zip(record["diagnostics"], decoded, strict=True) if id(diagnostic) in chosen]


def probes_text(found: Iterable[Probe]) -> str:
    """``COMPACT`` of the list, made a probe at a time."""
    text = ", ".join(map(COMPACT, found))
    return f"[{text}]" if text else ""


def record_probes(record: FileRecord) -> list[Probe]:
    """The record's probes, decoded."""
    return json.loads(record["probes"]) if record["probes"] else []


def diagnostic_record(analysis: FileAnalysis, records: JsonText, diagnostic: Diagnostic,
                      shown_lines: dict[int, str] | None = None, explained: bool = True) -> DiagnosticRecord:
    """``shown_lines``: the source lines the record's frames show so far, by number, so that the frames of one
    line (a finding's and its evidence's) share one string instead of a copy each.  ``explained``: whether it
    holds the evidence."""
    source = analysis.source
    out: DiagnosticRecord = {"json": records.diagnostic(diagnostic)}
    if diagnostic.related:
        out["related"] = [[*span(source, start, end), message] for start, end, message in diagnostic.related]
    data = diagnostic_data(analysis, diagnostic)
    if data is not None:
        out["data"] = data
    out["frame"] = frame(source, diagnostic.start, diagnostic.end, shown_lines)
    subject = diagnostic.decision or diagnostic.retention
    steps = diagnostic.evidence
    if explained and steps and subject is not None:  # evidence is the decision's or the retention's
        out["evidence"] = [[evidence.label(step), evidence.meaning(subject, index),
                            frame(source, step.offset, token_end(source, step.offset), shown_lines), step.text]
                           for index, step in enumerate(steps)]
    out["enclosing"] = footprint.enclosing(analysis.model, diagnostic)
    out["lines"] = source.lines_of(footprint.touched(diagnostic))
    return out


def span(source: SourceFile, start: int, end: int) -> list[int]:
    first, last = source.position(start), source.position(end)
    return [first.line, first.column, last.line, last.column]


def display_width(text: str) -> int:
    """Terminal cells: wide (CJK, most emoji) characters take two, combining marks none."""
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def frame(source: SourceFile, start: int, end: int, shown_lines: dict[int, str] | None = None) -> Frame:
    """The line of ``start``, and where ``start..end`` (its first line only) sits on it, in terminal cells;
    ``shown_lines``: the lines already shown, by number, to share (``diagnostic_record``)."""
    pos = source.position(start)
    line_start = source.position_offset_of_line(pos.line)
    line = source.line_text(pos.line)
    line_end = line_start + len(line.encode("utf-8"))
    prefix = source.data[line_start:start].decode("utf-8", "replace").expandtabs(1)
    marked = source.data[start:max(start, min(end, line_end))].decode("utf-8", "replace").expandtabs(1)
    shown = line.expandtabs(1)
    if shown_lines is not None:
        shown = shown_lines.setdefault(pos.line, shown)
    return [pos.line, shown, display_width(prefix), max(1, display_width(marked))]


def token_end(source: SourceFile, offset: int) -> int:
    """The end of the name (or else the one character) at ``offset``, where a step's caret run stops."""
    rest = source.data[offset:offset + 256].split(b"\n", 1)[0].decode("utf-8", "ignore")
    word = WORD.match(rest)
    return offset + len((word.group() if word else rest[:1]).encode("utf-8", "surrogatepass"))


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
        "retained_by": [closure(c) for c in retention.retained_by[:RETAINERS_SHOWN]],
        "retained_by_count": len(retention.retained_by),
        "referenced_by": [closure(c) for c in retention.referenced_by],
        "context": retention.context,
    }
