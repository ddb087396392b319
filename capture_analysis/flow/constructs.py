"""The constructs of the ``builder``: how each statement and conditional expression shapes the graph.

Each handler is a generator over ``(builder, node, segment)``: it yields the
parts it wants built with the segment they start in, receives the segment
where each part ends, and returns the segment where the construct ends.

Every statement kind of both grammars is decided here: built by a handler
(``STATEMENTS``), opaque to the builder (``builder.OPAQUE``: functions and
classes), or straight-line code (``STRAIGHT_LINE``), with why.  A statement
that is none of them would silently run in text order, loops and jumps
inside it unseen, so ``tests/test_architecture.py`` fails when a grammar
upgrade brings one.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter

from ..model import ClosureKind, FlowEdge, FlowGraph
from ..model import FlowNote as Note
from ..parsing import FUNCTION_NODES
from ..parsing.fields import field_ids
from .builder import Build, ControlIndex, FlowBuilder, Jump, JumpTargets, Node
from .throws import throwing_spans

LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})

Handler = Callable[[FlowBuilder, Node, int], Build]


# -- statements -------------------------------------------------------------------------------------


def block(b: FlowBuilder, node: Node, current: int) -> Build:
    """A block's entry makes its bindings afresh: a segment of its own, where its function declarations exist."""
    entry = b.new()
    b.edge(current, entry)
    b.claim(node, entry)
    b.graph.scope_entries[node.start_byte] = entry
    return (yield from b.sequence(node.named_children, entry))


def if_statement(b: FlowBuilder, node: Node, current: int) -> Build:
    f = b.fields
    b.claim(node, current)
    current = yield node.child_by_field_id(f.condition), current
    consequence = node.child_by_field_id(f.consequence)
    alternative = node.child_by_field_id(f.alternative)
    join = b.new()
    for arm in (consequence, alternative):
        if arm is None:
            b.edge(current, join)
            continue
        entry = b.new()
        b.edge(current, entry)
        if arm.type == "else_clause":
            b.claim(arm, entry)
            arm = next((c for c in arm.named_children if c.type != "comment"), None)
            if arm is None:
                b.edge(entry, join)
                continue
        if arm.type in ("function_declaration", "generator_function_declaration"):
            b.graph.scope_entries[arm.start_byte] = entry  # ``if (c) function f() {}``: a block of its own
        b.edge((yield arm, entry), join)
    return join


def with_statement(b: FlowBuilder, node: Node, current: int) -> Build:
    """``with (o) body``: the object, then the body, built as any statement (a loop inside runs again)."""
    b.claim(node, current)
    current = yield node.child_by_field_id(b.fields.object), current
    body = node.child_by_field_id(b.fields.body)
    if body is not None:
        current = yield body, current
    return current


def labeled(b: FlowBuilder, node: Node, current: int) -> Build:
    labels = set()
    body: Node | None = node
    while body is not None and body.type == "labeled_statement":
        label = body.child_by_field_id(b.fields.label)
        if label is not None:
            labels.add(b.text(label))
        body = body.child_by_field_id(b.fields.body)
    b.claim(node, current)
    if body is None:
        return current
    if body.type in LOOPS:
        return (yield from loop(b, body, current, frozenset(labels)))
    after = b.new()
    b.frames.append(JumpTargets(frozenset(labels), break_to=after))
    end = yield body, current
    b.frames.pop()
    b.edge(end, after)
    return after


def jump_statement(b: FlowBuilder, node: Node, current: int) -> Build:
    b.claim(node, current)
    label = next((c for c in node.named_children if c.type == "statement_identifier"), None)
    kind: Jump = "break" if node.type == "break_statement" else "continue"
    b.jump(kind, b.text(label) if label is not None else None, current, node.start_byte)
    return b.dead()
    yield  # a generator, like every handler


def leaving(b: FlowBuilder, node: Node, current: int) -> Build:
    """``return`` and ``throw``: the value first, then out (through any ``finally``)."""
    current = yield from b.in_order(node, current)
    b.jump("return", None, current, node.start_byte)
    return b.dead()


