"""The one way every part of boxcheck parses a file: parse, and where the grammar failed on valid TypeScript, repair.

tree-sitter-typescript 0.23.2 is the newest grammar and rejects some valid
TypeScript (``constructs``).  When a parse has ERROR or MISSING nodes, the
known constructs inside the damaged regions (the node around each ERROR) are
rewritten in a copy of the text without moving a byte, and the copy is parsed
again; a round is kept only when it leaves less damage, and the rounds stop
when nothing is left to rewrite.  What no rewrite explains stays a syntax
problem.  Two constructs the grammar misreads without any error are looked
for in every file; a file without errors and without them costs one search
of its text (and one for a byte that is not UTF-8).

The tree of a repaired file is a parse of the copy: its offsets are the
file's, its token text is not, which is why the binder and every message
read names and keywords from the original bytes.  The analysis parses here
once (``parse_source``) and hands the ``ParsedFile`` to every later phase;
the expectations parse here too (``parse``), and the language server, which
parses incrementally with edits, repairs its tree here (``repaired``): so
every consumer sees the same repaired tree.
"""

from __future__ import annotations

import bisect
from dataclasses import replace

import tree_sitter

from ..source import SourceFile
from .constructs import FAMILIES
from .languages import is_typed, new_parser, uses_tsx
from .parsed_file import ParsedFile, Rewrite
from .problems import SyntaxProblem, context_of, damage, syntax_problems
from .rewriting import Text

#: rounds of rewrite and re-parse: a repair can uncover a construct that the damage hid.
ROUNDS = 8
#: how far before a problem a construct may start and still be named in its message (bytes).
NEAR = 256
#: how much text around a damaged region is searched for constructs (bytes).
MARGIN = 512
REPLACEMENT = "\ufffd".encode()
#: the patterns of the families whose construct the grammar misreads without an error, by ``is_typed``.
SILENT = {typed: tuple(pattern for family in FAMILIES if family.silent and (typed or not family.typed_only)
                       for pattern in family.patterns) for typed in (False, True)}
#: tokens where a U+FFFD is text, not code.
NOT_CODE = frozenset({"comment", "string_fragment", "string", "template_string", "regex_pattern", "jsx_text",
                      "html_comment", "hash_bang_line", "escape_sequence", "html_character_reference"})


def parse_source(source: SourceFile) -> ParsedFile:
    """The file's one parse, with a parser of its own: a tree-sitter parser must not serve two threads."""
    tsx_parser = new_parser(uses_tsx(source.path))
    return repaired(tsx_parser, source, tsx_parser.parse(source.data))


def parse(data: bytes, path: str) -> tree_sitter.Tree:
    """The repaired tree alone, of a UTF-8 text that is no ``SourceFile`` yet (a test's snippet, a benchmark's
    edit)."""
    return parse_source(SourceFile.from_bytes(path, data)).tree


def reads_clean(data: bytes) -> bool:
    """A piece of TypeScript, alone, parses without an error once repaired (``Text.reads_clean``)."""
    return not parse(data, "piece.ts").root_node.has_error


def repaired(using: tree_sitter.Parser, source: SourceFile, tree: tree_sitter.Tree) -> ParsedFile:
    """``tree`` (``using``'s parse of the source), repaired where it has errors the families explain.

    First the constructs the grammar misreads without an error (``silent``
    families: one search of the text, a re-parse only where one is found),
    then the rounds over the damaged regions.
    """
    clean = unrepaired(source, tree)
    return clean if clean is not None else repair_parse(using, source, tree)


def unrepaired(source: SourceFile, tree: tree_sitter.Tree) -> ParsedFile | None:
    """The repair check: the parse as it is when it needs no repair (no error, none of the constructs the grammar
    misreads silently: one search of the text, the common case), else ``None``.

    Apart from ``repair`` so that ``benchmarks/stages.py`` times the check that every file pays apart from the
    repairs that a few files need.
    """
    data = source.data
    if tree.root_node.has_error or any(pattern.search(data) for pattern in SILENT[is_typed(source.path)]):
        return None
    return ParsedFile(source, tree, not_utf8(tree, data, []))


