"""Expressions: reads, calls, member accesses, assignments, and the uses they hand to their operands.

What an expression does with an operand's value decides whether a closure
there escapes (``escape.py``): a call's arguments escape, its callee is
called; ``a && b`` hands its own use to both operands, ``a + b`` drops them;
``x = v`` copies ``v`` into ``x``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import AWAITED_CALLEE_USE, CALLEE_USE, SAFE_USE, Reference, Scope, Use, UseKind
from .containers import record_callback
from .patterns import later_write
from .statements import bind_using, using_declarator
from .syntax import (
    AWAITED_USE,
    CONSTRUCTED_USE,
    LOGICAL_ASSIGN,
    PATTERN_USE,
    PROTOTYPE_USE,
    Node,
    escaping,
    leads_using_declaration,
    named,
    using_declaration,
)

if TYPE_CHECKING:
    from .binder import Binder

#: the uses of the operands that escape for a fixed reason, one object each (a use is compared by value).
STORED_IN_OBJECT_USE = escaping("stored in an object literal")
ARGUMENT_USE = escaping("passed as an argument")
TAG_ARGUMENT_USE = escaping("passed to a template tag")
COMPUTED_RECEIVER_USE = escaping("receiver of a computed method call")
COMPUTED_READ_USE = escaping("read with a computed key, which may be its `prototype`")
ASSIGNMENT_VALUE_USE = escaping("assigned, and the assignment's value is used")
PROPERTY_STORE_USE = escaping("stored into a property")
ASSIGNED_AND_USED_USE = escaping("assigned, and used")

# -- reads and operators ----------------------------------------------------------------------------


def visit_identifier(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """A read: the most frequent node of all, so ``reference`` is inlined here."""
    start = node.start_byte
    end = node.end_byte
    raw = binder.data[start:end]
    if raw == b"undefined":
        return
    name = binder.name_memo.get(raw) or binder.name_of(node)
    ref = Reference(name, start, end, scope, scope.closure, True, False, None, False, use, start)
    scope.pending.append(ref)
    binder.references.append(ref)


def visit_shorthand(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """``{ x }`` reads ``x``, even when it is called ``undefined``."""
    binder.reference(node, scope, read=True, write=False, use=use)


def visit_transparent(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit(binder.kinds.inner(node), scope, use)


def visit_ternary(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit(node.child_by_field_id(binder.fields.alternative), scope, use)
    binder.visit(node.child_by_field_id(binder.fields.consequence), scope, use)
    binder.visit(node.child_by_field_id(binder.fields.condition), scope, SAFE_USE)


def visit_binary(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    operator = node.child_by_field_id(binder.fields.operator)
    inner = use if operator is not None and operator.kind_id in binder.kinds.logical_operators else SAFE_USE
    binder.visit(node.child_by_field_id(binder.fields.right), scope, inner)
    binder.visit(node.child_by_field_id(binder.fields.left), scope, inner)


def visit_sequence(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    comment = binder.kinds.comment
    children = [c for c in named(node) if c.kind_id != comment]
    if not children:
        return
    if leads_using_declaration(children[0], binder.data):
        for child in reversed(children[1:]):
            binder.stack.append((using_declarator, child, scope, SAFE_USE))
        binder.visit(children[0], scope, SAFE_USE)
        return
    binder.visit(children[-1], scope, use)
    binder.visit_all(children[:-1], scope, SAFE_USE)


def visit_object(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit_named(node, scope, STORED_IN_OBJECT_USE)


def visit_pair(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    value = node.child_by_field_id(binder.fields.value)
    binder.visit(value, scope, STORED_IN_OBJECT_USE)
    # A computed key, the only one with code in it, begins with ``[``: without one before the value, the key
    # is a name, a string or a number, and is not looked up.
    if value is not None and binder.data.find(b"[", node.start_byte, value.start_byte) < 0:
        return
    key = node.child_by_field_id(binder.fields.key)
    if key is not None and key.kind_id == binder.kinds.computed_property_name:
        binder.visit(key, scope, SAFE_USE)


def visit_jsx_element_name(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    name = node.child_by_field_id(binder.fields.name)
    for child in reversed(named(node)):
        if child == name:
            if child.type == "identifier" and binder.text(child)[:1].isupper():
                binder.reference(child, scope, read=True, write=False, use=escaping("rendered as a JSX element"))
            elif child.type == "member_expression":
                binder.visit(child, scope, SAFE_USE)
        else:
            binder.visit(child, scope, SAFE_USE)


# -- calls and members ------------------------------------------------------------------------------


def visit_call(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    kinds = binder.kinds
    is_new = node.kind_id == kinds.new_expression
    # ``f()`` has a ``function``, ``new F()`` a ``constructor``: only that field is looked up.
    callee = node.child_by_field_id(binder.fields.constructor if is_new else binder.fields.function)
    arguments = node.child_by_field_id(binder.fields.arguments)
    if arguments is not None:
        if arguments.kind_id == kinds.arguments:
            if callee is not None and callee.kind_id == kinds.identifier \
                    and arguments.named_child_count and named_callee(binder, callee):
                # ``each(xs, f)``, ``new Promise(f)``: the callee is a name, which may hold a function whose
                # parameters are known (``parameters``); its reference is made here, first, as the visit below
                # would make it.
                ref = binder.reference(callee, scope, read=True, write=False,
                                       use=CONSTRUCTED_USE if is_new else
                                       AWAITED_CALLEE_USE if use is AWAITED_USE else CALLEE_USE)
                visit_arguments(binder, arguments, scope, ref)
                return
            if not is_new and callee is not None and callee.kind_id in kinds.members:
                if binder.namespaces and arguments.named_child_count and namespace_call(binder, callee, scope):
                    visit_arguments(binder, arguments, scope, binder.references[-1])
                    return
                record_callback(binder, callee, arguments)  # ``xs.forEach(f)``
            binder.visit_named(arguments, scope, ARGUMENT_USE)
        else:
            # A tagged template passes every substituted value to the tag.
            for part in named(arguments):
                if part.kind_id == kinds.template_substitution:
                    binder.visit_named(part, scope, TAG_ARGUMENT_USE)
    if callee is not None:
        bare = kinds.bare(callee)
        if bare.kind_id == kinds.identifier and binder.name_of(bare) == "eval" and not optional_call(node):
            ref = binder.reference(bare, scope, read=True, write=False, use=CALLEE_USE)
            binder.eval_calls.append((ref, scope))
        elif is_new:
            # ``new F()``: the object's prototype is ``F.prototype``, whose ``constructor`` is ``F``.
            binder.visit(callee, scope, CONSTRUCTED_USE)
        else:
            binder.visit(callee, scope, AWAITED_CALLEE_USE if use is AWAITED_USE else CALLEE_USE)


def named_callee(binder: Binder, callee: Node) -> bool:
    """A name that may hold a known function: not ``undefined`` (no binding) nor ``eval``, however spelled (the
    visit below tells a direct ``eval``)."""
    return binder.data[callee.start_byte:callee.end_byte] != b"undefined" and binder.name_of(callee) != "eval"


def namespace_call(binder: Binder, callee: Node, scope: Scope) -> bool:
    """``ns.f(...)`` of a namespace import's name: its receiver's reference is made, as ``visit_member`` would
    make it, with the member's name beside it, so that the arguments are ``f``'s (``parameters.Parameters.slot``).
    Whether ``ns`` is the import, not a local of the same name, is for the bound reference to say."""
    if callee.kind_id != binder.kinds.member_expression:
        return False
    obj = callee.child_by_field_id(binder.fields.object)
    prop = callee.child_by_field_id(binder.fields.property)
    if obj is None or prop is None or obj.kind_id != binder.kinds.identifier or prop.type != "property_identifier" \
            or binder.name_of(obj) not in binder.namespaces:
        return False
    ref = binder.reference(obj, scope, read=True, write=False, use=receiver_use(binder, prop))
    binder.member_calls[ref.start] = binder.name_of(prop)
    return True


def receiver_use(binder: Binder, prop: Node | None) -> Use:
    """The use of a method call's receiver: called by ``.call``/``.apply``, else handed to the method as ``this``."""
    raw = binder.data[prop.start_byte:prop.end_byte] if prop is not None else b""
    receiver = binder.receiver_uses.get(raw)
    if receiver is None:
        name = raw.decode("utf-8", "replace")
        receiver = CALLEE_USE if name in ("call", "apply") else escaping(f"receiver of `.{name}()`")
        binder.receiver_uses[raw] = receiver
    return receiver


