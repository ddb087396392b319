"""Sloppy-mode ``arguments`` objects alias their function's parameters.

A function that is not strict and has a simple parameter list gets a *mapped*
``arguments`` object: writing one of its elements writes the parameter, and
so does any code the object is handed to::

    function f(a) {
      const g = () => a;
      arguments[0] = 2;      // writes `a` after `g` captured it: `a` is not `value`
      return g;
    }

A use that only reads a property or an element (``arguments.length``,
``x = arguments[0]``) writes nothing.  A mapped ``arguments`` object also has
``callee``, the function itself: a use that may hand that out (the object
given away, ``arguments.callee`` or ``arguments[k]`` read as a value) makes
the function escape, and any use but ``arguments.length`` may read a
parameter's current value out, a closure stored into it included, so the
parameters escape (``escape.py``).  Every other use may write any
parameter, then or later: an element assigned or updated, the object passed
on, stored or spread, or made the receiver of a call (``arguments[0]()``
runs with ``this`` bound to it).  An arrow has no ``arguments`` of its own:
the one it names is its enclosing function's.

Strict code (``strictness``) has no mapping.  Code that is strict for a
reason the file does not show (a ``.js`` module by its ``package.json``, a
TypeScript script compiled with ``alwaysStrict``) counts as sloppy here,
which can only make a verdict more conservative.  The binder finds these
facts once per file from the tree it walks (``mark``), and only for files
that use ``arguments`` at all.
"""

from __future__ import annotations

import tree_sitter

from ..model import Closure, ClosureKind, Reference
from ..parsing import simple_parameter_list
from .strictness import function_node, is_module, is_strict

Node = tree_sitter.Node

#: functions with their own ``arguments`` object (arrows see their parent's).
OWNERS = frozenset({ClosureKind.FUNCTION_DECLARATION, ClosureKind.FUNCTION_EXPRESSION, ClosureKind.METHOD,
                    ClosureKind.GETTER, ClosureKind.SETTER})
#: wrappers that leave an expression an assignment target: ``(arguments[0] as any) = 1``.
WRAPPERS = frozenset({"parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression",
                      "type_assertion"})
#: destructuring targets and updates: every element of ``[a, ...b]`` is written.
WHOLE_TARGETS = frozenset({"array_pattern", "rest_pattern", "update_expression"})
#: the field of these nodes that is written: ``x = ...``, ``for (x in ...)``, ``{k: x}``, ``[x = 1]``.
TARGET_FIELD = {
    "assignment_expression": "left",
    "augmented_assignment_expression": "left",
    "for_in_statement": "left",
    "pair_pattern": "value",
    "assignment_pattern": "left",
    "object_assignment_pattern": "left",
}


def mark(references: list[Reference], root: Node, data: bytes, path: str) -> None:
    """Set ``arguments_uses`` and ``arguments_write`` on every function with a mapped ``arguments``
    object that it uses (``references``: the file's, resolved)."""
    owners: dict[Closure, list[Reference]] = {}
    for ref in references:
        if ref.name == "arguments" and ref.binding is None:
            closure = owner(ref)
            if closure is not None:
                owners.setdefault(closure, []).append(ref)
    if not owners or is_module(root, data, path):
        return
    for closure, uses in owners.items():
        # A function whose node cannot be found is taken as mapped: the cautious side.
        node = function_node(root, closure)
        params = node.child_by_field_name("parameters") if node is not None else None
        if not simple_parameter_list(params) or is_strict(closure, root, data):
            continue
        closure.arguments_uses = uses
        nodes = [(use, root.descendant_for_byte_range(use.start, use.end)) for use in uses]
        closure.arguments_write = next((use for use, node in nodes if may_write(node)), None)
        closure.arguments_callee = next((use for use, node in nodes if may_hand_out_callee(node)), None)
        closure.arguments_exposes = next((use for use, node in nodes if not reads_length(node)), None)


def owner(ref: Reference) -> Closure | None:
    """The function whose ``arguments`` object ``ref`` names, if it has one."""
    closure: Closure | None = ref.closure
    while closure is not None and closure.kind is ClosureKind.ARROW:
        closure = closure.parent
    if closure is None or closure.kind not in OWNERS or closure.is_class_member:
        return None
    return closure


def may_write(node: Node | None) -> bool:
    """Can this use of ``arguments`` write through the object, now or later?"""
    parent = node.parent if node is not None else None
    if node is None or parent is None:
        return True
    if parent.type == "member_expression" and parent.child_by_field_name("object") == node:
        return is_callee(parent)
    if parent.type == "subscript_expression" and parent.child_by_field_name("object") == node:
        return is_callee(parent) or is_target(parent)
    return True


def may_hand_out_callee(node: Node | None) -> bool:
    """Can this use give away ``arguments.callee``, the function itself, beyond a call of it?

    The object given away (``may_write``) carries it; so does ``arguments.callee`` or
    ``arguments[k]`` read as a value (``k`` may be ``"callee"``); an element read by a number
    literal, ``arguments.length`` and a call through either do not.
    """
    if may_write(node):
        return True
    assert node is not None and node.parent is not None
    parent = node.parent
    if parent.type == "member_expression":
        prop = parent.child_by_field_name("property")
        return prop is not None and prop.text == b"callee" and not is_callee(parent)
    index = parent.child_by_field_name("index")
    return not (index is not None and index.type == "number") and not is_callee(parent)


def reads_length(node: Node | None) -> bool:
    """``arguments.length``: the one use that reads no parameter's value out of the object."""
    parent = node.parent if node is not None else None
    if parent is None or parent.type != "member_expression" or parent.child_by_field_name("object") != node:
        return False
    prop = parent.child_by_field_name("property")
    return prop is not None and prop.text == b"length" and not is_callee(parent)


def outermost(node: Node) -> Node:
    while node.parent is not None and node.parent.type in WRAPPERS:
        node = node.parent
    return node


def is_callee(node: Node) -> bool:
    """``arguments.callee()``, ``arguments[0]()``, ``arguments[0]`t```: the call gets the object as ``this``."""
    node = outermost(node)
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node


def is_target(node: Node) -> bool:
    """Is the element written: assigned, updated, or a destructuring target?"""
    node = outermost(node)
    parent = node.parent
    if parent is None:
        return False
    if parent.type in WHOLE_TARGETS:
        return True
    field = TARGET_FIELD.get(parent.type)
    return field is not None and parent.child_by_field_name(field) == node
