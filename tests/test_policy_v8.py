"""Policy `v8` (POLICIES.md): a context slot for every binding an inner function refers to, one
context per V8 scope that has a slot, made on scope entry; no by-value, no escape.

The scope splits asserted here (parameters vs. the body of a function with non-simple parameters,
catch parameter vs. catch block, loop head vs. loop body, class scope, named function expression)
were checked with `node --allow-natives-syntax` and `%DebugPrint` on Node 20 (V8 11.3)."""

from __future__ import annotations

import io
import json
import textwrap
from contextlib import redirect_stdout

import pytest

from capture_analysis.analyze import FileAnalysis, analyze_text
from capture_analysis.cli import main
from capture_analysis.policies import POLICIES, Policy
from capture_analysis.results import PolicySite

from .conftest import ROOT

V8: Policy = POLICIES["v8"]


def v8(code: str, path: str = "test.ts") -> FileAnalysis:
    return analyze_text(path, textwrap.dedent(code), V8)


def contexts(analysis: FileAnalysis, function: str) -> list[tuple[list[str], str]]:
    """Each context site of ``function``: its bindings and its multiplicity."""
    __tracebackhide__ = True  # the model's repr is too big for a traceback
    report = next(f for f in analysis.functions if f.closure.name == function)
    return [([d.binding.name for d in site.decisions], site.multiplicity) for site in report.sites]


def storage(analysis: FileAnalysis, name: str) -> str:
    __tracebackhide__ = True  # the model's repr is too big for a traceback
    return next(d.storage.value for d in analysis.decisions if d.binding.name == name)


@pytest.mark.parametrize(("example", "function"), [
    ("factories.ts", "makeTally"),
    ("factories.ts", "makeTallyObject"),
    ("factories.ts", "makeOps"),
    ("factories.ts", "makeOpTable"),
    ("factories.ts", "makeMachine"),
    ("probes.ts", "constNumber"),
    ("probes.ts", "constArrow"),
    ("probes.ts", "declaredFunction"),
    ("probes.ts", "siblingCall"),
    ("scanner.ts", "createScanner"),
])
def test_reference_shapes_make_one_function_context(example, function):
    path = ROOT / "examples" / example
    analysis = analyze_text(str(path), path.read_text(), V8)
    report = next(f for f in analysis.functions if f.closure.name == function)
    assert (report.per_call, report.per_iteration) == (1, 0)
    assert [site.kind.value for site in report.sites] == ["context"]


def test_a_never_written_capture_still_gets_a_slot():
    analysis = v8("""
        function numConst(i: number) {
          const n = i;
          return () => n + 1;
        }
    """)
    assert storage(analysis, "n") == "context"
    assert storage(analysis, "i") == "local"
    assert contexts(analysis, "numConst") == [(["n"], "per-call")]


def test_escape_does_not_matter():
    analysis = v8("""
        function f(i: number) {
          let s = 0;
          const add = () => { s += i; };
          add();
          return s;
        }
    """)
    assert contexts(analysis, "f") == [(["i", "s"], "per-call")]


def test_nothing_captured_means_no_context():
    analysis = v8("""
        function f(i: number) {
          let s = i;
          s++;
          return s;
        }
    """)
    assert analysis.functions[0].sites == []
    assert {d.binding.name: d.storage.value for d in analysis.decisions} == {"f": "module", "i": "local",
                                                                         "s": "local"}


def test_module_bindings_cost_nothing_per_call():
    analysis = v8("""
        let counter = 0;
        export function bump() { return () => ++counter; }
    """)
    assert storage(analysis, "counter") == "module"
    assert contexts(analysis, "bump") == []


def test_simple_parameters_share_the_function_context_with_the_body():
    analysis = v8("""
        function f(a: number, b?: number) {
          let x = 2;
          return () => a + x;
        }
    """)
    assert contexts(analysis, "f") == [(["a", "x"], "per-call")]


@pytest.mark.parametrize("params", ["a = 1", "...a: number[]", "{ a }: { a: number }", "b: number, [a] = [1]"])
def test_non_simple_parameters_give_the_body_a_context_of_its_own(params):
    analysis = v8(f"""
        function f({params}) {{
          let x = 2;
          return () => [a, x];
        }}
    """)
    assert contexts(analysis, "f") == [(["a"], "per-call"), (["x"], "per-call")]


def test_blocks_are_not_merged_into_the_function():
    analysis = v8("""
        function f() {
          var v = 1;
          {
            let w = 2;
            return () => v + w;
          }
        }
    """)
    assert contexts(analysis, "f") == [(["v"], "per-call"), (["w"], "per-call")]


def test_loop_head_and_loop_body_are_two_contexts_per_iteration():
    analysis = v8("""
        function f(n: number) {
          const fs = [];
          for (let k = 0; k < n; k++) {
            const g = 1;
            fs.push(() => k + g);
          }
          return fs;
        }
    """)
    assert contexts(analysis, "f") == [(["k"], "per-iteration"), (["g"], "per-iteration")]
    report = analysis.functions[0]
    assert (report.per_call, report.per_iteration) == (0, 2)


