"""``--format json``: the ``boxcheck/1`` schema of docs/design.md, section 4.

The schema is published at ``docs/schema/boxcheck-1.json``; fields are only
ever added, never changed, so consumers of ``boxcheck/1`` keep working.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, TextIO

from ..analyze import FileAnalysis
from ..compare import ComparedAnalysis, document_json, policies_json
from ..diagnose import Diagnostic
from ..model import BindingKind, Closure, Storage
from ..records import Decision, FunctionReport, Retention
from ..source import SourceFile
from .base import Reporter, RunOptions, StreamedArray, Totals

SCHEMA = "boxcheck/1"
#: a module wrapper's binding may be kept by thousands of closures: the first ones, and how many there are.
RETAINERS_SHOWN = 5


#: an enum member's ``value`` as a JSON string, looked up without the descriptor ``Enum.value`` goes through.
_WORD_TEXT: dict[enum.Enum, str] = {member: encode_basestring(member.value) for kind in (BindingKind, Storage)
                                    for member in kind}
#: a JSON string, as the C encoder writes one (``ensure_ascii=False``).
_string: Callable[[str], str] = encode_basestring


class FileRecords:
    """The JSON records of one file.

    A binding's record is written as JSON text directly: a run makes one per binding,
    `local` ones included, and building a dict for the C encoder to take apart again
    cost twice as much.  The text is what ``_COMPACT`` would make of the same dict
    (``tests/test_format_text_and_json.py`` compares them).  A function's reference
    ``{"name", "line", "column"}`` is made once per file: every binding of the
    function repeats it, and positions are what rendering spends its time on.
    """

    def __init__(self, source: SourceFile):
        self.source = source
        self.refs: dict[Closure, dict[str, Any]] = {}
        self.ref_texts: dict[Closure, str] = {}

    def closure_ref(self, closure: Closure) -> dict[str, Any]:
        ref = self.refs.get(closure)
        if ref is None:
            pos = self.source.position(closure.start)
            ref = self.refs[closure] = {"name": closure.name, "line": pos.line, "column": pos.column}
        return ref

    def closure_ref_text(self, closure: Closure) -> str:
        text = self.ref_texts.get(closure)
        if text is None:
            text = self.ref_texts[closure] = _COMPACT(self.closure_ref(closure))
        return text

    def binding(self, decision: Decision) -> str:
        binding = decision.binding
        position = self.source.position
        pos = position(binding.start)
        site = decision.site
        closure = binding.scope.closure
        function = "null" if closure.is_module else self.closure_ref_text(closure)
        captured_by = ", ".join([self.closure_ref_text(c) for c in decision.captured_by])
        writes = []
        for write in decision.writes:
            at = position(write.start)
            writes.append(f'{{"line": {at.line}, "column": {at.column}, '
                          f'"in_closure": {"false" if write.closure is closure else "true"}}}')
        evidence = []
        for step in decision.evidence:
            at = position(step.offset)
            evidence.append(f'{{"line": {at.line}, "column": {at.column}, "text": {_string(step.text)}}}')
        return (f'{{"name": {_string(binding.name)}, "line": {pos.line}, "column": {pos.column}, '
                f'"kind": {_WORD_TEXT[binding.kind]}, "function": {function}, '
                f'"storage": {_WORD_TEXT[decision.storage]}, '
                f'"site": {"null" if site is None else _string(site.id)}, "captured_by": [{captured_by}], '
                f'"writes": [{", ".join(writes)}], "reason": {_string(decision.reason)}, '
                f'"evidence": [{", ".join(evidence)}]}}')

    def function(self, report: FunctionReport) -> dict[str, Any]:
        closure = report.closure
        return {
            **self.closure_ref(closure),
            "kind": closure.kind.value,
            "allocations": {
                "per_call": report.per_call,
                "per_iteration": report.per_iteration,
                "once": report.once,
                "sites": [
                    {
                        "id": site.id,
                        "kind": site.kind.value,
                        "multiplicity": site.multiplicity,
                        "bindings": [d.binding.name for d in site.decisions],
                        "line": self.source.position(site.offset).line,
                    }
                    for site in report.sites
                ],
            },
            "closures": {"per_call": report.closures_per_call, "per_iteration": report.closures_per_iteration},
            "retentions": [self.retention(retention) for retention in report.retentions],
        }

    def retention(self, retention: Retention) -> dict[str, Any]:
        pos = self.source.position(retention.binding.start)
        return {
            "binding": retention.binding.name,
            "line": pos.line,
            "column": pos.column,
            "retained_by": [self.closure_ref(c) for c in retention.retained_by[:RETAINERS_SHOWN]],
            "retained_by_count": len(retention.retained_by),
            "referenced_by": [self.closure_ref(c) for c in retention.referenced_by],
            "context": retention.context,
        }

    def diagnostic(self, diagnostic: Diagnostic) -> dict[str, Any]:
        start = self.source.position(diagnostic.start)
        end = self.source.position(diagnostic.end)
        return {
            "code": diagnostic.rule.code,
            "rule": diagnostic.rule.name,
            "severity": diagnostic.level.label,
            "line": start.line,
            "column": start.column,
            "end_line": end.line,
            "end_column": end.column,
            "message": diagnostic.message,
        }


def error_file_json(path: str, message: str) -> dict[str, Any]:
    return {"path": path, "bindings": [], "functions": [], "diagnostics": [], "errors": [message]}


def document(policy: str, files: Any, count: int, totals: Totals) -> dict[str, Any]:
    """The document around its ``files``; the summary adds up what the totals counted."""
    return {
        "schema": SCHEMA,
        "policy": policy,
        "files": files,
        "summary": {
            "files": count,
            "functions": totals.functions,
            "per_call": totals.per_call,
            "per_iteration": totals.per_iteration,
            "once": totals.once,
        },
    }


@dataclass(frozen=True, slots=True)
class Laid:
    """A value already laid out by ``_layout`` at its depth in the document: a file's entry, made by a
    ``--jobs`` worker or read from the cache, is written as it is instead of being decoded and laid out again."""

    text: str


#: where a file's entry sits: the document, its ``files`` array, the entry.
ENTRY_DEPTH = 2
EXPAND = 4
#: stands for the ``files`` array in the document's text; the entries are written as they come.
FILES = Laid("\x00")


def _compact_encoder() -> Callable[[Any], str]:
    """``JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode`` without its per-call set-up.

    ``encode`` builds a fresh C encoder for every value, and a JSON run encodes one value per
    binding: the C encoder made once spends about a third less per record.  Circular
    references are not checked (records are trees built here).
    """
    if c_make_encoder is None:
        return json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
    chunks = c_make_encoder(None, json.JSONEncoder().default, encode_basestring, None, ": ", ", ", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_COMPACT = _compact_encoder()


def dumps(doc: Any, expand: int = EXPAND) -> str:
    """Indented down to ``expand`` levels, one compact record per line below that.

    ``json.dumps(indent=...)`` falls back to the pure-Python encoder, which took
    most of the time of a JSON run; records below the expanded levels (a binding,
    a function, a diagnostic) go through the C encoder and stay one line each,
    which also keeps committed outputs easy to diff.
    """
    return _layout(doc, 0, expand) + "\n"


def _layout(value: Any, depth: int, expand: int) -> str:
    parts: list[str] = []
    _lay_out(value, depth, expand, parts)
    return "".join(parts)


def _lay_out(value: Any, depth: int, expand: int, parts: list[str]) -> None:
    """Appends the text of ``value`` to ``parts``, joined once by ``_layout``: a large file's entry
    (35 MB for the 9 MB ``typescript.js``) is never copied line by line, then list by list."""
    if isinstance(value, Laid):
        parts.append(value.text)
        return
    if depth >= expand or not isinstance(value, (dict, list)) or not value:
        parts.append(_COMPACT(value))
        return
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, dict):
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            parts.append(("," if index else "") + inner + _COMPACT(key) + ": ")
            _lay_out(item, depth + 1, expand, parts)
        parts.append("\n" + "  " * depth + "}")
        return
    parts.append("[")
    for index, item in enumerate(value):
        parts.append("," + inner if index else inner)
        _lay_out(item, depth + 1, expand, parts)
    parts.append("\n" + "  " * depth + "]")


class JsonReporter(Reporter):
    """Writes each file's entry as it comes (``StreamedArray``), and the summary at the end."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.entries = StreamedArray(out, ENTRY_DEPTH - 1)
        #: ``{"policies": ...}`` of each compared function, for the document's ``--compare`` summary.
        self.compared: list[dict[str, Any]] = []

    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> list[Any]:
        """``[entry laid out as text, the compared functions' policies]``.  Each record is encoded as soon as
        it is made: the records of a large file are never all held as dicts at once."""
        source = analysis.source
        records = FileRecords(source)
        functions: list[Laid] = []
        compared: list[dict[str, Any]] = []
        for report in analysis.functions:
            function = records.function(report)
            if isinstance(analysis, ComparedAnalysis):
                function["policies"] = policies_json(analysis.comparison, report.closure)
                compared.append({"policies": function["policies"]})
            functions.append(Laid(_COMPACT(function)))
        entry = {
            "path": source.path,
            "bindings": [Laid(records.binding(d)) for d in analysis.decisions],
            "functions": functions,
            "diagnostics": [Laid(_COMPACT(records.diagnostic(d))) for d in diagnostics],
            "errors": [],
        }
        return [_layout(entry, ENTRY_DEPTH, EXPAND), compared]

    def add(self, piece: list[Any]) -> None:
        entry, compared = piece
        self.entries.add(entry, self.head)
        self.compared.extend(compared)

    def failure(self, path: str, message: str) -> None:
        self.entries.add(_layout(error_file_json(path, message), ENTRY_DEPTH, EXPAND), self.head)

    def around(self, totals: Totals) -> tuple[str, str]:
        """The document's text before and after its ``files`` array."""
        doc = document(self.options.policy, FILES, self.entries.count, totals)
        if self.options.compare:
            doc["compare"], doc["summary"]["policies"] = document_json(self.options.compare, self.compared)
        head, _, tail = dumps(doc).partition(FILES.text)
        return head, tail

    def head(self) -> str:
        return self.around(Totals())[0]

    def finish(self, totals: Totals) -> None:
        self.entries.finish(*self.around(totals))
