"""The control-flow graph of one activation: can a write run after a closure was created?

A *segment* is straight-line code: within one, execution follows the text,
as the binder's offsets already do (a write takes effect at the end of its
assignment, a hoisted function declaration is created where its scope
starts).  Each segment owns byte intervals of the function's text, so any
offset the model holds (a closure's creation, a write's effect, a scope's
start) is found in exactly one segment.  Edges follow the language:
branches, loops and their back edges, ``break``/``continue``/``return``
(through ``finally``), ``switch`` fallthrough, and a ``try`` block's
exception edges to its handler from anywhere inside it.

A write W can run after the creation C of a closure iff W follows C in C's
segment, or W's segment can be entered from C's without entering a
*barrier*: a segment where the binding is made afresh (the entry of the
block that declares it when a loop runs the block again, the per-iteration
copy of a ``for (let ...)`` head).  Passing a barrier means the write is to
another instance of the binding::

    for (const f of fs) {
      let x = 0;            // the block's entry is x's barrier
      keep(() => x);
    }                       // back edge: the next turn's x is another binding
    let y = 0;
    for (const f of fs) { y++; keep(() => y); }   // no barrier: y++ follows the last turn's closure

``builder`` builds the graph from the tree; ``bind.binder`` asks for it
only for functions with a binding both captured and written in their own
activation; ``decide`` asks ``reach``, from a binding's capturers and past
its ``barriers``.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field

from ..model import Binding, FlowEdge, FlowGraph, FlowNote, ScopeKind


def reach(graph: FlowGraph, sources: list[int], barriers: frozenset[int]) -> Reached:
    """Everything that can run after any of ``sources`` (offsets of closure creations)."""
    found = Reached(graph)
    queue: deque[tuple[int, Completion]] = deque()
    seen: set[tuple[int, Completion]] = set()
    for offset in sources:
        segment = graph.segment_at(offset)
        if segment is None:
            found.everywhere = True  # a creation the graph cannot place: assume it precedes everything
            continue
        if offset < found.partial.get(segment, offset + 1):
            found.partial[segment] = offset
            queue.append((segment, Completion.ANY))
    while queue:
        segment, completion = queue.popleft()
        start = None if segment in found.entered else found.partial.get(segment)
        for target, note in graph.successors[segment]:
            if target in barriers:
                continue
            if note is not None and note.kind is FlowEdge.THROW and not graph.may_throw_after(segment, start):
                continue  # nothing after this point of the ``try`` block may throw
            going_on = continued(graph, target, note, completion)
            if going_on is None or (target, going_on) in seen:
                continue
            seen.add((target, going_on))
            if target not in found.entered:
                found.entered[target] = (segment, note)
            queue.append((target, going_on))
    return found


class Completion(enum.Enum):
    """How the ``finally`` block a path runs in was entered: it goes on after the block the same way."""

    #: not in a ``finally`` block, or in one entered from where the search cannot tell.
    ANY = "any"
    #: from the end of its ``try`` block or ``catch`` clause: it goes on after the ``try`` statement.
    NORMAL = "normal"
    #: by a ``return``, ``break``, ``continue`` or an exception: it goes on to that jump's target.
    ABRUPT = "abrupt"


def continued(graph: FlowGraph, target: int, note: FlowNote | None, completion: Completion) -> Completion | None:
    """The completion a path has on entering ``target`` by an edge with ``note``; ``None`` where the edge leaves
    a ``finally`` block the other way than it was entered (design 2.1.2)."""
    normal_gate = graph.finally_gates.get(target)
    if normal_gate is not None:
        if completion is not Completion.ANY and normal_gate is (completion is Completion.ABRUPT):
            return None
        return Completion.ANY
    if target in graph.finally_entries:
        if completion is not Completion.ANY:
            return Completion.ANY  # a ``finally`` inside another one's block: cannot tell, so both ways
        return Completion.NORMAL if note is None else Completion.ABRUPT
    return completion


def barriers(binding: Binding, graph: FlowGraph) -> frozenset[int]:
    """Where ``binding`` is made afresh: a path through there reaches another instance of it."""
    loop = binding.per_iteration_of
    if loop is not None:
        return frozenset(graph.loop_copies.get(loop.start, ()))
    scope = binding.scope
    if scope is not scope.closure.scope and scope.kind in (ScopeKind.BLOCK, ScopeKind.CATCH):
        entry = graph.scope_entries.get(scope.start)
        if entry is not None:
            return frozenset((entry,))
    return frozenset()


@dataclass(slots=True)
class Reached:
    graph: FlowGraph
    #: segments entered from their start: segment -> (predecessor, the note of the edge).
    entered: dict[int, tuple[int, FlowNote | None]] = field(default_factory=dict)
    #: segments holding a source: segment -> its first source's offset (what follows it there is reached).
    partial: dict[int, int] = field(default_factory=dict)
    #: a source could not be placed: everything counts as reached.
    everywhere: bool = False

    def reaches(self, offset: int) -> bool:
        segment = self.graph.segment_at(offset)
        if self.everywhere or segment is None:
            return True
        if segment in self.entered:
            return True
        first = self.partial.get(segment)
        return first is not None and first < offset

    def path(self, offset: int) -> tuple[int | None, list[FlowNote]]:
        """The source offset a path to ``offset`` starts from, and the notes along it (in order)."""
        segment = self.graph.segment_at(offset)
        if segment is None or self.everywhere:
            return None, []
        first = self.partial.get(segment)
        if first is not None and first < offset:
            return first, []
        notes: list[FlowNote] = []
        seen: set[int] = set()
        while segment in self.entered and segment not in seen:
            seen.add(segment)
            segment, note = self.entered[segment]
            if note is not None:
                notes.append(note)
            if segment in self.partial:
                # Every segment on the way was first entered from its predecessor here, and a source
                # segment runs to its end after its source: the path starts at that source.
                notes.reverse()
                return self.partial[segment], notes
        return None, []
