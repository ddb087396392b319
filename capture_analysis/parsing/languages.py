"""Languages and parsers, and the grammars' names for a function.

``.ts/.mts/.cts`` use the TypeScript grammar; everything else (``.tsx``,
``.jsx``, ``.js``, ``.mjs``, ``.cjs``) uses the TSX grammar, which accepts
JSX and plain JavaScript.  A grammar is loaded once per process; a parser is
made for each parse (it costs under a microsecond), because a tree-sitter
parser must not serve two threads, and the language server analyzes on a
thread of its own.

Which nodes make a function is said here, below every phase that asks: the
binder makes each a closure, the control-flow builder does not look inside
one, and the retention check stops at one; they must agree.
"""

from __future__ import annotations

import os.path
from functools import cache

import tree_sitter
import tree_sitter_typescript

TYPESCRIPT_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
TSX_SUFFIXES = frozenset({".tsx", ".jsx", ".js", ".mjs", ".cjs"})
SOURCE_SUFFIXES = TYPESCRIPT_SUFFIXES | TSX_SUFFIXES
#: files whose type syntax TypeScript reads (``.tsx`` too); in the others ``a<b>`c``` is two comparisons.
TYPED_SUFFIXES = TYPESCRIPT_SUFFIXES | {".tsx"}

#: the node kinds that make a function, the same in both grammars.
FUNCTION_NODES = frozenset(
    {"function_declaration", "generator_function_declaration", "function_expression",
     "generator_function", "arrow_function", "method_definition"}
)
#: the functions that are declarations: hoisted, and bound in the scope around them.
DECLARED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})


@cache
def language(tsx: bool) -> tree_sitter.Language:
    raw = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return tree_sitter.Language(raw)


def new_parser(tsx: bool) -> tree_sitter.Parser:
    return tree_sitter.Parser(language(tsx))


def suffix(path: str) -> str:
    """``PurePath(path).suffix.lower()``, without building a path: this is asked several times per file."""
    name = os.path.basename(path)
    i = name.rfind(".")
    return name[i:].lower() if 0 < i < len(name) - 1 else ""


def uses_tsx(path: str) -> bool:
    return suffix(path) not in TYPESCRIPT_SUFFIXES


def is_typed(path: str) -> bool:
    return suffix(path) in TYPED_SUFFIXES