def repair_parse(using: tree_sitter.Parser, source: SourceFile, tree: tree_sitter.Tree) -> ParsedFile:
    """``tree``, which failed the repair check (``unrepaired``), repaired as far as the families explain it."""
    data, path = source.data, source.path
    typed, jsx = is_typed(path), uses_tsx(path)
    text = bytearray(data)
    rewrites = misread(using, Text(text, tree, typed, jsx, reads_clean))
    if rewrites:
        text, tree = rewritten(using, text, tree, rewrites)
    if not tree.root_node.has_error:
        return ParsedFile(source, tree, not_utf8(tree, data, []), tuple(rewrites))
    problems = syntax_problems(tree, data)
    tried: list[Rewrite] = []
    refused: set[int] = set()
    refuted: set[int] = set()
    for _ in range(ROUNDS):
        regions = damaged_regions(tree)
        found = rewrites_in(Text(text, tree, typed, jsx, reads_clean), regions, refused)
        if not found:
            break
        trial, trial_tree = rewritten(using, text, tree, found)
        unconfirmed = [r for r in found if r.family.confirm is not None
                       and not r.family.confirm(Text(trial, trial_tree, typed, jsx, reads_clean), r.start, r.end)]
        if unconfirmed:
            # The re-parse says the place is not the construct: it names no problem either.
            refused.update(r.start for r in unconfirmed)
            refuted.update(r.start for r in unconfirmed)
            found = [r for r in found if r.start not in refused]
            if not found:
                continue
            trial, trial_tree = rewritten(using, text, tree, found)
        trial_problems = syntax_problems(trial_tree, data)
        if damage(trial_problems) < damage(problems):
            text, tree, problems = trial, trial_tree, trial_problems
            rewrites.extend(found)
        else:
            kept = False
            groups = by_region(found, regions)
            for group in groups:
                if len(groups) > 1:  # one region alone: its trial is the round's, judged already
                    trial, trial_tree = rewritten(using, text, tree, group)
                    trial_problems = syntax_problems(trial_tree, data)
                refused.update(r.start for r in group)
                if damage(trial_problems) < damage(problems):
                    text, tree, problems, kept = trial, trial_tree, trial_problems, True
                    rewrites.extend(group)
                elif damage(trial_problems)[0] > damage(problems)[0]:
                    refuted.update(r.start for r in group)
                else:
                    tried.extend(group)
            if not kept:
                break
        if not problems:
            break
    if problems:
        left = rewrites_in(Text(text, tree, typed, jsx, reads_clean), damaged_regions(tree), refuted)
        problems = named(problems, tried + left)
    return ParsedFile(source, tree, not_utf8(tree, data, problems), tuple(rewrites))


def by_region(found: list[Rewrite], regions: list[tuple[int, int]]) -> list[list[Rewrite]]:
    """``found`` grouped by the damaged region each repairs, when the rewrites of a round fail together.

    A real error next to a construct can make that construct's rewrite
    spread the damage (``type X<type> = (type extends F<? ...``); tried
    alone, each region's rewrites are kept or refused on their own, so the
    error does not cost the file its other repairs.
    """
    starts = [start for start, _ in regions]
    groups: dict[int, list[Rewrite]] = {}
    for rewrite in found:
        groups.setdefault(bisect.bisect_right(starts, rewrite.start) - 1, []).append(rewrite)
    return list(groups.values())


def misread(using: tree_sitter.Parser, text: Text) -> list[Rewrite]:
    """The rewrites of what the grammar reads wrongly without an error, kept if the re-parse confirms each."""
    found = rewrites_in(text, [(0, len(text.data))], set(), silent=True)
    if not found:
        return []
    trial, trial_tree = rewritten(using, text.data, text.tree, found)
    confirmed = Text(trial, trial_tree, text.typed, text.jsx, reads_clean)
    return [r for r in found if r.family.confirm is None or r.family.confirm(confirmed, r.start, r.end)]


