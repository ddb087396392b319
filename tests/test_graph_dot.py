"""What the diagram of ``boxcheck graph`` shows, checked on the cluster tree and the DOT text."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator

import pytest

from capture_analysis.analyze import analyze_text, apply_policy, bind_source
from capture_analysis.commands.graph import drawable
from capture_analysis.model import Closure
from capture_analysis.policies import OPTIMAL, POLICIES
from capture_analysis.report.dot import Cluster, Node, Panel, build_graph
from capture_analysis.report.dot_style import text, visible
from capture_analysis.source import SourceFile

from .conftest import LEAK, ROOT, analyze


def panel(code: str, *, function: str | None = None, show_all: bool = False, heap_only: bool = False) -> Panel:
    analysis = analyze(code)
    roots = [c for c in analysis.model.closures if c.name == function] if function else \
        list(analysis.model.module.children)
    return Panel(analysis, roots, show_all, "", heap_only).build()


def walk(clusters: list[Cluster], path: tuple[Cluster, ...] = ()) -> Iterator[tuple[Node, tuple[Cluster, ...]]]:
    for cluster in clusters:
        inner = (*path, cluster)
        for node in cluster.nodes:
            yield node, inner
        yield from walk(cluster.children, inner)


def find(drawn: Panel, label: str) -> tuple[Node, tuple[Cluster, ...]]:
    """The node whose label (first line) is ``label``, and the clusters around it, outermost first."""
    found = [(node, path) for node, path in walk(drawn.top) if node.attrs["label"].split("\\n")[0] == label]
    assert len(found) == 1, f"{len(found)} nodes labelled {label!r}: {[n.attrs['label'] for n, _ in walk(drawn.top)]}"
    return found[0]


def labels(drawn: Panel) -> set[str]:
    return {node.attrs["label"].split("\\n")[0] for node, _ in walk(drawn.top)}


def cluster_labels(path: tuple[Cluster, ...]) -> list[str]:
    return [c.attrs["label"] for c in path]


def edge(drawn: Panel, tail: Node, head: Node) -> dict[str, str]:
    found = [e.attrs for e in drawn.edges if e.tail == tail.id and e.head == head.id]
    assert len(found) == 1, f"{len(found)} edges {tail.attrs['label']} -> {head.attrs['label']}"
    return found[0]


TALLY = """\
    export function tally(start: number) {
      let total = start, previous = 0;
      const seed = start * 2;
      let scratch = 0;
      scratch += 1;
      return {
        add(n: number) { previous = total; total += n + seed; return total; },
        delta() { return total - previous; },
      };
    }
    export function local(xs: number[]) {
      let sum = 0;
      const add = (x: number) => { sum += x; };
      for (const x of xs) add(x);
      return sum;
    }
