"""What hover and code actions compute, without a server process: what an analysis makes on first use."""

from __future__ import annotations

from pathlib import Path

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.diagnose import suppressions
from capture_analysis.fixes import ActionKind, Fix
from capture_analysis.lsp.actions import touching
from capture_analysis.lsp.hover import hover_markdown
from capture_analysis.lsp.suppress import comment_fits_at
from capture_analysis.parsing import parse
from capture_analysis.policies import POLICIES
from capture_analysis.rules import UNUSED_SUPPRESSION

from .lsp.local import analyzed


def applied(text: str, fix: Fix) -> str:
    data = text.encode()
    for edit in sorted(fix.edits, key=lambda r: r.start, reverse=True):
        data = data[:edit.start] + edit.text.encode() + data[edit.end:]
    return data.decode()


def const_fixes(code: str) -> list[Fix]:
    return [f for f in analyzed(code).fixes.all() if f.kind is ActionKind.REWRITE]


def decisions_by_name(text: str) -> dict[str, tuple[str, str]]:
    return {d.binding.name: (d.binding.kind.value, d.storage.value) for d in analyze_text("t.ts", text).decisions}


# -- hover ------------------------------------------------------------------------------------

def test_hover_names_storage_captures_evidence_and_allocations():
    result = analyzed("""\
        function makeTally(start: number) {
          let total = start, previous = 0;
          return {
            add(n: number) { previous = total; total += n; },
            delta() { return total - previous; },
          };
        }
        """)
    source = result.analysis.source
    occurrence = result.index.at(source.data.index(b"total +="))
    assert occurrence is not None and occurrence.decision.binding.name == "total"
    text = hover_markdown(result.analysis, occurrence.decision)
    assert "`total` (let) is **context** (per-call)" in text
    assert "Captured by `add` at 4:5, `delta` at 5:5." in text
    assert "1. 4:5: captured by `add`" in text
    assert "reassigned at 4:40 inside `add`" in text
    assert "Each call of `makeTally` allocates **1** per call and **0** per loop iteration: " \
           "context {`total`, `previous`} per-call" in text


def test_hover_on_a_function_binding_also_gives_that_function_s_allocations():
    result = analyzed("""\
        function outer() {
          function counter() { let n = 0; return () => n++; }
          return counter;
        }
        """)
    at = result.analysis.source.data.index(b"counter;")
    text = hover_markdown(result.analysis, result.index.at(at).decision)
    assert "`counter` (function) is **local**: an ordinary local, nothing per call" in text
    assert "Each call of `outer` allocates **0** per call" in text
    assert "Each call of `counter` allocates **1** per call and **0** per loop iteration: box {`n`} per-call" in text


def test_hover_finds_nothing_between_names():
    result = analyzed("function f() { const a = 1; return () => a; }\n")
    data = result.analysis.source.data
    assert result.index.at(data.index(b"= 1")) is None
    assert result.index.at(data.index(b"a = 1") + 1) is None   # just after the name: the end is excluded
    assert result.index.at(data.index(b"a; }")).decision.storage.value == "value"


# -- declare as const -------------------------------------------------------------------------

@pytest.mark.parametrize("code, names", [
    ("function f(s: number) { let total = s; return () => total; }", ["`total`"]),
    ("function f() { let a = 1, { b, c: [d] } = o(); return () => a + b + d; }", ["`a`, `b`, `d`"]),
    ("function f(xs: number[]) { const out = []; for (let x of xs) out.push(() => x); return out; }", ["`x`"]),
    ("function f() { let g = () => g; return g; }", ["`g`"]),
    ("function f() { let t: number = 1; return t; }", ["`t`"]),
])
def test_declare_const_is_offered_and_keeps_every_decision(code, names):
    fixes = const_fixes(code)
    assert [f.title for f in fixes] == [f"Declare {n} as `const` (never reassigned)" for n in names]
    after = applied(code, fixes[0])
    assert after == code.replace("let", "const", 1)
    before, now = decisions_by_name(code), decisions_by_name(after)
    assert now.keys() == before.keys()
    for name, (kind, storage) in before.items():
        assert now[name][1] == storage, name
        assert now[name][0] == ("const" if kind == "let" else kind), name


@pytest.mark.parametrize("code", [
    "function f() { let a = 1, b = 2; b++; return () => a + b; }",      # `const` would cover `b` too
    "function f() { let pending; pending = 1; return pending; }",         # no initializer
    "function f() { let p; return p; }",                                  # no initializer, never written
    "function f(n: number) { for (let i = 0; i < n; i++) {} }",           # the update writes `i`
    "function f(xs: number[]) { for (let x of xs) { x = x + 1; } }",      # the body writes `x`
    "function f() { let n = 0; return () => { n += 1; }; }",              # written in a closure
    "function f() { let n = 0; eval('n = 1'); return n; }",               # eval may write it
    "function f() { let [a, b] = g(); [a, b] = [b, a]; return a; }",      # destructuring assignment
    "let top = 1; export function f() { return top; }",                   # module level: other code may assign
    "function f() { let n = 0; return (( n )) = 2; }",                    # written through parentheses
])
def test_declare_const_is_not_offered_when_unsafe(code):
    assert const_fixes(code) == []


def test_declare_const_is_not_offered_in_a_function_with_a_syntax_error():
    assert const_fixes("function f() { let n = 1; return n +; }") == []


