"""The closure structure of one file as a Graphviz diagram (``boxcheck graph``).

A list of decisions tells *what* was decided; a picture shows *why* at a
glance: which closure reaches into which scope, what it writes, which
bindings end up sharing one heap object, and which closures leave the call.

The picture
-----------
* one cluster per function, nested as in the source; the function's own
  closure value is the oval node inside it;
* per-iteration loop instances are clusters of their own, drawn as a
  stacked card labelled ``× per iteration``;
* a node per binding, ``name: kind @line``, shaped and filled by storage
  (``local`` only with ``show_all``, dimmed);
* a cylinder per allocation site (box or context), in a dashed cluster with
  the bindings it holds;
* an edge closure -> binding per capture: thin for reads, bold red for
  writes; escaping closures are red, and the escape itself is an edge to the
  "outlives the call" node labelled with how (``returned @12``);
* a dashed green edge from a closure to each known callee that does not
  keep it (``passed to `each` as `f` @11``): to the callee's parameter, or
  to a node of a function of another file (``dot_calls``);
* bindings of enclosing functions that the drawn closures capture are shown
  in dashed clusters of their own, so ``--function inner`` still shows what
  ``inner`` captures; the module's, and an enclosing function's beyond a few,
  are summarized in one node (``dot_selection``);
* a legend, and a title with the allocations under each policy.

``heap_only`` (``--heap-only``) draws only the bindings that need heap
storage and the closures and captures that force them (``dot_selection``).
Several policies are panels in a grid, two to a row (``grid``).

Safety
------
Identifiers, property names and file names come from the input, and
TypeScript allows almost anything in them: every such text goes through
``dot_style.text``, which shows control and format characters as ``\\u{...}`` (a
newline or a bidi override cannot reshape the label, and the SVG stays
well-formed XML), doubles backslashes (Graphviz escapes such as ``\\N`` or
``\\l`` lose their meaning) and marks the string as not HTML (``<b>`` stays
text); the ``graphviz`` package then quotes it.  Node and cluster ids are
synthetic (``c3``, ``b12``), never derived from names.

Determinism
-----------
Ids come from positions in the model (closure index, binding index, loop
and site order), every collection is walked in model order, and the
``graphviz`` package writes attributes sorted: the same input gives
byte-identical DOT.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import graphviz
import networkx as nx

from ..analyze import FileAnalysis
from ..escape import ESCAPE, note
from ..model import Binding, Closure, ClosureKind, Loop, Storage
from ..results import Decision, FunctionReport, PolicySite, Site
from ..words import plural
from .dot_calls import callee_label, calls_of
from .dot_layout import Cluster, Edge, Node, emit, grid
from .dot_retention import kept_alive_edges
from .dot_selection import LABEL_NAMES, TOOLTIP_NAMES, Selection, names
from .dot_style import (
    CALL_EDGE,
    CALLEE_STYLE,
    DASHED_FRAME,
    ESCAPE_COLOR,
    LEGEND_EDGES,
    READ_COLOR,
    STORAGE_STYLE,
    WRITE_COLOR,
    legend,
    text,
)

FONT = "Helvetica"

#: what an anonymous closure is called in a label.
ANONYMOUS: dict[ClosureKind, str] = {
    ClosureKind.FUNCTION_EXPRESSION: "function",
    ClosureKind.FIELD_INITIALIZER: "field initializer",
    ClosureKind.STATIC_BLOCK: "static block",
}

LOOP_KEYWORD = re.compile(rb"[a-z]+")


@dataclass(frozen=True, slots=True)
class Escape:
    """How a closure outlives its activation: directly (``via`` is None) or captured by ``via``."""

    via: Closure | None
    offset: int
    why: str


def escape_of(analysis: FileAnalysis, closure: Closure) -> Escape | None:
    graph = analysis.graph
    if not graph.escapes(closure):
        return None
    path = nx.shortest_path(graph.networkx(), closure, ESCAPE)
    via = next((node for node in path[1:-1] if isinstance(node, Closure)), None)
    offset, why = graph.note_of(path[-2], ESCAPE)
    return Escape(via, offset, note(why))


def subtree(roots: Sequence[Closure]) -> list[Closure]:
    """``roots`` and every closure nested in them, in model order."""
    found: dict[int, Closure] = {}
    stack = list(roots)
    while stack:
        closure = stack.pop()
        found[closure.index] = closure
        stack.extend(closure.children)
    return [found[i] for i in sorted(found)]


def innermost(loops: Sequence[Loop]) -> Loop | None:
    return max(loops, key=lambda loop: (loop.start, -loop.end), default=None)


class Panel:
    """One policy's picture: clusters (nested) and edges, with ids prefixed by ``prefix``."""

    def __init__(self, analysis: FileAnalysis, roots: Sequence[Closure], show_all: bool, prefix: str,
                 heap_only: bool = False):
        self.analysis = analysis
        self.source = analysis.source
        self.prefix = prefix
        self.show_all = show_all
        model = analysis.model
        self.decision_of: dict[Binding, Decision] = {d.binding: d for d in analysis.decisions}
        self.report_of: dict[Closure, FunctionReport] = {r.closure: r for r in analysis.functions}
        self.binding_ids = {b: f"{prefix}b{i}" for i, b in enumerate(model.bindings)}
        self.bindings_of: dict[Closure, list[Binding]] = {}
        for binding in model.bindings:
            self.bindings_of.setdefault(binding.closure, []).append(binding)
        self.expanded = subtree(roots)
        self.drawn = set(self.expanded)
        self.selection = Selection(analysis, self.decision_of, self.drawn, roots, heap_only)
        self.clusters: dict[str, Cluster] = {}
        self.top: list[Cluster] = []
        self.edges: list[Edge] = []
        self.shown: list[Binding] = []
        outer: dict[int, Closure] = {}
        for root in roots:
            parent = root.parent
            while parent is not None and parent not in self.drawn:
                outer[parent.index] = parent
                parent = parent.parent
        self.outer = [outer[i] for i in sorted(outer)]

    # ids and labels

    def line(self, offset: int) -> int:
        return self.source.position(offset).line

    def closure_id(self, closure: Closure) -> str:
        return f"{self.prefix}c{closure.index}"

    def cluster_id(self, closure: Closure) -> str:
        return f"cluster_{self.prefix}c{closure.index}"

    def closure_name(self, closure: Closure) -> str:
        word = closure.name or ANONYMOUS.get(closure.kind, closure.kind.value)
        return f"{word} @{self.line(closure.start)}"

    def loop_cluster_id(self, closure: Closure, loop: Loop) -> str:
        return f"cluster_{self.prefix}c{closure.index}_l{closure.loops.index(loop)}"

    # building

    def build(self) -> Panel:
        for closure in self.outer:
            self.outer_cluster(closure)
        for closure in self.expanded:
            if self.selection.shows_closure(closure):
                self.function_cluster(closure)
        self.capture_edges()
        self.retention_edges()
        self.call_edges()
        return self

    def place(self, cluster: Cluster, parent: Cluster | None) -> None:
        self.clusters[cluster.id] = cluster
        (parent.children if parent is not None else self.top).append(cluster)

    def parent_cluster(self, closure: Closure) -> Cluster | None:
        """Where the cluster of ``closure`` goes: its parent's cluster, inside the loop that creates it."""
        parent = closure.parent
        if parent is not None and parent in self.drawn:
            loop = innermost(parent.loops_at(closure.creation_offset))
            if loop is not None:
                return self.loop_cluster(parent, loop)
        while parent is not None:
            cluster = self.clusters.get(self.cluster_id(parent))
            if cluster is not None:
                return cluster
            parent = parent.parent
        return None

    def outer_cluster(self, closure: Closure) -> None:
        """An enclosing function that is not drawn: only the bindings that drawn closures capture."""
        captured = [b for b in self.bindings_of.get(closure, [])
                    if any(r.closure in self.drawn for r in b.references)]
        wanted, summarized = self.selection.outer(closure, captured)
        if closure.is_module and not wanted and not summarized:
            return
        label = "module" if closure.is_module else f"inside {self.closure_name(closure)}"
        cluster = Cluster(self.cluster_id(closure), {"label": text(label), **DASHED_FRAME})
        self.place(cluster, self.parent_cluster(closure))
        for binding in wanted:
            cluster.nodes.append(self.binding_node(binding))
        if summarized:
            cluster.nodes.append(self.summary_node(closure, summarized, bool(wanted)))

    def summary_node(self, closure: Closure, bindings: list[Binding], others_drawn: bool) -> Node:
        """The bindings of an enclosing scope that are not drawn one by one, as one node of names."""
        if closure.is_module:
            headline = plural(len(bindings), "module binding")
        else:
            counts: dict[str, int] = {}
            for binding in bindings:
                storage = self.decision_of[binding].storage.value
                counts[storage] = counts.get(storage, 0) + 1
            what = ", ".join(f"{count} {storage}" for storage, count in sorted(counts.items()))
            headline = f"{plural(len(bindings), ('more ' if others_drawn else '') + 'captured binding')}: {what}"
        return Node(f"{self.cluster_id(closure).removeprefix('cluster_')}_summary", {
            "label": text(headline, names(bindings, LABEL_NAMES)),
            "tooltip": text(names(bindings, TOOLTIP_NAMES)),
            "shape": "note", "style": "filled,dashed", "fillcolor": "#f4f4f4", "color": "#999999"})

    def function_cluster(self, closure: Closure) -> None:
        report = self.report_of.get(closure)
        parent = self.parent_cluster(closure)
        if parent is not None and not self.selection.framed(closure, report):
            parent.nodes.append(self.closure_node(closure))
            return
        label = ANONYMOUS.get(closure.kind, closure.kind.value)
        if report is not None and (report.sites or closure.parent not in self.drawn):
            label += (f" · {plural(report.per_call, 'allocation')} per call,"
                      f" {report.per_iteration} per iteration")
            if report.once:
                label += f", {report.once} once (runs once)"
        cluster = Cluster(self.cluster_id(closure),
                          {"label": text(label), "style": "rounded", "color": "#444444"})
        self.place(cluster, parent)
        cluster.nodes.append(self.closure_node(closure))
        sites = report.sites if report is not None else []
        in_sites = {d.binding for site in sites for d in site.decisions}
        for binding in self.bindings_of.get(closure, []):
            if binding in in_sites:
                continue
            decision = self.decision_of[binding]
            if (decision.storage is Storage.LOCAL and not self.show_all) or not self.selection.shows_binding(binding):
                continue
            self.container(closure, binding.scope.instance_loop).nodes.append(self.binding_node(binding))
        for number, site in enumerate(sites):
            self.site_cluster(closure, site, number)

    def container(self, closure: Closure, loop: Loop | None) -> Cluster:
        if loop is None:
            return self.clusters[self.cluster_id(closure)]
        return self.loop_cluster(closure, loop)

    def loop_cluster(self, closure: Closure, loop: Loop) -> Cluster:
        """The card of one iteration of ``loop``: created on first use, inside the loop around it."""
        card_id = self.loop_cluster_id(closure, loop) + "_card"
        existing = self.clusters.get(card_id)
        if existing is not None:
            return existing
        around = innermost([other for other in closure.loops if other is not loop
                            and other.start <= loop.start and loop.end <= other.end])
        parent = self.container(closure, around)
        match = LOOP_KEYWORD.match(self.source.data, loop.start)
        keyword = match.group().decode() if match else "loop"
        stack = Cluster(self.loop_cluster_id(closure, loop),
                        {"label": text(f"{keyword} @{self.line(loop.start)} × per iteration"),
                         "style": "rounded,filled", "fillcolor": "#e4e4e4", "color": "#888888"})
        card = Cluster(card_id, {"label": "", "style": "rounded,filled", "fillcolor": "#ffffff",
                                 "color": "#888888"})
        self.place(stack, parent)
        self.place(card, stack)
        return card

    def site_cluster(self, closure: Closure, site: Site, number: int) -> None:
        site_id = f"{self.prefix}s{closure.index}_{number}"
        style = STORAGE_STYLE[site.kind]
        cluster = Cluster(f"cluster_{site_id}", {"label": "", "style": "dashed,rounded", "color": style["color"]})
        self.place(cluster, self.container(closure, site.loop))
        lines = [f"{site.kind.value} · {site.multiplicity.replace('-', ' ')}",
                 plural(len(site.decisions), "binding")]
        if isinstance(site, PolicySite) and site.branch is not None:
            lines.append(f"only if the branch @{self.line(site.branch)} runs")
        cluster.nodes.append(Node(site_id, {
            "label": text(*lines),
            "shape": "cylinder", "style": "filled", "fillcolor": style["fillcolor"], "color": style["color"],
            "tooltip": text(f"allocation site {site.id}"),
        }))
        for decision in site.decisions:
            binding = decision.binding
            cluster.nodes.append(self.binding_node(binding))
            # binding -> site: the site ranks after its bindings, so the frame around them does not take the
            # rank of the closures and can stand beside them rather than below them all
            self.edges.append(Edge(self.binding_ids[binding], site_id,
                                   {"style": "dashed", "arrowhead": "none", "color": style["color"]}))

    def binding_node(self, binding: Binding) -> Node:
        decision = self.decision_of[binding]
        self.shown.append(binding)
        attrs = dict(STORAGE_STYLE[decision.storage])
        attrs["label"] = text(f"{binding.name}: {binding.kind.value} @{self.line(binding.start)}")
        attrs["tooltip"] = text(f"{decision.storage.value}: {decision.reason}")
        return Node(self.binding_ids[binding], attrs)

    def closure_node(self, closure: Closure) -> Node:
        lines = [self.closure_name(closure)]
        attrs = {"shape": "oval", "style": "filled", "fillcolor": "#ffffff", "color": "#444444"}
        activation = self.activation_cluster(closure)
        escape = escape_of(self.analysis, closure) if activation is not None else None
        if activation is not None and escape is not None:
            attrs.update(color=ESCAPE_COLOR, penwidth="2", peripheries="2")
            if escape.via is not None:
                lines.append(f"escapes via {self.closure_name(escape.via)}")
            else:
                self.edges.append(Edge(self.closure_id(closure), self.escape_sink(activation), {
                    "label": text(f"{escape.why} @{self.line(escape.offset)}"), "color": ESCAPE_COLOR,
                    "fontcolor": ESCAPE_COLOR, "style": "dashed"}))
        attrs["label"] = text(*lines)
        return Node(self.closure_id(closure), attrs)

    def activation_cluster(self, closure: Closure) -> Cluster | None:
        """The drawn cluster of the function whose call ``closure`` may outlive (none for the module)."""
        parent = closure.parent
        if parent is None or parent.is_module:
            return None
        return self.clusters.get(self.cluster_id(parent))

    def escape_sink(self, activation: Cluster) -> str:
        """The "outlives the call" node of one activation, created in its cluster on first use."""
        sink_id = f"{activation.id.removeprefix('cluster_')}_escape"
        if not any(node.id == sink_id for node in activation.nodes):
            activation.nodes.append(Node(sink_id, {
                "label": text("outlives the call"), "shape": "doubleoctagon", "color": ESCAPE_COLOR,
                "fontcolor": ESCAPE_COLOR}))
        return sink_id

    def capture_edges(self) -> None:
        """An edge from each drawn closure to each shown binding of another function that it reads or writes."""
        access: dict[Closure, dict[Binding, list[bool]]] = {}
        for binding in self.shown:
            for closure, reads, writes in self.selection.captures(binding):
                flags = access.setdefault(closure, {}).setdefault(binding, [False, False])
                flags[0] |= reads
                flags[1] |= writes
        for closure in self.expanded:
            if not self.selection.shows_closure(closure):
                continue
            for binding, (reads, writes) in access.get(closure, {}).items():
                verb = "reads and writes" if reads and writes else "writes" if writes else "reads"
                attrs = {"tooltip": text(f"{self.closure_name(closure)} {verb} {binding.name}")}
                if writes:
                    attrs.update(color=WRITE_COLOR, style="bold", penwidth="2")
                else:
                    attrs.update(color=READ_COLOR)
                self.edges.append(Edge(self.closure_id(closure), self.binding_ids[binding], attrs))

    def retention_edges(self) -> None:
        reports = [self.report_of[c] for c in self.expanded if c in self.report_of]
        for tail, head, attrs in kept_alive_edges(reports, self.drawn, set(self.shown), self.closure_id,
                                                  self.binding_ids, self.closure_name):
            self.edges.append(Edge(tail, head, {**attrs, "tooltip": text(attrs["tooltip"])}))

    def call_edges(self) -> None:
        """An edge from each drawn closure to each known callee that receives it and keeps nothing (``dot_calls``),
        none with ``--heap-only`` (``dot_selection``)."""
        if self.selection.heap_only:
            return
        shown = set(self.shown)
        heads: dict[Binding | str, str] = {}
        drawn: set[tuple[str, str]] = set()
        for closure in self.expanded:
            for call in calls_of(self.analysis.graph, closure):
                tail = self.closure_id(closure) if call.via is None else heads.get(call.via)
                if tail is None:
                    continue
                head = heads.get(call.place) or self.callee_node(call.place, call.why, shown)
                heads[call.place] = head
                if (tail, head) in drawn:
                    continue
                drawn.add((tail, head))
                via = call.via
                who = self.closure_name(closure) if via is None else f"`{via.name}` of {self.closure_name(via.closure)}"
                where = f"{call.why} @{self.line(call.offset)}"
                self.edges.append(Edge(tail, head, {**CALL_EDGE, "label": text(where),
                                                    "tooltip": text(f"{who}: {where}, which does not keep it")}))

    def callee_node(self, place: Binding | str, why: str, shown: set[Binding]) -> str:
        """The node a call lands on.  The callee's parameter in the callee's frame, even if it is ``local``; when the
        callee is not drawn (``--function``), in a dashed frame of the callee's own, which says the call and not
        the selection put it there, and without storage (the callee is not decided then).  A function of another
        file: one node, in a frame of such functions."""
        if isinstance(place, str):
            return self.elsewhere(place, why)
        node_id = self.binding_ids[place]
        if place in shown:
            return node_id
        callee = place.closure
        frame = self.clusters.get(self.cluster_id(callee))
        if frame is not None:
            frame.nodes.append(self.binding_node(place))
            return node_id
        frame_id = f"{self.cluster_id(callee)}_callee"
        frame = self.clusters.get(frame_id)
        if frame is None:
            frame = Cluster(frame_id, {"label": text(f"callee {self.closure_name(callee)}"), **DASHED_FRAME})
            self.place(frame, self.parent_cluster(callee))
        frame.nodes.append(Node(node_id, {
            **CALLEE_STYLE, "label": text(f"{place.name}: {place.kind.value} @{self.line(place.start)}"),
            "tooltip": text(f"`{place.name}` of {self.closure_name(callee)}, which does not keep what it is given")}))
        return node_id

    def elsewhere(self, place: str, why: str) -> str:
        frame = self.clusters.get(f"cluster_{self.prefix}elsewhere")
        if frame is None:
            frame = Cluster(f"cluster_{self.prefix}elsewhere", {"label": text("in other files"), **DASHED_FRAME})
            self.place(frame, None)
        node_id = f"{self.prefix}x{len(frame.nodes)}"
        frame.nodes.append(Node(node_id, {**CALLEE_STYLE, "label": text(f"{callee_label(why)} ({place})")}))
        return node_id

    # totals

    def totals(self) -> tuple[int, int]:
        reports = [self.report_of[c] for c in self.expanded if c in self.report_of]
        return sum(r.per_call for r in reports), sum(r.per_iteration for r in reports)

    def summary(self) -> str:
        per_call, per_iteration = self.totals()
        return (f"policy {self.analysis.policy.name}: {plural(per_call, 'allocation')} per call, "
                f"{per_iteration} per iteration")


