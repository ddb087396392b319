"""The scope builder (``binder``), split by family of constructs, and the language rules it applies.

``bind()`` turns a parsed tree into a ``model.FileModel``.  The handlers live
in ``statements``, ``expressions``, ``functions`` and ``patterns``, dispatched
by node kind (``dispatch``); ``block_functions``, ``mapped_arguments`` and
``strictness`` hold the sloppy-mode rules that change what a binding is.
"""

from __future__ import annotations

import tree_sitter

from ..model import FileModel
from ..parsing import SyntaxProblem
from .binder import Binder
from .dispatch import dispatch_table, walk


def bind(data: bytes, tree: tree_sitter.Tree, syntax: list[SyntaxProblem], path: str = "") -> FileModel:
    return Binder(data, tree, syntax, path, dispatch_table(tree.language)).run(walk)


__all__ = ["Binder", "bind"]
