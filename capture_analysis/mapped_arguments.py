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
``x = arguments[0]``) writes nothing.  Every other use may write any
parameter, then or later: an element assigned or updated, the object passed
on, stored or spread, or made the receiver of a call (``arguments[0]()``
runs with ``this`` bound to it).  An arrow has no ``arguments`` of its own:
the one it names is its enclosing function's.  Strictness is that of
``legacy_syntax``: a module, a ``"use strict"`` prologue, or a class body.
"""

from __future__ import annotations

from .legacy_syntax import LegacySyntax, is_class_member
from .model import Closure, ClosureKind, FileModel, Reference
from .policy_support import Node, node_at, simple_parameters
from .source import SourceFile

#: functions with their own ``arguments`` object (arrows see their parent's).
OWNERS = frozenset({ClosureKind.FUNCTION_DECLARATION, ClosureKind.FUNCTION_EXPRESSION, ClosureKind.METHOD,
                    ClosureKind.GETTER, ClosureKind.SETTER})
#: wrappers that leave an expression an assignment target: ``(arguments[0] as any) = 1``.
WRAPPERS = frozenset({"parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression",
                      "type_assertion"})
#: destructuring targets: every element of ``[a, ...b]`` is written.
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


def owner(ref: Reference) -> Closure | None:
    """The function whose ``arguments`` object ``ref`` names, if it has one."""
    closure: Closure | None = ref.closure
    while closure is not None and closure.kind is ClosureKind.ARROW:
        closure = closure.parent
    if closure is None or closure.kind not in OWNERS or is_class_member(closure):
        return None
    return closure


def users(model: FileModel, source: SourceFile, syntax: LegacySyntax) -> dict[Closure, list[Reference]]:
    """Functions with a mapped ``arguments`` object (sloppy, simple parameters) that use it, with the uses."""
    found: dict[Closure, list[Reference]] = {}
    for ref in model.references:
        if ref.name == "arguments" and ref.binding is None:
            closure = owner(ref)
            if closure is not None:
                found.setdefault(closure, []).append(ref)
    if not found or not syntax.is_script():
        return {}
    return {closure: refs for closure, refs in found.items()
            if simple_parameters(source, closure) and syntax.is_sloppy(closure)}


def writers(model: FileModel, source: SourceFile) -> dict[Closure, Reference]:
    """Functions whose mapped ``arguments`` object may be written through, with the first such use."""
    if not any(ref.name == "arguments" and ref.binding is None for ref in model.references):
        return {}
    found: dict[Closure, Reference] = {}
    for closure, refs in users(model, source, LegacySyntax(model, source)).items():
        first = next((ref for ref in refs if may_write(node_at(source, ref.start, ref.end))), None)
        if first is not None:
            found[closure] = first
    return found


def may_write(node: Node) -> bool:
    """Can this use of ``arguments`` write through the object, now or later?"""
    parent = node.parent
    if parent is None:
        return True
    if parent.type == "member_expression" and parent.child_by_field_name("object") == node:
        return is_callee(parent)
    if parent.type == "subscript_expression" and parent.child_by_field_name("object") == node:
        return is_callee(parent) or is_target(parent)
    return True


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