def build_graph(analyses: Sequence[FileAnalysis], roots: Sequence[Closure] | None = None, *,
                show_all: bool = False, heap_only: bool = False, subject: str = "") -> graphviz.Digraph:
    """The diagram of ``roots`` (default: every top-level function) under each analysis's policy.

    Several analyses must come from one bound file (``apply_policy`` on one ``Bound``) and are drawn
    as panels, two to a row.  ``subject`` names what is drawn in the title (a function name, say).
    """
    if not analyses:
        raise ValueError("build_graph needs at least one analysis")
    first = analyses[0]
    # Left to right reads best: closures, then what they capture; functions stacked top-down.
    compare = len(analyses) > 1
    chosen = list(roots) if roots is not None else list(first.model.module.children)
    panels = [Panel(analysis, chosen, show_all, f"p{i}_" if compare else "", heap_only).build()
              for i, analysis in enumerate(analyses)]
    heading = first.path + (f" · {subject}" if subject else "") + (" · heap only" if heap_only else "")
    title = [heading] + [panel.summary() for panel in panels]
    graph = graphviz.Digraph("boxcheck", graph_attr={
        "label": text(*title), "labelloc": "t", "labeljust": "l", "fontname": FONT, "fontsize": "14",
        "compound": "true", "newrank": "true", "rankdir": "LR", "nodesep": "0.3", "ranksep": "0.5",
    }, node_attr={"fontname": FONT, "fontsize": "11"}, edge_attr={"fontname": FONT, "fontsize": "10"})
    top: list[Cluster] = []
    for panel in panels:
        if compare:
            top.append(Cluster(f"cluster_{panel.prefix}policy", {"label": text(panel.summary()), "style": "bold",
                                                                 "color": "#333333"}, children=panel.top))
        else:
            top.extend(panel.top)
    top.append(legend())
    emit(graph, top, reverse_top=True)
    edges = [edge for panel in panels for edge in panel.edges] + list(LEGEND_EDGES)
    for edge in edges:
        graph.edge(edge.tail, edge.head, **edge.attrs)
    if compare:
        grid(graph, top, edges)
    return graph
