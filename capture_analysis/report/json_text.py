"""The JSON records of one file (``boxcheck/1``): its bindings, functions and diagnostics, as JSON text.

They are the bulk of a file's record (``file_record``), made once where the file
is analyzed; the JSON format writes them as they are, the text format reads
the functions back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from json import encoder as json_encoder
from json.encoder import encode_basestring
from typing import Any

from ..diagnose import Diagnostic
from ..model import BindingKind, Closure, ClosureKind, Storage
from ..results import Decision, FunctionReport, Retention
from ..source import Position, SourceFile

#: a module wrapper's binding may be kept by thousands of closures: the first ones, and how many there are.
RETAINERS_SHOWN = 5


#: an enum member's ``value`` as a JSON string, by the member's ``id``: a lookup by the member itself would
#: hash it with ``Enum.__hash__``, which is Python code even in the compiled build.
_WORD_TEXT: dict[int, str] = {id(member): encode_basestring(member.value)
                              for kind in (BindingKind, Storage, ClosureKind) for member in kind}
#: a JSON string, as the C encoder writes one (``ensure_ascii=False``).
_string: Callable[[str], str] = encode_basestring


class JsonText:
    """The JSON records of one file.

    A binding's record is written as JSON text directly: a run makes one per binding,
    `local` ones included, and building a dict for the C encoder to take apart again
    cost twice as much.  The text is what ``COMPACT`` would make of the same dict
    (``tests/test_format_text_and_json.py`` compares them).  A function's reference
    ``{"name", "line", "column"}`` is written once per file, as text: every binding
    of the function repeats it, and positions are what rendering spends its time on.
    Its dict is made where a record needs one (a function's, a retention's), and
    not kept: one per function of a file was a tenth of its JSON record's memory.
    """

    def __init__(self, source: SourceFile):
        self.source = source
        self.ref_texts: dict[Closure, str] = {}
        #: a binding's ``function``: its closure's reference, ``null`` for the module.
        self.owner_texts: dict[Closure, str] = {}

    def closure_ref(self, closure: Closure) -> dict[str, Any]:
        pos = self.source.position(closure.start)
        return {"name": closure.name, "line": pos.line, "column": pos.column}

    def closure_ref_text(self, closure: Closure) -> str:
        text = self.ref_texts.get(closure)
        if text is None:
            text = self.ref_texts[closure] = COMPACT(self.closure_ref(closure))
        return text

    def owner_text(self, closure: Closure) -> str:
        text = self.owner_texts.get(closure)
        if text is None:
            text = self.owner_texts[closure] = "null" if closure.is_module else self.closure_ref_text(closure)
        return text

    def bindings(self, decisions: list[Decision]) -> str:
        """The records of a file's bindings, one per line; their positions found in one sweep (they are sorted)."""
        starts = self.source.positions(decision.binding.start for decision in decisions)
        return "\n".join([self.binding(decision, start) for decision, start in zip(decisions, starts, strict=True)])

    def binding(self, decision: Decision, pos: Position) -> str:
        """The record of one binding declared at ``pos``."""
        binding = decision.binding
        site = decision.site
        closure = binding.scope.closure
        head = (f'{{"name": {_string(binding.name)}, "line": {pos.line}, "column": {pos.column}, '
                f'"kind": {_WORD_TEXT[id(binding.kind)]}, "function": {self.owner_text(closure)}, '
                f'"storage": {_WORD_TEXT[id(decision.storage)]}, '
                f'"site": {"null" if site is None else _string(site.id)}, "captured_by": [')
        captured, writes, steps = decision.captured_by, decision.writes, decision.evidence
        if not captured and not writes and not steps:  # a `local` binding, most of them: nothing to list
            return f'{head}], "writes": [], "reason": {_string(decision.reason)}, "evidence": []}}'
        position = self.source.position
        written = []
        for write in writes:
            at = position(write.start)
            written.append(f'{{"line": {at.line}, "column": {at.column}, '
                           f'"in_closure": {"false" if write.closure is closure else "true"}}}')
        evidence = []
        for step in steps:
            at = position(step.offset)
            evidence.append(f'{{"line": {at.line}, "column": {at.column}, "text": {_string(step.text)}}}')
        return (f'{head}{", ".join([self.closure_ref_text(c) for c in captured])}], '
                f'"writes": [{", ".join(written)}], "reason": {_string(decision.reason)}, '
                f'"evidence": [{", ".join(evidence)}]}}')

    def function_text(self, report: FunctionReport) -> str:
        """``COMPACT(self.function(report))``, written directly for a function without sites or retentions
        (most of them), as a binding's record is."""
        if report.sites or report.retentions:
            return COMPACT(self.function(report))
        closure = report.closure
        return (f'{self.closure_ref_text(closure)[:-1]}, "kind": {_WORD_TEXT[id(closure.kind)]}, '
                f'"allocations": {{"per_call": 0, "per_iteration": 0, "once": 0, "sites": []}}, '
                f'"closures": {{"per_call": {report.closures_per_call}, '
                f'"per_iteration": {report.closures_per_iteration}}}, "retentions": []}}')

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


def _compact_encoder(item_separator: str = ", ", key_separator: str = ": ") -> Callable[[Any], str]:
    """``JSONEncoder(ensure_ascii=False, separators=(item_separator, key_separator)).encode`` without its per-call
    set-up.

    ``encode`` builds a fresh C encoder for every value, and a JSON run encodes one value per
    binding: the C encoder made once spends about a third less per record.  Circular
    references are not checked (records are trees built here).
    """
    # the C encoder's factory (None without the C accelerator), which typeshed does not declare.
    c_make_encoder: Callable[..., Callable[[object, int], Iterable[str]]] | None = getattr(
        json_encoder, "c_make_encoder", None)
    if c_make_encoder is None:
        return json.JSONEncoder(ensure_ascii=False, separators=(item_separator, key_separator)).encode
    chunks = c_make_encoder(None, json.JSONEncoder().default, encode_basestring, None, key_separator, item_separator,
                            False, False, True)
    return lambda value: "".join(chunks(value, 0))


COMPACT = _compact_encoder()
#: JSON text without a space, for what only the program reads back (a record's findings, ``file_record``).
PACKED = _compact_encoder(",", ":")


def lines(text: str) -> list[str]:
    """The records of a ``FileRecord`` field, one per line (JSON text holds no raw newline)."""
    return text.split("\n") if text else []