def visit_arguments(binder: Binder, arguments: Node, scope: Scope, callee: Reference) -> None:
    """Each argument's use says which it is, up to the first spread, after which no position is known."""
    kinds = binder.kinds
    values = kinds.argument_values
    comment = kinds.comment
    spread = kinds.spread_element
    pending: list[tuple[Node, Use]] = []
    index = 0
    known = True
    for child in named(arguments):
        kind = child.kind_id
        if kind == comment:
            continue
        known = known and kind != spread
        pending.append((child, Use(UseKind.ESCAPE, ARGUMENT_USE.why, callee, index) if known and kind in values
                        else ARGUMENT_USE))
        index += 1
    for child, argument_use in reversed(pending):
        binder.visit(child, scope, argument_use)


def optional_call(node: Node) -> bool:
    """``eval?.(src)``: an optional call is never a direct ``eval`` (it sees only the global scope)."""
    return any(child.type in ("?.", "optional_chain") for child in node.children)


def visit_member(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """The property's name matters to a call (``o.m()``) and for ``prototype``: only then is it looked up.

    The property follows the object: only the text after the object is searched for ``prototype`` (a chain
    ``a.b(...).c(...)`` nests, and each member spans the members it holds).
    """
    obj = node.child_by_field_id(binder.fields.object)
    if use.kind is UseKind.CALLEE:
        inner = receiver_use(binder, node.child_by_field_id(binder.fields.property))
    elif (obj is None or binder.data.find(b"prototype", obj.end_byte, node.end_byte) >= 0) \
            and is_prototype(binder, node):
        inner = PROTOTYPE_USE  # ``F.prototype.constructor`` is ``F``
    else:
        inner = SAFE_USE
    binder.visit(obj, scope, inner)


def is_prototype(binder: Binder, node: Node) -> bool:
    prop = node.child_by_field_id(binder.fields.property)
    return prop is not None and binder.data[prop.start_byte:prop.end_byte] == b"prototype"


def visit_subscript(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit(node.child_by_field_id(binder.fields.index), scope, SAFE_USE)
    if use.kind is UseKind.CALLEE:
        inner = COMPUTED_RECEIVER_USE
    else:
        inner = COMPUTED_READ_USE
    binder.visit(node.child_by_field_id(binder.fields.object), scope, inner)


# -- writes -----------------------------------------------------------------------------------------


def visit_assignment(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    if using_declaration(node, binder.data):
        bind_using(binder, node, scope)
        return
    left = node.child_by_field_id(binder.fields.left)
    right = node.child_by_field_id(binder.fields.right)
    if left is None:
        binder.visit_named(node, scope, SAFE_USE)
        return
    kinds = binder.kinds
    target = kinds.bare(left)
    if target.kind_id == kinds.identifier:
        ref = binder.reference(target, scope, read=False, write=True, effect=node.end_byte - 1)
        binder.name_literal(right, ref.name)
        if use.kind is UseKind.SAFE:
            binder.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
        elif use.kind is UseKind.FLOW:
            # ``a = b = v``: v goes into b, and the same value from b into a.
            binder.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
            binder.reference(target, scope, read=True, write=False, use=use)
        else:
            binder.visit(right, scope, ASSIGNMENT_VALUE_USE)
        return
    if target.kind_id in kinds.members:
        prop = target.child_by_field_id(binder.fields.property)
        if prop is not None and right is not None:
            binder.name_literal(right, binder.text(prop))
        right_use = PROPERTY_STORE_USE
    elif target.kind_id == kinds.object_pattern:
        right_use = PATTERN_USE
    else:
        right_use = SAFE_USE  # ``[a, b] = v`` iterates the value: a function is not iterable
    binder.visit(right, scope, right_use if use.kind is UseKind.SAFE else ASSIGNED_AND_USED_USE)
    later_write(binder, left, scope, False, node.end_byte - 1)


def visit_augmented_assignment(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    left = node.child_by_field_id(binder.fields.left)
    right = node.child_by_field_id(binder.fields.right)
    operator = node.child_by_field_id(binder.fields.operator)
    logical = operator is not None and operator.type in LOGICAL_ASSIGN
    if left is None:
        return
    target = binder.kinds.bare(left)
    if target.kind_id == binder.kinds.identifier:
        ref = binder.reference(target, scope, read=True, write=True, effect=node.end_byte - 1)
        if logical and use.kind is UseKind.SAFE:
            binder.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
        elif logical:
            binder.visit(right, scope, ASSIGNMENT_VALUE_USE)
            if operator is not None and operator.type in ("??=", "||="):
                # The value of ``x ??= e`` (``x ||= e``) is ``x``'s old value when that is not nullish (truthy):
                # a closure held in ``x`` goes wherever the expression's value goes.
                binder.reference(target, scope, read=True, write=False, use=use)
        else:
            binder.visit(right, scope, SAFE_USE)
        return
    binder.visit(right, scope, PROPERTY_STORE_USE if logical else SAFE_USE)
    later_write(binder, left, scope, True, node.end_byte - 1)


def visit_update(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    argument = node.child_by_field_id(binder.fields.argument)
    if argument is not None:
        later_write(binder, argument, scope, True, node.end_byte - 1)
