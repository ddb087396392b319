"""``boxcheck graph`` draws where a closure goes that a known callee receives and does not keep (DESIGN 2.2.1).

Checked on the DOT text that the command writes, since the edge, its label
and the node it leads to are what a reader of the picture gets.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from capture_analysis import cli
from capture_analysis.analyze import apply_policy, bind_source
from capture_analysis.commands import graph as graph_cmd
from capture_analysis.commands.graph import drawable
from capture_analysis.policies import OPTIMAL
from capture_analysis.report.dot import build_graph
from capture_analysis.report.dot_style import CALL_COLOR
from capture_analysis.source import SourceFile

from .conftest import ROOT

EACH = """\
    function each(xs: number[], f: (x: number) => void) { for (const x of xs) f(x); }
    export function sum(xs: number[]) { let total = 0; each(xs, (x) => { total += x; }); return total; }
"""
CALLEES = ROOT / "tests" / "graph_inputs" / "known-callees.ts"
STATEMENT = re.compile(r"^\s*(\w+)(?: -> (\w+))? \[(.*)\]$", re.MULTILINE)
ATTRIBUTE = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^ \]]+)')


class Dot:
    """The nodes and edges of one DOT text, with their attributes."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.nodes: dict[str, dict[str, str]] = {}
        self.edges: list[tuple[str, str, dict[str, str]]] = []
        for tail, head, attributes in STATEMENT.findall(source):
            attrs = {key: value.strip('"') for key, value in ATTRIBUTE.findall(attributes)}
            if head:
                self.edges.append((tail, head, attrs))
            elif tail not in ("graph", "node", "edge"):
                self.nodes[tail] = attrs

    def node(self, label: str) -> str:
        found = [node for node, attrs in self.nodes.items() if attrs.get("label") == label]
        assert len(found) == 1, f"{len(found)} nodes labelled {label!r}"
        return found[0]

    def edges_between(self, tail: str, head: str) -> list[dict[str, str]]:
        return [attrs for t, h, attrs in self.edges if (t, h) == (tail, head)]

    def calls(self) -> list[tuple[str, str, str]]:
        """``(tail label, head label, edge label)`` of each call edge, legend left out."""
        return [(self.nodes[t]["label"], self.nodes[h]["label"], attrs["label"]) for t, h, attrs in self.edges
                if attrs.get("color") == CALL_COLOR and not t.startswith("legend_")]

    def cluster_of(self, node: str) -> str:
        """The label of the innermost cluster around ``node``."""
        frames: list[str] = []
        for line in self.source.splitlines():
            line = line.strip()
            if line.startswith("subgraph "):
                frames.append("")
            elif line == "}" and frames:
                frames.pop()
            elif line.startswith("graph [") and frames:
                frames[-1] = dict(ATTRIBUTE.findall(line)).get("label", "").strip('"')
            elif line.startswith(f"{node} ["):
                return frames[-1]
        raise AssertionError(f"no node {node}")


def graph_of(tmp_path: Path, code: str, *args: str) -> Dot:
    path = tmp_path / "test.ts"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    out = tmp_path / "out.dot"
    assert graph_cmd.main([str(path), *args, "-o", str(out)]) == 0
    return Dot(out.read_text(encoding="utf-8"))


def test_a_closure_passed_to_a_callee_that_keeps_nothing_has_a_green_edge_to_the_parameter(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, EACH)
    arrow, f = dot.node("arrow @2"), dot.node("f: param @1")
    (call,) = dot.edges_between(arrow, f)
    assert call["label"] == "passed to `each` as `f` @2"
    assert call["style"] == "dashed" and call["color"] == CALL_COLOR
    assert call["tooltip"] == "arrow @2: passed to `each` as `f` @2, which does not keep it"
    assert dot.cluster_of(f).startswith("function"), "the parameter stands in its function's frame"
    assert dot.nodes[f]["tooltip"].startswith("local: "), "drawn although `local`, which is hidden without --all"
    assert "xs: param @1" not in {attrs.get("label") for attrs in dot.nodes.values()}, "no call lands on `xs`"
    assert dot.nodes[dot.node("total: let @2")]["tooltip"].startswith("stack: ")
    assert 'legend_closure -> legend_callee [label="passed to `each` as `f` @line,' in dot.source


def test_a_callee_that_keeps_the_closure_gets_no_call_edge_only_the_escape(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, CALLEES.read_text(encoding="utf-8"))
    kept = dot.node("arrow @29")
    assert ("arrow @27", "f: param @9", "passed to `each` as `f` @27") in dot.calls()
    assert not [edge for edge in dot.calls() if edge[0] == "arrow @29"]
    assert [attrs["label"] for t, h, attrs in dot.edges if t == kept and h.endswith("_escape")] == [
        "passed as an argument @21"]
    assert "k: param @20" not in {attrs.get("label") for attrs in dot.nodes.values()}


def test_a_callee_that_hands_the_closure_on_is_a_chain_and_a_wrapper_is_what_is_passed(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, CALLEES.read_text(encoding="utf-8"))
    assert dot.calls() == [
        ("arrow @11", "g: param @4", "passed to `inner` as `g` @11"),
        ("arrow @27", "f: param @9", "passed to `each` as `f` @27"),
        ("arrow @28", "h: param @15", "passed to `forward` as `h` @28"),
        ("h: param @15", "g: param @4", "passed to `inner` as `g` @16"),
        ("cb @30", "f: param @9", "passed to `each` as `f` @34"),
        ("wrap @32", "g: param @4", "passed to `inner` as `g` @33"),
    ]