def switch(b: FlowBuilder, node: Node, current: int) -> Build:
    f = b.fields
    b.claim(node, current)
    current = yield node.child_by_field_id(f.value), current
    body = node.child_by_field_id(f.body)
    after = b.new()
    if body is None:
        b.edge(current, after)
        return after
    entry = b.new()  # the body is one block: its entry makes the clauses' bindings
    b.edge(current, entry)
    b.claim(body, entry)
    b.graph.scope_entries[body.start_byte] = entry
    clauses = [c for c in body.named_children if c.type in ("switch_case", "switch_default")]
    starts = [b.new() for _ in clauses]
    test = entry
    default = None
    for clause, start in zip(clauses, starts, strict=True):
        b.claim(clause, start)
        if clause.type == "switch_default":
            default = start
            continue
        test = yield clause.child_by_field_id(f.value), test
        b.edge(test, start)
    b.edge(test, default if default is not None else after)
    b.frames.append(JumpTargets(frozenset(), break_to=after, bare_break=True))
    previous: int | None = None
    for clause, start in zip(clauses, starts, strict=True):
        if previous is not None:
            b.edge(previous, start, Note(FlowEdge.FALLTHROUGH, clause.start_byte))
        value = clause.child_by_field_id(f.value)
        previous = yield from b.sequence([c for c in clause.named_children if c != value], start)
    b.frames.pop()
    if previous is not None:
        b.edge(previous, after)
    return after


def try_statement(b: FlowBuilder, node: Node, current: int) -> Build:
    f = b.fields
    b.claim(node, current)
    body = node.child_by_field_id(f.body)
    handler = node.child_by_field_id(f.handler)
    finalizer = node.child_by_field_id(f.finalizer)
    after = b.new()
    catch_entry = b.new() if handler is not None else None
    finally_entry = b.new() if finalizer is not None else None
    if finally_entry is not None:
        b.frames.append(JumpTargets(frozenset(), finally_entry=finally_entry))
    first = len(b.graph.successors)
    end = (yield body, current) if body is not None else current
    if body is not None:
        b.throw_spans.extend(throwing_spans(body, b.throwing_names))
    target = catch_entry if catch_entry is not None else finally_entry
    if target is not None:
        for segment in range(first, len(b.graph.successors)):
            if segment not in (catch_entry, finally_entry):
                b.edge(segment, target, Note(FlowEdge.THROW, node.start_byte))
    b.edge(end, finally_entry if finally_entry is not None else after)
    if handler is not None and catch_entry is not None:
        b.claim(handler, catch_entry)
        b.graph.scope_entries[handler.start_byte] = catch_entry
        first = len(b.graph.successors)
        parts = [handler.child_by_field_id(f.parameter), handler.child_by_field_id(f.body)]
        caught = yield from b.sequence([p for p in parts if p is not None], catch_entry)
        if finally_entry is not None:
            b.throw_spans.extend(throwing_spans(handler, b.throwing_names))
            for segment in range(first, len(b.graph.successors)):
                b.edge(segment, finally_entry, Note(FlowEdge.THROW, handler.start_byte))
            b.edge(catch_entry, finally_entry, Note(FlowEdge.THROW, handler.start_byte))
        b.edge(caught, finally_entry if finally_entry is not None else after)
    if finalizer is None or finally_entry is None:
        return after
    frame = b.frames.pop()
    b.claim(finalizer, finally_entry)
    finished = yield from b.sequence(finalizer.named_children, finally_entry)
    # The ``finally`` goes on as it was entered (design 2.1.2): after the ``try`` statement when its block or
    # handler ended normally, else with the jump or the exception that ran it; the search tells them apart.
    normal, abrupt = b.new(), b.new()
    b.graph.finally_entries.add(finally_entry)
    b.graph.finally_gates[normal] = True
    b.graph.finally_gates[abrupt] = False
    b.edge(finished, normal)
    b.edge(finished, abrupt)
    b.edge(normal, after)
    b.edge(abrupt, b.exit)  # an exception the ``try`` did not catch goes on after ``finally``
    for kind, label, index in frame.pending:
        b.jump(kind, label, abrupt, finalizer.start_byte, below=index)
    return after


