"""The DOT statements of a diagram: nested clusters written in the order ``dot`` needs, and panels in a grid.

``report.dot`` decides what the picture holds (nodes, clusters, edges, as the
records below); this module only writes them so that Graphviz places them as
intended, without recursion (nesting can be deep).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import graphviz


@dataclass(slots=True)
class Node:
    id: str
    attrs: dict[str, str]


@dataclass(slots=True)
class Cluster:
    id: str
    attrs: dict[str, str]
    nodes: list[Node] = field(default_factory=list)
    children: list[Cluster] = field(default_factory=list)


@dataclass(slots=True)
class Edge:
    tail: str
    head: str
    attrs: dict[str, str]


def emit(parent: graphviz.Digraph, top: Sequence[Cluster], *, reverse_top: bool) -> None:
    """Add ``top`` and everything nested in it to ``parent``, innermost first (no recursion: nesting can be deep).

    Statements are written in the order that makes ``dot`` place clusters in source order (top-down
    with ``rankdir=LR``, left to right with ``TB``): nested lists backwards, and the top list
    backwards only for ``LR`` (found by trying on the examples; the snapshots pin it).
    """
    preorder: list[Cluster] = []
    stack = list(top)
    while stack:
        cluster = stack.pop()
        preorder.append(cluster)
        stack.extend(cluster.children)
    built: dict[str, graphviz.Digraph] = {}
    for cluster in reversed(preorder):
        graph = graphviz.Digraph(name=cluster.id, graph_attr=cluster.attrs)
        for node in reversed(cluster.nodes):
            graph.node(node.id, **node.attrs)
        for child in reversed(cluster.children):
            graph.subgraph(built.pop(child.id))
        built[cluster.id] = graph
    for cluster in reversed(top) if reverse_top else top:
        parent.subgraph(built.pop(cluster.id))


def nodes_in(cluster: Cluster) -> list[str]:
    found: list[str] = []
    stack = [cluster]
    while stack:
        current = stack.pop()
        found.extend(node.id for node in current.nodes)
        stack.extend(current.children)
    return found


def grid(graph: graphviz.Digraph, boxes: Sequence[Cluster], edges: Sequence[Edge], columns: int = 2) -> None:
    """Lay ``boxes`` out ``columns`` to a row, in reading order.

    With ``rankdir=LR`` sibling clusters stack top-down, so panels of a comparison made a column as tall
    as all of them together (and side by side, with ``TB``, a row as wide: 5391x548 pixels for three
    panels of a small function).  To put a box to the right of the one before it, an invisible gate node
    is ranked after every node of the left box (an invisible edge from each node without outgoing edges)
    and before every node of the right one (to each node without incoming edges).
    """
    tails = {edge.tail for edge in edges}
    heads = {edge.head for edge in edges}
    for row in range(0, len(boxes), columns):
        line = boxes[row:row + columns]
        for left, right in itertools.pairwise(line):
            gate = f"grid_{left.id.removeprefix('cluster_')}"
            graph.node(gate, label="", shape="point", style="invis", width="0", height="0")
            for node in nodes_in(left):
                if node not in tails:
                    graph.edge(node, gate, style="invis")
            for node in nodes_in(right):
                if node not in heads:
                    graph.edge(gate, node, style="invis")
