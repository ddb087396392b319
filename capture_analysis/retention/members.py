"""Where the members of a local object literal or class go, for retention (DESIGN 2.6, ``sites``).

A method stored in ``const api = { load() {...}, ping() {...} }`` lives as
long as ``api`` does, which ``sites`` follows; but ``return api.ping``
hands out ``ping`` alone, and ``api`` itself is dropped, so ``load`` is not
kept while ``ping`` is.  Each read of the member by its key (``api.ping``,
not a call of it) is then an escape site of the member's own; any other
read of ``api`` that is not a member access (destructured, spread, read with
a computed key) may take any member out, and keeps each.

A local class whose code never names ``this`` or ``super`` (nor
``arguments``, nor ``eval``) and extends nothing cannot hand its instance
out from inside: ``new Local();`` and ``new Local().m()`` drop the
instance, and with it what the class holds; any other read of the class
still decides (``static`` members stored elsewhere are reads of their
own).

Both only add what is kept, or drop what cannot be: a member whose reads
are not followed (``if (api)``, a destructuring) stays as long as ``api``.
"""

from __future__ import annotations

import re

import tree_sitter

from ..bind.syntax import unwrap
from ..model import Binding, BindingKind, UseKind
from ..parsing import ParsedFile

Node = tree_sitter.Node

#: words in a class's text that may let its instance or itself out (comments and strings count, cautiously).
OPENINGS = re.compile(rb"\b(?:this|super|arguments|eval)\b")


def inert_class(binding: Binding, file: ParsedFile) -> bool:
    """Is ``binding`` a local class, never assigned again, whose code cannot hand its instances out?"""
    if binding.kind is not BindingKind.CLASS or binding.closure.is_module or list(binding.changing_writes()):
        return False
    declaration = file.node_at(binding.start, binding.end).parent
    if declaration is None or declaration.type != "class_declaration" \
            or any(child.type == "class_heritage" for child in declaration.children):
        return False
    body = declaration.child_by_field_name("body")
    return body is not None and OPENINGS.search(file.source.data, body.start_byte, body.end_byte) is None


def member_key(node: Node, data: bytes) -> str | None:
    """The key under which ``node`` (a function) is a member of the object literal around it, if it is a
    plain name: ``ping`` of ``{ ping() {} }`` or ``{ ping: () => 1 }``."""
    if node.type == "method_definition":
        name = node.child_by_field_name("name")
    elif node.parent is not None and node.parent.type == "pair" and node.parent.child_by_field_name("value") == node:
        name = node.parent.child_by_field_name("key")
    else:
        return None
    if name is None or name.type != "property_identifier":
        return None
    return data[name.start_byte:name.end_byte].decode("utf-8", "replace")


def literal_holder(node: Node, binding: Binding) -> bool:
    """Is ``node``'s object literal the initializer of ``binding`` (``const api = { ... }``), directly?"""
    literal = node.parent if node.type == "method_definition" else node.parent.parent if node.parent else None
    declarator = literal.parent if literal is not None and literal.type == "object" else None
    if declarator is None or declarator.type != "variable_declarator":
        return False
    name = declarator.child_by_field_name("name")
    return name is not None and name.type == "identifier" and name.start_byte == binding.start \
        and declarator.child_by_field_name("value") == literal


def member_reads(node: Node, binding: Binding, file: ParsedFile) -> list[Node] | None:
    """The reads that take the member ``node`` out of the object literal that initializes ``binding``, each
    the member expression (``api.ping``); ``None`` when one may take any member out, or ``node`` is no plain
    member of it.  A call of the member (``api.ping()``) runs it: its own code decides, as any call's."""
    data = file.source.data
    key = member_key(node, data)
    if key is None or not literal_holder(node, binding) or list(binding.changing_writes()):
        return None
    found: list[Node] = []
    for ref in binding.references:
        if not ref.is_read or ref.is_declaration_write:
            continue
        read = file.node_at(ref.start, ref.end)
        parent = read.parent
        if parent is None:
            return None
        if parent.type == "member_expression" and parent.child_by_field_name("object") == read:
            prop = parent.child_by_field_name("property")
            if prop is None or data[prop.start_byte:prop.end_byte].decode("utf-8", "replace") != key:
                continue
            call = parent.parent
            if call is not None and call.type == "call_expression" and unwrap(call.child_by_field_name(
                    "function") or call) == parent:
                continue
            found.append(parent)
        elif parent.type == "subscript_expression" and parent.child_by_field_name("object") == read:
            found.append(parent)
        elif ref.use.kind is UseKind.SAFE:
            return None  # compared, destructured...: which member comes out is not followed
    return found