def test_for_of_head_and_while_body_are_per_iteration():
    analysis = v8("""
        function f(xs: number[]) {
          const fs = [];
          for (const v of xs) fs.push(() => v);
          let i = 0;
          while (i < 3) { let m = i++; fs.push(() => m); }
          return fs;
        }
    """)
    assert contexts(analysis, "f") == [(["v"], "per-iteration"), (["m"], "per-iteration")]


def test_every_named_catch_parameter_gets_a_catch_context():
    analysis = v8("""
        function f() {
          try { throw 1; } catch (e) { return String(e); }
        }
    """)
    assert storage(analysis, "e") == "context"
    assert contexts(analysis, "f") == [(["e"], "per-call")]
    site = analysis.functions[0].sites[0]
    assert isinstance(site, PolicySite) and site.conditional
    assert "named catch parameter" in analysis.decisions[-1].reason


def test_catch_block_is_a_scope_apart_from_the_catch_parameter():
    analysis = v8("""
        function f() {
          try { throw 1; } catch (e) { let y = 2; return () => y; }
        }
    """)
    assert contexts(analysis, "f") == [(["e"], "per-call"), (["y"], "per-call")]


def test_destructured_catch_names_live_in_the_catch_block():
    analysis = v8("""
        function f() {
          try { throw { m: 1 }; } catch ({ m }) { return () => m; }
        }
    """)
    assert contexts(analysis, "f") == [(["m"], "per-call")]
    assert "catch block" in next(d.reason for d in analysis.decisions if d.binding.name == "m")


def test_a_block_in_a_branch_is_a_conditional_context():
    analysis = v8("""
        function f(t: boolean) {
          if (t) {
            let y = 1;
            return () => y;
          }
          return null;
        }
    """)
    (site,) = analysis.functions[0].sites
    assert isinstance(site, PolicySite) and site.conditional
    assert "made only when this branch runs" in site.decisions[0].reason


def test_a_block_that_always_runs_is_not_conditional():
    analysis = v8("""
        function f() {
          try { let y = 1; return () => y; } finally { }
        }
    """)
    (site,) = analysis.functions[0].sites
    assert isinstance(site, PolicySite) and not site.conditional


def test_class_name_captured_by_a_method_lives_in_the_class_context():
    analysis = v8("""
        function f() {
          class A { m() { return A; } }
          return new A().m;
        }
    """)
    decisions = [d for d in analysis.decisions if d.binding.name == "A"]
    assert [d.storage.value for d in decisions] == ["local", "context"]
    assert contexts(analysis, "f") == [(["A"], "per-call")]
    assert "class context" in decisions[1].reason


def test_named_function_expression_name_lives_in_its_own_function_context():
    analysis = v8("""
        function f() {
          return function g() { return () => g; };
        }
    """)
    assert contexts(analysis, "f") == []
    assert contexts(analysis, "g") == [(["g"], "per-call")]


def test_direct_eval_gives_every_visible_binding_a_slot():
    analysis = v8("""
        function f(src: string) {
          let a = 1;
          { let hidden = 2; hidden++; }
          return eval(src);
        }
    """)
    assert storage(analysis, "a") == "context"
    assert storage(analysis, "src") == "context"
    assert storage(analysis, "hidden") == "local"
    assert contexts(analysis, "f") == [(["src", "a"], "per-call")]


def test_message_says_what_v8_allocates():
    analysis = v8("""
        function numConst(i: number) {
          const n = i;
          return () => n + 1;
        }
    """)
    (diagnostic,) = [d for d in analysis.diagnostics if d.rule.code == "BX101"]
    assert diagnostic.message == ("under `v8`, `numConst` gets 1 heap context per call for `n`: state that closures "
                                  "write and that outlives the call, which any compiler must keep on the heap, once "
                                  "per call at least (`n`: referenced across a function boundary by the arrow at "
                                  "4:10: V8 gives it a context slot, written or not; the slot is in the function "
                                  "context)")


def test_cli_json_validates_and_names_the_policy(monkeypatch, schema_validator):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["--policy", "v8", "--format", "json", "examples/"])
    doc = json.loads(out.getvalue())
    schema_validator.validate(doc)
    assert code == 1
    assert doc["policy"] == "v8"
    by_name = {f["name"]: f for entry in doc["files"] for f in entry["functions"]}
    assert by_name["makeTally"]["allocations"]["sites"] == [
        {"id": "makeTally@5:8#0", "kind": "context", "multiplicity": "per-call", "bindings": ["total", "previous"],
         "line": 5},
    ]
    assert by_name["counterPerIteration"]["allocations"]["per_iteration"] == 2
