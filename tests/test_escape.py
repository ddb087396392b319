"""Escape analysis (DESIGN 2.2): the value-flow graph directly, and its effect on `stack`."""

from __future__ import annotations

import subprocess

import pytest

from capture_analysis.escape import ESCAPE, EscapeGraph

from .conftest import NODE, allocations, analyze, needs_node, storage_of, storages


def closure_named(analysis, name):
    return next(c for c in analysis.model.closures if c.name == name)


# -- the graph itself ------------------------------------------------------------------


def test_graph_edges_carry_where_and_why():
    analysis = analyze("""
        function f() {
          const inc = () => 1;
          const alias = inc;
          return alias;
        }
    """)
    graph: EscapeGraph = analysis.graph
    inc = closure_named(analysis, "inc")
    bindings = {b.name: b for b in analysis.model.bindings}
    assert graph.graph.has_edge(inc, bindings["inc"])
    assert graph.graph.has_edge(bindings["inc"], bindings["alias"])
    assert graph.note_of(bindings["alias"], ESCAPE)[1] == "returned"
    chain = graph.escape_chain(inc)
    assert [step.text for step in chain] == ["`inc`: stored in `inc`", "`inc`: stored in `alias`",
                                             "`alias`: returned"]
    positions = [str(analysis.source.position(step.offset)) for step in chain]
    assert positions == ["3:15", "4:17", "5:10"]


def test_what_a_closure_reaches_is_listed_nearest_first():
    """``reaches`` answers ``decide``'s "stored in a binding that outlives the iteration": the binding it names
    is the first listed, so the list has an order of its own (breadth first), not a set's."""
    analysis = analyze("""
        function f(out) {
          const g = () => 1;
          const a = g;
          const b = a;
          out.push(b);
        }
    """)
    bindings = {b.name: b for b in analysis.model.bindings}
    reached = analysis.graph.reaches(closure_named(analysis, "g"))
    assert reached[:3] == [bindings["g"], bindings["a"], bindings["b"]]
    assert reached[-1] == ESCAPE and closure_named(analysis, "g") not in reached


def test_the_graph_keeps_only_what_a_closure_reaches():
    analysis = analyze("""
        function f(n) {
          const total = n + 1;
          record(total);
          const show = () => total;
          const alias = show;
          return alias;
        }
    """)
    graph = analysis.graph.graph
    bindings = {b.name: b for b in analysis.model.bindings}
    show = closure_named(analysis, "show")
    # `total` is passed to a call and captured by `show`, but no closure flows into it:
    # its edges answer no question, so they are not kept.
    assert bindings["total"] not in graph and bindings["n"] not in graph
    assert graph.has_edge(show, bindings["show"]) and graph.has_edge(bindings["alias"], ESCAPE)
    assert analysis.graph.escapes(show)
    assert storage_of(analysis, "total") == "value"


def test_called_values_have_no_edges():
    analysis = analyze("""
        function f() {
          const g = () => 1;
          g(); g?.(); (g as any)(); g.call(null);
          return 0;
        }
    """)
    g = closure_named(analysis, "g")
    assert not analysis.graph.escapes(g)
    assert analysis.graph.escape_chain(g) == []


@pytest.mark.parametrize(
    ("use", "why"),
    [
        ("return g;", "returned"),
        ("throw g;", "thrown"),
        ("sink(g);", "passed as an argument"),
        ("new Sink(g);", "passed as an argument"),
        ("const o = { g };", "stored in an object literal"),
        ("const o = { k: g };", "stored in an object literal"),
        ("const a = [g];", "stored in an array literal"),
        ("holder.g = g;", "stored into a property"),
        ("holder[0] = g;", "stored into a property"),
        ("outer = g;", "assigned to `outer` of an enclosing function"),
        ("glob = g;", "assigned to the global `glob`"),
        ("g.bind(null);", "receiver of `.bind()`"),
        ("const o = { ...g };", "spread"),
    ],
)
def test_each_escape_rule(use, why):
    analysis = analyze(f"""
        function top() {{
          let outer: any;
          function f(sink: any, Sink: any, holder: any) {{
            const g = () => 1;
            {use}
          }}
          return [f, outer];
        }}
    """)
    g = closure_named(analysis, "g")
    assert analysis.graph.escapes(g), use
    assert why in analysis.graph.escape_chain(g)[-1].text, use


def test_yield_and_export_escape():
    analysis = analyze("""
        export const exported = () => 1;
        function* gen() { const g = () => 1; yield g; }
    """)
    assert analysis.graph.escapes(closure_named(analysis, "exported"))
    assert "yielded" in analysis.graph.escape_chain(closure_named(analysis, "g"))[-1].text


