"""Functions that run at most once per program: what they allocate, they allocate once.

A module's top-level code runs once.  So does what it calls where it stands,
outside any loop, and so on down::

    var ts = {}; ((module) => {           // a module-level IIFE: runs once
      (function (Comparison) { ... })(Comparison || {});   // an IIFE of code that runs once: once
      function helper() { ... }           // a declaration can be called any number of times
    })(module);
    const singleton = new function () { ... };   // `new` of a function literal: once

In the same way, a class defined once runs its static blocks and static field
initializers once; a namespace body, which compiles to an IIFE, runs once
when its namespace is declared once.  And the factory of a UMD wrapper::

    (function (global, factory) {
      typeof exports === "object" ? module.exports = factory() :
      typeof define === "function" && define.amd ? define(factory) :
      global.lib = factory();
    })(this, function () { ... });

runs once: the wrapper runs once, and its parameter is only called, or handed
to AMD's ``define`` (a loader calls a module's factory once), on branches of
which a run takes at most one, outside loops and closures.

Not once: a function created in a loop, or by code that may run more than
once; a named function expression that names itself (it may call itself), or
one whose sloppy ``arguments.callee`` may be handed out.
"""

from __future__ import annotations

import tree_sitter

from ..model import Binding, BindingKind, Closure, ClosureKind, Reference, UseKind
from ..parsing import FUNCTION_NODES

Node = tree_sitter.Node

#: a ``Use`` reason (``bind/syntax.py``) that says the literal is the callee of ``new`` where it stands.
CONSTRUCTED = "constructed with `new`"
#: statements and expressions whose branches a run takes at most one of.
EXCLUSIVE = frozenset({"if_statement", "ternary_expression"})


def mark(closures: list[Closure], root: Node, data: bytes) -> None:
    """Set ``Closure.runs_once``; parents come before their children in ``closures``."""
    by_start: dict[int, Closure] = {}
    for closure in closures:
        parent = closure.parent
        if parent is None or not (parent.is_module or parent.runs_once) or parent.loops_at(closure.creation_offset):
            continue
        if closure.arguments_callee is not None or names_itself(closure):
            continue
        use = closure.use
        if closure.kind in (ClosureKind.STATIC_BLOCK, ClosureKind.NAMESPACE, ClosureKind.FIELD_INITIALIZER):
            closure.runs_once = use.kind is UseKind.CALLEE  # static code; an instance field runs per instance
        elif use.kind is UseKind.CALLEE or (use.kind is UseKind.ESCAPE and use.why.startswith(CONSTRUCTED)):
            closure.runs_once = True
        elif use.kind is UseKind.ESCAPE and use.why == "passed as an argument":
            if not by_start:
                by_start = {c.start: c for c in closures}
            closure.runs_once = umd_factory(closure, by_start, root, data)


def names_itself(closure: Closure) -> bool:
    """``(function f() { ... f() ... })()``: a function expression whose own name is referred to may run again."""
    scope = closure.scope.parent if closure.scope is not None else None
    if scope is None or scope.closure is not closure:
        return False
    return any(binding.kind is BindingKind.FUNCTION_NAME and binding.references
               for binding in scope.declarations.values())


def umd_factory(factory: Closure, closures: dict[int, Closure], root: Node, data: bytes) -> bool:
    """Is ``factory`` passed to a wrapper that runs once and calls it at most once (``define`` counts as a call)?"""
    node = root.descendant_for_byte_range(factory.start, factory.end)
    if node is None:
        return False
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    arguments = node.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or arguments.type != "arguments" or call is None or call.type != "call_expression":
        return False
    callee = call.child_by_field_name("function")
    while callee is not None and callee.type == "parenthesized_expression" and callee.named_child_count:
        callee = callee.named_children[0]
    if callee is None or callee.type not in FUNCTION_NODES:
        return False
    wrapper = closures.get(callee.start_byte)
    if wrapper is None or wrapper.end != callee.end_byte or not wrapper.runs_once or wrapper.scope is None:
        return False
    position = [a.start_byte for a in arguments.named_children if a.type != "comment"].index(node.start_byte)
    parameter = nth_parameter(wrapper, position)
    if parameter is None:
        return False
    uses = parameter.references
    if not uses or any(not calls_or_defines(ref, wrapper, root, data) for ref in uses):
        return False
    return all(exclusive(a, b, root) for i, a in enumerate(uses) for b in uses[i + 1:])


def nth_parameter(wrapper: Closure, position: int) -> Binding | None:
    """The wrapper's parameter at ``position``, if it is a plain name (params are declared in order)."""
    assert wrapper.scope is not None
    parameters = sorted((b for b in wrapper.scope.declarations.values() if b.kind is BindingKind.PARAM),
                        key=lambda b: b.start)
    if position >= len(parameters):
        return None
    return parameters[position]


def calls_or_defines(ref: Reference, wrapper: Closure, root: Node, data: bytes) -> bool:
    """A read in the wrapper's own code, outside its loops, that calls the factory or hands it to ``define``."""
    if ref.is_write or ref.closure is not wrapper or wrapper.loops_at(ref.start):
        return False
    if ref.use.kind is UseKind.CALLEE:
        return True
    node = root.descendant_for_byte_range(ref.start, ref.end)
    arguments = node.parent if node is not None else None
    call = arguments.parent if arguments is not None else None
    if arguments is None or arguments.type != "arguments" or call is None or call.type != "call_expression":
        return False
    callee = call.child_by_field_name("function")
    return callee is not None and data[callee.start_byte:callee.end_byte] == b"define" \
        and arguments.named_child_count >= 1 and arguments.named_children[-1] == node


def exclusive(first: Reference, second: Reference, root: Node) -> bool:
    """Are the two uses on different branches of an ``if`` or a ``? :``, so that a run takes one at most?"""
    a = root.descendant_for_byte_range(first.start, first.end)
    b = root.descendant_for_byte_range(second.start, second.end)
    if a is None or b is None:
        return False
    around_a: list[Node] = []
    node: Node | None = a
    while node is not None:
        around_a.append(node)
        node = node.parent
    spans = {(n.start_byte, n.end_byte, n.type): index for index, n in enumerate(around_a)}
    node, below = b, None
    while node is not None:
        index = spans.get((node.start_byte, node.end_byte, node.type))
        if index is not None:
            if node.type not in EXCLUSIVE or below is None or index == 0:
                return False
            return branch_of(node, around_a[index - 1]) not in (None, branch_of(node, below))
        node, below = node.parent, node
    return False


def branch_of(statement: Node, child: Node) -> str | None:
    """Which branch of an ``if`` or ``? :`` ``child`` (a child of it) is: None for its condition."""
    for name in ("consequence", "alternative"):
        part = statement.child_by_field_name(name)
        if part is not None and part.start_byte == child.start_byte and part.end_byte == child.end_byte:
            return name
    return None