def loop(b: FlowBuilder, node: Node, current: int, labels: frozenset[str] = frozenset()) -> Build:
    """A loop: its test, its body (from a segment of its own), where ``continue`` goes, and its back edge."""
    f = b.fields
    b.claim(node, current)
    after = b.new()
    back = Note(FlowEdge.BACK, node.start_byte)
    kind = node.type
    if kind == "while_statement":
        test = b.new()
        b.edge(current, test)
        current = yield node.child_by_field_id(f.condition), test
        b.edge(current, after)
        end = yield from body(b, node, current, JumpTargets(labels, break_to=after, continue_to=test, bare_break=True))
        b.edge(end, test, back)
        return after
    if kind == "do_statement":
        test = b.new()
        entry = b.new()
        b.edge(current, entry)
        end = yield from body(b, node, current, JumpTargets(labels, break_to=after, continue_to=test, bare_break=True),
                              entry)
        b.edge(end, test)
        current = yield node.child_by_field_id(f.condition), test
        b.edge(current, entry, back)
        b.edge(current, after)
        return after
    if kind == "for_in_statement":
        current = yield node.child_by_field_id(f.right), current
        head = b.new()  # each turn: a fresh head binding, assigned the next value
        b.edge(current, head)
        b.edge(head, after)
        b.graph.loop_copies[node.start_byte] = (head,)
        left = node.child_by_field_id(f.left)
        turn = (yield left, head) if left is not None else head
        end = yield from body(b, node, turn, JumpTargets(labels, break_to=after, continue_to=head, bare_break=True))
        b.edge(end, head, back)
        return after
    # ``for (init; test; update) body``: a ``let``/``const`` head is copied into a fresh binding after the
    # initializer and before every update, so a closure of one turn keeps its own copy.
    scope = b.new()
    b.edge(current, scope)
    current = yield node.child_by_field_id(f.initializer), scope
    first_copy = b.new()
    b.edge(current, first_copy)
    test = b.new()
    b.edge(first_copy, test)
    current = yield node.child_by_field_id(f.condition), test
    b.edge(current, after)
    next_copy = b.new()
    end = yield from body(b, node, current, JumpTargets(labels, break_to=after, continue_to=next_copy, bare_break=True))
    b.edge(end, next_copy)
    update = b.new()
    b.edge(next_copy, update, Note(FlowEdge.UPDATE, node.start_byte))
    current = yield node.child_by_field_id(f.increment), update
    b.edge(current, test, back)
    b.graph.loop_copies[node.start_byte] = (scope, first_copy, next_copy)
    return after


def body(b: FlowBuilder, loop_node: Node, current: int, frame: JumpTargets, entry: int | None = None) -> Build:
    """A loop's body, from a segment of its own (``entry``, or a new one after ``current``), inside ``frame``."""
    if entry is None:
        entry = b.new()
        b.edge(current, entry)
    part = loop_node.child_by_field_id(b.fields.body)
    b.frames.append(frame)
    end = (yield part, entry) if part is not None else entry
    b.frames.pop()
    return end


def declarations(b: FlowBuilder, node: Node, current: int) -> Build:
    """Declarators in order; in each, the value runs before the pattern's defaults."""
    start = current
    b.claim(node, current)
    for declarator in node.named_children:
        if declarator.type != "variable_declarator":
            continue
        first = current
        b.claim(declarator, current)
        value = declarator.child_by_field_id(b.fields.value)
        name = declarator.child_by_field_id(b.fields.name)
        for part in (value, name):
            if part is not None:
                current = yield part, current
        if current != first:
            b.claim_last_byte(declarator, current)
    if current != start:
        b.claim_last_byte(node, current)
    return current


# -- expressions ------------------------------------------------------------------------------------


def conditional(b: FlowBuilder, node: Node, current: int) -> Build:
    """``c ? a : b``: one arm or the other, then both join."""
    f = b.fields
    b.claim(node, current)
    current = yield node.child_by_field_id(f.condition), current
    join = b.new()
    for arm in (node.child_by_field_id(f.consequence), node.child_by_field_id(f.alternative)):
        entry = b.new()
        b.edge(current, entry)
        b.edge((yield arm, entry) if arm is not None else entry, join)
    b.claim_last_byte(node, join)
    return join


