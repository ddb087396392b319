"""A warning is a cost a change of the code removes, and says the change (DESIGN 2.7; ``diagnose/changes``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.diagnose import Diagnostic
from capture_analysis.policies import POLICIES
from capture_analysis.rules import Severity

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT.parent / "shared" / "reference" / "004_932beec85475fec3.txt"
CORPUS = ROOT.parent / "corpus"
FIVE = ("box2", "obj2", "box8", "arrow8", "arr8")


def findings(code: str, policy: str = "optimal", path: str = "t.ts") -> list[Diagnostic]:
    return analyze_text(path, textwrap.dedent(code), POLICIES[policy]).shown


def warned_in(code: str, policy: str, names: tuple[str, ...]) -> set[str]:
    """The functions of ``names`` with a warning inside, by the line each one starts on."""
    lines = code.splitlines()
    starts = {name: next(i for i, line in enumerate(lines) if line.startswith(f"function {name}(")) for name in names}
    out = set()
    analysis = analyze_text("bench.ts", code, POLICIES[policy])
    for diagnostic in analysis.shown:
        if diagnostic.level is Severity.WARNING:
            line = analysis.source.position(diagnostic.start).line - 1
            out.add(max((start, name) for name, start in starts.items() if start <= line)[1])
    return out


def test_the_seed_bench_warns_under_legacy_where_a_const_holder_removes_the_boxes():
    if not REFERENCE.is_file():
        pytest.skip(f"the reference case is not at {REFERENCE} (it lives beside the project, in ../shared)")
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index("bench.ts:\n\n") + len("bench.ts:\n\n")
    bench = text[start:text.index("\n\nPERRY_NO_AUTO_OPTIMIZE", start)] + "\n"
    assert warned_in(bench, "legacy", FIVE) == {"box2", "box8", "arrow8"}
    assert warned_in(bench, "optimal", FIVE) == set()


def test_the_examples_factories_warn_the_same_way():
    code = (ROOT / "examples" / "factories.ts").read_text()
    legacy = [d for d in analyze_text("f.ts", code, POLICIES["legacy"]).shown if d.level is Severity.WARNING]
    holders = {"const` object", "const` array"}
    assert legacy and all(any(h in d.message for h in holders) for d in legacy)
    assert not [d for d in analyze_text("f.ts", code).shown if d.level is Severity.WARNING]


def test_optimal_reports_shared_mutable_state_once_per_function_as_info():
    (found,) = findings("""
        export function tally(start: number) {
          let total = start, previous = 0;
          return { add(n: number) { previous = total; total += n; }, delta() { return total - previous; } };
        }
    """)
    assert (found.rule.code, found.level) == ("BX101", Severity.INFO)
    assert found.message.startswith("`tally` needs 1 heap context per call for `total`, `previous`: ")
    assert "any compiler must keep on the heap" in found.message
    assert [text for *_, text in found.related if text.startswith("`previous` shares it")]


def test_an_early_capture_that_reordering_removes_is_a_warning_that_says_how():
    (found,) = findings("""
        export function make(i: number, keep: (f: () => number) => void) {
          keep(get);
          function get() { return s.v; }
          const s = { v: i };
          return get;
        }
    """)
    assert (found.rule.code, found.level) == ("BX103", Severity.WARNING)
    assert "(a function declaration, read at 3:8) before it is initialized" in found.message
    assert "initialize `s` before `get` is first created or read (where the reason says), and it needs no heap " \
           "storage" in found.message


@pytest.mark.parametrize("code", [
    """
    import { z } from "zod";
    export function schema() {
      const Self: any = z.lazy(() => z.array(Self));
      return Self;
    }
    """,
    """
    export function make(keep: (f: () => number) => { v: number }) {
      const s = keep(get);
      function get() { return s.v; }
      return get;
    }
    """,
])
def test_an_early_capture_no_order_removes_is_info_and_says_why(code):
    (found,) = [d for d in findings(code) if d.rule.code == "BX103"]
    assert found.level is Severity.INFO
    assert "no order of the code removes it" in found.message


def test_a_loop_carried_binding_copied_per_iteration_says_the_change():
    code = """
        export function each(xs: number[], keep: (f: () => number) => void) {
          for (let x of xs) {
            keep(() => x++);
          }
        }
    """
    (found,) = findings(code)
    assert (found.rule.code, found.level) == ("BX102", Severity.WARNING)
    assert "the loop copies `x` into each iteration: if the closures may share one, declare it before the loop " \
           "(`let x; for (x = ...`), one allocation per call instead of one per iteration" in found.message
    (in_a_test,) = findings(code, path="src/each.test.ts")
    assert in_a_test.level is Severity.INFO and "in a test file" in in_a_test.message
    (in_fixtures,) = findings(code, path="tests/fixtures/each.ts")
    assert in_fixtures.level is Severity.WARNING
    (type_test,) = findings(code, path="src/each.test-d.ts")
    assert type_test.level is Severity.INFO


def test_a_binding_of_the_loop_body_is_each_iteration_s_own_state():
    (found,) = findings("""
        export function each(xs: number[], keep: (f: () => number) => void) {
          for (const x of xs) {
            let tries = x;
            keep(() => tries++);
          }
        }
    """)
    assert (found.rule.code, found.level) == ("BX102", Severity.INFO)
    assert "the loop body declares `tries`, so each iteration's closures keep their own" in found.message


@pytest.mark.parametrize("code", [
    """
    export function any(signals: AbortSignal[]) {
      const controller = new AbortController();
      const onAbort = () => { cleanup(); controller.abort(); };
      const cleanup = () => { for (const s of signals) s.removeEventListener("abort", onAbort); };
      for (const s of signals) s.addEventListener("abort", onAbort);
      return controller.signal;
    }
    """,
    """
    declare function memoize<T>(f: () => T): () => T;
    export function createFactory(make: (f: object) => object) {
      const rules = memoize(() => make(factory));
      const factory = { get rules() { return rules(); } };
      return factory;
    }
    """,
])
def test_closures_that_refer_to_each_other_cannot_be_reordered(code):
    found = findings(code)
    (early,) = [d for d in found if d.rule.code == "BX103"]
    assert early.level is Severity.INFO and "no order of the code removes it" in early.message


def test_a_configured_severity_still_wins():
    from capture_analysis.analyze import Analyzer
    from capture_analysis.source import SourceFile

    analysis = Analyzer(POLICIES["optimal"], {"BX101": Severity.WARNING})(SourceFile("t.ts", textwrap.dedent("""
        export function f() { let n = 0; return () => n++; }
    """)))
    assert [(d.rule.code, d.level) for d in analysis.shown] == [("BX101", Severity.WARNING)]


@pytest.mark.parametrize(("path", "line"), [
    ("effect@4.1.0/src/Graph.ts", 10478),
    ("effect@4.1.0/src/Graph.ts", 10479),
    ("@apollo/server@5.5.1/src/ApolloServer.ts", 454),
])
def test_the_node_confirmed_leaks_are_still_warnings(path, line):
    file = CORPUS / path
    if not file.is_file():
        pytest.skip(f"the pinned corpus is not at {CORPUS} (../shared/corpus/fetch.sh {CORPUS} makes it)")
    analysis = analyze_text(str(file), file.read_text(encoding="utf-8"))
    at_line = [d for d in analysis.shown if analysis.source.position(d.start).line == line]
    assert [(d.rule.code, d.level) for d in at_line] == [("BX107", Severity.WARNING)]
