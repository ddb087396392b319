"""Builtin methods that run a callback and drop it, on receivers known to be arrays, maps or sets (DESIGN 2.2.1).

``xs.forEach(f)`` calls ``f`` during the call and keeps nothing of it, when
``xs`` is an array, a ``Map`` or a ``Set``: the language fixes what those
methods do.  Whether ``xs`` is one is known by construction (an array
literal, ``Object.keys(o)``, ``Array.from(x)``) or by the binding's declared
TypeScript type (``T[]``, ``Array<T>``, ``ReadonlyArray<T>``, a tuple, their
``readonly`` forms, ``Map``, ``Set`` and their read-only forms, alone or with
``| undefined`` or ``| null``, on which the call throws before it runs
anything), as a TypeScript compiler trusts it; ``any`` and everything else
stays unknown.  The binder records what it saw; once the names are resolved,
``receivers.dropped_callbacks`` checks that the receiver is what it must be, that
``Object`` or ``Array`` is the global, that no ``eval`` or ``with`` stands
between a name and its binding, and that no type or binding of the file's
own is called ``Array``, ``Map`` or ``Set``; ``FileModel.dropped_callbacks``
holds where the callbacks it accepts stand, which the escape graph reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Binding
from .receivers import (
    ARRAY,
    ARRAY_CALLBACKS,
    COLLECTION,
    COLLECTION_CALLBACKS,
    LITERAL,
    MADE_BY_GLOBAL,
    MAKE_ARRAYS,
    TYPE_NAMES,
)
from .syntax import Node, named

if TYPE_CHECKING:
    from .binder import Binder

def record_callback(binder: Binder, member: Node, arguments: Node) -> None:
    """``RECEIVER.forEach(f, ...)``: record where ``f`` stands, with the receiver to check once names are bound."""
    if member.kind_id != binder.kinds.member_expression:
        return
    prop = member.child_by_field_id(binder.fields.property)
    method = binder.data[prop.start_byte:prop.end_byte] if prop is not None else b""
    obj = member.child_by_field_id(binder.fields.object) if method in ARRAY_CALLBACKS else None
    if obj is None:
        return
    first = next((child for child in named(arguments) if child.kind_id != binder.kinds.comment), None)
    if first is None or first.kind_id == binder.kinds.spread_element:
        return
    needs = COLLECTION if method in COLLECTION_CALLBACKS else ARRAY
    obj = binder.kinds.bare(obj)
    if obj.type == "array":
        binder.callbacks[first.start_byte] = (LITERAL, ARRAY)
    elif obj.kind_id == binder.kinds.identifier:
        binder.callbacks[first.start_byte] = (obj.start_byte, needs)
    elif obj.type == "call_expression":
        function = obj.child_by_field_id(binder.fields.function)
        if function is not None and function.type == "member_expression":
            maker = function.child_by_field_id(binder.fields.object)
            if binder.data[function.start_byte:function.end_byte] in MAKE_ARRAYS and maker is not None:
                binder.callbacks[first.start_byte] = (maker.start_byte, MADE_BY_GLOBAL)


def declared_container(binder: Binder, binding: Binding, annotation: Node | None) -> None:
    """Record the container ``binding``'s declared type says it holds (``: number[]``, ``: Map<K, V>``)."""
    if annotation is None:
        return
    types = [child for child in named(annotation) if child.kind_id != binder.kinds.comment]
    kind = container_type(binder, types[0]) if len(types) == 1 else None
    if kind is not None:
        binder.containers[binding] = kind


def container_type(binder: Binder, node: Node) -> str | None:
    """``ARRAY``, ``COLLECTION`` or ``None`` for a type node; a union with ``undefined`` or ``null`` keeps it."""
    kind = node.type
    if kind in ("array_type", "tuple_type"):
        return ARRAY
    if kind == "readonly_type":
        inner = [child for child in named(node) if child.kind_id != binder.kinds.comment]
        return container_type(binder, inner[0]) if len(inner) == 1 else None
    if kind == "parenthesized_type":
        inner = [child for child in named(node) if child.kind_id != binder.kinds.comment]
        return container_type(binder, inner[0]) if len(inner) == 1 else None
    if kind == "generic_type":
        name = node.child_by_field_id(binder.fields.name)
        return TYPE_NAMES.get(binder.data[name.start_byte:name.end_byte]) if name is not None \
            and name.type == "type_identifier" else None
    if kind == "union_type":
        found = {container_type(binder, child) if not empty_type(binder, child) else "empty"
                 for child in named(node) if child.kind_id != binder.kinds.comment}
        found.discard("empty")
        return found.pop() if len(found) == 1 and None not in found else None
    return None


def empty_type(binder: Binder, node: Node) -> bool:
    """``undefined`` or ``null``: a call on it throws before it runs the callback."""
    return binder.data[node.start_byte:node.end_byte].strip() in (b"undefined", b"null")
