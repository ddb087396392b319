"""``--fix``, one file: apply the certain fixes, analyze again, until nothing is left to fix.

The fixes are those of ``capture_analysis.fixes``, which the language server
offers as code actions: "declare as `const`" for every ``let`` it is offered
for (a rewrite that resolves no finding and changes no decision: no rule,
suppression or baseline is about it; ``--since`` keeps it to the changed
lines), and "move into a block of its own" for each BX107 finding the run
reports: shown (not suppressed, its rule selected) and not left out by
``--baseline`` or ``--since``.  Hidden hints are reported too, in the
totals, so they are fixed.

The fixes that do not overlap are applied together, and the file is
analyzed again; the others, and any that the new text offers, in the next
round, up to ``ROUNDS``.  What a round leaves is the file's fixed point, so
a second ``--fix`` changes nothing.  A round whose text has more syntax
problems than the text before it is not kept (a fix must never break a
file; this would be a bug) and the file keeps the last good text.

This runs where the file is analyzed (this process or a ``--jobs`` worker),
and the last analysis, of the text as it ends up, is the file's outcome:
the run reports what remains.  A file is written only if it changed, from
a temporary file renamed over it (its permissions kept, a symbolic link
followed), and only if it still holds the bytes that were analyzed; a BOM
and the line breaks stay as they were.  A file that is not valid UTF-8 is
not fixed: its text was read with replacements and could not be written
back as it was.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from typing import BinaryIO

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..fixes import ActionKind, Fix, applied, compatible, declare_const_fixes, own_block_fix
from ..report import FileCounts
from ..report.file_record import file_record, findings
from ..rules import CONTEXT_RETENTION
from ..source import SourceFile
from . import gc_tuning, utf16
from .baseline import Matcher
from .loading import BINARY_PROBE, LoadError, checked
from .tasks import Analyzed, Failed, FileTask, Fixed, FixMode, FixRequest, Outcome, internal_error

#: rounds of fixes and analyses per file: overlapping fixes need one more each (one file of the corpus needs two).
ROUNDS = 4
BOM = b"\xef\xbb\xbf"


def fixed_outcome(path: str, raw: bytes, task: FileTask) -> Outcome:
    """The file fixed as ``task.fix`` asks (written, when it asks that), and what remains of its findings."""
    request = task.fix
    assert request is not None
    loaded = checked(path, raw, task.max_file_size)
    if isinstance(loaded, LoadError):
        return Failed(path, loaded.message, loaded.is_error)
    try:
        with gc_tuning.paused():  # as for an analysis alone (``outcome.fresh``): the rounds' models go at once
            outcome, text = fixed_record(loaded, raw, task, request)
        if request.mode is FixMode.WRITE and outcome.fixed is not None and outcome.fixed.changed:
            refused = write_atomically(path, raw, text)
            if refused is not None:
                return Failed(path, refused, True)
        return outcome
    except Exception as error:  # one bad file must not lose the others
        return internal_error(path, error)


def fixed_record(loaded: SourceFile, raw: bytes, task: FileTask, request: FixRequest) -> tuple[Analyzed, bytes]:
    """The outcome of the fixed text, and that text (with the BOM the file had); the analyses are garbage when
    this returns."""
    analysis, fixed = fix_source(loaded, raw, task, request)
    record = file_record(analysis, analysis.shown, complete=task.format == "json", explained=task.options.explain)
    counts = FileCounts.of(analysis, analysis.shown)
    return Analyzed(loaded.path, record, counts, fixed), bom(raw) + analysis.source.data


def stdin_outcome(path: str, stream: BinaryIO, task: FileTask) -> Outcome:
    """Standard input, named ``path`` by ``--stdin-filename``, which is never written: the fixed text goes back
    with the outcome, for standard output."""
    try:
        raw = stream.read(task.max_file_size + 1)
    except OSError as error:
        return Failed(path, f"cannot read standard input: {error.strerror or error}", True)
    return fixed_outcome(path, raw, task)


def fix_source(loaded: SourceFile, raw: bytes, task: FileTask, request: FixRequest) -> tuple[FileAnalysis, Fixed]:
    """The analysis of the text the rounds end with, and what they did."""
    analyze = task.analyzer(loaded.path)
    analysis = analyze(loaded)
    findings = declarations = 0
    note = ""
    wide = utf16.encoding(raw, BINARY_PROBE)
    if loaded.decode_errors or wide is not None:
        if certain(analysis, request):
            note = (f"not fixed: the file is {utf16.named(wide)}, and boxcheck writes back only UTF-8" if wide
                    else "not fixed: the file is not valid UTF-8, and boxcheck writes back only a text it read "
                         "exactly")
        return analysis, outcome_fixed(request, loaded.path, raw, raw, 0, 0, note)
    for _ in range(ROUNDS):
        fixes = certain(analysis, request)
        if not fixes:
            break
        chosen = compatible(fixes)
        data = applied(analysis.source.data, (edit for fix in chosen for edit in fix.edits))
        again = analyze(SourceFile(loaded.path, data.decode("utf-8", "surrogatepass")))
        if len(again.syntax) > len(analysis.syntax):
            note = "a fix would have made a syntax error, so it was left out (please report this with the file)"
            break
        analysis = again
        findings += sum(fix.kind is ActionKind.QUICK_FIX for fix in chosen)
        declarations += sum(fix.kind is ActionKind.REWRITE for fix in chosen)
    else:
        if certain(analysis, request):
            note = f"fixes remain after {ROUNDS} rounds: run --fix again (please report this with the file)"
    return analysis, outcome_fixed(request, loaded.path, raw, bom(raw) + analysis.source.data, findings,
                                   declarations, note)


def outcome_fixed(request: FixRequest, path: str, before: bytes, after: bytes, findings: int, declarations: int,
                  note: str) -> Fixed:
    diff = unified_diff(before, after, path) if request.mode is FixMode.DIFF else ""
    text = after if request.mode is FixMode.STDOUT else None
    return Fixed(findings, declarations, diff, text, note)


def certain(analysis: FileAnalysis, request: FixRequest) -> list[Fix]:
    """The fixes to apply: every "declare as `const`" (on a changed line, with ``--since``), and "move into a block
    of its own" for each BX107 finding the run reports."""
    tree = analysis.file.tree
    fixes = [fix for fix in declare_const_fixes(analysis, tree) if on_changed_line(analysis, request, fix)]
    for diagnostic in reported(analysis, request):
        if diagnostic.rule is CONTEXT_RETENTION and diagnostic.retention is not None:
            fix = own_block_fix(analysis, tree, diagnostic)
            if fix is not None:
                fixes.append(fix)
    return fixes


