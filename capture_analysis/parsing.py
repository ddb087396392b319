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


#: nodes that hold only type syntax: damage inside them cannot hide a run-time write or capture.
TYPE_CONTEXTS = frozenset(
    {
        "type_parameters", "type_arguments", "type_annotation", "type_alias_declaration",
        "interface_declaration", "ambient_declaration", "function_signature", "method_signature",
        "abstract_method_signature", "index_signature", "property_signature", "call_signature",
        "construct_signature", "type_predicate_annotation", "asserts_annotation", "implements_clause",
        "object_type", "union_type", "intersection_type", "function_type", "constructor_type",
        "generic_type", "conditional_type", "mapped_type_clause", "type_query", "lookup_type",
        "index_type_query", "tuple_type", "array_type", "literal_type", "template_literal_type",
        "infer_type", "readonly_type", "parenthesized_type", "opting_type_annotation",
        "omitting_type_annotation", "adding_type_annotation",
    }
)


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """An ERROR or MISSING node: where it is, what the parser expected, and whether only types are damaged.

    tree-sitter-typescript 0.23 rejects some valid TypeScript (variance
    annotations ``<in T>``, some generic call signatures); when the damage sits
    inside type syntax, the run-time code around it is intact and is analyzed
    as usual.
    """

    start: int
    end: int
    missing: str | None
    type_only: bool = False

    @property
    def message(self) -> str:
        if self.type_only:
            return "type syntax the parser does not understand; the run-time code around it is analyzed normally"
        if self.missing is not None:
            return f"syntax error: missing `{self.missing}`"
        return "syntax error: unexpected text"


def syntax_problems(tree: tree_sitter.Tree) -> list[SyntaxProblem]:
    """Every outermost ERROR node and every MISSING node, found without recursion."""
    root = tree.root_node
    if not root.has_error:
        return []
    problems: list[SyntaxProblem] = []
    stack: list[tuple[tree_sitter.Node, bool]] = [(root, False)]
    while stack:
        node, in_type = stack.pop()
        if node.is_missing:
            problems.append(SyntaxProblem(node.start_byte, node.end_byte, node.type, in_type))
            continue
        if node.is_error:
            problems.append(SyntaxProblem(node.start_byte, max(node.end_byte, node.start_byte), None, in_type))
            continue
        if node.has_error:
            inner = in_type or node.type in TYPE_CONTEXTS
            stack.extend((child, inner) for child in reversed(node.children))
    problems.sort(key=lambda p: (p.start, p.end))
    return problems