# -- suppressions -----------------------------------------------------------------------------

COUNTER = """\
function counter() {
  let n = 0;
  return () => n++;
}
"""


def test_a_finding_can_be_suppressed_on_its_line_and_the_cli_agrees():
    result = analyzed(COUNTER)
    (finding,) = result.diagnostics
    (fix,) = [f for f in result.fixes.all() if f.kind is ActionKind.QUICK_FIX]
    assert fix.title == "Suppress BX101 on line 2" and fix.diagnostic is finding
    after = applied(COUNTER, fix)
    assert after.splitlines()[1] == "  // boxcheck-ignore-next-line BX101"
    again = analyze_text("t.ts", after)
    assert suppressions.apply(again.file, again.diagnostics) == []


def test_an_unused_suppression_can_be_removed():
    code = "function f() {\n  const step = 1; // boxcheck-ignore BX101 -- stale\n  // boxcheck-ignore-next-line\n" \
           "  return () => step;\n}\n"
    result = analyzed(code)
    assert [d.rule for d in result.diagnostics] == [UNUSED_SUPPRESSION, UNUSED_SUPPRESSION]
    removals = [f for f in result.fixes.all() if f.title == "Remove unused suppression"]
    assert len(removals) == 2
    assert applied(code, removals[0]) == code.replace(" // boxcheck-ignore BX101 -- stale", "")
    assert applied(code, removals[1]) == code.replace("  // boxcheck-ignore-next-line\n", "")


def test_a_suppression_that_still_covers_a_finding_is_not_removed():
    code = "function f() {\n  // boxcheck-ignore-next-line BX101, BX102\n  let n = 0;\n  return () => n++;\n}\n"
    result = analyzed(code)
    assert [d.rule for d in result.diagnostics] == [UNUSED_SUPPRESSION]   # BX102 is unused, BX101 is not
    assert [f.title for f in result.fixes.all() if f.diagnostic is result.diagnostics[0]] == []


def test_a_block_comment_between_tokens_leaves_a_space():
    code = "function f() { const a = 1; return a/* boxcheck-ignore */+1; }\n"
    (fix,) = [f for f in analyzed(code).fixes.all() if f.title == "Remove unused suppression"]
    assert applied(code, fix) == code.replace("/* boxcheck-ignore */", " ")


@pytest.mark.parametrize("code, line, fits", [
    ("let a = 1;\nlet b = 2;\n", 1, True),
    ("const s = `a\n${x}`;\n", 1, False),                  # template text: the comment would be text
    ("const s = `a${(() => {\n  let n = 0;\n})()}`;\n", 1, True),   # code inside ${...}
    ("/* a\n b */ let c = 1;\n", 1, False),                 # inside a block comment
    ("const s = 'a\\\nb';\n", 1, False),                    # a string continued on the next line
])
def test_comment_fits_only_between_tokens(code, line, fits):
    offset = len("".join(code.splitlines(keepends=True)[:line]).encode())
    assert comment_fits_at(parse(code.encode(), "t.ts"), offset) is fits


def test_comment_does_not_fit_in_jsx_text_but_does_in_a_jsx_expression():
    code = "const v = <div>\n  {items.map(x => {\n    let n = 0;\n    return () => n++;\n  })}\n  text\n</div>;\n"
    tree = parse(code.encode(), "t.tsx")
    lines = code.splitlines(keepends=True)
    start_of = lambda i: len("".join(lines[:i]).encode())  # noqa: E731
    assert comment_fits_at(tree, start_of(2)) is True       # `let n` inside the arrow
    assert comment_fits_at(tree, start_of(5)) is False      # `text`: JSX children


def test_fixes_are_offered_where_the_range_touches_them():
    fixes = analyzed("function f() { let a = 1; let b = 2; return () => a + b; }\n").fixes.all()
    assert [f.title for f in touching(fixes, 15, 15, None)] == ["Declare `a` as `const` (never reassigned)"]
    assert len(touching(fixes, 0, 100, None)) == 2
    assert touching(fixes, 15, 15, ["quickfix"]) == []
    assert len(touching(fixes, 15, 15, ["refactor"])) == 1



def test_declare_const_on_every_example_and_fixture_keeps_every_decision_under_every_policy():
    """Every "declare as `const`" the server offers on the project's own sources, applied and analyzed again."""
    root = Path(__file__).resolve().parent.parent
    paths = sorted([*root.glob("examples/*.ts"), *root.glob("tests/fixtures/**/*.ts"),
                    *root.glob("tests/fixtures/**/*.tsx"), *root.glob("tests/fixtures/**/*.js")])
    offered = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for fix in [f for f in analyzed(text, str(path)).fixes.all() if f.kind is ActionKind.REWRITE]:
            offered += 1
            after = applied(text, fix)
            for name, policy in POLICIES.items():
                before = [(d.binding.name, d.binding.kind.value, d.storage) for d in
                          analyze_text(str(path), text, policy).decisions]
                now = [(d.binding.name, d.binding.kind.value, d.storage) for d in
                       analyze_text(str(path), after, policy).decisions]
                assert [(n, s) for n, _, s in now] == [(n, s) for n, _, s in before], (path, name, fix.title)
                kinds = {(old[1], new[1]) for old, new in zip(before, now, strict=True) if old[1] != new[1]}
                assert kinds == {("let", "const")}, (path, name, fix.title)
    assert offered > 0
