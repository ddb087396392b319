"""Building the control-flow graph of one activation from its syntax tree: the builder.

The walk is a trampoline: each construct is a generator that yields the
parts it wants built (``(node, segment)``) and receives the segment where
control is when that part completes, so the code reads like a recursive
builder while the Python stack stays flat however deep the statements nest.

Straight-line code is claimed whole, without descending, unless a
conditional expression (``? :``, ``&&``, ``||``, ``??``, ``||=``...) may be
inside it (``ControlIndex`` asks its bytes); nested
functions and classes are opaque (their creation is an offset of this
activation, their bodies are other activations).  When something branches
inside a node, the node's last byte is claimed by the segment where its
branches join: that is where an assignment around it takes effect
(``x = c ? a : b`` writes ``x`` after either arm).  The constructs
themselves are built in ``constructs``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Literal

import tree_sitter

from ..model import Closure, ClosureKind, FlowEdge, FlowGraph
from ..model import FlowNote as Note
from ..parsing import FUNCTION_NODES
from ..parsing.fields import Fields

Node = tree_sitter.Node

#: a construct's builder: yields the parts to build, receives where control is after each, returns the exit.
#: A part may be absent (``for (;;)`` has no test, a damaged tree may lack a child): control stays put.
Build = Generator[tuple[Node | None, int], int, int]
#: what a jump does once it has run the ``finally`` blocks on its way (``throw`` leaves like ``return``).
Jump = Literal["break", "continue", "return"]

#: nodes whose inside is not this activation's code, or has no control flow of its own to follow.
OPAQUE = FUNCTION_NODES | {"class", "class_declaration", "abstract_class_declaration"}


class ControlIndex:
    """Can a node hold a conditional expression (``? :``, ``&&``, ``||``, ``??``, ``||=``...)?

    Each of them has ``?``, ``&&`` or ``||`` in its text.  Asking the bytes is a search in C, with no
    copy; a ``?`` of an optional property or of ``?.`` only makes the builder look inside for nothing.
    """

    def __init__(self, data: bytes):
        self.data = data

    def inside(self, node: Node) -> bool:
        data, start, end = self.data, node.start_byte, node.end_byte
        return data.find(b"?", start, end) >= 0 or data.find(b"&&", start, end) >= 0 \
            or data.find(b"||", start, end) >= 0


@dataclass(slots=True)
class JumpTargets:
    """What ``break``, ``continue`` and ``return`` can reach from inside a construct."""

    labels: frozenset[str]
    #: where ``break`` goes (None: a label that only a labelled ``break`` of a loop inside uses... never).
    break_to: int | None = None
    #: where ``continue`` goes: set for loops only.
    continue_to: int | None = None
    #: a ``finally`` block's entry: a jump out of its ``try`` or ``catch`` runs it first.
    finally_entry: int | None = None
    #: the jumps that ran this ``finally`` on their way out, continued from its exit: (kind, label, the index
    #: of this frame, below which the jump goes on looking for its target).
    pending: list[tuple[Jump, str | None, int]] = field(default_factory=list)
    #: whether a bare ``break`` stops here (a loop or a ``switch``), not only a labelled one.
    bare_break: bool = False


class FlowBuilder:
    """The graph under construction; ``handlers`` build the constructs (``constructs``) by node kind."""

    def __init__(self, data: bytes, fields: Fields, control: ControlIndex,
                 handlers: dict[str, Callable[[FlowBuilder, Node, int], Build]], structural: frozenset[str]):
        self.data = data
        self.fields = fields
        self.control = control
        self.handlers = handlers
        #: kinds always built by their handler, since they shape the graph even with no branching inside.
        self.structural = structural
        self.graph = FlowGraph()
        #: (start, -end, order, segment): intervals claimed; an inner (or later, for the same span) claim wins.
        self.claims: list[tuple[int, int, int, int]] = []
        self.frames: list[JumpTargets] = []
        self.exit = -1
        #: the spans of operations that may throw, in ``try`` blocks (``flow/throws``): placed once claimed.
        self.throw_spans: list[tuple[int, int]] = []
        #: where a name is assigned that the assignment may throw for (a ``const``, a name in its TDZ).
        self.throwing_names: frozenset[int] = frozenset()

    # -- segments and claims --------------------------------------------------------------------

    def new(self) -> int:
        self.graph.successors.append([])
        return len(self.graph.successors) - 1

    def edge(self, source: int, target: int, note: Note | None = None) -> None:
        self.graph.successors[source].append((target, note))

    def claim(self, node: Node | None, segment: int) -> None:
        if node is not None and node.end_byte > node.start_byte:
            self.claims.append((node.start_byte, -node.end_byte, len(self.claims), segment))

    def claim_last_byte(self, node: Node, segment: int) -> None:
        if node.end_byte > node.start_byte:
            self.claims.append((node.end_byte - 1, -node.end_byte, len(self.claims), segment))

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # -- the driver -----------------------------------------------------------------------------

    def build(self, node: Node, parameters: Node | None, body: Node | None) -> FlowGraph:
        """The activation of a function (its parameters, then its body), a field initializer, a static block
        or a namespace body: ``node`` is claimed whole, so that every offset inside it has a segment."""
        entry = self.new()
        self.exit = self.new()
        self.claim(node, entry)
        current = entry
        if parameters is not None:
            current = self.run(self.sequence(parameters.named_children, current))
        if body is not None:
            current = self.run(self.sequence([body], current))
        self.edge(current, self.exit)
        self.intervals()
        graph = self.graph
        for start, end in self.throw_spans:
            index = max(0, bisect.bisect_right(graph.starts, start) - 1)
            while index < len(graph.starts) and graph.starts[index] < end:
                segment = graph.owners[index]
                if graph.ends[index] > start and end > graph.throws_until.get(segment, -1):
                    graph.throws_until[segment] = end
                index += 1
        return graph

    def run(self, root: Build) -> int:
        stack = [root]
        sent: int | None = None
        while True:
            try:
                node, segment = stack[-1].send(sent) if sent is not None else next(stack[-1])
            except StopIteration as done:
                stack.pop()
                if not stack:
                    return int(done.value)
                sent = done.value
                continue
            if node is None:
                sent = segment
                continue
            sent = self.quick(node, segment)
            if sent is None:
                stack.append(self.part(node, segment))

    def intervals(self) -> None:
        """Claims nest like the tree; the innermost (for equal spans, the latest) owns each byte."""
        graph = self.graph
        starts, ends, owners = graph.starts, graph.ends, graph.owners
        open_claims: list[tuple[int, int]] = []  # (end, segment) of the enclosing claims
        position = 0

        def emit(upto: int) -> None:
            nonlocal position
            if open_claims and upto > position:
                segment = open_claims[-1][1]
                if owners and owners[-1] == segment and ends[-1] == position:
                    ends[-1] = upto
                else:
                    starts.append(position)
                    ends.append(upto)
                    owners.append(segment)
            position = max(position, upto)

        for start, negative_end, _, segment in sorted(self.claims):
            end = -negative_end
            while open_claims and open_claims[-1][0] <= start:
                emit(open_claims[-1][0])
                open_claims.pop()
            emit(start)
            open_claims.append((end, segment))
        while open_claims:
            emit(open_claims[-1][0])
            open_claims.pop()

    # -- dispatch ---------------------------------------------------------------------------------

    def quick(self, node: Node, segment: int) -> int | None:
        """Straight-line code: claimed whole, no generator.  None when ``part`` must build it."""
        kind = node.type
        if kind in self.structural:
            return None
        if kind in OPAQUE or not self.control.inside(node):
            self.claim(node, segment)
            return segment
        return None

    def part(self, node: Node, segment: int) -> Build:
        handler = self.handlers.get(node.type)
        if handler is not None:
            return handler(self, node, segment)
        return self.in_order(node, segment)

    def sequence(self, nodes: list[Node], current: int) -> Build:
        for node in nodes:
            if node.type != "comment":
                current = yield node, current
        return current

    def in_order(self, node: Node, current: int) -> Build:
        """Children in text order, which is evaluation order for what is not handled apart."""
        start = current
        self.claim(node, current)
        for child in node.named_children:
            if child.type != "comment":
                current = yield child, current
        if current != start:
            self.claim_last_byte(node, current)
        return current

    def dead(self) -> int:
        """Where code after a jump goes: a segment nothing enters."""
        return self.new()

    # -- jumps ----------------------------------------------------------------------------------

    def jump(self, kind: Jump, label: str | None, current: int, offset: int, below: int | None = None) -> None:
        """``break``/``continue``/``return``: to its target, through every ``finally`` on the way."""
        index = len(self.frames) if below is None else below
        while index > 0:
            index -= 1
            frame = self.frames[index]
            if frame.finally_entry is not None:
                self.edge(current, frame.finally_entry, Note(FlowEdge.FINALLY, offset))
                frame.pending.append((kind, label, index))
                return
            if kind == "break" and frame.break_to is not None and (
                    label in frame.labels if label is not None else frame.bare_break):
                self.edge(current, frame.break_to, Note(FlowEdge.JUMP, offset))
                return
            if kind == "continue" and frame.continue_to is not None and (label is None or label in frame.labels):
                self.edge(current, frame.continue_to, Note(FlowEdge.JUMP, offset))
                return
        self.edge(current, self.exit)


def closure_node(root: Node, closure: Closure, activations: frozenset[str]) -> Node | None:
    """The syntax node of ``closure``: the smallest with exactly its span (a field initializer is its value),
    else, where a wrapper shares the span, the nearest of ``activations`` kinds around it."""
    node = root.descendant_for_byte_range(closure.start, closure.end)
    if closure.kind is ClosureKind.FIELD_INITIALIZER:
        return node if node is not None and node.start_byte == closure.start and node.end_byte == closure.end \
            else None
    while node is not None and node.type not in activations and node.start_byte == closure.start \
            and node.end_byte == closure.end:
        node = node.parent
    if node is None or node.type not in activations or node.start_byte != closure.start \
            or node.end_byte != closure.end:
        return None
    return node
