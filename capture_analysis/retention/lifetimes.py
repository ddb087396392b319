"""Which closures outlive their activation *durably* (DESIGN 2.6): the escape graph's value flow, with every
place where a value leaves judged by what the code there does with it.

For ``stack`` any escape counts: a closure passed to ``items.map(f)`` is out of
the function's hands.  For BX107 the question is whether it is still alive
once the call is over.  So each escape site of the escape graph (a closure's
own use, each escaping read of a binding that may hold one) is judged (``sites``):

* **durable**, a *seed*: returned, yielded, thrown, exported, stored into
  ``this``, module state, a global, a parameter's object; registered with a
  listener or a timer that the activation does not remove or clear on every
  path; a ``.then`` callback of a promise the activation does not await;
  passed to a call whose effect nobody knows;
* **run and drop**: passed to a call that runs it during the call and drops
  it (``callees``), or to a ``.then`` whose promise the activation awaits;
  an async callback counts only when the call's promises are awaited;
* **into** a binding: stored in an object, array or class that lands in a
  local binding, pushed into a local array or map, passed to a function of
  the same file (into its parameter): the value lives as long as that
  binding's value does, which the same judgement decides.

A node is durable when it can reach a seed through the graph's edges (the
copies between bindings, the bindings' capturing closures) and the *into*
edges.  Each question is a breadth-first search, memoized both ways (the
way to a seed for what is durable, everything a fruitless search reached
for what is not), and a node's sites are judged the first time a search
reaches it: most escaping closures of a file are never asked about.
``long_lived`` asks whether the value may reach a seed that keeps it for the
program's life (``this``, module state, a listener, an interval): the
evidence that makes a finding a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..escape import ESCAPE, EscapeGraph, FlowNode, flow_target, reference_edges
from ..model import Binding, BindingKind, Closure, FileModel, Reference, UseKind
from ..parsing import ParsedFile
from .callees import Callees
from .members import member_reads
from .sites import RETURNED, THIS, Into, Judgement, Seed, Sites


@dataclass(frozen=True, slots=True)
class Fate:
    """Why a node is durable: the next node on the way to a seed (``None`` at the seed), where, and why."""

    next: FlowNode | None
    offset: int
    why: str


class Lifetimes:
    """The durable closures and bindings of one file, searched as questions ask (each node's edges and its
    sites' judgements made once, on first use)."""

    def __init__(self, model: FileModel, file: ParsedFile, graph: EscapeGraph, callees: Callees):
        self.model = model
        self.file = file
        self.graph = graph
        self.sites = Sites(model, file, callees)
        self._edges: dict[FlowNode, list[tuple[FlowNode, int, str]]] = {}
        self.seeds: dict[FlowNode, Seed] = {}
        self.fates: dict[FlowNode, Fate] = {}
        #: nodes a complete search found no seed from (so neither can anything it reached).
        self.passing: set[FlowNode] = set()

    # -- the questions -----------------------------------------------------------------------------------

    def durable(self, node: FlowNode) -> bool:
        """A breadth-first search from ``node`` to the nearest seed (or to a node known durable), which leaves the
        way in ``fates``; a search that finds none marks everything it reached as not durable."""
        if node in self.fates:
            return True
        if node in self.passing or (isinstance(node, Closure) and not self.graph.escapes(node)):
            return False  # a closure that does not escape at all reaches no durable site
        came: dict[FlowNode, tuple[FlowNode, int, str] | None] = {node: None}
        frontier = [node]
        while frontier:
            following = []
            for current in frontier:
                edges = self.edges(current)
                if current in self.seeds or current in self.fates:
                    self._record(current, came)
                    return True
                for target, offset, why in edges:
                    if target not in came and target not in self.passing:
                        came[target] = (current, offset, why)
                        following.append(target)
            frontier = following
        self.passing.update(came)
        return False

    def _record(self, found: FlowNode, came: dict[FlowNode, tuple[FlowNode, int, str] | None]) -> None:
        if found not in self.fates:
            seed = self.seeds[found]
            self.fates[found] = Fate(None, seed.offset, seed.why)
        step = came[found]
        node = found
        while step is not None:
            previous, offset, why = step
            self.fates[previous] = Fate(node, offset, why)
            node, step = previous, came[previous]

    def chain(self, node: FlowNode) -> list[Fate]:
        """The way from ``node`` to its seed, one hop per step (empty when it is not durable)."""
        steps: list[Fate] = []
        if not self.durable(node):
            return steps
        while node in self.fates:
            fate = self.fates[node]
            steps.append(fate)
            if fate.next is None:
                break
            node = fate.next
        return steps

    def long_lived(self, node: FlowNode) -> bool:
        """Whether the value may reach a seed that keeps it for the program's life (``this``, module state, a
        listener or an interval never removed)."""
        seen: set[FlowNode] = {node}
        work: list[FlowNode] = [node]
        while work:
            current = work.pop()
            edges = self.edges(current)
            seed = self.seeds.get(current)
            if seed is not None and seed.long_lived:
                return True
            for target, _, _ in edges:
                if target not in seen:
                    seen.add(target)
                    work.append(target)
        return False

    def alone(self, closure: Closure) -> tuple[bool, list[Closure]]:
        """Whether the closure reaches a seed without being captured by another closure, and else the durable
        closures that capture a binding holding it: it then lives only as long as their contexts do."""
        seen: set[FlowNode] = {closure}
        work: list[FlowNode] = [closure]
        capturers: list[Closure] = []
        while work:
            node = work.pop()
            edges = self.edges(node)
            if node in self.seeds:
                return True, []
            for target, _, _ in edges:
                if isinstance(target, Closure) and target is not closure:
                    if target not in capturers and self.durable(target):
                        capturers.append(target)
                elif target not in seen:
                    seen.add(target)
                    work.append(target)
        return False, capturers

    def returned(self, binding: Binding) -> bool:
        """The function's own code returns the binding's value: the caller holds the object for as long as it
        keeps the result, and a closure that holds it too keeps nothing the caller does not."""
        for ref in binding.references:
            if ref.is_read and ref.closure is binding.closure and ref.use.kind is UseKind.ESCAPE:
                judged = self.sites.judge(self.file.node_at(ref.start, ref.end), False, ref.use.why)
                if isinstance(judged, Seed) and judged.why == RETURNED:
                    return True
        return False

    def stores_into(self, closure: Closure, binding: Binding) -> bool:
        """Whether the closure's value may be stored into ``binding`` (itself, or through what holds it)."""
        seen: set[FlowNode] = {closure}
        work: list[FlowNode] = [closure]
        while work:
            node = work.pop()
            edges = self.edges(node)
            seed = self.seeds.get(node)
            if node is binding or (seed is not None and seed.holder is binding):
                return True
            for target, _, _ in edges:
                if target not in seen:
                    seen.add(target)
                    work.append(target)
        return False

    # -- the graph ------------------------------------------------------------------------------------------

    def edges(self, node: FlowNode) -> list[tuple[FlowNode, int, str]]:
        """Where ``node``'s value goes (its escape sites judged, a seed recorded for the durable ones)."""
        edges = self._edges.get(node)
        if edges is None:
            edges = self._edges[node] = self._closure_edges(node) if isinstance(node, Closure) \
                else self._binding_edges(node)
        return edges

    def _seed(self, node: FlowNode, seed: Seed) -> None:
        if node not in self.seeds or (seed.long_lived and not self.seeds[node].long_lived):
            self.seeds[node] = seed

    def _judged(self, node: FlowNode, judgement: Judgement, edges: list[tuple[FlowNode, int, str]]) -> None:
        if isinstance(judgement, Seed):
            self._seed(node, judgement)
        elif isinstance(judgement, Into):
            for target in judgement.targets:
                if target == THIS:
                    self._seed(node, Seed(judgement.offset, "stored in `this`", True))
                elif target is not node:
                    edges.append((target, judgement.offset, judgement.why))

    def _closure_edges(self, closure: Closure) -> list[tuple[FlowNode, int, str]]:
        edges: list[tuple[FlowNode, int, str]] = []
        use = closure.use
        if closure.binding is not None:
            edges.append((closure.binding, closure.start, f"declared as `{closure.binding.name}`"))
        elif use.kind is UseKind.ESCAPE:
            node = self.file.node_at(closure.start, closure.end)
            judgement = self.sites.judge(node, closure.is_async, use.why)
            self._judged(closure, judgement, edges)
            if isinstance(judgement, Into) and isinstance(judgement.targets[0], Binding):
                # a member of ``const api = {...}``: ``return api.ping`` takes it out alone (``members``)
                for read in member_reads(node, judgement.targets[0], self.file) or ():
                    self._judged(closure, self.sites.judge(read, closure.is_async, "read from its object"), edges)
        elif use.kind is UseKind.FLOW:
            self._flow(closure, closure.parent, use.target, closure.start, edges)
        graph = self.graph.graph
        if closure in graph and graph.has_edge(closure, ESCAPE) and (
                closure.is_generator or closure.arguments_callee is not None or use.kind is not UseKind.ESCAPE):
            # a generator's activations, `arguments.callee`, an async call not awaited: no site to judge
            offset, why = self.graph.note_of(closure, ESCAPE)
            self._seed(closure, Seed(offset, why if isinstance(why, str) else "escapes"))
        return edges

    def _flow(self, source: FlowNode, activation: Closure | None, target: object, offset: int,
              edges: list[tuple[FlowNode, int, str]]) -> None:
        """A copy into a binding: of the same activation, an edge; of another, an edge too (its own fate decides),
        and module state or a global is a seed."""
        binding = flow_target(target)
        if binding is None:
            name = target.name if isinstance(target, Reference) else "?"
            self._seed(source, Seed(offset, f"assigned to the global `{name}`", True))
        elif binding.closure.is_module:
            self._seed(source, Seed(offset, f"stored in the module's `{binding.name}`", True, binding))
        elif binding is not source:
            how = "stored in" if binding.closure is activation else "assigned to"
            edges.append((binding, offset, f"{how} `{binding.name}`"))

    def _binding_edges(self, binding: FlowNode) -> list[tuple[FlowNode, int, str]]:
        edges: list[tuple[FlowNode, int, str]] = []
        if not isinstance(binding, Binding):
            return edges
        if binding.exported:
            self._seed(binding, Seed(binding.start, "exported", True))
        graph = self.graph.graph
        if binding.kind is BindingKind.PARAM and binding in graph and graph.has_edge(binding, ESCAPE):
            closure = binding.closure
            if closure.arguments_exposes is not None:
                self._seed(binding, Seed(closure.arguments_exposes.start, "readable through `arguments`"))
        known: set[tuple[FlowNode, FlowNode]] = set()
        for ref in binding.references:
            if ref.is_read and ref.use.kind is UseKind.FLOW:
                self._flow(binding, ref.closure, ref.use.target, ref.start, edges)
            for target, offset, _ in reference_edges(ref, binding, known):
                if target == ESCAPE and ref.is_read and ref.use.kind is UseKind.ESCAPE:
                    node = self.file.node_at(ref.start, ref.end)
                    self._judged(binding, self.sites.judge(node, False, ref.use.why), edges)
                elif isinstance(target, Closure):
                    known.add((binding, target))
                    edges.append((target, offset, f"captured by {target.name or 'a closure'}"))
        return edges