def test_conditional_logical_and_sequence_pass_values_through():
    analysis = analyze("""
        function f(c: boolean) {
          const a = () => 1;
          const b = () => 2;
          const d = () => 3;
          const e = () => 4;
          if (c ? a : b) {}
          const pick = c ? a : b;
          const either = d || e;
          return [pick, (0, either)];
        }
    """)
    for name in "abde":
        assert analysis.graph.escapes(closure_named(analysis, name)), name


def test_captured_by_an_escaping_closure_escapes():
    analysis = analyze("""
        function f() {
          const helper = () => 1;
          const api = () => helper();
          return api;
        }
    """)
    chain = analysis.graph.escape_chain(closure_named(analysis, "helper"))
    assert [s.text for s in chain] == ["`helper`: stored in `helper`", "`helper`: captured by `api`",
                                       "`api`: stored in `api`", "`api`: returned"]


# -- the decisions it drives -------------------------------------------------------------


def test_iife_that_increments_a_captured_let_is_stack():
    result = analyze("""
        function f() {
          let n = 0;
          (() => { n++; })();
          return n;
        }
    """)
    assert storages("function f() { let n = 0; (() => { n++; })(); return n; }")["n"] == "stack"
    assert allocations(result, "f") == (0, 0)


def test_local_arrow_only_called_is_stack():
    result = analyze("""
        function f(xs: number[]) {
          let total = 0;
          const add = (x: number) => { total += x; };
          for (const x of xs) add(x);
          return total;
        }
    """)
    assert next(d for d in result.decisions if d.binding.name == "total").storage.value == "stack"
    assert allocations(result, "f") == (0, 0)


def test_local_arrow_aliased_then_returned_is_box():
    result = analyze("""
        function f() {
          let total = 0;
          const add = (x: number) => { total += x; };
          const alias = add;
          return alias;
        }
    """)
    decision = next(d for d in result.decisions if d.binding.name == "total")
    assert decision.storage.value == "box"
    assert "returned at 6:10" in decision.reason


def test_value_wins_over_stack_for_a_const_arrow_captured_by_a_sibling_only_called():
    result = analyze("""
        function f(i: number) {
          const g = (x: number) => x + i;
          const h = () => g(1);
          return h();
        }
    """)
    assert {d.binding.name: d.storage.value for d in result.decisions if d.binding.name != "x"} == {
        "f": "module", "i": "value", "g": "value", "h": "local"}
    assert allocations(result, "f") == (0, 0)


def test_closure_passed_to_foreach_escapes_unless_the_receiver_is_known_an_array():
    assert storages("""
        function f(xs: number[]) {
          let total = 0;
          xs.forEach((x) => { total += x; });
          return total;
        }
    """)["total"] == "stack"
    assert storages("""
        function f(xs: any) {
          let total = 0;
          xs.forEach((x) => { total += x; });
          return total;
        }
    """)["total"] == "box"


def test_sibling_that_escapes_versus_one_that_does_not():
    escaping = storages("""
        function f() {
          let n = 0;
          const bump = () => n++;
          const api = () => bump();
          return api;
        }
    """)
    staying = storages("""
        function f() {
          let n = 0;
          const bump = () => n++;
          const run = () => bump();
          run();
          return n;
        }
    """)
    assert escaping["n"] == "box"
    assert staying["n"] == "stack"


def test_conditional_aliasing_escapes():
    assert storages("""
        function f(c: boolean) {
          let n = 0;
          const bump = () => n++;
          const other = () => 0;
          const chosen = c ? bump : other;
          return chosen;
        }
    """)["n"] == "box"


def test_closure_stored_in_returned_object_escapes():
    assert storages("""
        function f() {
          let n = 0;
          const bump = () => n++;
          const api = { bump };
          return api;
        }
    """)["n"] == "box"


def test_non_escaping_closures_in_a_loop_keep_per_iteration_bindings_in_the_frame():
    result = analyze("""
        function f(xs: number[]) {
          let sum = 0;
          for (const x of xs) {
            let local = x;
            const twice = () => { local *= 2; };
            twice();
            sum += local;
          }
          return sum;
        }
    """)
    assert next(d for d in result.decisions if d.binding.name == "local").storage.value == "stack"
    assert allocations(result, "f") == (0, 0)


def test_closure_kept_past_its_iteration_needs_heap_storage_per_iteration():
    result = analyze("""
        function f(xs: number[]) {
          let keep: () => void = () => {};
          for (const x of xs) {
            let local = x;
            const twice = () => { local *= 2; };
            keep = twice;
          }
          keep();
          return keep;
        }
    """)
    decision = next(d for d in result.decisions if d.binding.name == "local")
    assert decision.storage.value == "box"
    assert allocations(result, "f") == (0, 1)


