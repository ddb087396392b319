"""Languages and parsers.

``.ts/.mts/.cts`` use the TypeScript grammar; everything else (``.tsx``,
``.jsx``, ``.js``, ``.mjs``, ``.cjs``) uses the TSX grammar, which accepts
JSX and plain JavaScript.  Parsers are created once per process.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePath

import tree_sitter
import tree_sitter_typescript

TYPESCRIPT_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
TSX_SUFFIXES = frozenset({".tsx", ".jsx", ".js", ".mjs", ".cjs"})
SOURCE_SUFFIXES = TYPESCRIPT_SUFFIXES | TSX_SUFFIXES
#: files whose type syntax TypeScript reads (``.tsx`` too); in the others ``a<b>`c``` is two comparisons.
TYPED_SUFFIXES = TYPESCRIPT_SUFFIXES | {".tsx"}


@lru_cache(maxsize=None)
def language(tsx: bool) -> tree_sitter.Language:
    raw = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return tree_sitter.Language(raw)


@lru_cache(maxsize=None)
def parser(tsx: bool) -> tree_sitter.Parser:
    return tree_sitter.Parser(language(tsx))


def uses_tsx(path: str) -> bool:
    return PurePath(path).suffix.lower() not in TYPESCRIPT_SUFFIXES


def is_typed(path: str) -> bool:
    return PurePath(path).suffix.lower() in TYPED_SUFFIXES
