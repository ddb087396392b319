"""``--format json``: the ``boxcheck/1`` schema of docs/design.md, section 4.

The schema is published at ``docs/schema/boxcheck-1.json``; fields are only
ever added, never changed, so consumers of ``boxcheck/1`` keep working.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from ..compare import document_json
from .file_record import FileRecord, findings
from .json_text import COMPACT
from .reporter import SEVERITIES, Reporter, RunOptions, StreamedArray, Totals

SCHEMA = "boxcheck/1"


def error_file_json(path: str, message: str) -> dict[str, Any]:
    return {"path": path, "bindings": [], "functions": [], "diagnostics": [], "errors": [message]}


def document(policy: str, files: Any, count: int, totals: Totals) -> dict[str, Any]:
    """The document around its ``files``; the summary adds up what the totals counted.

    ``by_severity`` and ``by_rule`` count the findings the files list (suppressed findings and rules turned
    ``off`` are in neither), every severity under its own name whatever ``--fail-on`` says.
    """
    by_rule: dict[str, dict[str, Any]] = {}
    for (code, name, _), found in sorted(totals.by_rule.items()):
        counted = by_rule.setdefault(code, {"rule": name, "count": 0})
        counted["count"] += found
    summary = {
        "files": count,
        "functions": totals.functions,
        "per_call": totals.per_call,
        "per_iteration": totals.per_iteration,
        "once": totals.once,
        "by_severity": {level.label: totals.by_severity[level] for level in SEVERITIES},
        "by_rule": by_rule,
    }
    left_out = {"baselined": totals.baselined, "baseline_unmatched": totals.baseline_unmatched,
                "unchanged": totals.unchanged}
    summary.update({name: value for name, value in left_out.items() if value is not None})
    if totals.measured is not None:
        summary["measured"] = totals.measured
    return {"schema": SCHEMA, "policy": policy, "files": files, "summary": summary}


@dataclass(frozen=True, slots=True)
class Laid:
    """A value already laid out by ``_layout`` at its depth in the document: a file's entry, made by a
    ``--jobs`` worker or read from the cache, is written as it is instead of being decoded and laid out again."""

    text: str


@dataclass(frozen=True, slots=True)
class Streamed:
    """A value laid out a piece at a time as it is written: a large file's records (127 MB of entry for a
    13 MB generated file) are never whole in memory, nor copied to be indented."""

    pieces: Iterable[str]


#: the size of the slices of a file's records that ``laid_lines`` re-indents one at a time.
SLICE = 1 << 20
#: where a file's entry sits: the document, its ``files`` array, the entry.
ENTRY_DEPTH = 2
EXPAND = 4
#: stands for the ``files`` array in the document's text; the entries are written as they come.
FILES = Laid("\x00")


def dumps(doc: Any, expand: int = EXPAND) -> str:
    """Indented down to ``expand`` levels, one compact record per line below that.

    ``json.dumps(indent=...)`` falls back to the pure-Python encoder, which took
    most of the time of a JSON run; records below the expanded levels (a binding,
    a function, a diagnostic) go through the C encoder and stay one line each,
    which also keeps committed outputs easy to diff.
    """
    return _layout(doc, 0, expand) + "\n"


def laid_lines(text: str, depth: int) -> Laid | Streamed:
    """Records given one per line, as ``_layout`` lays out an array of them ``depth`` levels deep: a
    replacement in C per slice of about ``SLICE`` characters instead of a step per record (a large file has
    a hundred thousand), and no copy of the whole."""
    if not text:
        return Laid("[]")
    return Streamed(_laid_slices(text, "\n" + "  " * (depth + 1), "\n" + "  " * depth + "]"))


def _laid_slices(text: str, inner: str, close: str) -> Iterator[str]:
    yield "[" + inner
    start = 0
    while True:
        cut = text.find("\n", start + SLICE)
        yield text[start:cut if cut >= 0 else len(text)].replace("\n", "," + inner)
        if cut < 0:
            break
        yield "," + inner
        start = cut + 1
    yield close


def _layout(value: Any, depth: int, expand: int) -> str:
    return "".join(_laid_out(value, depth, expand))


def _laid_out(value: Any, depth: int, expand: int) -> Iterator[str]:
    """The text of ``value`` as pieces, written in order (``JsonReporter.add``) or joined once (``_layout``):
    a large file's entry is never copied line by line, then list by list."""
    parts: list[str | Iterable[str]] = []
    _lay_out(value, depth, expand, parts)
    for part in parts:
        if isinstance(part, str):
            yield part
        else:
            yield from part


def _lay_out(value: Any, depth: int, expand: int, parts: list[str | Iterable[str]]) -> None:
    if isinstance(value, Laid):
        parts.append(value.text)
        return
    if isinstance(value, Streamed):
        parts.append(value.pieces)
        return
    if depth >= expand or not isinstance(value, (dict, list)) or not value:
        parts.append(COMPACT(value))
        return
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, dict):
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            parts.append(("," if index else "") + inner + COMPACT(key) + ": ")
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

    def render(self, record: FileRecord) -> Iterator[str]:
        """The file's entry, laid out as text a piece at a time."""
        assert record["bindings"] is not None, "the JSON format is given complete records"
        entry = {
            "path": record["path"],
            "bindings": laid_lines(record["bindings"], ENTRY_DEPTH + 1),
            "functions": laid_lines(record["functions"], ENTRY_DEPTH + 1),
            "diagnostics": [Laid(COMPACT(d["json"])) for d in findings(record)],
            "errors": [],
        }
        return _laid_out(entry, ENTRY_DEPTH, EXPAND)

    def add(self, piece: Iterable[str]) -> None:
        self.entries.add(piece, self.head)

    def failure(self, path: str, message: str) -> None:
        self.entries.add(_layout(error_file_json(path, message), ENTRY_DEPTH, EXPAND), self.head)

    def around(self, totals: Totals) -> tuple[str, str]:
        """The document's text before and after its ``files`` array."""
        doc = document(self.options.policy, FILES, self.entries.count, totals)
        if self.options.compare:
            compared = totals.compared or [[0, 0, 0] for _ in self.options.compare]
            doc["compare"], doc["summary"]["policies"] = document_json(self.options.compare, compared,
                                                                       totals.unallocating)
        head, _, tail = dumps(doc).partition(FILES.text)
        return head, tail

    def head(self) -> str:
        return self.around(Totals())[0]

    def finish(self, totals: Totals) -> None:
        self.entries.finish(*self.around(totals))
