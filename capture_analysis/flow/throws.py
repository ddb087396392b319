"""Which operations in a ``try`` block may throw, so that its ``catch`` follows only them (design 2.1.2).

Anything in a ``try`` block used to lead to its handler.  But creating a
closure, reading a literal and assigning to a local name cannot throw, so a
closure created as the last thing of the block is not followed by the
``catch``::

    let x;
    try {
      x = parse(text);     // may throw: the catch may follow this point
      done = () => x;      // cannot throw, nor can anything after it in the block
    } catch (e) {
      x = fallback;        // not after `done` captured x
    }

An operation may throw where it completes (its last byte): a call or ``new``
after its arguments, a property access, an operator (user code may run:
getters, ``valueOf``, proxies), ``await``/``yield``, ``throw``, destructuring,
an assignment to anything but a name or to a name it may throw for (a
``const``, an import, a name in its TDZ or undeclared: the binder says which,
``throwing_names``), the iteration of a ``for of``/``for in``
head, a class definition, and a read of a name (it may be in its TDZ).  The
bodies of nested functions run later and are not looked into.  Every segment
of the graph that owns a byte of such an operation keeps its end
(``FlowGraph.throws_until``): an operation whose parts branch completes in a
segment after them, and a closure created among its parts is then still
followed by it.  The search follows a ``throw`` edge from a point only if
something may throw after it.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter

Node = tree_sitter.Node

#: may throw where they complete.
THROWING = frozenset({
    "call_expression", "new_expression", "await_expression", "yield_expression", "throw_statement",
    "member_expression", "subscript_expression", "binary_expression", "update_expression",
    "augmented_assignment_expression", "spread_element", "template_substitution", "object_pattern",
    "array_pattern", "rest_pattern", "jsx_element", "jsx_self_closing_element", "class", "class_declaration",
    "abstract_class_declaration", "this", "super", "decorator", "import", "meta_property", "regex",
    "satisfies_expression", "non_null_expression",
})
#: unary operators that never run user code nor throw.
HARMLESS_UNARY = frozenset({"!", "void"})
#: functions whose bodies run later (their creation cannot throw); classes are judged whole.
NOT_ENTERED = frozenset({
    "arrow_function", "function_expression", "function", "generator_function", "function_declaration",
    "generator_function_declaration", "method_definition", "class", "class_declaration",
    "abstract_class_declaration", "class_body",
})
#: where an identifier names what is declared or assigned, not a read.
NAMING_FIELDS = {
    "variable_declarator": "name", "assignment_expression": "left", "function_declaration": "name",
    "generator_function_declaration": "name", "class_declaration": "name", "for_in_statement": "left",
    "catch_clause": "parameter", "required_parameter": "pattern", "optional_parameter": "pattern",
    "labeled_statement": "label",
}
LOOP_HEADS = frozenset({"for_in_statement"})


def throwing_spans(root: Node, throwing_names: frozenset[int]) -> Iterator[tuple[int, int]]:
    """The span of every operation under ``root`` that may throw, which ends where it may throw (no
    recursion: deep code is fine)."""
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if may_throw(node, throwing_names):
            yield node.start_byte, node.end_byte
        if kind in LOOP_HEADS:
            yield from loop_head(node)
        if kind in NOT_ENTERED and node is not root:
            continue
        stack.extend(node.named_children)


def may_throw(node: Node, throwing_names: frozenset[int]) -> bool:
    kind = node.type
    if kind in THROWING:
        return True
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        return operator is None or operator.type not in HARMLESS_UNARY
    if kind == "assignment_expression":
        left = node.child_by_field_name("left")
        while left is not None and left.type == "parenthesized_expression":
            left = left.named_children[0] if left.named_children else None
        return left is None or left.type != "identifier" or left.start_byte in throwing_names
    if kind in ("identifier", "shorthand_property_identifier"):
        return is_read(node)
    return False


def is_read(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return True
    field = NAMING_FIELDS.get(parent.type)
    return field is None or parent.child_by_field_name(field) != node


def loop_head(node: Node) -> Iterator[tuple[int, int]]:
    """A ``for of``/``for in`` asks its iterator for the next value at the head, every time round: the whole
    head may throw, up to the body."""
    body = node.child_by_field_name("body")
    yield node.start_byte, body.start_byte if body is not None else node.end_byte
