"""The scope builder's constructs (DESIGN 2.1, issue 2 point 2): storage of each binding and the counts."""

from __future__ import annotations

import pytest

from .conftest import allocations, analyze, storages


def test_var_is_hoisted_to_the_function_and_written_by_its_initializer():
    result = storages("""
        function f() {
          const get = () => v;
          if (Math.random()) { var v = 1; }
          return get;
        }
    """)
    assert result == {"get": "local", "v": "box"}


def test_let_in_block_is_block_scoped_and_shadows():
    result = analyze("""
        function f() {
          let v = 1;
          { let v = 2; v++; return () => v; }
        }
    """)
    assert [d.storage.value for d in result.decisions if d.binding.name == "v"] == ["local", "value"]


def test_function_declarations_are_created_at_their_first_read_and_capture_a_const_declared_before_it():
    """The zod shape (design 2.1.1): nothing reads `g` before `s` is initialized, so a copy of `s` made when
    `g` is first read is the value every call of `g` sees."""
    result = analyze("""
        function f(i: number) {
          const s = { v: i };
          function g() { return s.v; }
          return g;
        }
    """)
    assert {d.binding.name: d.storage.value for d in result.decisions} == {"f": "module", "i": "local",
                                                                         "s": "value", "g": "local"}
    assert allocations(result, "f") == (0, 0)


def test_a_function_declaration_read_before_a_const_is_initialized_captures_it_early():
    result = analyze("""
        function f(i: number) {
          const first = g;
          const s = { v: i };
          function g() { return s.v; }
          return first;
        }
    """)
    assert next(d.storage.value for d in result.decisions if d.binding.name == "s") == "box"
    assert "a function declaration, read at 3:17" in next(d.reason for d in result.decisions
                                                                if d.binding.name == "s")
    assert allocations(result, "f") == (1, 0)


def test_parameters_captured_by_function_declarations_are_values():
    assert storages("""
        function f(i: number) {
          function g() { return i; }
          return g;
        }
    """)["i"] == "value"


def test_default_parameter_closure_capturing_a_later_parameter_captures_it_early():
    result = storages("""
        function f(get = () => later, later = 1) { return get; }
    """)
    assert result["later"] == "box"


def test_default_parameter_closure_capturing_an_earlier_parameter_is_a_value():
    assert storages("function f(first = 1, get = () => first) { return get; }")["first"] == "value"


def test_destructured_rest_and_default_parameters_are_bindings():
    result = storages("""
        function f({ a, b: [c] }: any, d = 1, ...rest: number[]) {
          return () => a + c + d + rest.length;
        }
    """)
    assert {k: result[k] for k in ("a", "c", "d", "rest")} == dict.fromkeys(("a", "c", "d", "rest"), "value")


def test_catch_parameter_including_destructuring():
    result = storages("""
        function f() {
          try { g(); } catch ({ message }) { return () => message; }
        }
    """)
    assert result["message"] == "value"


def test_for_let_head_is_per_iteration():
    result = analyze("""
        function f(n: number) {
          const fs = [];
          for (let i = 0; i < n; i++) fs.push(() => i);
          return fs;
        }
    """)
    assert {d.binding.name: d.storage.value for d in result.decisions}["i"] == "value"
    assert allocations(result, "f") == (0, 0)


def test_for_of_const_head_is_per_iteration_and_for_of_outer_binding_is_a_write():
    result = storages("""
        function f(xs: number[]) {
          let last = 0;
          const fs = [];
          for (const x of xs) fs.push(() => x);
          const get = () => last;
          for (last of xs) {}
          return [fs, get];
        }
    """)
    assert result["x"] == "value"
    assert result["last"] == "box"


def test_for_in_let_head_written_in_body_after_capture():
    result = analyze("""
        function f(o: object) {
          const fs = [];
          for (let k in o) { fs.push(() => k); k = k + "!"; }
          return fs;
        }
    """)
    assert {d.binding.name: d.storage.value for d in result.decisions}["k"] == "box"
    assert allocations(result, "f") == (0, 1)


