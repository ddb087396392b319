"""A fix, its edits, and how several are applied to one text at once.

Edits are byte offsets into the analyzed text (``SourceFile.data``, UTF-8
without a BOM), as every phase's positions are; a front end converts them
where it shows them (the language server, to its negotiated encoding).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from ..diagnose import Diagnostic


class ActionKind(str, enum.Enum):
    """What a fix is, named as LSP's ``CodeActionKind`` names it (the language server sends the value)."""

    #: resolves a finding.
    QUICK_FIX = "quickfix"
    #: states in the code what the analysis proves, and changes no finding and no decision.
    REWRITE = "refactor.rewrite"


@dataclass(frozen=True, slots=True)
class Replacement:
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    kind: ActionKind
    #: the span a request's range must touch for the fix to be offered.
    start: int
    end: int
    edits: tuple[Replacement, ...]
    #: the finding it resolves, for quick fixes.
    diagnostic: Diagnostic | None = None
    preferred: bool = False

    @property
    def changed(self) -> tuple[int, int]:
        """The bytes its edits replace, from the first to the last (an insertion is an empty span)."""
        return min(edit.start for edit in self.edits), max(edit.end for edit in self.edits)


def compatible(fixes: Iterable[Fix]) -> list[Fix]:
    """Fixes that can be applied together: in text order, each one whose edits neither overlap nor touch those
    of a fix taken before it (two insertions at one offset would depend on their order).  The others wait for
    an analysis of the text these produce, which may offer them again."""
    taken: list[Fix] = []
    spans: list[tuple[int, int]] = []
    for fix in sorted(fixes, key=lambda f: f.changed):
        start, end = fix.changed
        if all(end < taken_start or taken_end < start for taken_start, taken_end in spans):
            taken.append(fix)
            spans.append((start, end))
    return taken


def applied(data: bytes, edits: Iterable[Replacement]) -> bytes:
    """``data`` with the edits made; they must not overlap (``compatible``)."""
    out = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        assert edit.start >= at, "overlapping edits"
        out += [data[at:edit.start], edit.text.encode("utf-8", "surrogatepass")]
        at = edit.end
    out.append(data[at:])
    return b"".join(out)
