"""How tree-sitter reads a document's text: a piece at a time while it parses, and later for ``Node.text``.

Pieces: tree-sitter holds the GIL while it parses a byte string, and a full
parse of a 9 MB file kept the server from answering anything for a second.
Handed the text in pieces by a callback, it returns to Python between them,
and the event loop gets its turn (the longest pause went from 1.1 s to
0.09 s with 64 KB pieces, for the same parse time).

Two faults of py-tree-sitter shape the callback:

* while it parses, it keeps a reference to every object the callback returns
  (0.25 and 0.26 take a buffer view of it and release the view, but never
  their own reference): a fresh slice per piece was never freed, 64 KB per
  incremental parse and the whole text per parse from scratch, most of the
  server's growth per keystroke.  So while parsing, every piece goes out in
  one ``bytearray``, refilled on each call (the binding releases its view
  before it calls again, so the buffer may change size), and the references
  kept all point at that one object (a callback may return any buffer since
  0.25, which the package therefore requires);
* the tree keeps the callback as its source, and ``Node.text`` calls it
  again, but reads what it returns as ``bytes`` (a ``bytearray`` crashes the
  process) and after it has let go of it.  So once the parse is done, the
  callback returns ``bytes`` slices, and holds on to the last one.
"""

from __future__ import annotations

from tree_sitter import Parser, Point, Tree

#: bytes handed to tree-sitter per call while it parses.
PARSE_PIECE = 1 << 16
#: bytes per call for ``Node.text``, which wants a node's text, mostly a name.
TEXT_PIECE = 1 << 10


class TreeText:
    """The text of one parse, for ``Parser.parse`` and then for its tree's ``Node.text``."""

    def __init__(self, data: bytes, piece: bytearray):
        """``piece``: the parsing buffer, shared by every parse of the thread (``TreeKeeper``)."""
        self.data = data
        self.piece = piece
        self.parsing = False
        self.last = b""

    def parse(self, parser: Parser, old_tree: Tree | None = None) -> Tree:
        self.parsing = True
        try:
            return parser.parse(self) if old_tree is None else parser.parse(self, old_tree)
        finally:
            self.parsing = False
            self.piece.clear()

    def __call__(self, offset: int, point: Point) -> bytes | bytearray:
        if self.parsing:
            self.piece[:] = self.data[offset:offset + PARSE_PIECE]
            return self.piece
        self.last = self.data[offset:offset + TEXT_PIECE]
        return self.last
