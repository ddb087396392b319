"""The layout the code promises (docs/architecture.md): no import cycle, small modules, a short top level,
every node kind of both grammars accounted for, and a package map that shows the real imports."""

from __future__ import annotations

import collections

import networkx as nx
import pytest

from capture_analysis.bind import bind, binder, dispatch
from capture_analysis.commands import architecture
from capture_analysis.flow import builder, constructs
from capture_analysis.parsing import language, parse, syntax_problems
from capture_analysis.source import SourceFile

from .conftest import ROOT

MAX_LINES = 500
MAX_TOP_LEVEL = 15


def test_no_module_imports_itself_through_others() -> None:
    cycles = list(nx.simple_cycles(architecture.module_graph()))
    assert not cycles, f"import cycles: {cycles}"


def test_no_two_units_import_each_other_through_others() -> None:
    cycles = list(nx.simple_cycles(architecture.unit_graph()))
    assert not cycles, f"cycles between top-level modules and sub-packages: {cycles}"


def test_the_cycle_check_sees_an_import_under_type_checking(tmp_path, monkeypatch) -> None:
    package = tmp_path / "capture_analysis"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n")
    monkeypatch.setattr(architecture, "PACKAGE", package)
    assert list(nx.simple_cycles(architecture.module_graph())) != []


