"""Parsing: the text to a tree-sitter tree, the valid TypeScript the grammar rejects repaired, the rest reported.

``languages`` picks the grammar, ``constructs`` knows what the grammar gets
wrong and how to rewrite it, ``repair`` is the one entry point
(``parse_source``, and ``parse`` for the tree alone), ``problems`` says what
is left and where.
"""

from .languages import (
    DECLARED_FUNCTIONS,
    FUNCTION_NODES,
    SOURCE_SUFFIXES,
    TSX_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
    is_typed,
    language,
    parser,
    uses_tsx,
)
from .problems import TYPE_CONTEXTS, SyntaxProblem, reserved_names, syntax_problems
from .repair import Parsed, Rewrite, parse, parse_source, repaired

__all__ = [
    "DECLARED_FUNCTIONS", "FUNCTION_NODES", "SOURCE_SUFFIXES", "TSX_SUFFIXES", "TYPESCRIPT_SUFFIXES", "TYPE_CONTEXTS", "Parsed", "Rewrite",
    "SyntaxProblem", "is_typed", "language", "parse", "parse_source", "parser", "repaired", "reserved_names",
    "syntax_problems",
    "uses_tsx",
]