def test_closure_kept_in_an_outer_local_across_iterations_is_not_stack():
    result = analyze("""
        function f(xs: number[]) {
          let first: (() => number) | undefined;
          for (const x of xs) {
            let local = x;
            const read = () => local++;
            if (!first) first = read;
          }
          return first ? first() : 0;
        }
    """)
    decision = next(d for d in result.decisions if d.binding.name == "local")
    assert decision.storage.value == "box"
    assert "outlives the loop iteration" in decision.reason


# -- calls that outlive their caller -----------------------------------------------------


ASYNC_WRITER = """
function start(log) {
  let done = false;
  (async () => { await null; done = true; log.push("written"); })();
  log.push("returned");
  return () => done;
}
"""
GENERATOR_READER = """
function start(log) {
  let next = 0;
  const items = (function* () { log.push("read " + next); yield next; })();
  next = 1;
  log.push("returned");
  return items;
}
"""


@needs_node
@pytest.mark.parametrize(("code", "run", "order", "name"), [
    (ASYNC_WRITER, "const get = start(log); setTimeout(() => { log.push(String(get())); done(); });",
     "returned,written,true", "done"),
    (GENERATOR_READER, "start(log).next(); done();", "returned,read 1", "next"),
])
def test_an_async_or_generator_call_runs_after_its_caller_returned(code, run, order, name):
    """Node shows the closure's body touching the binding after its creator returned, although the
    closure is only called: so the binding cannot live in the creator's frame (`stack`)."""
    script = f"const log = [];\nconst done = () => process.stdout.write(log.join(','));\n{code}\n{run}\n"
    ran = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    assert ran.stdout == order
    assert storages(code, "script.js")[name] == "box"
    reason = next(d.reason for d in analyze(code, "script.js").decisions if d.binding.name == name)
    assert "an async function" in reason or "a generator" in reason


#: how ``make`` hands out an object whose ``constructor`` is ``F``.
HANDED_OUT = {
    "new": "const out = new F();",
    "prototype": "const out = F.prototype;",
    "computed-key": "const out = F[key];",
    "object-pattern": "const { prototype: out } = F;",
}


@needs_node
@pytest.mark.parametrize("form", sorted(HANDED_OUT))
def test_a_function_leaks_through_its_prototype(form):
    """``new F()`` and ``F.prototype`` hand out an object whose ``constructor`` is ``F``: Node calls ``F``
    after ``make`` returned, and it reads ``x``, so ``x`` cannot live in ``make``'s frame."""
    code = (f"function make(key) {{\n  let x = 1;\n  function F() {{ this.v = x; }}\n  {HANDED_OUT[form]}\n"
            "  x = 2;\n  return out;\n}\n")
    run = "process.stdout.write(String(new (make('prototype').constructor)().v));\n"
    ran = subprocess.run([NODE, "-e", code + run], capture_output=True, text=True, timeout=60, check=True)
    assert ran.stdout == "2"
    assert storages(code, "script.js")["x"] == "box", form


@needs_node
def test_a_named_function_expression_that_returns_itself_escapes():
    code = ("function make() {\n  let x = 1;\n  const F = function G() { return [x, G]; };\n  const h = F()[1];\n"
            "  x = 2;\n  return h;\n}\n")
    ran = subprocess.run([NODE, "-e", code + "process.stdout.write(String(make()()[0]));"], capture_output=True,
                         text=True, timeout=60, check=True)
    assert ran.stdout == "2"
    assert storages(code, "script.js")["x"] == "box"


#: ``x ??= e`` and ``x ||= e`` evaluate to ``x``'s old value when that is not nullish (truthy): a closure.
OLD_VALUE = {
    "??= returned": "function make(a) {\n  let x = () => a;\n  a = 1;\n  return x ??= null;\n}\n",
    "||= in a declaration": "function make(a) {\n  let x = () => a;\n  a = 1;\n  const y = (x ||= null);\n"
                            "  return y;\n}\n",
}


@needs_node
@pytest.mark.parametrize("name", sorted(OLD_VALUE))
def test_the_value_of_a_logical_assignment_may_be_the_old_closure(name):
    code = OLD_VALUE[name]
    ran = subprocess.run([NODE, "-e", code + "process.stdout.write(String(make(0)()));"], capture_output=True,
                         text=True, timeout=60, check=True)
    assert ran.stdout == "1"  # the closure held in x outlived make and sees the write
    assert storages(code, "script.js")["a"] == "box", name