def test_imports_are_module_bindings():
    result = storages("""
        import def, { a as b } from "m";
        import * as ns from "n";
        export function f() { return () => def + b + ns; }
    """)
    assert result == {}


def test_named_function_expression_name_scope():
    result = analyze("""
        function f() {
          const fact = function loop(n: number): number { return n ? n * (() => loop(n - 1))() : 1; };
          return fact;
        }
    """)
    names = {d.binding.name: (d.binding.kind.value, d.storage.value) for d in result.decisions}
    assert names["loop"] == ("function-name", "value")


def test_class_name_inside_its_body_is_an_inner_binding():
    result = analyze("""
        function f() {
          class Node { clone() { return new Node(); } }
          return Node;
        }
    """)
    kinds = sorted((d.binding.kind.value, d.storage.value) for d in result.decisions if d.binding.name == "Node")
    assert kinds == [("class", "local"), ("class-name", "value")]


def test_class_field_initializers_and_static_blocks_are_function_like():
    result = analyze("""
        function f(seed: number) {
          let calls = 0;
          class Counter {
            count = seed;
            #hidden = () => calls++;
            static { calls = 1; }
            get value() { return this.count; }
          }
          return Counter;
        }
    """)
    by_name = {d.binding.name: d.storage.value for d in result.decisions}
    assert by_name["seed"] == "value"
    assert by_name["calls"] == "box"


@pytest.mark.parametrize(
    "wrapped",
    ["(x)", "(x as any)", "(x satisfies number)", "x!", "(<any>x)", "((x))"],
)
def test_write_targets_wrapped_in_parentheses_and_assertions(wrapped):
    result = storages(f"""
        function f() {{
          let x = 0;
          const get = () => x;
          {wrapped} = 1;
          return get;
        }}
    """)
    assert result["x"] == "box", wrapped


def test_type_positions_are_not_references():
    result = storages("""
        function f() {
          let shape = { w: 1 };
          type Shape = typeof shape;
          interface Box { s: Shape }
          const g = <T extends Shape>(v: T): Box => ({ s: v });
          shape = { w: 2 };
          return g;
        }
    """)
    assert result["shape"] == "local"


def test_shorthand_property_reads_the_binding_and_keys_are_not_references():
    result = storages("""
        function f() {
          let count = 0;
          const o = { count, other: 1 };
          return () => ({ count, label: o.other });
        }
    """)
    assert result["count"] == "value"


def test_labels_and_member_names_are_not_references():
    result = storages("""
        function f(o: any) {
          let x = 0;
          x: for (;;) { break x; }
          const g = () => o.x;
          x++;
          return g;
        }
    """)
    assert result["x"] == "local"


def test_self_referencing_const_arrow_is_back_patched():
    assert storages("""
        function f() {
          const loop = (n: number): number => (n ? loop(n - 1) : 0);
          return loop;
        }
    """)["loop"] == "value"


def test_self_reference_through_a_call_is_captured_before_initialization():
    result = analyze("""
        function f(register: (cb: () => unknown) => () => unknown) {
          const off = register(() => off());
          return off;
        }
    """)
    assert next(d for d in result.decisions if d.binding.name == "off").storage.value == "box"
    assert "own initializer" in next(d.reason for d in result.decisions if d.binding.name == "off")


def test_mutually_recursive_function_declarations_are_values():
    result = storages("""
        function f() {
          function even(n: number): boolean { return n === 0 || odd(n - 1); }
          function odd(n: number): boolean { return n !== 0 && even(n - 1); }
          return even;
        }
    """)
    assert result["even"] == "value" and result["odd"] == "value"


