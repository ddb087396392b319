"""The package map of ``docs/architecture.md`` is drawn from the package's own imports, never by hand.

    python -m capture_analysis.commands.architecture --write   # after moving code (``make architecture``)
    python -m capture_analysis.commands.architecture --check   # exit 1 when the picture is stale (the tests do this)

A unit is a top-level module or a sub-package; an arrow ``a -> b`` says that
``a`` imports ``b``, directly or through the units drawn between them (the
transitive reduction of the import graph, so the picture stays readable).
Every import counts: at the top, under ``TYPE_CHECKING`` and inside a
function.  The same reading of the imports is what the tests use to forbid
cycles, between modules and between units.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Sequence
from html import unescape
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parent.parent
IMAGE = PACKAGE.parent / "docs" / "img" / "architecture.svg"

#: the units of the picture, grouped as docs/architecture.md describes them; the pipeline in its order.
GROUPS: dict[str, tuple[str, ...]] = {
    "data": ("source", "model", "results", "rules", "words"),
    "the pipeline, per file": ("parsing", "bind", "flow", "parameters", "linking", "escape", "creation", "decide",
                               "v8_scopes", "policies", "retention", "allocations", "diagnose", "analyze", "compare"),
    "around it": ("cli", "batch", "report", "counts", "config", "commands", "expectations", "fixes", "lsp"),
}


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def module_graph() -> nx.DiGraph[str]:
    """``a -> b`` when module ``a`` imports module ``b`` of the package, anywhere in its text."""
    modules = module_files()
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    source = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                           for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph.add_edges_from((name, target) for target in targets if target in modules and target != name)
    return graph


def unit_of(module: str) -> str:
    """``capture_analysis.bind.patterns`` -> ``bind``; the package itself is ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def unit_graph(modules: nx.DiGraph[str] | None = None) -> nx.DiGraph[str]:
    """The imports between units; ``__init__`` (the version) and ``__main__`` are left out."""
    modules = module_graph() if modules is None else modules
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module in modules:
        if unit_of(module) not in ("__init__", "__main__"):
            graph.add_node(unit_of(module))
    for source, target in modules.edges:
        a, b = unit_of(source), unit_of(target)
        if a != b and a in graph and b in graph:
            graph.add_edge(a, b)
    return graph


def picture(graph: nx.DiGraph[str]) -> nx.DiGraph[str]:
    """What is drawn: the transitive reduction (the unit graph must be acyclic; the tests check it)."""
    reduced = nx.transitive_reduction(graph)
    reduced.add_nodes_from(graph)
    return reduced


def dot_source(graph: nx.DiGraph[str]) -> str:
    import graphviz

    drawn = picture(graph)
    dot = graphviz.Digraph("architecture", graph_attr={"rankdir": "LR", "fontname": "Helvetica", "fontsize": "11",
                                                       "label": "a -> b: a imports b", "labelloc": "b"},
                           node_attr={"shape": "box", "style": "rounded", "fontname": "Helvetica", "fontsize": "11"},
                           edge_attr={"color": "#555555", "arrowsize": "0.6"})
    grouped = set()
    for index, (title, names) in enumerate(GROUPS.items()):
        with dot.subgraph(name=f"cluster_{index}", graph_attr={"label": title, "style": "dashed"}) as cluster:
            for name in names:
                if name in drawn:
                    cluster.node(name)
                    grouped.add(name)
    for name in sorted(set(drawn) - grouped):
        dot.node(name, color="red")
    for source, target in sorted(drawn.edges):
        dot.edge(source, target)
    return dot.source


def drawn_titles(svg: str) -> set[str]:
    """The nodes and edges an SVG of Graphviz shows, by their ``<title>``s (``a->b`` for an edge)."""
    titles = {unescape(title) for title in re.findall(r"<title>([^<]*)</title>", svg)}
    return {title for title in titles if title != "architecture" and not title.startswith("cluster_")}


def expected_titles(graph: nx.DiGraph[str]) -> set[str]:
    drawn = picture(graph)
    return set(drawn) | {f"{source}->{target}" for source, target in drawn.edges}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m capture_analysis.commands.architecture",
                                     description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"draw {IMAGE} (needs Graphviz `dot`)")
    action.add_argument("--check", action="store_true", help=f"exit 1 when {IMAGE} does not show the imports")
    args = parser.parse_args(argv)
    graph = unit_graph()
    if args.write:
        import graphviz

        IMAGE.write_bytes(graphviz.Source(dot_source(graph)).pipe(format="svg"))
    elif args.check:
        current = IMAGE.read_text(encoding="utf-8") if IMAGE.exists() else ""
        if drawn_titles(current) != expected_titles(graph):
            print(f"{IMAGE} is stale: run `python -m capture_analysis.commands.architecture --write`",
                  file=sys.stderr)
            return 1
    else:
        sys.stdout.write(dot_source(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
