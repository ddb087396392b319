"""What a closure can run, and so which bindings it may use: itself, what it nests, what it can get hold of.

A retained binding is a finding only if nothing the retaining closure can
run refers to it.  That is the closure itself, every closure nested in it
(created when it runs), and every closure whose value it can get hold of
through the values it reads, transitively::

    const use = () => big.size;
    const api = { use };
    return () => api.use();        // runs `use` through `api`: `big` is used

A closure's value *lands in* a binding when it flows there (the escape
graph's edges into bindings: an initializer, an assignment, a copy), or when
it is put into a container that ends in one: an object or array literal (or
a class) stored in the binding, a property of it (``X.p = f``), or an
argument of a call on it (``X.push(f)``, ``X.on("e", f)``: the receiver may
keep it).  Members of classes and object literals, and what is stored in a
property of ``this``, land in ``this``, which every closure whose code reads
``this`` or ``super`` reaches (one ``this`` for the file: an over-approximation
that can only hide findings).  A closure put anywhere else (returned, passed
to a function that is not read from a binding, stored in a global) is out of
sight: a closure that could only reach it through a value the analysis does
not follow (a call's result, a parameter) is taken not to run it.

A write counts as a use (a closure that clears the binding needs it); a
closure with a direct ``eval`` uses everything; an arrow that reads
``arguments`` uses its function's parameters.

Each closure's uses are a bit mask over the candidate bindings (kept packed,
``bits``); the masks are combined over the strongly connected components of
the "can run" graph, so a huge factory whose methods all reach each other
costs one pass.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

import tree_sitter

from ..bind.syntax import unwrap
from ..escape import EscapeGraph, FlowNode
from ..model import Binding, BindingKind, Closure, ClosureKind, FileModel, Reference, UseKind
from ..parsing import ParsedFile
from . import bits

Node = tree_sitter.Node

THIS = "this"
THIS_WORDS = (b"this", b"super")
#: the bytes of an (ASCII) name: `this` inside `thisArg` or `$super` is not the keyword.
NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
#: nodes whose value is (part of) their parent's value as far as holding a closure goes.
CARRIERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                      "type_assertion", "array", "object", "spread_element", "sequence_expression",
                      "await_expression", "public_field_definition", "field_definition", "pair",
                      "ternary_expression", "binary_expression"})
RECEIVER_STEPS = frozenset({"member_expression", "subscript_expression", "call_expression", "non_null_expression",
                            "parenthesized_expression", "as_expression", "satisfies_expression"})
CLASS_DECLARATIONS = frozenset({"class_declaration", "abstract_class_declaration"})


class CanRun:
    """The "can run" graph of one file and each closure's uses, as bits of ``index`` (candidate bindings)."""

    def __init__(self, model: FileModel, file: ParsedFile, graph: EscapeGraph, index: dict[Binding, int]):
        self.model = model
        self.file = file
        self.source = file.source
        self.index = index
        self.everything = (1 << len(index)) - 1
        #: what each node refers to itself, and (once solved) what it can run refers to: packed (``bits``).
        self.weight: dict[FlowNode, int] = {}
        self.edges: dict[FlowNode, list[FlowNode]] = {}
        self.masks: dict[FlowNode, int] = {}
        self.landed: dict[FlowNode, list[FlowNode]] = {}
        self.reads_by_start = {ref.start: ref for ref in model.references if ref.is_read}
        #: declarations by where their name starts: a class's outer and inner names start at one token.
        self.bindings_by_start: dict[int, list[Binding]] = {}
        for binding in model.bindings:
            self.bindings_by_start.setdefault(binding.start, []).append(binding)
        landings = self.landings(graph)
        for closure in model.closures:
            if not closure.is_module:
                self.closure_edges(closure)
        # The references that matter: to a candidate (a use), to a binding something lands in (a way to run
        # it), and to an undeclared `arguments`.
        for binding in index:
            for ref in binding.references:
                self.add_reference(ref, landings)
        for holder in landings:
            if isinstance(holder, Binding) and holder not in index:
                for ref in holder.references:
                    self.add_reference(ref, landings)
        for ref in model.references:
            if ref.binding is None and ref.name == "arguments":
                self.add_reference(ref, landings)
        for target, sources in landings.items():
            self.edges.setdefault(target, []).extend(sources)
        self.landed = landings
        #: closures already searched for ``this`` (``successors``), and where the file says it.
        self.searched: set[Closure] = set()
        self.this_offsets: list[int] | None = None

    # -- the graph -----------------------------------------------------------------------------------

    def closure_edges(self, closure: Closure) -> None:
        out = self.edges.setdefault(closure, [])
        out.extend(closure.children)
        if closure.dynamic_scope_sites:
            self.weight[closure] = self.everything

    def add_reference(self, ref: Reference, landings: dict[FlowNode, list[FlowNode]]) -> None:
        binding = ref.binding
        closure = ref.closure
        if binding is None:
            if ref.name == "arguments":
                self.weight[closure] = bits.union(self.weight.get(closure, 0), self.parameters_of(closure))
            return
        index = self.index.get(binding)
        if index is not None:
            self.weight[closure] = bits.union(self.weight.get(closure, 0), bits.one(index))
        if ref.is_read and binding in landings:
            self.edges.setdefault(closure, []).append(binding)

    def parameters_of(self, closure: Closure) -> int:
        """``arguments`` in an arrow is its function's: the object reads every parameter."""
        owner: Closure | None = closure
        while owner is not None and owner.kind is ClosureKind.ARROW:
            owner = owner.parent
        if owner is None or owner.scope is None:
            return 0
        mask = 0
        for binding in owner.scope.declarations.values():
            index = self.index.get(binding)
            if binding.kind is BindingKind.PARAM and index is not None:
                mask |= 1 << index
        return mask

    def landings(self, graph: EscapeGraph) -> dict[FlowNode, list[FlowNode]]:
        """Where each value that holds a closure may land: binding (or ``THIS``) -> the closures and bindings."""
        flow = graph.graph
        landings: dict[FlowNode, list[FlowNode]] = {}
        for node in flow.nodes:
            if isinstance(node, Binding):
                sources = list(flow.predecessors(node))
                if sources:
                    landings[node] = sources
        for closure in self.model.closures:
            if not closure.is_module and closure.use.kind is UseKind.ESCAPE:
                self.land(closure, self.file.node_at(closure.start, closure.end), landings)
        for closure in self.model.closures:
            target = closure.use.target
            binding = target.binding if isinstance(target, Reference) else target
            if closure.use.kind is UseKind.FLOW and isinstance(binding, Binding):
                # ``saved = () => ...`` of an enclosing function: an escape for the graph, a landing here.
                landings.setdefault(binding, []).append(closure)
        holders = {node for node in flow.nodes if isinstance(node, Binding)}
        for ref in self.model.references:
            if ref.is_read and ref.binding in holders and ref.use.kind is UseKind.ESCAPE:
                self.land(ref.binding, self.file.node_at(ref.start, ref.end), landings)
        return landings

    def land(self, value: FlowNode, node: Node, landings: dict[FlowNode, list[FlowNode]]) -> None:
        for target in self.containers(node):
            landings.setdefault(target, []).append(value)

    def containers(self, node: Node) -> list[FlowNode]:
        """Where a value put at ``node`` ends, through object and array literals, classes and calls on receivers."""
        targets: list[FlowNode] = []
        child, parent = node, node.parent
        while parent is not None:
            kind = parent.type
            if kind == "pair" and parent.child_by_field_name("value") != child:
                return targets
            if kind == "ternary_expression" and parent.child_by_field_name("condition") == child:
                return targets
            if kind == "binary_expression":
                operator = parent.child_by_field_name("operator")
                if operator is None or operator.type not in ("&&", "||", "??"):
                    return targets
            if kind == "object" and THIS not in targets:
                targets.append(THIS)  # a method may call its siblings through `this`
            if kind == "class_body":
                targets.append(THIS)
                owner = parent.parent
                if owner is None:
                    return targets
                if owner.type in CLASS_DECLARATIONS:
                    name = owner.child_by_field_name("name")
                    if name is not None:
                        targets.extend(self.bindings_by_start.get(name.start_byte, ()))
                    return targets
                child, parent = owner, owner.parent  # a class expression: where the class goes, its members go
                continue
            if kind == "variable_declarator":
                name = parent.child_by_field_name("name")
                if parent.child_by_field_name("value") == child and name is not None:
                    targets.extend(self.bindings_by_start.get(name.start_byte, ()))
                return targets
            if kind in ("assignment_expression", "augmented_assignment_expression"):
                left = parent.child_by_field_name("left")
                if parent.child_by_field_name("right") == child and left is not None:
                    targets.extend(self.receivers(left))
                return targets
            if kind == "arguments":
                call = parent.parent
                callee = call.child_by_field_name("function") or call.child_by_field_name("constructor") \
                    if call is not None else None
                if callee is not None:
                    targets.extend(self.receivers(callee))
                return targets
            if kind not in CARRIERS:
                return targets
            child, parent = parent, parent.parent
        return targets

    def receivers(self, node: Node) -> list[FlowNode]:
        """The binding (or ``this``) at the root of ``X``, ``X.p``, ``X[k].q``, ``X.get().push``."""
        node = unwrap(node)
        while node.type in RECEIVER_STEPS:
            inner = node.child_by_field_name("object") or node.child_by_field_name("function")
            if inner is None:
                return []
            node = unwrap(inner)
        if node.type in ("this", "super"):
            return [THIS]
        if node.type == "identifier":
            ref = self.reads_by_start.get(node.start_byte)
            if ref is not None and ref.binding is not None:
                return [ref.binding]
            return list(self.bindings_by_start.get(node.start_byte, ()))
        return []

    def successors(self, node: FlowNode) -> list[FlowNode]:
        """The edges of ``node``; a closure whose text says ``this`` or ``super`` also reaches ``THIS``.

        Searched in the text (one search per word over the file, in C: a query over the tree cost a third of the
        analysis, a regular expression a fifth), for the closures a question reaches. The whole span counts,
        nested closures included, which changes nothing: they are reached from it anyway. The word in a string,
        a comment or a longer name counts too, which can only hide findings."""
        out = self.edges.get(node, [])
        if isinstance(node, Closure) and node not in self.searched:
            self.searched.add(node)
            if self.this_offsets is None:
                self.this_offsets = word_offsets(self.source.data, THIS_WORDS)
            at = bisect_left(self.this_offsets, node.start)
            if at < len(self.this_offsets) and self.this_offsets[at] < node.end:
                out = self.edges.setdefault(node, [])
                out.append(THIS)
        return out

    # -- the answers ---------------------------------------------------------------------------------

    def may_hold(self, binding: Binding, closure: Closure) -> bool:
        """``closure`` may be (part of) the binding's value: keeping the binding alive keeps nothing more."""
        seen: set[FlowNode] = {binding}
        work: list[FlowNode] = [binding]
        while work:
            for source in self.landed.get(work.pop(), ()):
                if source is closure:
                    return True
                if isinstance(source, Binding) and source not in seen:
                    seen.add(source)
                    work.append(source)
        return False

    def uses(self, closure: Closure) -> int:
        """The candidate bindings that ``closure`` or anything it can run refers to."""
        if closure not in self.masks:
            self.solve([closure])
        return bits.mask(self.masks[closure])

    def solve(self, roots: Iterable[FlowNode]) -> None:
        """Tarjan's algorithm without recursion: a component's mask is its members' weights and its successors'
        masks, and components are finished successors first."""
        masks, weight, successors = self.masks, self.weight, self.successors
        index: dict[FlowNode, int] = {}
        low: dict[FlowNode, int] = {}
        stack: list[FlowNode] = []
        on_stack: set[FlowNode] = set()
        for root in roots:
            if root in masks or root in index:
                continue
            work: list[tuple[FlowNode, int]] = [(root, 0)]
            while work:
                node, position = work.pop()
                if position == 0:
                    index[node] = low[node] = len(index)
                    stack.append(node)
                    on_stack.add(node)
                following_nodes = successors(node)
                while position < len(following_nodes):
                    following = following_nodes[position]
                    position += 1
                    if following in masks:
                        continue
                    if following not in index:
                        work.append((node, position))
                        work.append((following, 0))
                        break
                    if following in on_stack:
                        low[node] = min(low[node], index[following])
                else:
                    if low[node] == index[node]:
                        members = []
                        while True:
                            member = stack.pop()
                            on_stack.discard(member)
                            members.append(member)
                            if member is node:
                                break
                        mask = 0
                        for member in members:
                            mask |= bits.mask(weight.get(member, 0))
                            for following in successors(member):
                                mask |= bits.mask(masks.get(following, 0))
                        packed = bits.pack(mask)
                        for member in members:
                            masks[member] = packed
                    if work:
                        parent = work[-1][0]
                        low[parent] = min(low[parent], low[node])


def word_offsets(data: bytes, words: tuple[bytes, ...]) -> list[int]:
    """Where each of ``words`` stands as a whole word in ``data``, in order."""
    offsets = []
    for word in words:
        at = data.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or data[at - 1] not in NAME_BYTES) and (end == len(data) or data[end] not in NAME_BYTES):
                offsets.append(at)
            at = data.find(word, end)
    offsets.sort()
    return offsets
