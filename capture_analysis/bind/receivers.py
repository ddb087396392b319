"""Which recorded builtin callbacks run and drop (``containers``), once the names are resolved (DESIGN 2.2.1).

The binder calls ``dropped_callbacks`` at the end of its walk: what it
needs is the model, not the walk, so this module does not know the binder.
A receiver is trusted only while the file shows no replacement of its
methods (``patching``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Binding, BindingKind, Reference
from ..parameters import single_value, static
from .patching import file_patches, patched

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


def dropped_callbacks(data: bytes, bindings: Sequence[Binding], references: Sequence[Reference],
                      callbacks: dict[int, tuple[int, str]], containers: dict[Binding, str]) -> frozenset[int]:
    """Where the recorded callbacks whose receiver is what their method needs stand (``FileModel``)."""
    if SHADOWED_CONTAINERS.search(data) or any(b.name.encode() in TYPE_NAMES for b in bindings):
        containers = {}  # ``interface Array<T>``, ``import { Map }``: a declared type may not be the builtin
    if file_patches(data, references):
        return frozenset()  # ``xs.forEach = keep``, ``Array.prototype.map = ...``: the file replaces what it trusts
    wanted = {start for start, _ in callbacks.values() if start != LITERAL}
    receivers = {ref.start: ref for ref in references if ref.start in wanted and ref.is_read}
    dropped = []
    for argument, (start, needs) in callbacks.items():
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
            held = containers.get(binding)
            typed = held != ARRAY_LITERAL
            if not typed:
                held = ARRAY if binding.kind is not BindingKind.PARAM and single_value(binding) else None
            known = (held == ARRAY or (held == COLLECTION and needs == COLLECTION)) \
                and not patched(binding, data, typed)
        if known:
            dropped.append(argument)
    return frozenset(dropped)
