"""One file as parsed once: its text, its tree, and the questions later phases ask the tree.

The binder walks the tree; the ``legacy`` and ``v8`` policies, retention and
the suppression comments ask it more afterwards (the node at an offset, the
branch around a statement, whether a function's parameters are simple,
where the comments are).  They all get this object with the bound file, so
no phase parses the file again or finds its tree in shared state: two files
analyzed at once, on two threads, each see their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from ..source import SourceFile
from .problems import SyntaxProblem
from .rewriting import Family

Node = tree_sitter.Node

#: statements whose code runs only when a condition holds (the ``if`` branches are found by position).
BRANCH_NODES = frozenset({"else_clause", "switch_case", "switch_default", "catch_clause"})


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One construct rewritten by ``repair``: which family, where, and the bytes that replace as many of the
    original."""

    family: Family
    start: int
    new: bytes

    @property
    def end(self) -> int:
        return self.start + len(self.new)


@dataclass(frozen=True, slots=True)
class ParsedFile:
    source: SourceFile
    tree: tree_sitter.Tree
    problems: list[SyntaxProblem]
    rewrites: tuple[Rewrite, ...] = ()

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def repaired(self) -> bool:
        """Whether the tree is a parse of a rewritten copy (an incremental parse must not start from it)."""
        return bool(self.rewrites)

    def node_at(self, start: int, end: int) -> Node:
        """The deepest node that spans ``start..end``."""
        root = self.tree.root_node
        node = root.descendant_for_byte_range(start, end)
        return node if node is not None else root

    def simple_parameters(self, start: int, end: int) -> bool:
        """Whether the function spanning ``start..end`` has only plain parameters (``simple_parameter_list``)."""
        return simple_parameter_list(self.node_at(start, end).child_by_field_name("parameters"))

    def comments_containing(self, marker: bytes) -> list[Node]:
        """The comments whose text contains ``marker``, in order; a file without it is not walked at all."""
        data = self.source.data
        found: list[Node] = []
        at = data.find(marker)
        while at >= 0:
            node = self.tree.root_node.descendant_for_byte_range(at, at + len(marker))
            if node is not None and node.type == "comment" and (not found or found[-1].start_byte != node.start_byte):
                found.append(node)
            at = data.find(marker, at + 1)
        return found


def branch_around(node: Node, start: int, end: int) -> Node | None:
    """The innermost branch between ``node`` and the function spanning ``start..end``: the code runs only when
    it is taken."""
    walk: Node | None = node
    while walk is not None and not (walk.start_byte <= start and walk.end_byte >= end):
        if walk.type in BRANCH_NODES:
            return walk
        parent = walk.parent
        if parent is not None and parent.type == "if_statement" and walk.is_named \
                and walk != parent.child_by_field_name("condition"):
            return walk
        walk = parent
    return None


def simple_parameter_list(params: Node | None) -> bool:
    """No default, rest or destructuring parameter (a TypeScript ``this`` parameter is erased)."""
    for param in params.named_children if params is not None else []:
        if param.type == "comment":
            continue
        if param.type not in ("required_parameter", "optional_parameter"):
            return False
        pattern = param.child_by_field_name("pattern")
        if pattern is None or param.child_by_field_name("value") is not None:
            return False
        if pattern.type not in ("identifier", "this"):
            return False
    return True
