"""The one way every part of boxcheck parses a file: parse, and where the grammar failed on valid TypeScript, repair.

tree-sitter-typescript 0.23.2 is the newest grammar and rejects some valid
TypeScript (``constructs``).  When a parse has ERROR or MISSING nodes, the
known constructs inside the damaged regions (the node around each ERROR) are
rewritten in a copy of the text without moving a byte, and the copy is parsed
again; a round is kept only when it leaves less damage, and the rounds stop
when nothing is left to rewrite.  What no rewrite explains stays a syntax
problem.  A file without errors costs one check of the root.

The tree of a repaired file is a parse of the copy: its offsets are the
file's, its token text is not, which is why the binder and every message
read names and keywords from the original bytes.  The analysis, the
policies' second look at the tree, the suppression comments, the
expectations and the language server all parse through here, so they all
see the same tree.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import tree_sitter

from .constructs import FAMILIES
from .languages import is_typed, parser, uses_tsx
from .problems import SyntaxProblem, damage, syntax_problems
from .rewriting import Family, Text

#: rounds of rewrite and re-parse: a repair can uncover a construct that the damage hid.
ROUNDS = 8


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One construct rewritten: which family, where, and the bytes that replace as many of the original."""

    family: Family
    start: int
    new: bytes

    @property
    def end(self) -> int:
        return self.start + len(self.new)


@dataclass(frozen=True, slots=True)
class Parsed:
    tree: tree_sitter.Tree
    problems: list[SyntaxProblem]
    rewrites: tuple[Rewrite, ...] = ()

    @property
    def repaired(self) -> bool:
        """Whether the tree is a parse of a rewritten copy (an incremental parse must not start from it)."""
        return bool(self.rewrites)


def parse_source(data: bytes, path: str) -> Parsed:
    tsx_parser = parser(uses_tsx(path))
    return repaired(tsx_parser, data, tsx_parser.parse(data), path)


def parse(data: bytes, path: str) -> tree_sitter.Tree:
    return parse_source(data, path).tree


def repaired(using: tree_sitter.Parser, data: bytes, tree: tree_sitter.Tree, path: str) -> Parsed:
    """``tree`` (``using``'s parse of ``data``), repaired where it has errors the families explain."""
    if not tree.root_node.has_error:
        return Parsed(tree, [])
    problems = syntax_problems(tree, data)
    typed, jsx = is_typed(path), uses_tsx(path)
    text = bytearray(data)
    rewrites: list[Rewrite] = []
    refused: set[int] = set()
    for _ in range(ROUNDS):
        found = rewrites_in(Text(text, tree, typed, jsx), damaged_regions(tree), refused)
        if not found:
            break
        trial, trial_tree = rewritten(using, text, tree, found)
        unconfirmed = [r for r in found if r.family.confirm is not None
                       and not r.family.confirm(Text(trial, trial_tree, typed, jsx), r.start, r.end)]
        if unconfirmed:
            refused.update(r.start for r in unconfirmed)
            found = [r for r in found if r.start not in refused]
            if not found:
                continue
            trial, trial_tree = rewritten(using, text, tree, found)
        trial_problems = syntax_problems(trial_tree, data)
        if damage(trial_problems) >= damage(problems):
            break
        text, tree, problems = trial, trial_tree, trial_problems
        rewrites.extend(found)
        if not problems:
            break
    return Parsed(tree, problems, tuple(rewrites))


def rewritten(using: tree_sitter.Parser, text: bytearray, tree: tree_sitter.Tree,
              found: list[Rewrite]) -> tuple[bytearray, tree_sitter.Tree]:
    """The text with ``found`` applied, and its parse, re-using the subtrees of ``tree`` that no rewrite touched.

    A rewrite keeps the length, so the edit moves nothing (the points given
    are never read: every position is a byte offset).  On the 296 corpus files
    that need a repair, the trees equal fresh parses of the rewritten texts
    (``tests/test_parsing.py`` checks it on the fixtures), at two thirds the cost.
    """
    trial = bytearray(text)
    old = tree.copy()
    for rewrite in found:
        trial[rewrite.start:rewrite.end] = rewrite.new
        old.edit(rewrite.start, rewrite.end, rewrite.end, (0, rewrite.start), (0, rewrite.end), (0, rewrite.end))
    return trial, using.parse(bytes(trial), old)


def damaged_regions(tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """The node around each ERROR and MISSING node, merged: where a rewrite may explain the damage."""
    spans: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            around = node.parent if node.parent is not None else node
            if node.is_missing and around.parent is not None:
                around = around.parent
            spans.append((around.start_byte, around.end_byte))
        elif node.has_error:
            stack.extend(node.children)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def rewrites_in(text: Text, regions: list[tuple[int, int]], refused: set[int]) -> list[Rewrite]:
    """Every family's rewrites of constructs inside a damaged region, none overlapping another or refused before."""
    starts = [start for start, _ in regions]
    found: list[Rewrite] = []
    taken = bytearray(len(text.data))
    for family in FAMILIES:
        if family.typed_only and not text.typed:
            continue
        for match in (match for pattern in family.patterns for match in pattern.finditer(text.data)):
            if not inside(regions, starts, match.start(), match.end()):
                continue
            for start, new in family.rewrite(match, text):
                end = start + len(new)
                if start in refused or not inside(regions, starts, start, start) or any(taken[start:end]):
                    continue
                taken[start:end] = b"\x01" * (end - start)
                found.append(Rewrite(family, start, new))
    return found


def inside(regions: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether ``start..end`` meets one of the (sorted, disjoint) regions."""
    i = bisect.bisect_right(starts, end) - 1
    return i >= 0 and start <= regions[i][1]
