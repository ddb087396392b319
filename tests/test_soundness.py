"""Soundness family: for every write form, a write after capture rules out `value`;
the same write before capture does not (DESIGN 2.1)."""

from __future__ import annotations

import pytest

from .conftest import storages

WRITE_FORMS = {
    "assign": "x = 2;",
    "plus-assign": "x += 2;",
    "minus-assign": "x -= 1;",
    "times-assign": "x *= 3;",
    "exponent-assign": "x **= 2;",
    "shift-assign": "x <<= 1;",
    "bitwise-assign": "x |= 4;",
    "nullish-assign": "x ??= 3;",
    "or-assign": "x ||= 3;",
    "and-assign": "x &&= 3;",
    "postfix-increment": "x++;",
    "prefix-decrement": "--x;",
    "array-destructuring": "[x] = [2];",
    "array-destructuring-default": "[x = 5] = [];",
    "array-destructuring-rest": "[, ...x] = [1, 2];",
    "nested-destructuring": "({ a: [x] } = { a: [2] });",
    "object-shorthand-destructuring": "({ x } = { x: 2 });",
    "object-shorthand-default": "({ x = 4 } = {});",
    "object-rest": "({ ...x } = { y: 1 });",
    "parenthesized": "(x) = 2;",
    "as-assertion": "(x as any) = 2;",
    "satisfies": "(x satisfies any) = 2;",
    "non-null": "x! = 2;",
    "angle-assertion": "(<any>x) = 2;",
    "for-of-head": "for (x of [1, 2]) {}",
    "for-in-head": "for (x in { a: 1 }) {}",
    "for-of-destructuring-head": "for ([x] of [[1]]) {}",
    "in-expression": "const y = (x = 2) + 1;",
    "in-sequence": "(0, x = 2);",
}


def program(write: str, *, after: bool) -> str:
    body = ["let x: any = 1;"]
    capture = "const get = () => x;"
    body += [capture, write] if after else [write, capture]
    body.append("return get;")
    return "function f() {\n" + "\n".join("  " + line for line in body) + "\n}\n"


@pytest.mark.parametrize("form", sorted(WRITE_FORMS))
def test_write_after_capture_is_never_value(form):
    result = storages(program(WRITE_FORMS[form], after=True))
    assert result["x"] not in ("value", "local"), form


@pytest.mark.parametrize("form", sorted(WRITE_FORMS))
def test_write_before_capture_keeps_value(form):
    result = storages(program(WRITE_FORMS[form], after=False))
    assert result["x"] == "value", form


@pytest.mark.parametrize("form", sorted(WRITE_FORMS))
def test_write_inside_any_closure_is_after_capture(form):
    code = f"""
        function f() {{
          let x: any = 1;
          const set = () => {{ {WRITE_FORMS[form]} }};
          return set;
        }}
    """
    assert storages(code)["x"] not in ("value", "local"), form


def test_write_before_capture_in_a_loop_that_does_not_own_the_binding():
    result = storages("""
        function f(n: number) {
          let x = 0;
          const fs = [];
          while (n--) { x = n; fs.push(() => x); }
          return fs;
        }
    """)
    assert result["x"] == "box"


def test_write_in_for_update_after_closure_in_body():
    result = storages("""
        function f(n: number) {
          let x = 0;
          const fs = [];
          for (let i = 0; i < n; x++, i++) fs.push(() => x);
          return fs;
        }
    """)
    assert result["x"] == "box"


def test_write_in_for_test_after_closure_in_body():
    result = storages("""
        function f(n: number) {
          let x = 0;
          const fs = [];
          for (; (x = n--) > 0;) fs.push(() => x);
          return fs;
        }
    """)
    assert result["x"] == "box"


def test_do_while_condition_write_follows_the_body_closure():
    result = storages("""
        function f(n: number) {
          let x = 0;
          const fs = [];
          do { fs.push(() => x); } while ((x = n--) > 0);
          return fs;
        }
    """)
    assert result["x"] == "box"


