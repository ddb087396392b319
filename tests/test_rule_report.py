"""The rule report (issue 5 point 3): the two sides of "a captured binding that is never reassigned
needs no box (unless a closure captures it before it is initialized)".

(b) BX103: a never-reassigned binding that still needs shared heap storage under `optimal`, with the
    closure that captures it early and why that closure runs first;
(a) BX104: a never-reassigned binding that `legacy` boxes although `optimal` needs no heap storage."""

from __future__ import annotations

import textwrap

import pytest

from capture_analysis.analyze import FileAnalysis
from capture_analysis.compare import ComparedAnalysis, analyze_compared, parse_policies
from capture_analysis.diagnose import Diagnostic
from capture_analysis.policies import POLICIES
from capture_analysis.source import SourceFile

from .conftest import ROOT, analyze


def codes(analysis: FileAnalysis, name: str) -> list[str]:
    return [d.rule.code for d in analysis.diagnostics
            if d.decision is not None and d.decision.binding.name == name]


def message(analysis: FileAnalysis, code: str) -> str:
    __tracebackhide__ = True  # the model's repr is too big for a traceback
    found: list[Diagnostic] = [d for d in analysis.diagnostics if d.rule.code == code]
    assert len(found) == 1, [d.message for d in found]
    return found[0].message


# -- (b) BX103 under optimal ------------------------------------------------------------------


@pytest.mark.parametrize(("code", "name", "closure", "why"), [
    ("""
        export function make(i: number, keep: (f: () => number) => void) {
          keep(get);
          function get() { return s.v; }
          const s = { v: i };
          return get;
        }
     """, "s", "`get`", "a function declaration, read at 3:8"),
    ("""
        export function make(i: number) {
          const get = () => s;
          const s = i;
          return get;
        }
     """, "s", "`get`", "created before the declaration"),
    ("""
        export function make(a = () => b, b = 1) {
          return a;
        }
     """, "b", "`a`", "created in a parameter default, before this parameter is bound"),
    ("""
        export function make(reg: (cb: () => unknown) => () => unknown) {
          const off = reg(() => off);
          return off;
        }
     """, "off", "the arrow at 3:19",
     "created while its own initializer runs, before the binding holds its value (only a closure that is itself "
     "the initializer gets its copy filled in afterwards)"),
])
def test_captured_before_init_names_the_closure_and_why(code, name, closure, why):
    analysis = analyze(code)
    assert codes(analysis, name) == ["BX103"]
    text = message(analysis, "BX103")
    assert text.startswith(f"`{name}` needs a heap box, per call: captured by {closure} ({why}) before ")


def test_a_var_initialized_after_a_function_declaration_was_read_is_captured_before_init():
    analysis = analyze("""
        export function make(i: number, keep: (f: () => number) => void) {
          keep(get);
          var s = { v: i };
          function get() { return s.v; }
          return get;
        }
    """)
    assert codes(analysis, "s") == ["BX103"]


def test_a_var_initialized_before_a_function_declaration_is_first_read_is_a_copy():
    analysis = analyze("""
        export function make(i: number) {
          var s = { v: i };
          function get() { return s.v; }
          return get;
        }
    """)
    assert codes(analysis, "s") == []
    assert next(d.storage.value for d in analysis.decisions if d.binding.name == "s") == "value"


def test_a_var_written_after_its_initializer_is_not_captured_before_init_but_written():
    analysis = analyze("""
        export function make(i: number) {
          var s = { v: i };
          function get() { return s.v; }
          const first = get;
          s = { v: 0 };
          return first;
        }
    """)
    assert codes(analysis, "s") == ["BX101"]


# -- (a) BX104 with --compare legacy,optimal ---------------------------------------------------


def compared(code: str, names: str = "legacy,optimal", primary: str = "optimal") -> ComparedAnalysis:
    return analyze_compared(SourceFile("test.ts", textwrap.dedent(code)), POLICIES[primary], parse_policies(names))


def overboxed(analysis: FileAnalysis) -> list[str]:
    return [d.decision.binding.name for d in analysis.diagnostics
            if d.rule.code == "BX104" and d.decision is not None]


def test_the_examples_name_every_never_reassigned_binding_legacy_boxes():
    found = {}
    for path in sorted((ROOT / "examples").glob("*.ts")):
        analysis = analyze_compared(SourceFile(str(path), path.read_text()), POLICIES["optimal"],
                                    ("legacy", "optimal"))
        found[path.name] = overboxed(analysis)
    assert found == {
        "factories.ts": [f"op{i}" for i in range(1, 9)] + [f"s{i}" for i in range(8)],
        "loops.ts": [],
        "probes.ts": ["f", "f"],
        "scanner.ts": ["end", "isDigit", "error", "scanNumber", "scanIdentifier", "scan"],
    }


def test_overboxing_message_gives_both_reasons():
    analysis = compared("""
        export function arrowConst(i: number) {
          const f = (x: number) => x + i;
          return () => f(1);
        }
    """)
    assert message(analysis, "BX104") == (
        "`f` is never reassigned, yet `legacy` boxes it: initialized with a closure literal that the arrow at "
        "4:10 refers to: the fallback arm boxes it although it is never reassigned; `optimal` needs no heap "
        "storage for it (value): captured by the arrow at 4:10; initialized before capture and never "
        "reassigned: copied by value")
    (diagnostic,) = [d for d in analysis.diagnostics if d.rule.code == "BX104"]
    assert diagnostic.level.label == "info"
    assert diagnostic.decision is not None and diagnostic.decision.storage.value == "box"  # legacy's evidence


def test_an_array_method_call_is_not_a_reassignment():
    analysis = compared("""
        export function pushed(i: number) {
          const arr: number[] = [];
          const f = () => arr.length;
          arr.push(i);
          return f;
        }
    """)
    assert overboxed(analysis) == ["arr"]
    assert "counts as a write" in message(analysis, "BX104")


@pytest.mark.parametrize("code", [
    # reassigned: both policies need the box, there is nothing to report
    "export function f(i: number) { let n = i; return () => n++; }",
    # never reassigned but captured before initialization: optimal needs shared storage too (BX103's side)
    "export function f(i: number, keep: (g: () => number) => void) { keep(g); function g() { return s.v; } "
    "const s = { v: i }; return g; }",
])
def test_no_overboxing_when_optimal_needs_the_heap_too(code):
    assert overboxed(compared(code)) == []


def test_no_rule_report_without_both_legacy_and_optimal():
    code = "export function f(i: number) { const g = (x: number) => x + i; return () => g(1); }"
    assert overboxed(compared(code, "legacy,v8")) == []
    assert overboxed(compared(code, "legacy,optimal")) == ["g"]


def test_with_another_primary_policy_the_report_adds_optimal_captured_before_init():
    code = """
        export function make(i: number, keep: (f: () => number) => void) {
          keep(get);
          function get() { return s.v; }
          const s = { v: i };
          return get;
        }
    """
    analysis = compared(code, "legacy,optimal", primary="legacy")
    assert analysis.policy.name == "legacy"
    assert message(analysis, "BX103").startswith("under `optimal`, `s` needs a heap box, per call: captured by "
                                                 "`get` (a function declaration, read at 3:8)")
    assert len([d for d in compared(code).diagnostics if d.rule.code == "BX103"]) == 1  # not twice under optimal


def test_compared_legacy_brings_its_unmodelled_notes():
    code = "export async function waits() { let x = 1; await null; return () => x++; }"
    assert message(compared(code), "BX105").startswith("`waits` is an async function with `await`")
    assert not [d for d in compared(code, "optimal,v8").diagnostics if d.rule.code == "BX105"]
