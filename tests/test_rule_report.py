"""The rule report (issue 5 point 3): the two sides of "a captured binding that is never reassigned
needs no box (unless a closure captures it before it is initialized)".

(b) BX103: a never-reassigned binding that still needs shared heap storage under `optimal`, with the
    closure that captures it early and why that closure runs first;
(a) BX104: a never-reassigned binding that `legacy` boxes although `optimal` needs no heap storage."""

from __future__ import annotations

import pytest

from capture_analysis.analyze import Diagnostic, FileAnalysis

from .conftest import analyze


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
        export function make(i: number) {
          function get() { return s.v; }
          const s = { v: i };
          return get;
        }
     """, "s", "`get`", "a hoisted function declaration, created when its scope is entered"),
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
     "created inside its own initializer, which is not that closure literal, so no back-patch"),
    ("""
        export function make(get = () => s.v) {
          var s = { v: 1 };
          return get;
        }
     """, "s", "`get`", "created before the declaration"),
])
def test_captured_before_init_names_the_closure_and_why(code, name, closure, why):
    analysis = analyze(code)
    assert codes(analysis, name) == ["BX103"]
    text = message(analysis, "BX103")
    assert text.startswith(f"`{name}` needs a heap box, per call: captured by {closure} ({why}) before ")


@pytest.mark.xfail(strict=True, reason="BAD: decide.py sees a hoisted declaration's capture of a `var` as a write "
                                       "after capture ('reassigned at'), not as a capture before its initializer")
def test_a_var_initialized_after_a_hoisted_declaration_captured_it_is_captured_before_init():
    analysis = analyze("""
        export function make(i: number) {
          var s = { v: i };
          function get() { return s.v; }
          return get;
        }
    """)
    assert codes(analysis, "s") == ["BX103"]


def test_a_var_written_after_its_initializer_is_not_captured_before_init_but_written():
    analysis = analyze("""
        export function make(i: number) {
          var s = { v: i };
          function get() { return s.v; }
          s = { v: 0 };
          return get;
        }
    """)
    assert codes(analysis, "s") == ["BX101"]