def test_object_literal_methods_and_accessors_capture():
    result = analyze("""
        function f() {
          let v = 0;
          return { get value() { return v; }, set value(n) { v = n; }, reset() { v = 0; } };
        }
    """)
    assert allocations(result, "f") == (1, 0)


def test_generators_and_async_functions_are_closures_too():
    result = storages("""
        function f() {
          let n = 0;
          async function tick() { n++; }
          function* ticks() { while (true) yield n++; }
          return [tick, ticks];
        }
    """)
    assert result["n"] == "box"


def test_nested_closures_three_levels_deep():
    result = analyze("""
        function outer() {
          let depth = 0;
          return () => () => () => depth++;
        }
    """)
    assert allocations(result, "outer") == (1, 0)
    decision = next(d for d in result.decisions if d.binding.name == "depth")
    assert len(decision.captured_by) == 1


def test_module_scope_bindings_never_allocate():
    result = analyze("""
        let counter = 0;
        export const bump = () => ++counter;
    """)
    assert {d.binding.name: d.storage.value for d in result.decisions} == {"counter": "module", "bump": "module"}


def test_blocks_that_run_once_merge_into_the_call():
    result = analyze("""
        function f(flag: boolean) {
          let a = 0;
          if (flag) { let b = 0; return () => ++a + ++b; }
          try { let c = 0; return () => c++; } catch { }
          return () => a++;
        }
    """)
    assert allocations(result, "f") == (1, 0)
    site = next(d.site for d in result.decisions if d.binding.name == "a")
    assert site.kind.value == "context" and [d.binding.name for d in site.decisions] == ["a", "b", "c"]


def test_loop_body_bindings_are_grouped_per_iteration():
    result = analyze("""
        function f(n: number) {
          const fs = [];
          for (let i = 0; i < n; i++) {
            let hits = 0;
            fs.push(() => ++hits + i++);
          }
          return fs;
        }
    """)
    assert allocations(result, "f") == (0, 1)
    site = next(d.site for d in result.decisions if d.binding.name == "hits")
    assert site.kind.value == "context" and site.multiplicity == "per-iteration"


def test_direct_eval_makes_visible_bindings_conservative_and_is_reported():
    result = analyze("""
        function f(src: string) {
          let quiet = 1;
          eval(src);
          return quiet;
        }
    """)
    quiet = next(d for d in result.decisions if d.binding.name == "quiet")
    assert quiet.storage.value == "context"
    assert [d.binding.name for d in quiet.site.decisions] == ["src", "quiet"]
    # one BX101 for the function (on `src`, naming `quiet`, which shares its context), and the BX002
    assert [d.rule.code for d in result.diagnostics] == ["BX101", "BX002"]
    heap = result.diagnostics[0]
    assert "1 heap context per call for `src`, `quiet`" in heap.message
    assert [message.split(":")[0] for _, _, message in heap.related] == ["`quiet` shares it"]


def test_shadowed_eval_is_not_direct():
    result = storages("""
        function f(evaluate: (s: string) => void) {
          const eval2 = evaluate;
          let quiet = 1;
          eval2("x");
          return quiet;
        }
    """)
    assert result["quiet"] == "local"


def test_with_statement_is_conservative():
    result = storages("""
        function f(o: any) {
          let x = 1;
          with (o) { x; }
          return x;
        }
    """, path="test.js")
    assert result["x"] == "context" and result["o"] == "context"


def test_unicode_escapes_in_identifiers_name_the_same_binding():
    result = analyze("""
        export function f() {
          let \\u0062ar = 1;
          return { get: () => bar, set() { b\\u{61}r = 2; } };
        }
    """)
    assert [(d.binding.name, d.storage.value) for d in result.decisions if d.binding.name == "bar"] == [("bar", "box")]
    assert allocations(result, "f") == (1, 0)


def test_direct_eval_spelled_with_an_escape_is_still_direct():
    assert storages("function f(s: string) { let x = 1; \\u0065val(s); return x; }")["x"] == "context"
