"""What a construct's rewrite works with: the text being repaired, the tree of its latest parse, and byte edits.

A rewrite never moves a byte (``blank``, ``renamed`` and single-byte
replacements keep the length), so every offset of the repaired tree is an
offset of the original text.  The damaged tree still says a lot about the
context of a place (type syntax, a class body, a JSX attribute), which the
families ask before rewriting where the same text could mean something else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

import tree_sitter

from .problems import TYPE_CONTEXTS

#: (offset, bytes of the same length as what they replace).
Edit = tuple[int, bytes]
Node = tree_sitter.Node

#: statements and declarations that end a search for the context of a place.
_STATEMENT_SUFFIXES = ("_statement", "statement_block", "program")
#: the longest bracketed text a family matches: longer ones are left to the diagnostic.
_MAX_BRACKETED = 8192
_COMMENTS = frozenset({"comment", "html_comment"})
_WORD_BEFORE = re.compile(rb"([A-Za-z_$][\w$]*)\s*$")
_CLOSER = {0x28: 0x29, 0x5B: 0x5D, 0x7B: 0x7D}
_OPENER = {0x29: 0x28, 0x5D: 0x5B, 0x7D: 0x7B}


class Text:
    """The text being repaired and the tree of its latest parse, with what the families ask of them."""

    def __init__(self, data: bytearray, tree: tree_sitter.Tree, typed: bool, jsx: bool,
                 reads_clean: Callable[[bytes], bool]):
        self.data = data
        self.tree = tree
        #: TypeScript reads type syntax here (``.ts``, ``.tsx``); JSX may appear (the TSX grammar's files).
        self.typed = typed
        self.jsx = jsx
        #: whether a piece of TypeScript, alone, parses without an error once repaired (``repair.reads_clean``,
        #: handed in: the repairs use the families): a family asks it of a part of the text.
        self.reads_clean = reads_clean

    def leaf(self, offset: int) -> Node | None:
        return self.tree.root_node.descendant_for_byte_range(offset, offset + 1)

    def enclosing(self, offset: int, kinds: Collection[str]) -> Node | None:
        """The nearest node of one of ``kinds`` around ``offset``, the leaf there included: what a family's
        check asks of the re-parse (the list, the block or the ERROR the rewritten text now stands in)."""
        node = self.leaf(offset)
        while node is not None and node.type not in kinds:
            node = node.parent
        return node

    def ancestors(self, offset: int) -> list[str]:
        """The kinds of the nodes around ``offset``, innermost first, up to the nearest statement."""
        kinds: list[str] = []
        node = self.leaf(offset)
        while node is not None:
            kinds.append(node.type)
            if node.type.endswith(_STATEMENT_SUFFIXES) and node.type not in TYPE_CONTEXTS:
                break
            node = node.parent
        return kinds

    def in_comment(self, offset: int) -> bool:
        """Whether ``offset`` is in a comment, as the tree reads it.

        Strings are not asked about: where the damage made the grammar open a
        template literal too early, the code after it reads as the template's
        text (and a rewrite inside a real string changes nothing the analysis reads).
        """
        leaf = self.leaf(offset)
        return leaf is not None and leaf.type in _COMMENTS

    def in_type(self, offset: int) -> bool:
        return any(kind in TYPE_CONTEXTS for kind in self.ancestors(offset))

    def in_class_body(self, offset: int) -> bool:
        return "class_body" in self.ancestors(offset)

    def previous_token(self, offset: int) -> Node | None:
        """The last token before ``offset`` that is not a comment."""
        node = self.leaf(offset)
        while node is not None:
            while node is not None and node.prev_sibling is None:
                node = node.parent
            if node is None:
                return None
            node = node.prev_sibling
            while node is not None and node.child_count:
                node = node.children[-1]
            if node is not None and node.type != "comment" and not node.is_missing and node.end_byte <= offset:
                return node
        return None

    def matching_angle(self, start: int) -> int:
        """The offset of the ``>`` that closes the ``<`` at ``start``, or -1 if there is none nearby.

        Brackets nest, string and template literals are skipped, and the ``>``
        of an arrow ``=>`` closes nothing.  A ``;`` or an unbalanced closing
        bracket outside braces ends the search: that is not a type argument list.
        """
        return self._closing(start, angle=True)

    def opening_angle(self, close: int) -> int:
        """The offset of the ``<`` that the ``>`` at ``close`` closes, or -1: ``matching_angle`` backwards."""
        data, depth = self.data, 0
        openers: list[int] = []
        i = close
        while i >= max(0, close - _MAX_BRACKETED):
            c = data[i]
            if c == 0x3E and data[i - 1:i] != b"=":  # > not in =>
                depth += 1
            elif c == 0x3C:  # <
                depth -= 1
                if depth == 0 and not openers:
                    return i
                if depth < 0:
                    return -1
            elif c in _OPENER:
                openers.append(_OPENER[c])
            elif c in b"([{":
                if not openers or openers.pop() != c:
                    return -1
            elif c == 0x3B and not openers:  # ;
                return -1
            elif c in b"'\"`":
                i = data.rfind(bytes([c]), max(0, close - _MAX_BRACKETED), i)
                if i < 0:
                    return -1
            i -= 1
        return -1

    def matching_paren(self, start: int) -> int:
        """The offset of the ``)`` that closes the ``(`` at ``start``, or -1."""
        return self._closing(start, angle=False)

    def _closing(self, start: int, angle: bool) -> int:
        data, depth = self.data, 0
        closers: list[int] = []
        end = min(len(data), start + _MAX_BRACKETED)
        i = start
        while i < end:
            c = data[i]
            if angle and c == 0x3C:  # <
                depth += 1
            elif angle and c == 0x3E and data[i - 1] != 0x3D:  # > not in =>
                depth -= 1
                if depth == 0 and not closers:
                    return i
                if depth < 0:
                    return -1
            elif c in _CLOSER:
                closers.append(_CLOSER[c])
            elif c in b")]}":
                if not closers or closers.pop() != c:
                    return -1
                if not angle and not closers:
                    return i
            elif c == 0x3B and not closers:  # ;
                return -1
            elif c in b"'\"`":
                close = data.find(bytes([c]), i + 1, end)
                while close > 0 and data[close - 1] == 0x5C:  # an escaped quote
                    close = data.find(bytes([c]), close + 1, end)
                if close < 0:
                    return -1
                i = close
            i += 1
        return -1

    def word_before(self, offset: int) -> bytes:
        """The identifier that ends right before ``offset`` (white space between allowed)."""
        match = _WORD_BEFORE.search(bytes(self.data[max(0, offset - 64):offset]))
        return match.group(1) if match else b""

    def next_code(self, offset: int) -> bytes:
        """The first character at or after ``offset`` that is not white space."""
        stripped = self.data[offset:offset + 256].lstrip()
        return bytes(stripped[:1])


#: what no type contains outside its string literals: an expression between `<` and `>` compares.
_NOT_IN_TYPES = re.compile(rb"\+\+|--|&&|\|\||[=!]=|[+*/%!^~]|(?<![=\s(,:|&<\[])-|=(?!>)")
_STRINGS = re.compile(rb"//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`")


def looks_like_types(text: bytes) -> bool:
    """Whether bracketed text can be a type list: no operator that only an expression has (strings and
    comments aside)."""
    return _NOT_IN_TYPES.search(_STRINGS.sub(b"''", text)) is None


def blank(data: bytearray, start: int, end: int) -> Edit:
    """Spaces for ``start..end``, keeping its line breaks."""
    return start, bytes(c if c in b"\r\n" else 0x20 for c in data[start:end])


def renamed(start: int, word: bytes) -> Edit:
    """An identifier of the same length: ``as`` -> ``_s``."""
    return start, b"_" + word[1:]


@dataclass(frozen=True, slots=True)
class Family:
    #: a short name (the judge's column, a rewrite's record) and the construct in words (messages, docs).
    name: str
    construct: str
    #: where the construct may be: each pattern starts with literal text, so that the search for it is fast.
    patterns: tuple[re.Pattern[bytes], ...]
    rewrite: Callable[[re.Match[bytes], Text], list[Edit]]
    #: only TypeScript reads the construct this way; in JavaScript the same text means something else.
    typed_only: bool = False
    #: asked of the parse of the rewritten text at each rewrite's range: does the grammar now read the place
    #: as the construct the rewrite meant?  A rewrite it refutes is undone (where the text alone cannot tell).
    confirm: Callable[[Text, int, int], bool] | None = None
    #: the grammar reads the construct wrongly *without* an error (``sql<Row>`...``` as two comparisons), so it
    #: is looked for in every file, not only where the parse is damaged.
    silent: bool = False
    #: the rewrite is made inside the text of a literal (a JSX attribute's string, a template type's text).
    in_text: bool = False