def reported(analysis: FileAnalysis, request: FixRequest) -> list[Diagnostic]:
    """The findings the run reports of this file: shown, and neither recorded in the baseline nor (with
    ``--since``) standing on unchanged lines; decided from their records, as ``adoption`` decides."""
    shown = analysis.shown
    if request.baseline is None and request.since is None:
        return shown
    path = analysis.path
    records = list(findings(file_record(analysis, shown, complete=False, explained=False)))
    kept = records if request.baseline is None else Matcher(request.baseline).narrow(path, records)
    lines = None if request.since is None else request.since.of(path)
    if lines is not None:
        kept = [record for record in kept if not lines.isdisjoint(record["lines"])]
    chosen = {id(record) for record in kept}
    return [diagnostic for diagnostic, record in zip(shown, records, strict=True) if id(record) in chosen]


def on_changed_line(analysis: FileAnalysis, request: FixRequest, fix: Fix) -> bool:
    if request.since is None:
        return True
    lines = request.since.of(analysis.path)
    return lines is None or analysis.source.line_of(fix.changed[0]) + 1 in lines


def bom(raw: bytes) -> bytes:
    """The BOM the file starts with, which the analyzed text does not have."""
    return BOM if raw.startswith(BOM) else b""


def write_atomically(path: str, before: bytes, after: bytes) -> str | None:
    """Replace the file's bytes ``before`` with ``after``: ``None``, or why not."""
    target = os.path.realpath(path)
    temporary = None
    try:
        with open(target, "rb") as handle:
            if handle.read(len(before) + 1) != before:
                return "changed while boxcheck analyzed it: not fixed"
            mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".boxcheck",
                                                 dir=os.path.dirname(target))
        with os.fdopen(descriptor, "wb") as out:
            out.write(after)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        temporary = None
        return None
    except OSError as error:
        return f"cannot write the fixes: {error.strerror or error}"
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def unified_diff(before: bytes, after: bytes, path: str) -> str:
    """A unified diff of the two texts, split at ``\\n`` only (a ``\\r`` stays in its line), with git's marker on
    a last line without a line break; its file names are ``path`` on both sides, as ruff prints them."""
    if before == after:
        return ""
    old, new = lines_of(before), lines_of(after)
    out = []
    for line in difflib.unified_diff(old, new, path, path):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def lines_of(data: bytes) -> list[str]:
    parts = data.decode("utf-8", "surrogateescape").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
