"""Sloppy-mode function declarations in blocks also bind a function-level ``var`` (``block_functions``).

Each form is run in Node first, so the test shows what the engine does (the
closure sees the block's function appear, or never sees it), then that
boxcheck's verdict agrees."""

from __future__ import annotations

import pytest

from .conftest import analyze, needs_node, node_got, reason_of

#: where the block-level `function h() { return 2; }` stands; each assigns f's own `h` when evaluated.
ASSIGNING = {
    "block": "{ DECL }",
    "nested-block": "{ { DECL } }",
    "if-block": "if (p) { DECL }",
    "if-clause": "if (p) DECL",
    "else-clause": "if (!p) ; else DECL",
    "switch-case": "switch (p) { case 1: DECL }",
    "loop-body": "for (const i of [1]) { DECL }",
    "catch-block": "try { throw 0; } catch (e) { DECL }",
    "labeled-block": "l: { DECL }",
    # the grammar reads `{ l: function h() {} }` as an object literal: a repair makes it the block it is
    "labelled-declaration": "{ l: DECL }",
    "labelled-declaration-after-a-statement": "{ p; l: DECL }",
    "labelled-declaration-in-an-if-block": "if (p) { l: DECL }",
}
#: what f's body may declare first: the block's function assigns that binding too.
BEFORE = {
    "nothing": "",
    "a-var": "var h = 1;",
    "a-function": "function h() { return 1; }",
}
DECL = "function h() { return 2; }"


def script(where: str, before: str = "", directive: str = "", params: str = "p") -> str:
    return (f"var h = 0;\nfunction f({params}) {{\n  {directive}\n  {before}\n  const get = () => h;\n"
            f"  {where.replace('DECL', DECL)}\n  return get;\n}}\n"
            "const seen = f(1)();\nconst got = String(typeof seen === 'function' ? seen() : seen);\n")


def function_level(code: str, path: str) -> dict[str, str]:
    """f's own bindings named ``h`` by kind (the block's function is not f's own)."""
    found = {}
    for decision in analyze(code, path).decisions:
        binding = decision.binding
        if binding.name == "h" and binding.scope is binding.closure.scope and binding.closure.name == "f":
            found[binding.kind.value] = decision.storage.value
    return found


@needs_node
@pytest.mark.parametrize("before", sorted(BEFORE))
@pytest.mark.parametrize("where", sorted(ASSIGNING))
def test_a_block_function_assigns_the_function_level_binding_after_capture(where, before):
    code = script(ASSIGNING[where], BEFORE[before])
    assert node_got(code) == "2", "the closure did not see the block's function: the form proves nothing"
    storages = function_level(code, "script.js")
    assert storages, f"no function-level `h` in f: {where}, {before}"
    assert all(s not in ("value", "local") for s in storages.values()), (where, before, storages)


@needs_node
def test_a_closure_made_after_the_declaration_holds_a_copy():
    code = ("function f(p) {\n  if (p) { function h() { return 2; } }\n  return () => h;\n}\n"
            "const seen = f(1)();\nconst got = String(seen());\n")
    assert node_got(code) == "2"
    assert function_level(code, "script.js") == {"var": "value"}


@needs_node
@pytest.mark.parametrize("case", ["parameter", "let", "strict", "module", "method"])
def test_no_function_level_binding_where_the_engine_makes_none(case):
    """A parameter or a `let` of the same name, or strict code: `get` keeps seeing what it saw."""
    module = False
    if case == "parameter":
        code = script(ASSIGNING["block"], params="h").replace("f(1)", "f(1, 1)")
    elif case == "let":
        code = script(ASSIGNING["block"], "let h = 1;")
    elif case == "strict":
        code = script(ASSIGNING["block"], directive='"use strict";')
    elif case == "module":
        code, module = "export {};\n" + script(ASSIGNING["block"]), True
    else:
        code = script(ASSIGNING["block"]).replace("function f(p) {", "class C { f(p) {").replace(
            "  return get;\n}", "  return get;\n} }\nconst f = (p) => new C().f(p);")
    expected = "1" if case in ("parameter", "let") else "0"
    assert node_got(code, module) == expected
    storages = dict(function_level(code, "module.mjs" if module else "script.js"))
    assert "var" not in storages
    if case in ("parameter", "let"):
        assert storages == {"param" if case == "parameter" else "let": "value"}


@needs_node
def test_where_strictness_is_unknown_the_outer_binding_is_still_captured():
    """A TypeScript script may be compiled with ``alwaysStrict``: then `get` names the outer `h`,
    which is written after `inner` captured it, so that `h` is not ``value`` either."""
    code = ("function outer() {\n  let h = 1;\n  const inner = () => {\n    const get = () => h;\n"
            "    { function h() { return 2; } }\n    return get;\n  };\n  h = 5;\n  return inner;\n}\n"
            "const got = String(outer()()());\n")
    assert node_got('"use strict";\n' + code) == "5"
    analysis = analyze(code, "script.ts")
    outer_h = next(d for d in analysis.decisions if d.binding.name == "h" and d.binding.kind.value == "let")
    assert outer_h.storage.value not in ("value", "local"), outer_h.reason


def test_the_reason_names_the_block_level_declaration():
    analysis = analyze("function f() {\n  const get = () => h;\n  { function h() {} }\n  return get;\n}\n", "a.js")
    reason = next(d.reason for d in analysis.decisions if d.binding.name == "h" and d.binding.kind.value == "var")
    assert "block-level function declaration at 3:14" in reason and "sloppy mode" in reason
    assert reason_of(analysis, "get").startswith("no closure refers to it")