def test_closure_in_for_update_sees_the_next_iterations_body_write():
    result = storages("""
        function f(n: number) {
          const fs = [];
          for (let i = 0; i < n; i++, fs.push(() => i)) { i += 1; }
          return fs;
        }
    """)
    assert result["i"] not in ("value", "local")


def test_var_loop_variable_is_written_by_the_update_after_capture():
    result = storages("""
        function f(n: number) {
          const fs = [];
          for (var i = 0; i < n; i++) fs.push(() => i);
          return fs;
        }
    """)
    assert result["i"] == "box"


def test_var_initializer_runs_after_a_hoisted_function_captured_it():
    """``get`` is read (handed out) before ``var v = 1`` runs: a call then sees ``undefined``, a later one 1."""
    result = storages("""
        function f(keep: (g: () => number) => void) {
          keep(get);
          function get() { return v; }
          var v = 1;
          return get;
        }
    """)
    assert result["v"] == "box"


def test_var_initializer_before_the_first_read_of_a_function_declaration_is_a_copy():
    """Design 2.1.1: ``get`` is first read by ``return get``, after ``var v = 1`` ran."""
    result = storages("""
        function f() {
          function get() { return v; }
          var v = 1;
          return get;
        }
    """)
    assert result["v"] == "value"


def test_labelled_continue_does_not_hide_a_loop_write():
    result = storages("""
        function f(xs: number[]) {
          let last = 0;
          const fs = [];
          outer: for (const x of xs) {
            fs.push(() => last);
            if (x) continue outer;
            last = x;
          }
          return fs;
        }
    """)
    assert result["last"] == "box"


def test_nested_loop_write_before_capture_in_the_inner_loop():
    result = storages("""
        function f(n: number) {
          const fs = [];
          for (let i = 0; i < n; i++) {
            let acc = 0;
            for (let j = 0; j < n; j++) { acc += j; fs.push(() => acc); }
          }
          return fs;
        }
    """)
    assert result["acc"] not in ("value", "local")


@pytest.mark.parametrize(
    "statement",
    [
        "x = keep(() => x);",
        "x += keep(() => x);",
        "x ??= keep(() => x);",
        "[x] = [keep(() => x)];",
        "({ k: x } = { k: keep(() => x) });",
        "[x = keep(() => x)] = [];",
        "for (x of [keep(() => x)]) {}",
        "for (x in { a: keep(() => x) }) {}",
    ],
)
def test_a_closure_created_in_the_assigned_value_exists_before_the_write(statement):
    result = storages(f"""
        declare function keep<T>(value: T): T;
        function f(x: any) {{
          {statement}
        }}
    """)
    assert result["x"] == "box", statement


def test_var_initializer_closure_exists_before_the_initializing_write():
    assert storages("""
        declare function keep<T>(value: T): T;
        function f() { var h = keep(() => h); }
    """)["h"] == "box"


def test_closure_in_for_test_clause_is_in_the_current_iterations_copy():
    result = storages("""
        declare function keep(value: unknown): void;
        function onlyUpdated(n: number) { for (let i = 0; keep(() => i), i < n; i++) {} }
        function bodyWrites(n: number) { for (let j = 0; keep(() => j), j < n; j++) { j += 1; } }
    """)
    assert result["i"] == "value"
    assert result["j"] == "box"


@pytest.mark.parametrize(
    "statement",
    [
        "let { a = (x = 1) } = { b: keep(() => x) };",
        "({ a = (x = 1) } = { b: keep(() => x) });",
        "[, a = (x = 1)] = [keep(() => x)];",
        "const { [(x = 1, 'k')]: a } = { b: keep(() => x) };",
        "for (const { a = (x = 1) } of [{ b: keep(() => x) }]) {}",
    ],
)
def test_writes_inside_a_pattern_run_after_its_source(statement):
    result = storages(f"""
        declare function keep<T>(value: T): T;
        function f(x: any, a: any) {{
          {statement}
        }}
    """)
    assert result["x"] == "box", statement
