"""Shapes of the syntax tree that every family of handlers asks about, and the uses they hand down.

A ``Use`` says what the expression around a value does with it (``model.UseKind``);
the escaping ones carry their reason, made once per distinct reason.
"""

from __future__ import annotations

import re
from functools import cache

import tree_sitter

from ..model import Use, UseKind

Node = tree_sitter.Node

#: wrappers whose value is their expression child: ``(x)``, ``x as T``, ``x!``, ``<T>x``, ``x satisfies T``.
TRANSPARENT = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion",
     "instantiation_expression"}
)
LOGICAL_ASSIGN = frozenset({"||=", "&&=", "??="})
LOGICAL_OPS = frozenset({"&&", "||", "??"})


def expression_child(node: Node) -> Node | None:
    """The value-carrying child of a transparent wrapper."""
    if node.type == "type_assertion":
        return node.named_children[-1] if node.named_child_count else None
    for child in node.named_children:
        if child.type != "comment":
            return child
    return None


def unwrap(node: Node) -> Node:
    """Strip parentheses and type assertions: ``((f as any)!)`` -> ``f``."""
    while node.type in TRANSPARENT:
        inner = expression_child(node)
        if inner is None:
            return node
        node = inner
    return node


def using_declaration(node: Node, data: bytes) -> bool:
    """``using x = e`` (and ``await using``): the grammar parses it as an assignment led by a ``using`` token.

    ``using`` followed by a line break is an identifier and a new statement, not a declaration.
    """
    if node.type != "assignment_expression" or node.child_count == 0:
        return False
    first = node.children[0]
    if first.type != "using" or first.is_named:
        return False
    left = node.child_by_field_name("left")
    return left is not None and b"\n" not in data[first.end_byte:left.start_byte] \
        and b"\r" not in data[first.end_byte:left.start_byte]


def leads_using_declaration(node: Node, data: bytes) -> bool:
    """The first declarator of ``using a = 1, b = 2`` (or of ``await using ...``)."""
    if node.type == "await_expression" and node.named_child_count:
        node = node.named_children[0]
    return using_declaration(node, data)


def has_decorator(node: Node) -> bool:
    return any(child.type == "decorator" for child in node.named_children)


IDENTIFIER_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")


def decode_identifier_escapes(text: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if code <= 0x10FFFF else match.group(0)

    return IDENTIFIER_ESCAPE.sub(char, text)


@cache
def escaping(why: str) -> Use:
    """The use of a value that may outlive the activation, for this reason (one object per reason)."""
    return Use(UseKind.ESCAPE, why)


#: a function reachable from what it makes or exposes: its ``prototype`` object's ``constructor`` is itself.
CONSTRUCTED_USE = escaping("constructed with `new`, whose object reaches it through its prototype")
PROTOTYPE_USE = escaping("its `prototype` read, whose `constructor` is itself")
PATTERN_USE = escaping("destructured by an object pattern, which may read its `prototype`")
#: the operand of ``await`` (the value escapes; a call there is ``AWAITED_CALLEE_USE``).
AWAITED_USE = escaping("awaited")