def named(problems: list[SyntaxProblem], candidates: list[Rewrite]) -> list[SyntaxProblem]:
    """Each problem that a known construct (one the repairs could not make readable) sits in or just before."""
    if not candidates:
        return problems
    out = []
    for problem in problems:
        near = [c for c in candidates if problem.start - NEAR <= c.start <= max(problem.end, problem.at) + 1]
        out.append(replace(problem, construct=near[-1].family.construct) if near else problem)
    return out


def not_utf8(tree: tree_sitter.Tree, data: bytes, problems: list[SyntaxProblem]) -> list[SyntaxProblem]:
    """``problems``, and each U+FFFD in code: TypeScript takes the file for binary, tree-sitter for a name.

    The text is decoded with replacement (``source``), so a byte that is not
    UTF-8 is a U+FFFD here; in a string or a comment it is harmless.
    """
    if REPLACEMENT not in data:
        return problems
    found = list(problems)
    damaged = [(p.start, p.end) for p in problems]
    at = data.find(REPLACEMENT)
    while at >= 0:
        leaf = tree.root_node.descendant_for_byte_range(at, at + len(REPLACEMENT))
        if leaf is not None and leaf.type not in NOT_CODE and not any(s <= at < max(e, s + 1) for s, e in damaged):
            found.append(SyntaxProblem(at, at + len(REPLACEMENT), None, False, at, at + len(REPLACEMENT), "\ufffd",
                                       context_of(leaf), "a byte that is not UTF-8, read as U+FFFD"))
        at = data.find(REPLACEMENT, at + len(REPLACEMENT))
    found.sort(key=lambda p: (p.start, p.end))
    return found


def rewritten(using: tree_sitter.Parser, text: bytearray, tree: tree_sitter.Tree,
              found: list[Rewrite]) -> tuple[bytearray, tree_sitter.Tree]:
    """The text with ``found`` applied, and its parse, re-using the subtrees of ``tree`` that no rewrite touched.

    A rewrite keeps the length, so the edit moves nothing (the points given
    are never read: every position is a byte offset).  On the 296 corpus files
    that need a repair, the trees equal fresh parses of the rewritten texts
    (``tests/test_parsing.py`` checks it on the fixtures), for a fifth less time.
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


def rewrites_in(text: Text, regions: list[tuple[int, int]], refused: set[int], silent: bool = False) -> list[Rewrite]:
    """Every family's rewrites of constructs inside a damaged region, none overlapping another or refused before.

    With ``silent``, only the families whose construct the grammar misreads without an error.
    """
    starts = [start for start, _ in regions]
    windows = searched(regions, len(text.data))
    found: list[Rewrite] = []
    taken = bytearray(len(text.data))
    for family in FAMILIES:
        if (family.typed_only and not text.typed) or (silent and not family.silent):
            continue
        for match in (match for pattern in family.patterns for low, high in windows
                      for match in pattern.finditer(text.data, low, high)):
            if not inside(regions, starts, match.start(), match.end()):
                continue
            for start, new in family.rewrite(match, text):
                end = start + len(new)
                if start in refused or not inside(regions, starts, start, start) or any(taken[start:end]):
                    continue
                if not family.in_text and text.in_comment(start):
                    continue  # the construct's words in a comment: nothing to repair
                taken[start:end] = b"\x01" * (end - start)
                found.append(Rewrite(family, start, new))
    return found


def searched(regions: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """The windows of text to search for the regions: each widened by ``MARGIN`` (a construct may start just
    before a region, and a pattern looks ahead of its match), those that then meet merged."""
    windows: list[tuple[int, int]] = []
    for start, end in regions:
        low, high = max(0, start - MARGIN), min(size, end + MARGIN)
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    return windows


def inside(regions: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether ``start..end`` meets one of the (sorted, disjoint) regions."""
    i = bisect.bisect_right(starts, end) - 1
    return i >= 0 and start <= regions[i][1]
