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
``dropped_callbacks`` checks that the receiver is what it must be, that
``Object`` or ``Array`` is the global, that no ``eval`` or ``with`` stands
between a name and its binding, and that no type or binding of the file's
own is called ``Array``, ``Map`` or ``Set``; ``FileModel.dropped_callbacks``
holds where the callbacks it accepts stand, which the escape graph reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..model import Binding, BindingKind, Closure
from ..parameters import single_value
from .syntax import Node, named

if TYPE_CHECKING:
    from .binder import Binder

#: methods of arrays that call their first argument during the call and drop it.
ARRAY_CALLBACKS = frozenset({b"forEach", b"map", b"filter", b"some", b"every", b"find", b"findIndex", b"findLast",
                             b"findLastIndex", b"flatMap", b"reduce", b"reduceRight", b"sort", b"toSorted"})
#: of maps and sets too.
COLLECTION_CALLBACKS = frozenset({b"forEach"})
#: ``Object.keys(o)``, ``Array.from(x)``...: calls of a global's method that make a new array.
MAKE_ARRAYS = frozenset({b"Object.keys", b"Object.values", b"Object.entries", b"Array.from", b"Array.of"})
#: a receiver's kinds, as ``FileModel.callbacks`` and ``FileModel.containers`` spell them.
ARRAY = "array"
COLLECTION = "collection"
#: type names, by the container they declare.
TYPE_NAMES = {b"Array": ARRAY, b"ReadonlyArray": ARRAY, b"Map": COLLECTION, b"ReadonlyMap": COLLECTION,
              b"Set": COLLECTION, b"ReadonlySet": COLLECTION}
#: a binding initialized with an array literal: an array while nothing assigns it again (``parameters``).
ARRAY_LITERAL = "array literal"
#: a receiver of ``FileModel.callbacks`` that is an array by its syntax alone (an array literal).
LITERAL = -1
#: a receiver that is an array made by a global's method (``Object.keys(o)``): the global must be unbound.
MADE_BY_GLOBAL = "made by a global"
#: a type of the file's own named like a builtin container: declared types are then not trusted.
SHADOWED_CONTAINERS = re.compile(rb"\b(?:interface|type|class|enum|namespace)\s+(?:Readonly)?(?:Array|Map|Set)\b")


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


def dropped_callbacks(binder: Binder) -> frozenset[int]:
    """Where the callbacks of ``binder.callbacks`` whose receiver is what their method needs stand."""
    if SHADOWED_CONTAINERS.search(binder.data) or any(b.name.encode() in TYPE_NAMES for b in binder.bindings):
        binder.containers.clear()  # ``interface Array<T>``, ``import { Map }``: a declared type may not be the builtin
    wanted = {start for start, _ in binder.callbacks.values() if start != LITERAL}
    receivers = {ref.start: ref for ref in binder.references if ref.start in wanted and ref.is_read}
    dropped = []
    for argument, (start, needs) in binder.callbacks.items():
        if start == LITERAL:
            dropped.append(argument)
            continue
        ref = receivers.get(start)
        if ref is None or not static(ref.closure, ref.binding.closure if ref.binding is not None else None):
            continue
        binding = ref.binding
        if needs == MADE_BY_GLOBAL:
            known = binding is None and ref.name in ("Object", "Array")
        elif binding is None:
            known = False
        else:
            held = binder.containers.get(binding)
            if held == ARRAY_LITERAL:
                held = ARRAY if binding.kind is not BindingKind.PARAM and single_value(binding) else None
            known = held == ARRAY or (held == COLLECTION and needs == COLLECTION)
        if known:
            dropped.append(argument)
    return frozenset(dropped)


def static(at: Closure | None, owner: Closure | None) -> bool:
    """No direct ``eval`` or ``with`` from ``at`` up to ``owner`` (``None``: the module), where a name could stand
    for something else at run time."""
    while at is not None:
        if at.dynamic_scope_sites:
            return False
        if at is owner:
            return True
        at = at.parent
    return True