"""


def test_bindings_are_labelled_name_kind_line_and_styled_by_storage() -> None:
    drawn = panel(TALLY)
    total, _ = find(drawn, "total: let @2")
    seed, _ = find(drawn, "seed: const @3")
    summed, _ = find(drawn, "sum: let @12")
    assert total.attrs["shape"] == "tab" and total.attrs["tooltip"].startswith("context: ")
    assert seed.attrs["shape"] == "box" and "rounded" in seed.attrs["style"] and seed.attrs["tooltip"].startswith(
        "value: ")
    assert summed.attrs["tooltip"].startswith("stack: ")
    assert {total.attrs["fillcolor"], seed.attrs["fillcolor"], summed.attrs["fillcolor"]} == {
        "#f6c6c6", "#d5f0d5", "#d6e6f7"}


def test_local_bindings_are_hidden_unless_all_and_then_dimmed() -> None:
    assert "scratch: let @4" not in labels(panel(TALLY))
    assert "n: param @7" not in labels(panel(TALLY))
    scratch, path = find(panel(TALLY, show_all=True), "scratch: let @4")
    assert scratch.attrs["style"] == "rounded,dashed" and scratch.attrs["fontcolor"] == "#999999"
    assert cluster_labels(path)[-1].startswith("function")
    _, path = find(panel(TALLY, show_all=True), "n: param @7")
    assert cluster_labels(path)[-1] == "method"


def test_each_closure_is_a_node_in_its_own_cluster_nested_as_in_the_source() -> None:
    drawn = panel(TALLY)
    _, tally_path = find(drawn, "tally @1")
    add, add_path = find(drawn, "add @7")
    assert len(tally_path) == 1 and len(add_path) == 2 and add_path[0] is tally_path[0]
    assert add_path[1].id == f"cluster_{add.id}"
    _, arrow_path = find(drawn, "add @13")
    assert cluster_labels(arrow_path) == ["function · 0 allocations per call, 0 per iteration", "arrow"]


def test_a_write_is_a_bold_red_edge_and_a_read_a_thin_grey_one() -> None:
    drawn = panel(TALLY)
    add, _ = find(drawn, "add @7")
    delta, _ = find(drawn, "delta @8")
    total, _ = find(drawn, "total: let @2")
    seed, _ = find(drawn, "seed: const @3")
    written = edge(drawn, add, total)
    assert written["style"] == "bold" and written["color"] == "#c0392b"
    assert written["tooltip"] == "add @7 reads and writes total"
    read = edge(drawn, delta, total)
    assert "style" not in read and read["color"] == "#555555"
    assert edge(drawn, add, seed)["tooltip"] == "add @7 reads seed"


def test_an_allocation_site_is_a_node_grouping_its_bindings() -> None:
    drawn = panel(TALLY)
    total, total_path = find(drawn, "total: let @2")
    previous, previous_path = find(drawn, "previous: let @2")
    site, site_path = find(drawn, "context · per call")
    assert site.attrs["shape"] == "cylinder" and site.attrs["label"] == "context · per call\\n2 bindings"
    assert site.attrs["tooltip"] == "allocation site tally@1:8#0"
    assert total_path == previous_path == site_path
    # binding -> site, so that the site ranks after its bindings (``Panel.site_cluster``)
    assert edge(drawn, total, site)["arrowhead"] == "none"
    assert edge(drawn, previous, site)["arrowhead"] == "none"
    _, seed_path = find(drawn, "seed: const @3")
    assert seed_path == site_path[:-1], "a by-value binding is not in the site's group"


LOOPS = """\
    export function grid(rows: number, cols: number) {
      const cells: Array<() => number> = [];
      for (let r = 0; r < rows; r++) {
        let hits = 0;
        for (let c = 0; c < cols; c++) {
          let seen = 0, last = c;
          cells.push(() => { hits++; seen++; last = r; return seen + last + c; });
        }
      }
      return cells;
    }
    export function shared(n: number) {
      const out: Array<() => number> = [];
      for (var i = 0; i < n; i++) out.push(() => i);
      return out;
    }
"""


def test_per_iteration_scope_instances_are_stacked_cards_nested_like_the_loops() -> None:
    drawn = panel(LOOPS)
    _, hits_path = find(drawn, "hits: let @4")
    _, seen_path = find(drawn, "seen: let @6")
    _, c_path = find(drawn, "c: let @5")
    _, r_path = find(drawn, "r: let @3")
    _, arrow_path = find(drawn, "arrow @7")
    assert cluster_labels(r_path) == ["function · 0 allocations per call, 2 per iteration",
                                      "for @3 × per iteration", ""]
    assert cluster_labels(hits_path)[:3] == cluster_labels(r_path) and hits_path[-1].id.startswith("cluster_s")
    assert cluster_labels(c_path) == [*cluster_labels(r_path), "for @5 × per iteration", ""]
    assert seen_path[:len(c_path)] == c_path and seen_path[-1].id.startswith("cluster_s")
    assert arrow_path[:len(c_path)] == c_path and cluster_labels(arrow_path)[-1] == "arrow"
    outer_card = r_path[1]
    assert outer_card.attrs["style"] == "rounded,filled" and r_path[2].attrs["fillcolor"] == "#ffffff"
    seen_site, _ = find(drawn, "context · per iteration")
    hits_site, _ = find(drawn, "box · per iteration")
    assert seen_site.attrs["label"].endswith("2 bindings") and hits_site.attrs["label"].endswith("1 binding")


def test_a_closure_created_in_a_loop_sits_in_the_card_but_a_function_level_var_does_not() -> None:
    drawn = panel(LOOPS)
    _, i_path = find(drawn, "i: var @14")
    _, arrow_path = find(drawn, "arrow @14")
    assert "for @14 × per iteration" not in cluster_labels(i_path)
    assert "for @14 × per iteration" in cluster_labels(arrow_path)
    assert find(drawn, "box · per call")[1] == i_path


ESCAPES = """\
    export function counter(start: number) {
      let count = start;
      function bump(by: number) { count += by; return count; }
      const api = { next: () => bump(1) };
      return api;
    }
    export function outer(seed: number) {
      let state = seed;
      return () => { state++; return state; };
    }
    export function kept(xs: number[]) {
      let sum = 0;
      const add = (x: number) => { sum += x; };
      for (const x of xs) add(x);
      return sum;
    }
