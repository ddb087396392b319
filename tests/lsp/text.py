"""The client's side of positions, written independently of ``source.py`` so that it can check it.

LSP positions count UTF-16 code units by default: ``"😀"`` is two.  These
helpers convert through Python's own UTF-16 codec.
"""

from __future__ import annotations

from typing import Any

#: two small factories, each a function of its own: an edit in one leaves the other's findings as they were.
TWO = """\
function first(start: number) {
  let count = start;
  return () => count++;
}

function second(step: number) {
  let total = 0;
  return { add() { total += step; return total; } };
}
"""


def index_of(text: str, line: int, character: int, encoding: str = "utf-16") -> int:
    """The ``str`` index of an LSP position in ``text`` (lines end at ``\\n``)."""
    lines = text.split("\n")
    start = sum(len(each) + 1 for each in lines[:line])
    codec, width = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1)}[encoding]
    prefix = lines[line].encode(codec, "surrogatepass")[:character * width]
    return start + len(prefix.decode(codec, "surrogatepass"))


def position_of(text: str, index: int, encoding: str = "utf-16") -> dict[str, int]:
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    codec, width = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1)}[encoding]
    return {"line": line, "character": len(text[line_start:index].encode(codec, "surrogatepass")) // width}


def range_of(text: str, needle: str, occurrence: int = 0, encoding: str = "utf-16") -> dict[str, Any]:
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    return {"start": position_of(text, index, encoding), "end": position_of(text, index + len(needle), encoding)}


def apply_edits(text: str, edits: list[dict[str, Any]], encoding: str = "utf-16") -> str:
    """Apply LSP ``TextEdit``s (non-overlapping, positions against the original text), last first."""
    spans = []
    for edit in edits:
        start, end = edit["range"]["start"], edit["range"]["end"]
        spans.append((index_of(text, start["line"], start["character"], encoding),
                      index_of(text, end["line"], end["character"], encoding), edit.get("newText", edit.get("text"))))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text