def logical(b: FlowBuilder, node: Node, current: int) -> Build:
    """``a && b``, ``a || b``, ``a ?? b``, ``x ||= v``: the right side may not run."""
    f = b.fields
    operator = node.child_by_field_id(f.operator)
    if operator is None or operator.type not in ("&&", "||", "??", "&&=", "||=", "??="):
        return (yield from b.in_order(node, current))
    b.claim(node, current)
    current = yield node.child_by_field_id(f.left), current
    join = b.new()
    b.edge(current, join)
    right = b.new()
    b.edge(current, right)
    b.edge((yield node.child_by_field_id(f.right), right), join)
    b.claim_last_byte(node, join)
    return join


def assignment(b: FlowBuilder, node: Node, current: int) -> Build:
    """``pattern = value``: the value runs first, then the pattern's defaults; the write is at the end."""
    start = current
    b.claim(node, current)
    for part in (node.child_by_field_id(b.fields.right), node.child_by_field_id(b.fields.left)):
        if part is not None:
            current = yield part, current
    if current != start:
        b.claim_last_byte(node, current)
    return current


STATEMENTS: dict[str, Handler] = {
    "statement_block": block,
    "if_statement": if_statement,
    "labeled_statement": labeled,
    "with_statement": with_statement,
    "break_statement": jump_statement,
    "continue_statement": jump_statement,
    "return_statement": leaving,
    "throw_statement": leaving,
    "switch_statement": switch,
    "try_statement": try_statement,
    "for_statement": loop,
    "for_in_statement": loop,
    "while_statement": loop,
    "do_statement": loop,
    "lexical_declaration": declarations,
    "variable_declaration": declarations,
}

#: statements built by their handler even when nothing branches inside: they shape the graph themselves.
STRUCTURAL = frozenset(STATEMENTS) - {"lexical_declaration", "variable_declaration"}

#: statements the builder claims as straight-line code, descending in text order only into one that may hold a
#: conditional expression: why that is the order their code runs in.
STRAIGHT_LINE: dict[str, str] = {
    "expression_statement": "one expression, run in text order; a conditional one inside (`? :`, `&&`, `||=`...) "
                            "is built where it occurs",
    "export_statement": "its declaration or value runs where it stands, each part built as itself",
    "enum_declaration": "its members' initializers run once, in order, where it stands",
    "module": "a namespace (`module N {}`): its body is an activation of its own, run once where it stands",
    "import_alias": "`import A = N.B`: one read and one binding, where it stands",
    "import_statement": "only at a module's top level, where its bindings exist before any code runs: no code",
    "empty_statement": "runs nothing",
    "debugger_statement": "runs nothing the program can observe",
    "type_alias_declaration": "type syntax: no code",
    "interface_declaration": "type syntax: no code",
    "function_signature": "an overload's signature: no code",
    "ambient_declaration": "`declare ...`: no code",
}

EXPRESSIONS: dict[str, Handler] = {
    "ternary_expression": conditional,
    "binary_expression": logical,
    "augmented_assignment_expression": logical,
    "assignment_expression": assignment,
}

HANDLERS: dict[str, Handler] = {**STATEMENTS, **EXPRESSIONS}


#: closures whose node holds an activation of its own, by the node kinds that make them.
ACTIVATIONS = FUNCTION_NODES | {"class_static_block", "internal_module", "module"}


def build(data: bytes, language: tree_sitter.Language, control: ControlIndex, node: Node,
          kind: ClosureKind, throwing_names: frozenset[int] = frozenset()) -> FlowGraph:
    """The graph of ``node``'s activation: parameters then body; a field initializer's value; a block's statements.
    ``throwing_names``: where a name is assigned that the assignment may throw for (``flow/throws``)."""
    fields = field_ids(language)
    builder = FlowBuilder(data, fields, control, HANDLERS, STRUCTURAL)
    builder.throwing_names = throwing_names
    if kind is ClosureKind.FIELD_INITIALIZER or node.type not in ACTIVATIONS:
        return builder.build(node, None, node)
    parameters = node.child_by_field_id(fields.parameters)
    body = node.child_by_field_id(fields.body)
    return builder.build(node, parameters, body)