"""


def test_an_escaping_closure_is_marked_and_its_escape_edge_says_how_and_where() -> None:
    drawn = panel(ESCAPES)
    arrow, arrow_path = find(drawn, "arrow @9")
    assert arrow.attrs["color"] == "#c0392b" and arrow.attrs["peripheries"] == "2"
    sinks = [e for e in drawn.edges if e.tail == arrow.id]
    escape = [e for e in sinks if e.head.endswith("_escape")]
    assert len(escape) == 1 and escape[0].attrs["label"] == "returned @9"
    assert escape[0].head == f"{arrow_path[0].id.removeprefix('cluster_')}_escape"
    assert any(n.id == escape[0].head for n in arrow_path[0].nodes), "the sink belongs to the activation it outlives"


def test_an_escape_through_another_closure_names_that_closure() -> None:
    drawn = panel(ESCAPES)
    bump, _ = find(drawn, "bump @3")
    assert bump.attrs["label"] == "bump @3\\nescapes via arrow @4"
    assert not [e for e in drawn.edges if e.tail == bump.id and e.head.endswith("_escape")]
    via, _ = find(drawn, "arrow @4")
    assert [e.attrs["label"] for e in drawn.edges if e.tail == via.id and e.head.endswith("_escape")] == [
        "stored in an object literal @4"]


def test_a_closure_that_stays_in_the_call_is_not_marked() -> None:
    drawn = panel(ESCAPES)
    add, _ = find(drawn, "add @13")
    assert add.attrs["color"] == "#444444" and "peripheries" not in add.attrs
    exported, _ = find(drawn, "kept @11")
    assert "peripheries" not in exported.attrs, "a drawn root's own escape concerns no drawn binding"


def test_one_function_shows_the_outer_bindings_it_captures_and_nothing_else_of_them() -> None:
    drawn = panel(ESCAPES, function="bump")
    assert labels(drawn) == {"count: let @2", "bump @3"}
    bump, _ = find(drawn, "bump @3")
    assert bump.attrs["label"] == "bump @3\\nescapes via arrow @4", "the escape is named even if not drawn"
    _, count_path = find(drawn, "count: let @2")
    assert cluster_labels(count_path) == ["inside counter @1"]
    assert "bump: function @3" not in labels(drawn)


def test_module_bindings_a_drawn_closure_captures_are_one_node_of_names() -> None:
    drawn = panel("""\
        let hits = 0, misses = 0;
        const unused = 1;
        export function bump() { hits++; return misses; }
    """)
    assert labels(drawn) == {"2 module bindings", "bump @3"}
    summary, path = find(drawn, "2 module bindings")
    assert summary.attrs["label"] == "2 module bindings\\nhits, misses" and summary.attrs["shape"] == "note"
    assert cluster_labels(path) == ["module"]
    assert not [e for e in drawn.edges if e.head == summary.id], "no edge leads to a summary"


def test_an_enclosing_function_with_many_captured_bindings_keeps_the_allocating_ones_and_summarizes_the_rest():
    names = [f"v{i}" for i in range(9)]
    drawn = panel(f"""\
        export function outer() {{
          const {", ".join(f"{n} = {i}" for i, n in enumerate(names))};
          let count = 0;
          const inner = () => {{ count++; return {" + ".join(names)}; }};
          return inner;
        }}
    """, function="inner")
    assert labels(drawn) == {"count: let @3", "9 more captured bindings: 9 value", "inner @4", "outlives the call"}
    summary, path = find(drawn, "9 more captured bindings: 9 value")
    assert summary.attrs["label"].endswith("\\nv0, v1, v2, v3, v4 and 4 more")
    assert summary.attrs["tooltip"] == ", ".join(names)
    assert cluster_labels(path) == ["inside outer @1"]
    few = panel(ESCAPES, function="bump")
    assert "count: let @2" in labels(few), "a few are drawn one by one"


def test_the_title_gives_the_allocations_per_call_under_the_policy() -> None:
    source = build_graph([analyze(LOOPS)], subject="").source
    title = re.search(r'graph \[.*label="([^"]*)"', source)
    assert title is not None
    assert title.group(1) == "test.ts\\npolicy optimal: 1 allocation per call, 2 per iteration"


def test_a_legend_explains_every_storage_and_edge() -> None:
    source = build_graph([analyze(TALLY)]).source
    for storage in ("value", "stack", "box", "context", "module", "local"):
        assert f"legend_{storage} [label=\"{storage}: " in source
    assert 'legend_closure -> legend_box [label=writes' in source
    assert 'legend_escaping -> legend_escape [label="returned @line"' in source


def test_policies_compared_are_side_by_side_panels_with_distinct_ids() -> None:
    bound = bind_source(SourceFile("tally.ts", textwrap.dedent(TALLY)))
    first, second = apply_policy(bound, OPTIMAL), apply_policy(bound, OPTIMAL)
    source = build_graph([first, second]).source
    ids = re.findall(r"^\s*(\w+) \[label=", source, flags=re.MULTILINE)
    assert len(ids) == len(set(ids)), "a node id is declared twice"
    assert "subgraph cluster_p0_policy" in source and "subgraph cluster_p1_policy" in source
    assert sum(1 for i in ids if i.startswith("p0_")) == sum(1 for i in ids if i.startswith("p1_")) > 0
    assert "rankdir=LR" in source
    assert source.count('"policy optimal: 1 allocation per call, 0 per iteration"') == 2


def test_compared_panels_are_laid_out_two_to_a_row() -> None:
    """A gate node after every node of the left panel and before every node of the right one puts the right
    panel after the left one in rank order, that is to its right; the third panel and the legend make row 2."""
    bound = bind_source(SourceFile("tally.ts", textwrap.dedent(TALLY)))
    source = build_graph([apply_policy(bound, POLICIES[name]) for name in ("legacy", "optimal", "v8")]).source
    gates = re.findall(r"^\s*(grid_\w+) \[", source, flags=re.MULTILINE)
    assert gates == ["grid_p0_policy", "grid_p2_policy"]
    into = set(re.findall(r"^\s*(\w+) -> grid_p0_policy \[style=invis\]", source, flags=re.MULTILINE))
    out_of = set(re.findall(r"^\s*grid_p0_policy -> (\w+) \[style=invis\]", source, flags=re.MULTILINE))
    assert into and all(n.startswith("p0_") for n in into) and out_of and all(n.startswith("p1_") for n in out_of)
    assert set(re.findall(r"^\s*grid_p2_policy -> (\w+)", source, flags=re.MULTILINE)) <= {
        "legend_closure", "legend_escaping", "legend_site", "legend_stack", "legend_local"}
    # every node of p0 reaches the gate, every node of p1 is reached from it
    edges = re.findall(r"^\s*(\w+) -> (\w+)", source, flags=re.MULTILINE)
    later = {head for tail, head in edges if tail == "grid_p0_policy"}
    for _ in range(len(edges)):
        later |= {head for tail, head in edges if tail in later}
    declared = set(re.findall(r"^\s*(\w+) \[label=", source, flags=re.MULTILINE))
    assert {n for n in declared if n.startswith("p1_")} <= later
    assert not any(n.startswith("p0_") for n in later)


def test_the_same_input_gives_byte_identical_dot() -> None:
    runs = {build_graph([analyze_text("a.ts", textwrap.dedent(LOOPS))], show_all=True).source for _ in range(3)}
    assert len(runs) == 1


def test_labels_show_backslashes_quotes_and_markup_literally() -> None:
    assert text('a"b') == 'a"b'
    assert text("a\\nb") == "a\\\\nb", "a backslash in a name is not a Graphviz escape"
    assert text("one", "two") == "one\\ntwo"
    assert type(text("<b>x</b>")).__name__ == "NoHtml", "<...> must not become an HTML label"
    graph = build_graph([analyze_text('x" fontcolor="red', "export function f() {}")])
    assert 'label="x\\" fontcolor=\\"red\\npolicy optimal' in graph.source
    html = build_graph([analyze_text("<b>bold</b>", "export function f() {}")])
    assert 'label="<b>bold</b>\\npolicy' in html.source


def test_invisible_characters_are_spelled_out() -> None:
    assert visible("a\nb") == "a\\u{000A}b"
    assert visible("x\u202ey") == "x\\u{202E}y"
    assert visible("\udcff") == "\\u{DCFF}", "a file name byte that is not UTF-8 (surrogateescape)"
    assert visible("café π 𝑥 ユーザー") == "café π 𝑥 ユーザー"


def test_roots_default_to_every_top_level_function() -> None:
    analysis = analyze(ESCAPES)
    tops: list[Closure] = list(analysis.model.module.children)
    assert [c.name for c in tops] == ["counter", "outer", "kept"]
    source = build_graph([analysis]).source
    for closure in tops:
        assert f"subgraph cluster_c{closure.index} {{" in source


def test_a_site_allocated_only_in_a_branch_says_so() -> None:
    legacy = POLICIES.get("legacy")
    if legacy is None:
        pytest.skip("the `legacy` policy (the one with conditional sites) is not registered")
    bound = bind_source(SourceFile("branch.ts", textwrap.dedent("""\
        export function f(flag: boolean) {
          if (flag) {
            let y = 0;
            return () => y++;
          }
          return null;
        }
    """)))
    drawn = Panel(apply_policy(bound, legacy), list(bound.model.module.children), False, "").build()
    site, _ = find(drawn, "box · per call")
    assert site.attrs["label"] == "box · per call\\n1 binding\\nonly if the branch @2 runs"


def test_heap_only_draws_the_heap_bindings_and_the_closures_that_force_them() -> None:
    drawn = panel(TALLY, heap_only=True)
    # `delta` reads both and escapes too, but the decision names `add` (it writes); `seed` is by value;
    # `local` allocates nothing (its `sum` is on the stack)
    assert labels(drawn) == {"total: let @2", "previous: let @2", "context · per call", "add @7",
                             "tally @1", "outlives the call"}
    add, _ = find(drawn, "add @7")
    for name in ("total: let @2", "previous: let @2"):
        binding, _ = find(drawn, name)
        assert edge(drawn, add, binding)["tooltip"] == f"add @7 reads and writes {name.split(':')[0]}"
    sink, _ = find(drawn, "outlives the call")
    assert edge(drawn, add, sink)["label"] == "stored in an object literal @7"
    full = panel(TALLY)
    assert {"delta @8", "seed: const @3", "local @11"} <= labels(full)


def test_heap_only_draws_a_closure_alone_in_its_frame_as_an_oval_in_the_frame_around_it() -> None:
    drawn = panel(TALLY, heap_only=True)
    _, path = find(drawn, "add @7")
    assert cluster_labels(path) == ["function · 1 allocation per call, 0 per iteration"]
    _, full_path = find(panel(TALLY), "add @7")
    assert cluster_labels(full_path) == ["function · 1 allocation per call, 0 per iteration", "method"]


def test_heap_only_under_v8_keeps_every_capture_because_the_capture_alone_allocates() -> None:
    analysis = apply_policy(bind_source(SourceFile("test.ts", textwrap.dedent(TALLY))), POLICIES["v8"])
    drawn = Panel(analysis, list(analysis.model.module.children), False, "", True).build()
    delta, _ = find(drawn, "delta @8")
    total, _ = find(drawn, "total: let @2")
    assert edge(drawn, delta, total)["tooltip"] == "delta @8 reads total"
    assert "seed: const @3" in labels(drawn), "v8 gives a captured const a context slot too"


def test_a_retention_is_a_dashed_edge_from_the_closure_that_keeps_the_binding() -> None:
    drawn = panel(LEAK)
    keeper, _ = find(drawn, "arrow @5")
    big, _ = find(drawn, "big: const @2")
    use, _ = find(drawn, "use @3")
    kept = edge(drawn, keeper, big)
    assert kept["style"] == "dashed" and kept["label"] == "keeps"
    assert "keeps big alive through the function context of `make`, without using it (BX107)" in kept["tooltip"]
    assert edge(drawn, use, big)["tooltip"] == "use @3 reads big"


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "fixtures" / "retention").glob("*.mjs"))[:6]
                         + sorted((ROOT / "examples").glob("*.ts")), ids=lambda p: p.name)
def test_a_function_drawn_from_its_own_decisions_is_drawn_as_from_the_whole_file(path):
    """`graph -f` decides only the drawn functions and those around them (``graph.drawable``), and asks only
    their closures what they retain: every drawing, retentions included, is the one of the whole analysis."""
    bound = bind_source(SourceFile(path.name, path.read_text(encoding="utf-8")))
    whole = [apply_policy(bound, policy) for policy in POLICIES.values()]
    for root in [c for c in bound.model.closures if not c.is_module]:
        bound.retentions = None
        part = [apply_policy(bound, policy, drawable([root])) for policy in POLICIES.values()]
        assert len(part[0].decisions) <= len(whole[0].decisions)
        for heap_only in (False, True):
            assert build_graph(part, [root], show_all=False, heap_only=heap_only, subject="").source == \
                build_graph(whole, [root], show_all=False, heap_only=heap_only, subject="").source, root.name


def test_a_function_drawn_alone_decides_only_its_bindings_and_those_around_it():
    code = ("const shared = 1;\n"
            "export function drawn() { let n = shared; return () => n++; }\n"
            "export function other() { let m = 0; return () => m++; }\n")
    bound = bind_source(SourceFile("two.ts", code))
    (root,) = [c for c in bound.model.closures if c.name == "drawn"]
    part = apply_policy(bound, OPTIMAL, drawable([root]))
    assert sorted(d.binding.name for d in part.decisions) == ["drawn", "n", "other", "shared"]
