"""Parsing: the text to a tree-sitter tree, the valid TypeScript the grammar rejects repaired, the rest reported.

``languages`` picks the grammar, ``constructs`` knows what the grammar gets
wrong and how to rewrite it, ``repair`` is the one entry point
(``parse_source``, and ``parse`` for the tree alone), ``problems`` says what
is left and where, and ``parsed_file`` is what a parse gives the later
phases: the file, its tree and the questions they ask it; ``fields`` holds
the grammars' field ids that the binder and the control-flow builder read.
"""

from .languages import (
    DECLARED_FUNCTIONS,
    FUNCTION_NODES,
    SOURCE_SUFFIXES,
    TSX_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
    is_typed,
    language,
    new_parser,
    uses_tsx,
)
from .parsed_file import ParsedFile, Rewrite, branch_around, simple_parameter_list
from .problems import TYPE_CONTEXTS, SyntaxProblem, reserved_names, syntax_problems
from .repair import parse, parse_source, repaired

__all__ = [
    "DECLARED_FUNCTIONS", "FUNCTION_NODES", "SOURCE_SUFFIXES", "TSX_SUFFIXES", "TYPESCRIPT_SUFFIXES",
    "TYPE_CONTEXTS", "ParsedFile", "Rewrite", "SyntaxProblem", "branch_around", "is_typed", "language",
    "new_parser", "parse", "parse_source", "repaired", "reserved_names", "simple_parameter_list",
    "syntax_problems", "uses_tsx",
]