def test_with_function_the_callee_parameter_stands_in_a_dashed_frame_of_the_callee(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, EACH, "--function", "sum")
    f = dot.node("f: param @1")
    (call,) = dot.edges_between(dot.node("arrow @2"), f)
    assert call["label"] == "passed to `each` as `f` @2"
    assert dot.cluster_of(f) == "callee each @1"
    assert dot.nodes[f]["shape"] == "component" and dot.nodes[f]["color"] == CALL_COLOR
    assert dot.nodes[f]["tooltip"] == "`f` of each @1, which does not keep what it is given"
    assert "each @1" not in {attrs.get("label") for attrs in dot.nodes.values()}, "the callee itself is not drawn"


def test_with_function_a_sibling_callee_sits_in_the_frame_of_the_enclosing_function(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, """\
        export function outer(xs: number[]) {
          let n = 0;
          function each(f: (x: number) => void) { for (const x of xs) f(x); }
          const inner = () => { each((x) => { n += x; }); };
          inner();
          return n;
        }
    """, "--function", "inner")
    f = dot.node("f: param @3")
    assert dot.edges_between(dot.node("arrow @4"), f)[0]["label"] == "passed to `each` as `f` @4"
    assert dot.cluster_of(f) == "callee each @3"
    frame = dot.source.index('label="callee each @3"')
    assert dot.source.rfind('label="inside outer @1"', 0, frame) != -1


def test_with_function_a_recursive_callee_reuses_the_parameter_of_the_enclosing_frame(tmp_path: Path) -> None:
    dot = graph_of(tmp_path, """\
        interface Tree { kids: Tree[] }
        export function visit(t: Tree, f: (t: Tree) => void): void {
          f(t);
          for (const k of t.kids) visit(k, (c) => f(c));
        }
    """, "--function", "4")
    f = dot.node("f: param @2")
    assert dot.cluster_of(f) == "inside visit @2"
    labels = [attrs.get("label") for attrs in dot.edges_between(dot.node("arrow @4"), f)]
    assert labels == [None, "passed to `visit` as `f` @4"], "the capture, then the call"


def test_heap_only_draws_no_call_edges(tmp_path: Path) -> None:
    code = """\
        function each(xs: number[], f: (x: number) => void) { for (const x of xs) f(x); }
        export function make(xs: number[]) {
          let n = 0;
          each(xs, (x) => { n += x; });
          return () => n;
        }
    """
    full = graph_of(tmp_path, code)
    assert full.calls() == [("arrow @4", "f: param @1", "passed to `each` as `f` @4")]
    heap = graph_of(tmp_path, code, "--heap-only")
    assert "arrow @4" in {attrs.get("label") for attrs in heap.nodes.values()}, "it forces `n` onto the heap"
    assert heap.calls() == []
    assert "f: param @1" not in {attrs.get("label") for attrs in heap.nodes.values()}


def test_a_callee_in_another_file_beside_it_is_one_node_with_its_place(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "util.ts").write_text(
        "export function each(xs: number[], f: (x: number) => void) { for (const x of xs) f(x); }\n", "utf-8")
    (tmp_path / "main.ts").write_text(textwrap.dedent("""\
        import { each } from "./util";
        export function sum(xs: number[]) {
          let total = 0;
          each(xs, (x) => { total += x; });
          each(xs, (x) => { total -= x; });
          return total;
        }
    """), "utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["graph", "main.ts"]) == 0
    dot = Dot(capsys.readouterr().out)
    assert dot.calls() == [("arrow @4", "`each` (util.ts:1:8)", "passed to `each` as `f` @4"),
                           ("arrow @5", "`each` (util.ts:1:8)", "passed to `each` as `f` @5")]
    assert dot.cluster_of(dot.node("`each` (util.ts:1:8)")) == "in other files"
    assert dot.nodes[dot.node("total: let @3")]["tooltip"].startswith("stack: ")
    (tmp_path / "util.ts").unlink()
    assert cli.main(["graph", "main.ts"]) == 0
    alone = Dot(capsys.readouterr().out)
    assert alone.calls() == [], "without the callee's file, the arrow escapes as an argument"
    assert alone.nodes[alone.node("total: let @3")]["tooltip"].startswith("box: ")


def test_compared_panels_draw_their_calls_with_ids_of_their_own() -> None:
    bound = bind_source(SourceFile("each.ts", textwrap.dedent(EACH)))
    dot = Dot(build_graph([apply_policy(bound, OPTIMAL), apply_policy(bound, OPTIMAL)]).source)
    calls = [(t, h) for t, h, attrs in dot.edges if attrs.get("color") == CALL_COLOR and not t.startswith("legend")]
    assert [(t[:3], h[:3]) for t, h in calls] == [("p0_", "p0_"), ("p1_", "p1_")]


def test_a_function_drawn_from_its_own_decisions_draws_its_calls_as_from_the_whole_file() -> None:
    """The callee's parameter shows no storage when the callee is not drawn: it is not decided then."""
    bound = bind_source(SourceFile(CALLEES.name, CALLEES.read_text(encoding="utf-8")))
    whole = apply_policy(bound, OPTIMAL)
    for root in [c for c in bound.model.closures if not c.is_module]:
        bound.retentions = None
        part = apply_policy(bound, OPTIMAL, drawable([root]))
        assert build_graph([part], [root]).source == build_graph([whole], [root]).source, root.name