def test_no_module_is_over_500_lines() -> None:
    long = {str(path.relative_to(ROOT)): count for path in architecture.module_files().values()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these by concept: {long}"


def test_the_top_level_holds_the_pipeline_and_little_else() -> None:
    top = [path.name for path in (ROOT / "capture_analysis").glob("*.py") if path.name not in ("__init__.py",
                                                                                               "__main__.py")]
    assert len(top) <= MAX_TOP_LEVEL, sorted(top)


def test_the_package_map_shows_the_imports_of_the_code() -> None:
    image = architecture.IMAGE
    assert image.exists(), "run `make architecture`"
    drawn = architecture.drawn_titles(image.read_text(encoding="utf-8"))
    assert drawn == architecture.expected_titles(architecture.unit_graph()), \
        "docs/img/architecture.svg is stale: run `make architecture` and commit it"


def test_every_unit_of_the_map_has_a_group() -> None:
    grouped = {name for names in architecture.GROUPS.values() for name in names}
    assert set(architecture.unit_graph()) == grouped


# -- node coverage -------------------------------------------------------------------------------


def named_kinds() -> set[str]:
    kinds: set[str] = set()
    for tsx in (False, True):
        grammar = language(tsx)
        for kind_id in range(grammar.node_kind_count):
            if grammar.node_kind_is_named(kind_id) and grammar.node_kind_is_visible(kind_id):
                kinds.add(grammar.node_kind_for_id(kind_id) or "")
    return kinds


PLACES = {"HANDLERS": set(dispatch.HANDLERS), "TYPE_ONLY": set(dispatch.TYPE_ONLY),
          "READ_BY_PARENT": set(dispatch.READ_BY_PARENT), "GENERIC": set(dispatch.GENERIC)}


def test_every_named_node_kind_of_both_grammars_has_one_place() -> None:
    placed = collections.Counter(kind for kinds in PLACES.values() for kind in kinds)
    twice = sorted(kind for kind, count in placed.items() if count > 1)
    assert not twice, f"in two places: {twice}"
    missing = sorted(named_kinds() - set(placed))
    assert not missing, f"node kinds nobody decided about (a handler, TYPE_ONLY, READ_BY_PARENT or GENERIC): {missing}"


def test_no_place_names_a_kind_the_grammars_do_not_have() -> None:
    stale = sorted(kind for kinds in PLACES.values() for kind in kinds if kind not in named_kinds())
    assert not stale, stale


def test_only_generic_kinds_reach_the_generic_visitor_in_well_formed_code(monkeypatch) -> None:
    """What READ_BY_PARENT says is checked on every fixture and example that parses without an error."""
    reached: collections.Counter[str] = collections.Counter()
    real = binder.visit_unknown

    def spy(walker, node, scope, use):  # type: ignore[no-untyped-def]
        reached[node.type] += 1
        real(walker, node, scope, use)

    monkeypatch.setattr(binder, "visit_unknown", spy)
    checked = 0
    for path in sorted([*(ROOT / "tests" / "fixtures").rglob("*.ts*"), *(ROOT / "examples").glob("*.ts"),
                        *(ROOT / "tests" / "graph_inputs").glob("*.ts")]):
        source = SourceFile(str(path), path.read_text(encoding="utf-8"))
        tree = parse(source.data, source.path)
        if syntax_problems(tree):
            continue
        bind(source.data, tree, [], source.path)
        checked += 1
    assert checked > 100
    assert set(reached) <= set(dispatch.GENERIC), sorted(set(reached) - set(dispatch.GENERIC))


@pytest.mark.parametrize("kind", sorted(dispatch.GENERIC))
def test_every_generic_kind_says_why(kind: str) -> None:
    assert len(dispatch.GENERIC[kind]) > 20


# -- control-flow coverage -----------------------------------------------------------------------

#: statement kinds the grammars do not name ``*_statement`` or ``*_declaration``.
OTHER_STATEMENTS = {"statement_block", "module", "import_alias", "function_signature"}


def statement_kinds() -> set[str]:
    return {kind for kind in named_kinds() if kind.endswith(("_statement", "_declaration"))} | OTHER_STATEMENTS


def flow_places() -> dict[str, set[str]]:
    """Where the control-flow builder decided about a node kind (read at call time, so a test can patch it)."""
    return {"STATEMENTS": set(constructs.STATEMENTS), "EXPRESSIONS": set(constructs.EXPRESSIONS),
            "OPAQUE": set(builder.OPAQUE), "STRAIGHT_LINE": set(constructs.STRAIGHT_LINE)}


def flow_coverage_problems() -> list[str]:
    places = flow_places()
    placed = collections.Counter(kind for kinds in places.values() for kind in kinds)
    problems = [f"in two places: {kind}" for kind, count in sorted(placed.items()) if count > 1]
    problems += [f"undecided statement: {kind}" for kind in sorted(statement_kinds() - set(placed))]
    problems += [f"not in the grammars: {kind}" for kind in sorted(set(placed) - named_kinds())]
    problems += [f"straight-line but not a statement: {kind}"
                 for kind in sorted(places["STRAIGHT_LINE"] & named_kinds() - statement_kinds())]
    return problems


def test_every_statement_kind_of_both_grammars_is_built_opaque_or_straight_line() -> None:
    """A statement the flow builder has not decided about would run in text order, loops inside it unseen."""
    assert not flow_coverage_problems()


def test_the_other_statement_kinds_are_in_the_grammars() -> None:
    assert named_kinds() >= OTHER_STATEMENTS, sorted(OTHER_STATEMENTS - named_kinds())


def test_the_flow_coverage_check_reports_a_kind_nobody_decided_about(monkeypatch) -> None:
    monkeypatch.delitem(constructs.STRAIGHT_LINE, "empty_statement")
    monkeypatch.setattr(constructs, "STATEMENTS",
                        {kind: handler for kind, handler in constructs.STATEMENTS.items() if kind != "while_statement"})
    assert flow_coverage_problems() == ["undecided statement: empty_statement", "undecided statement: while_statement"]


def test_the_flow_coverage_check_reports_a_kind_the_grammars_do_not_have(monkeypatch) -> None:
    monkeypatch.setitem(constructs.STRAIGHT_LINE, "match_statement", "a kind of a future grammar")
    monkeypatch.setitem(constructs.STRAIGHT_LINE, "if_statement", "already built by a handler")
    assert flow_coverage_problems() == ["in two places: if_statement", "not in the grammars: match_statement"]


@pytest.mark.parametrize("kind", sorted(constructs.STRAIGHT_LINE))
def test_every_straight_line_statement_says_why(kind: str) -> None:
    assert len(constructs.STRAIGHT_LINE[kind]) > 10
