"""Which code is strict: one home for the question, since sloppy mode changes what a binding is.

Two sloppy-mode rules reach the storage decision: a mapped ``arguments``
object aliases the parameters (``mapped_arguments``), and a function
declared in a block also binds a function-level ``var`` (``block_functions``).

Strict code: a module (a file with ``import`` or ``export``, or a
``.mjs``/``.mts`` file), code under a ``"use strict"`` prologue, and class
bodies.  A ``.js`` file that is a module only because of its ``package.json``,
or a TypeScript script compiled with ``alwaysStrict``, looks sloppy here:
each rule says how it stays sound when the guess is wrong.
"""

from __future__ import annotations

from pathlib import PurePath

import tree_sitter

from ..model import Closure

Node = tree_sitter.Node

MODULE_SUFFIXES = frozenset({".mjs", ".mts"})
MODULE_STATEMENTS = frozenset({"import_statement", "export_statement"})


def is_module(root: Node, data: bytes, path: str) -> bool:
    """Module code is strict: a file with ``import``/``export``, a ``.mjs``/``.mts`` file, or a strict script."""
    if PurePath(path).suffix.lower() in MODULE_SUFFIXES:
        return True
    statements = root.named_children
    return any(s.type in MODULE_STATEMENTS for s in statements) or has_use_strict(statements, data)


def is_strict(closure: Closure, root: Node, data: bytes) -> bool:
    """Under a ``"use strict"`` prologue of its own or of a function around it, or inside a class."""
    walk: Closure | None = closure
    while walk is not None and not walk.is_module:
        if walk.is_class_member:
            return True
        node = function_node(root, walk)
        body = node.child_by_field_name("body") if node is not None else None
        if body is not None and body.type == "statement_block" and has_use_strict(body.named_children, data):
            return True
        walk = walk.parent
    return False


def function_node(root: Node, closure: Closure) -> Node | None:
    return root.descendant_for_byte_range(closure.start, closure.end)


def has_use_strict(statements: list[Node], data: bytes) -> bool:
    """A ``"use strict"`` directive among the leading string-literal statements (the prologue)."""
    for statement in statements:
        if statement.type == "comment":
            continue
        value = statement.named_children[0] if statement.named_child_count else None
        if statement.type != "expression_statement" or value is None or value.type != "string":
            return False
        if data[value.start_byte + 1:value.end_byte - 1] == b"use strict":
            return True
    return False
