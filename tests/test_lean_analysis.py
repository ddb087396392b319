"""A batch run's analysis lets the syntax tree go before the decisions (issue 42): what it finds is what the
full analysis finds, suppression comments included, and a policy that reads the tree keeps it."""

from __future__ import annotations

from capture_analysis.analyze import Analyzer
from capture_analysis.policies import LEGACY, OPTIMAL
from capture_analysis.source import SourceFile

TEXT = """\
export function counter() {
  let n = 0; // boxcheck-ignore BX101 -- reviewed
  return () => n++;
}
export function other() {
  let m = 0;
  // boxcheck-ignore-next-line BX999 -- names no finding here
  return () => m++;
}
"""


def shown(analysis) -> list[tuple[str, int, str]]:
    return [(d.rule.code, d.start, d.message) for d in analysis.shown]


def test_the_lean_analysis_finds_what_the_full_one_finds_with_its_tree_let_go():
    source = SourceFile("lean.ts", TEXT)
    full, lean = Analyzer(OPTIMAL)(source), Analyzer(OPTIMAL).lean(source)
    assert shown(lean) == shown(full)
    assert {d.rule.code for d in lean.shown} >= {"BX101", "BX003"}  # one finding left, one directive unused
    assert [(d.binding.name, d.storage) for d in lean.decisions] == [(d.binding.name, d.storage)
                                                                      for d in full.decisions]
    assert full.file.tree.root_node.child_count > 0
    assert lean.file.tree.root_node.child_count == 0  # released before the decisions


def test_a_policy_that_reads_the_tree_keeps_it():
    lean = Analyzer(LEGACY).lean(SourceFile("lean.ts", TEXT))
    assert lean.file.tree.root_node.child_count > 0
    assert shown(lean) == shown(Analyzer(LEGACY)(SourceFile("lean.ts", TEXT)))
