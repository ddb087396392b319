"""Destructuring: one walker over patterns, for declarations and for assignments alike.

``const {a, b: [c = 1], ...rest} = o`` declares ``a``, ``c`` and ``rest``;
``[a, {b: o.p = f()}] = v`` writes ``a`` and ``o.p``.  The walk is the same:
``walk`` finds every name with its default, and visits what else a pattern
holds (computed keys, member targets, other defaults) as expressions that run
after the source value, so a write in them takes effect late::

    let { a = (x = 1) } = { b: keep(() => x) };   // `x = 1` runs after the arrow exists

Only what happens at a name differs: a declaration declares it (and, for a
``var`` with an initializer, writes it), an assignment writes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..model import SAFE_USE, BindingKind, Loop, Scope, Use, UseKind
from .syntax import DEFAULT, IGNORED, LIST, MEMBER, NAME, OTHER, PAIR, Node, escaping, named

if TYPE_CHECKING:
    from .binder import Binder

DEFAULT_USE = escaping("default value of a destructuring")



#: called with a name node of the pattern and its default value, if it has one.
Leaf = Callable[[Node, "Node | None"], None]


def walk(binder: Binder, node: Node, scope: Scope, effect: int, leaf: Leaf) -> None:
    """Every name of the pattern goes to ``leaf``; the rest is visited in ``scope``, taking effect at ``effect``."""
    kinds = binder.kinds
    shapes = kinds.pattern_shapes
    top = kinds.bare(node)
    work = [node]
    while work:
        target = kinds.bare(work.pop())
        shape = shapes.get(target.kind_id, OTHER)
        if shape == NAME:
            leaf(target, None)
        elif shape == MEMBER:
            if target is top or target == top:
                binder.visit(target, scope, SAFE_USE)
            else:
                visit_in_pattern(binder, target, scope, SAFE_USE, effect)
        elif shape == LIST:
            work.extend(named(target))
        elif shape == PAIR:
            value = target.child_by_field_id(binder.fields.value)
            if value is not None:
                work.append(value)
            key = target.child_by_field_id(binder.fields.key)
            if key is not None and key.kind_id == kinds.computed_property_name:
                visit_in_pattern(binder, key, scope, SAFE_USE, effect)
        elif shape == DEFAULT:
            left = target.child_by_field_id(binder.fields.left)
            right = target.child_by_field_id(binder.fields.right)
            name = kinds.bare(left) if left is not None else None
            if name is not None and shapes.get(name.kind_id, OTHER) == NAME:
                leaf(name, right)
            else:
                visit_in_pattern(binder, right, scope, DEFAULT_USE, effect)
                if left is not None:
                    work.append(left)
        elif shape != IGNORED:
            binder.visit(target, scope, SAFE_USE)


def declare_pattern(binder: Binder, node: Node, target: Scope, kind: BindingKind, init_offset: int,
                    loop: Loop | None, expr_scope: Scope, written: int | None = None,
                    source: tuple[int, int] | None = None) -> None:
    """Declare every name in a binding pattern in ``target``; defaults and computed keys run in ``expr_scope``.

    ``written``: a ``var`` pattern with an initializer, or a ``for (var ... of)``
    head, also writes each name; the write takes effect at that offset.

    The names of a ``let``/``const``/``using`` pattern, a parameter's or a catch
    clause's are bound left to right, each once its default ran:
    ``const {b = 1, a = () => b} = src`` binds ``b`` before the arrow exists.
    ``source`` is the span of the value destructured: it runs before any name is
    bound (``Binding.source``).  The names of a loop head are bound when each
    turn starts, and ``var`` names exist from the function's start.
    """
    per_element = kind is not BindingKind.VAR
    if written is not None:
        deferred = written
    elif loop is not None and loop.repeats(init_offset):
        deferred = init_offset  # a for-in/of head: each iteration, before the body
        per_element = False
    else:
        deferred = init_offset - 1

    def declare(name: Node, default: Node | None) -> None:
        bound = (default.end_byte if default is not None else name.end_byte) if per_element else init_offset
        binding = binder.declare(name, kind, target, bound, loop)
        if source is not None and binding.kind is kind:
            binding.source = source
        if written is not None:
            # A ``var`` is written when the whole pattern is done; another name is initialized as it is bound.
            binder.reference(name, expr_scope, read=False, write=True, declaration_write=True,
                             effect=bound - 1 if per_element else written)
        if default is not None:
            binder.name_literal(default, binding.name)
            visit_in_pattern(binder, default, expr_scope, Use(UseKind.FLOW, "default value", binding), deferred)

    walk(binder, node, expr_scope, deferred, declare)


def write_pattern(binder: Binder, node: Node, scope: Scope, also_read: bool, effect: int) -> None:
    """Assignment targets: names are written, members are evaluated, patterns recurse.

    Every name is written at ``effect``, the end of the assignment: the source and
    any default values run first, so a closure created there exists before the write.
    """

    def write(name: Node, default: Node | None) -> None:
        if default is not None:
            visit_in_pattern(binder, default, scope, DEFAULT_USE, effect)
        binder.reference(name, scope, read=also_read, write=True, effect=effect)

    walk(binder, node, scope, effect, write)


def visit_in_pattern(binder: Binder, node: Node | None, scope: Scope, use: Use, effect: int) -> None:
    """An expression inside a pattern: it runs after the source value, so its writes take effect at ``effect``."""
    if node is not None:
        binder.deferred.append((node.start_byte, node.end_byte, effect))
        binder.visit(node, scope, use)


def later_declare(binder: Binder, node: Node, target: Scope, kind: BindingKind, init_offset: int,
                  loop: Loop | None, expr_scope: Scope, written: int | None = None,
                  source: tuple[int, int] | None = None) -> None:
    """``declare_pattern`` after the expressions pushed after this (defaults run first)."""
    args = (node, target, kind, init_offset, loop, expr_scope, written, source)
    binder.stack.append((declaring, args, None, None))


def declaring(binder: Binder, args: tuple[Node, Scope, BindingKind, int, Loop | None, Scope, int | None,
                                          tuple[int, int] | None], _: None, __: None) -> None:
    declare_pattern(binder, *args)


def later_write(binder: Binder, node: Node, scope: Scope, also_read: bool, effect: int) -> None:
    """``write_pattern`` after the expressions pushed after this."""
    binder.stack.append((writing, (node, scope, also_read, effect), None, None))


def writing(binder: Binder, args: tuple[Node, Scope, bool, int], _: None, __: None) -> None:
    write_pattern(binder, *args)
