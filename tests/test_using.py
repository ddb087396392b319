"""``using`` and ``await using`` declarations: block-scoped constants with a TDZ.

tree-sitter-typescript 0.23.2 parses ``using x = e`` as an assignment led by a
``using`` token; boxcheck reads it as the declaration it is.  Node.js 20 has no
``using`` of its own, so each program runs as a TypeScript user's would: compiled
by the pinned TypeScript (tests/v8) to ES2022, which keeps the binding a ``const``.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import NODE, ROOT, analyze, needs_node
from .test_v8 import typescript_installed

TYPESCRIPT = ROOT / "tests" / "v8" / "node_modules" / "typescript"

#: ``probe()`` returns what the program saw; ``open`` makes a disposable that logs its disposal.
PRELUDE = """
const log = [];
function open(name) { return { name, [Symbol.dispose]() { log.push("dispose " + name); } }; }
"""


def compiled_run(code: str, prelude: str = PRELUDE) -> list[str]:
    """Compile ``prelude + code`` with the pinned TypeScript to ES2022, run it in Node, return its ``log``."""
    assert NODE is not None
    typescript_installed()
    program = json.dumps(prelude + code + "\nprobe();\n")
    script = (f"const ts = require({json.dumps(str(TYPESCRIPT))});\n"
              f"const out = ts.transpileModule({program}, "
              "{compilerOptions: {target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS}});\n"
              "const run = new Function('exports', out.outputText + '\\nreturn log;');\n"
              "process.stdout.write(JSON.stringify(run({})));\n")
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


BEFORE_INIT = """
let x = "outer";
function probe() {
  {
    const early = () => x;
    try { log.push(early()); } catch (error) { log.push(error.constructor.name); }
    using x = open("inner");
    log.push(early().name);
  }
  log.push(x);
}
"""


@needs_node
def test_a_using_binding_captured_before_its_declaration_is_in_its_tdz():
    """The arrow names the block's ``x``: before the declaration it throws (TDZ), after it sees the resource;
    the outer ``x`` is never written."""
    assert compiled_run(BEFORE_INIT) == ["ReferenceError", "inner", "dispose inner", "outer"]
    decisions = {(d.binding.name, d.binding.kind.value): d for d in analyze(BEFORE_INIT, "probe.ts").decisions}
    inner = decisions[("x", "using")]
    assert inner.storage.value != "value" and inner.early_capture is not None, inner.reason
    assert decisions[("x", "let")].storage.value == "module"
    assert decisions[("early", "const")].storage.value == "local"


SHADOWED = """
function probe() {
  let x = "outer";
  const read = () => x;
  {
    using x = open("inner");
    log.push(x.name);
  }
  log.push(read());
}
"""


@needs_node
def test_a_using_declaration_does_not_write_an_outer_binding_of_its_name():
    assert compiled_run(SHADOWED) == ["inner", "dispose inner", "outer"]
    decisions = {(d.binding.name, d.binding.kind.value): d.storage.value for d in analyze(SHADOWED).decisions}
    assert decisions[("x", "let")] == "value"
    assert decisions[("x", "using")] == "local"


@pytest.mark.parametrize("code", [
    "{ using a = open('a'), b = open('b'); keep(() => a); keep(() => b); }",
    "async function g() { await using a = open('a'), b = open('b'); keep(() => a); keep(() => b); }",
    "for (using a = open('a'), b = open('b'); ; ) { keep(() => a); keep(() => b); break; }",
])
def test_every_declarator_of_a_using_declaration_is_a_using_binding(code):
    analysis = analyze(f"declare function open(n: string): any;\ndeclare function keep(v: unknown): void;\n"
                       f"function f() {{ {code} }}")
    kinds = {d.binding.name: (d.binding.kind.value, d.storage.value) for d in analysis.decisions}
    assert kinds["a"] == ("using", "value") and kinds["b"] == ("using", "value")


def test_using_followed_by_a_line_break_is_an_identifier():
    """``using`` then a new line is an expression statement; ``x = 1`` writes the outer ``x``."""
    analysis = analyze("declare function keep(v: unknown): void;\ndeclare let using: unknown;\n"
                       "function f() {\n  let x = 0;\n  keep(() => x);\n  {\n    using\n    x = 1;\n  }\n}\n")
    decision = next(d for d in analysis.decisions if d.binding.name == "x")
    assert decision.binding.kind.value == "let" and decision.storage.value != "value"
