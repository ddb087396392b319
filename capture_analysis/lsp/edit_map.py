"""Where the text an analysis saw has gone since: byte offsets of an older text in the current one.

An analysis describes one revision of a document, but the editor keeps
typing.  To answer a hover from it, or to keep its findings on screen while
the current text has a syntax error, every offset it holds must be carried
through the edits made since, and what those edits touched must be told
apart from what they only moved.  An ``EditMap`` is the old text cut into
the runs that survive unchanged (``Piece``), each with where it starts in
the old text and in the current one; inserted text lies between runs.

Two sentinel bytes stand around the old text (offset ``-1`` and ``len``),
so that typing right before the first byte or after the last one splits a
run like any other edit, and a span that ends at the end of the text is
still seen as touched by an insertion there.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Piece:
    """``length`` bytes that are at ``old`` in the old text and at ``new`` in the current one (sentinels counted)."""

    old: int
    new: int
    length: int


class EditMap:
    def __init__(self, length: int):
        #: the unchanged runs, in text order (the same order in both texts: edits never reorder text).
        self.pieces: list[Piece] = [Piece(0, 0, length + 2)]
        self.edited = False

    def copy(self) -> EditMap:
        twin = EditMap(0)
        twin.pieces = list(self.pieces)
        twin.edited = self.edited
        return twin

    @property
    def identity(self) -> bool:
        """No edit since: offsets are the same in both texts."""
        return not self.edited

    def apply(self, start: int, old_end: int, new_end: int) -> None:
        """Replace the current text's bytes ``[start, old_end)`` with ``new_end - start`` new bytes."""
        if start == old_end == new_end:
            return
        self.edited = True
        start, old_end, new_end = start + 1, old_end + 1, new_end + 1
        delta = new_end - old_end
        news = [piece.new for piece in self.pieces]
        first = max(bisect.bisect_right(news, start) - 1, 0)
        kept = self.pieces[:first]
        rest = []
        for piece in self.pieces[first:]:
            end = piece.new + piece.length
            if end <= start:
                kept.append(piece)
            elif piece.new >= old_end:
                rest.append(Piece(piece.old, piece.new + delta, piece.length))
            else:
                if piece.new < start:
                    kept.append(Piece(piece.old, piece.new, start - piece.new))
                if end > old_end:
                    cut = old_end - piece.new
                    rest.append(Piece(piece.old + cut, old_end + delta, end - old_end))
        if kept and rest and kept[-1].old + kept[-1].length == rest[0].old \
                and kept[-1].new + kept[-1].length == rest[0].new:
            # deleting what was inserted there puts the two runs side by side again: one run
            kept[-1] = Piece(kept[-1].old, kept[-1].new, kept[-1].length + rest.pop(0).length)
        self.pieces = kept + rest

    def _piece_at_old(self, offset: int) -> Piece | None:
        i = bisect.bisect_right([piece.old for piece in self.pieces], offset) - 1
        if i >= 0 and offset < self.pieces[i].old + self.pieces[i].length:
            return self.pieces[i]
        return None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """Where the old span ``[start, end)`` is now, if no edit touched it or a byte next to it; else None.

        The byte on each side counts: typing right after a name makes another name, and typing right
        after a function's closing brace may change what the function is.
        """
        lo, hi = start, end + 2      # sentinel shift (+1), then one byte of margin on each side
        piece = self._piece_at_old(lo)
        if piece is None or hi > piece.old + piece.length:
            return None
        shift = piece.new - piece.old
        return start + shift, end + shift

    def forward(self, offset: int) -> int | None:
        """Where the old byte at ``offset`` is now, or None when an edit replaced it."""
        piece = self._piece_at_old(offset + 1)
        return None if piece is None else offset + piece.new - piece.old

    def backward(self, offset: int) -> int | None:
        """Where the current byte at ``offset`` was in the old text, or None when an edit wrote it."""
        position = offset + 1
        news = [piece.new for piece in self.pieces]
        i = bisect.bisect_right(news, position) - 1
        if i < 0 or position >= self.pieces[i].new + self.pieces[i].length:
            return None
        return offset + self.pieces[i].old - self.pieces[i].new
