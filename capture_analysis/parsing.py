"""Languages, parsers and syntax errors.

``.ts/.mts/.cts`` use the TypeScript grammar; everything else (``.tsx``,
``.jsx``, ``.js``, ``.mjs``, ``.cjs``) uses the TSX grammar, which accepts
JSX and plain JavaScript.  Parsers are created once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath

import tree_sitter
import tree_sitter_typescript

TYPESCRIPT_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
TSX_SUFFIXES = frozenset({".tsx", ".jsx", ".js", ".mjs", ".cjs"})
SOURCE_SUFFIXES = TYPESCRIPT_SUFFIXES | TSX_SUFFIXES


@lru_cache(maxsize=None)
def language(tsx: bool) -> tree_sitter.Language:
    raw = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return tree_sitter.Language(raw)


@lru_cache(maxsize=None)
def parser(tsx: bool) -> tree_sitter.Parser:
    return tree_sitter.Parser(language(tsx))


def uses_tsx(path: str) -> bool:
    return PurePath(path).suffix.lower() not in TYPESCRIPT_SUFFIXES


def parse(data: bytes, path: str) -> tree_sitter.Tree:
    return parser(uses_tsx(path)).parse(data)


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """An ERROR or MISSING node: where it is and what the parser expected."""

    start: int
    end: int
    missing: str | None

    @property
    def message(self) -> str:
        if self.missing is not None:
            return f"syntax error: missing `{self.missing}`"
        return "syntax error: unexpected text"


def syntax_problems(tree: tree_sitter.Tree) -> list[SyntaxProblem]:
    """Every outermost ERROR node and every MISSING node, found without recursion."""
    root = tree.root_node
    if not root.has_error:
        return []
    problems: list[SyntaxProblem] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            problems.append(SyntaxProblem(node.start_byte, node.end_byte, node.type))
            continue
        if node.is_error:
            problems.append(SyntaxProblem(node.start_byte, max(node.end_byte, node.start_byte), None))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    problems.sort(key=lambda p: (p.start, p.end))
    return problems
