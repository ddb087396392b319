"""Escape of closures: a value-flow graph and reachability to ``ESCAPE``.

Nodes are closures, bindings and the sink ``ESCAPE``.  An edge ``u -> v``
says "the value of ``u`` may flow into ``v``":

* a closure literal flows into the binding it initializes or is assigned to
  (``const f = () => ...``, ``g = f``), or into ``ESCAPE`` when it is returned,
  thrown, yielded, passed to a call or ``new`` (but an argument of a known callee
  flows into its parameter: ``parameters``), stored in an object, array,
  property or class field, exported, or assigned to a binding of another
  activation, or when it is constructed with ``new``, has its ``prototype``
  read (by name, by a computed key or by an object pattern): that object's
  ``constructor`` is the function itself;
* a named function expression flows into its own name (``function G() { return G }``);
* a binding flows into another binding it is copied to, into ``ESCAPE`` when
  it is used in any of the escaping positions above, and into every closure
  that captures it (``b -> g``: if ``g`` escapes, so does what ``b`` holds);
* calling a value (``f()``, an IIFE, ``f?.()``, ``f.call(o)``) and dropping
  it are not flows;
* a sloppy-mode function whose ``arguments.callee`` may be handed out
  (``mapped_arguments``) flows into ``ESCAPE``, and so do its parameters when
  its ``arguments`` object may read their values out;
* a generator always flows into ``ESCAPE``: a call starts an activation that
  the returned generator object keeps alive after the caller returned; so
  does an async function that may be called other than as the operand of an
  ``await`` in the activation that holds it (its call may be suspended at an
  ``await`` of its own and resume after the caller returned).

Only the part of the graph that some closure reaches is kept: every question
(does it escape, through what, what does it reach) starts at a closure.

A closure escapes iff it reaches ``ESCAPE``.  Every edge carries a note
``(offset, why)`` so that a verdict can be explained as a chain, as Go's
``-m=2`` does::

    inc -> alias (copied at 21:9) -> ESCAPE (returned at 22:3)
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from typing import TYPE_CHECKING, TypeAlias

from .linking.interface import Interface, Tag, interface_of, summarized
from .model import AWAITED_CALLEE_USE, Binding, BindingKind, Closure, FileModel, Reference, Use, UseKind
from .parameters import Landing, Parameters, Slot, passed_to_known_callee
from .results import Step, StepRole
from .source import SourceFile
from .words import closure_name

if TYPE_CHECKING:
    import networkx as nx

    from .linking.links import Links

#: a node of the graph: a closure, a binding, or ``ESCAPE`` (``CALLED`` only while the graph is built; retention
#: adds ``THIS`` to a graph of its own).
FlowNode: TypeAlias = "Closure | Binding | str"
#: an edge's note: where the value flows, and why (a closure stands for "captured by" it: ``note``).
Note: TypeAlias = "tuple[int, str | Closure]"
#: the graph as networkx holds it, for the diagrams: each edge's attributes its note as ``offset`` and ``why``.
NetworkxGraph: TypeAlias = "nx.DiGraph[FlowNode, dict[str, object], dict[str, object]]"

ESCAPE = "ESCAPE"
#: the reason of an argument's escaping use (``bind.expressions.ARGUMENT_USE``).
ARGUMENT = "passed as an argument"
#: what is called other than by an ``await`` in its own activation (``_calls_outliving_the_caller``).
CALLED = "CALLED"
ASYNC = "an async function called without `await`, whose call may resume after the caller returned"
GENERATOR = "a generator, whose calls live on in the generator objects they return"
CALLEE = "handed out as `arguments.callee`"
EXPOSED = "readable through the function's `arguments` object"


class ValueFlow:
    """The kept part of the graph, as the typed adjacency structure DESIGN 2.2 allows a compiled core.

    The questions are asked from compiled code, many times per file: networkx answered them in interpreted
    code, through views, and held an attribute dict per edge (the graph of ``lib/typescript.js``, 82,720
    edges, took 58 MB).  Nodes, each node's successors and predecessors, and the edges keep the order in
    which the edges were met, which is the order networkx kept, so every walk visits what it visited.
    """

    __slots__ = ("edges", "nodes", "predecessors_of", "successors_of")

    def __init__(self, nodes: dict[FlowNode, None], edges: dict[tuple[FlowNode, FlowNode], Note]) -> None:
        self.nodes = nodes
        #: each edge's note, in the order met.
        self.edges = edges
        self.successors_of: dict[FlowNode, list[FlowNode]] = {}
        self.predecessors_of: dict[FlowNode, list[FlowNode]] = {}
        for source, target in edges:
            self.successors_of.setdefault(source, []).append(target)
            self.predecessors_of.setdefault(target, []).append(source)

    def __contains__(self, node: object) -> bool:
        return node in self.nodes

    def has_edge(self, source: FlowNode, target: FlowNode) -> bool:
        return (source, target) in self.edges

    def successors(self, node: FlowNode) -> list[FlowNode]:
        return self.successors_of.get(node, [])

    def predecessors(self, node: FlowNode) -> list[FlowNode]:
        return self.predecessors_of.get(node, [])

    def descendants(self, node: FlowNode, barrier: Container[FlowNode] = ()) -> list[FlowNode]:
        """What ``node`` reaches, itself left out, nearest first (breadth first, as networkx's ``descendants``
        visits them, though it returns them as a set), without going through the nodes of ``barrier``."""
        seen: set[FlowNode] = {node}
        found: list[FlowNode] = []
        at = 0
        frontier = [node]
        while at < len(frontier):
            for target in self.successors(frontier[at]):
                if target not in seen and target not in barrier:
                    seen.add(target)
                    found.append(target)
                    frontier.append(target)
            at += 1
        return found

    def to_networkx(self) -> NetworkxGraph:
        """The same graph in networkx, nodes and edges added in the same order (the diagrams' shortest paths)."""
        import networkx as nx

        graph: NetworkxGraph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from((source, target, {"offset": offset, "why": why})
                             for (source, target), (offset, why) in self.edges.items())
        return graph


class EscapeGraph:
    """Built on first use: most files decide every binding `local` or `value` and never ask."""

    def __init__(self, model: FileModel, parameters: bool = False, links: Links | None = None,
                 imported: Mapping[Slot, Landing] | None = None):
        """``parameters``: keep what every parameter reaches too, not only closures (``boxcheck summaries``).
        ``links``: the file's imports and exports, whose functions' parameters are summarized (``exported_tags``);
        ``imported``: the imported slots the run resolved (``linking``)."""
        self.model = model
        self.keeps_parameters = parameters
        self.links = links
        self.imported = imported
        #: the imported slots that a closure reaches, whose summaries may change this file's verdicts.
        self.wants: tuple[Slot, ...] = ()
        #: each exported function's parameters' tags (``linking.interface``), once the graph is built.
        self.exported_tags: dict[Binding | Closure, tuple[Tag, ...]] = {}
        #: what reaches a resolved slot that does not escape: where, the note, and where the callee is.
        self.imported_calls: dict[FlowNode, list[tuple[int, str, str]]] = {}
        #: while the graph is built: the nodes whose only way to ``ESCAPE`` is an unresolved slot, and their slots.
        self._import_only: set[FlowNode] = set()
        self._slots: dict[FlowNode, list[Slot]] = {}
        self._graph: ValueFlow | None = None
        self._escaping: set[FlowNode] = set()
        self._toward_escape: dict[FlowNode, FlowNode] = {}
        self._reaches: dict[Closure, list[FlowNode]] = {}
        self._networkx: NetworkxGraph | None = None
        #: while the graph is built: its nodes and its edges with their notes, in the order met.
        self._nodes: dict[FlowNode, None] = {}
        self._edges: dict[tuple[FlowNode, FlowNode], Note] = {}
        #: the parameters that arguments of calls to known callees land in (DESIGN 2.2.1): what reaches one is
        #: held by a call, which ends before the activation or loop iteration that makes the call does.
        self.callee_parameters: set[Binding] = set()
        #: while the graph is built: the file's known callees.
        self._parameters: Parameters | None = None

    @property
    def graph(self) -> ValueFlow:
        if self._graph is None:
            # Nodes and edges are gathered in plain dicts, in the order they are met, which is
            # cheaper than a ``has_edge`` and an ``add_edge`` call per reference.
            self._nodes = {ESCAPE: None}
            self._edges = {}
            model = self.model
            self._parameters = Parameters(model, self.links.origin if self.links is not None else None,
                                          self.imported)
            for closure in model.closures:
                if not closure.is_module:
                    self._closure_edges(closure)
            for ref in model.references:
                if ref.binding is not None:
                    self._reference_edges(ref, ref.binding)
            for binding in model.bindings:
                if binding.exported:
                    self._edge(binding, ESCAPE, binding.start, "exported")
                elif binding.kind is BindingKind.FUNCTION_NAME and binding.init_closure is not None:
                    # ``function G() { return G }``: the function is its own name's value.
                    self._edge(binding.init_closure, binding, binding.start, f"named `{binding.name}` inside itself")
            self._calls_outliving_the_caller()
            successors: dict[FlowNode, list[FlowNode]] = {}
            for source, target in self._edges:
                successors.setdefault(source, []).append(target)
            kept = self._reachable_from_closures(successors)
            if self._slots or (self.links is not None and self.links.exports):
                self.wants, self.exported_tags = summarized(model.closures, successors, self._edges, self._import_only,
                                                            self._slots, self.links, self._parameters)
            graph = ValueFlow({node: None for node in self._nodes if node in kept},
                              {edge: note for edge, note in self._edges.items() if edge[0] in kept})
            self._nodes = {}
            self._edges = {}
            self._parameters = None
            self._import_only = set()
            self._slots = {}
            self._graph = graph
            self._toward_escape = self._next_hops(graph)
            self._escaping = set(self._toward_escape)
        return self._graph

    def _calls_outliving_the_caller(self) -> None:
        """An async function that may be called other than as the operand of an ``await`` in the activation
        that holds it escapes: its call may resume after the caller returned.  The ``CALLED`` node, which
        the bindings so called flow into, only serves this question and leaves the graph here."""
        into_called: dict[FlowNode, list[FlowNode]] = {}
        for source, target in self._edges:
            into_called.setdefault(target, []).append(source)
        calls = {edge: note for edge, note in self._edges.items() if edge[1] is CALLED}
        for edge in calls:
            del self._edges[edge]
        if not calls:
            return
        seen: set[FlowNode] = {CALLED}
        work: list[FlowNode] = [CALLED]
        while work:
            for source in into_called.get(work.pop(), ()):
                if source not in seen:
                    seen.add(source)
                    work.append(source)
        for closure in self.model.closures:
            if closure.is_async and closure in seen:
                self._edge(closure, ESCAPE, closure.start, ASYNC)

    def _reachable_from_closures(self, successors: dict[FlowNode, list[FlowNode]]) -> set[FlowNode]:
        """Every question asked of the graph starts at a closure, so only what a closure reaches is kept.

        Most edges start at bindings that never hold a closure (a number passed as an
        argument, a string captured by a callback): dropping them halves the graph of a
        large file and changes no answer, since a path from a closure only visits nodes
        that closure reaches.
        """
        kept: set[FlowNode] = {ESCAPE}
        work: list[FlowNode] = [closure for closure in self.model.closures if not closure.is_module]
        if self.keeps_parameters:
            work += [binding for binding in self.model.bindings if binding.kind is BindingKind.PARAM]
        kept.update(work)
        while work:
            for target in successors.get(work.pop(), ()):
                if target not in kept:
                    kept.add(target)
                    work.append(target)
        return kept

    @staticmethod
    def _next_hops(graph: ValueFlow) -> dict[FlowNode, FlowNode]:
        """For every node that reaches ``ESCAPE``, its next node on a shortest path there.

        One breadth-first search backwards from ``ESCAPE``, so that explaining thousands of
        verdicts in one huge factory does not run a path search per verdict.
        """
        hops: dict[FlowNode, FlowNode] = {}
        frontier: list[FlowNode] = [ESCAPE]
        while frontier:
            following: list[FlowNode] = []
            for node in frontier:
                for source in graph.predecessors(node):
                    if source not in hops and source != ESCAPE:
                        hops[source] = node
                        following.append(source)
            frontier = following
        return hops

    def _edge(self, source: FlowNode, target: FlowNode, offset: int, why: str | Closure) -> None:
        """The first note of an edge is kept."""
        key = (source, target)
        if key not in self._edges:
            self._edges[key] = (offset, why)
            self._nodes[source] = None
            self._nodes[target] = None
        elif target is ESCAPE and source in self._import_only:
            self._import_only.discard(source)  # it escapes another way too

    def _closure_edges(self, closure: Closure) -> None:
        self._nodes[closure] = None
        use = closure.use
        if closure.binding is not None:
            self._edge(closure, closure.binding, closure.start, f"declared as `{closure.binding.name}`")
        elif use.kind is UseKind.ESCAPE:
            self._escape(closure, use, closure.start)
        elif use.kind is UseKind.FLOW:
            self._flow(closure, closure.parent, use.target, closure.start)
        if closure.arguments_callee is not None:
            self._edge(closure, ESCAPE, closure.arguments_callee.start, CALLEE)
        exposes = closure.arguments_exposes
        if exposes is not None and closure.scope is not None:
            # ``a = () => x; return arguments[0]``: the object reads the parameters' current values.
            for binding in closure.scope.declarations.values():
                if binding.kind is BindingKind.PARAM:
                    self._edge(binding, ESCAPE, exposes.start, EXPOSED)
        if closure.is_generator:
            # Even a call that never lets the closure go starts an activation that outlives the
            # caller: the generator object the call returns holds it.
            self._edge(closure, ESCAPE, closure.start, GENERATOR)
        elif closure.is_async and use.kind is UseKind.CALLEE and use is not AWAITED_CALLEE_USE:
            self._edge(closure, ESCAPE, closure.start, ASYNC)  # ``(async () => { await x; ... })()``

    def _escape(self, source: FlowNode, use: Use, offset: int) -> None:
        """An escaping use, unless it is an argument of a known callee: then it lands in the callee's parameter
        (``parameters``), or nowhere, as the callback of a builtin that runs it and drops it does
        (``bind.containers``)."""
        if use.index >= 0 and isinstance(use.target, Reference):
            parameters = self._parameters
            assert parameters is not None
            landing = parameters.landing(use.target, use.index)
            if landing is not None:
                target, why = landing
                if isinstance(target, Binding):
                    self.callee_parameters.add(target)
                    self._edge(source, target, offset, why)
                else:  # an async executor still runs on after the call; one past the parameters counts so too
                    self._edge(source, CALLED, offset, why)
                return
            slot = parameters.slot(use.target, use.index)
            if slot is not None:
                self._imported_argument(source, slot, use, offset)
                return
        if offset in self.model.dropped_callbacks and use.why == ARGUMENT:
            self._edge(source, CALLED, offset, "called by a builtin that drops it")  # async: see CALLED
            return
        self._edge(source, ESCAPE, offset, use.why)

    def _imported_argument(self, source: FlowNode, slot: Slot, use: Use, offset: int) -> None:
        """An argument of an imported function: run and dropped if the run resolved its slot so, else it escapes,
        but only as far as that slot does (``exported_tags``)."""
        found = self.imported.get(slot) if self.imported is not None else None
        if found is not None:
            _, why, place = found
            self._edge(source, CALLED, offset, why)  # as a callee of this file's would be (``_escape``)
            self.imported_calls.setdefault(source, []).append((offset, why, place))
            return
        self._slots.setdefault(source, []).append(slot)
        if (source, ESCAPE) not in self._edges:
            assert self._parameters is not None
            self._edge(source, ESCAPE, offset, self._parameters.imported_note(use, slot))
            self._import_only.add(source)

    def _flow(self, source: FlowNode, activation: Closure | None, target: object, offset: int) -> None:
        self._edge(source, *flow_edge(activation, target, offset))

    def _reference_edges(self, ref: Reference, binding: Binding) -> None:
        use = ref.use
        # Most references are no argument of a known callee or a builtin: those take the plain way.
        special = use.index >= 0 or (use.kind is UseKind.ESCAPE and ref.start in self.model.dropped_callbacks)
        for target, offset, why in reference_edges(ref, binding, self._edges):
            if special and target == ESCAPE and ref.is_read:
                self._escape(binding, use, offset)
            else:
                self._edge(binding, target, offset, why)

    def interface(self, source: SourceFile) -> Interface:
        """What the file tells the files that import it (``linking.interface``): the graph is built if it exports
        something."""
        if self.links is not None and self.links.exports:
            _ = self.graph
        return interface_of(source, self.links, self.wants, self.exported_tags)

    def networkx(self) -> NetworkxGraph:
        """The graph in networkx, made once, for the diagrams (``boxcheck graph``)."""
        if self._networkx is None:
            self._networkx = self.graph.to_networkx()
        return self._networkx

    def release(self) -> None:
        """Drops the graph and what was found in it (``FileAnalysis.release``); networkx caches views of a graph
        that point back at it."""
        if self._networkx is not None:
            vars(self._networkx).clear()
        self._networkx = None
        self._graph = None
        self._escaping.clear()
        self.callee_parameters.clear()
        self.imported_calls.clear()
        self.exported_tags.clear()
        self._toward_escape.clear()
        self._reaches.clear()

    def escapes(self, closure: Closure) -> bool:
        return self.graph is not None and closure in self._escaping

    def reaches(self, closure: Closure) -> list[FlowNode]:
        """What ``closure`` flows into, nearest first."""
        if closure not in self._reaches:
            graph = self.graph
            self._reaches[closure] = graph.descendants(closure) if closure in graph else []
        return self._reaches[closure]

    def held(self, closure: Closure) -> list[FlowNode]:
        """What ``closure`` flows into other than through a known callee's parameter (``reaches`` when there is
        none), nearest first: the bindings that may hold it after the calls it is passed to are over."""
        if not self.callee_parameters:
            return self.reaches(closure)
        graph = self.graph
        return graph.descendants(closure, self.callee_parameters) if closure in graph else []

    def calls_reached(self, closure: Closure) -> list[tuple[int, str, Binding | str]]:
        """The known callees' parameters that ``closure`` (or what holds it) is passed to: where, the note, and
        the parameter (or, in another file, where its function is), first met first."""
        if not self.callee_parameters and not self.imported_calls:
            return []
        graph = self.graph
        found: list[tuple[int, str, Binding | str]] = []
        for node in [closure, *self.reaches(closure)]:
            found.extend(self.imported_calls.get(node, ()))
            for target in graph.successors(node):
                if isinstance(target, Binding) and target in self.callee_parameters:
                    offset, why = graph.edges[node, target]
                    if isinstance(why, str) and passed_to_known_callee(why):
                        found.append((offset, why, target))
        return found

    def escape_chain(self, closure: Closure | Binding) -> list[Step]:
        """A shortest path from ``closure`` (or a parameter, when the graph keeps them) to ``ESCAPE``, one step per
        edge."""
        if self.graph is None or closure not in self._escaping:
            return []
        steps = []
        source: FlowNode = closure
        while source != ESCAPE:
            target = self._toward_escape[source]
            offset, why = self.note_of(source, target)
            steps.append(Step(offset, f"{describe(source)}: {note(why)}", describe(source), role=StepRole.ESCAPE))
            source = target
        return steps

    def note_of(self, source: FlowNode, target: FlowNode) -> Note:
        """The note of the edge ``source -> target`` of the graph."""
        return self.graph.edges[source, target]


def note(why: str | Closure) -> str:
    """An edge's note in words: a closure stands for "captured by" it."""
    return why if isinstance(why, str) else f"captured by {describe(why)}"


def describe(node: FlowNode) -> str:
    if isinstance(node, Closure):
        return closure_name(node)
    if isinstance(node, Binding):
        return f"`{node.name}`"
    return str(node)


def flow_target(target: object) -> Binding | None:
    """The binding a ``FLOW`` use copies into: a declaration's, or an assignment's (``None``: a global)."""
    if isinstance(target, Reference):
        return target.binding
    return target if isinstance(target, Binding) else None


def flow_edge(activation: Closure | None, target: object, offset: int) -> tuple[FlowNode, int, str]:
    """Where a value copied into ``target`` by code of ``activation`` goes: the binding, if it is one of the
    same activation; else it outlives the activation (``ESCAPE``)."""
    binding = flow_target(target)
    if binding is None:
        name = target.name if isinstance(target, Reference) else "?"
        return ESCAPE, offset, f"assigned to the global `{name}`"
    if binding.closure is activation:
        return binding, offset, f"stored in `{binding.name}`"
    return ESCAPE, offset, f"assigned to `{binding.name}` of an enclosing function"


def reference_edges(ref: Reference, binding: Binding,
                    known: Container[tuple[FlowNode, FlowNode]] = ()) -> Iterator[tuple[FlowNode, int, str | Closure]]:
    """The edges one reference adds from its binding: where the value it reads goes, and the closures that
    hold the binding (the reference's closure and those around it up to the binding's own).  Once an edge to
    a holder is in ``known``, so are the edges to the holders around it (an earlier reference walked them);
    a holder's note is the closure, put in words only when asked (``note``)."""
    if ref.is_read:
        use = ref.use
        if use.kind is UseKind.ESCAPE:
            yield ESCAPE, ref.start, use.why
        elif use.kind is UseKind.FLOW:
            yield flow_edge(ref.closure, use.target, ref.start)
        elif use.kind is UseKind.CALLEE and not (use is AWAITED_CALLEE_USE and ref.closure is binding.closure):
            yield CALLED, ref.start, "called"
    if ref.closure is not binding.closure:
        holder: Closure | None = ref.closure
        while holder is not None and holder is not binding.closure and (binding, holder) not in known:
            yield holder, ref.start, holder
            holder = holder.parent
