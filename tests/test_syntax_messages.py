"""A syntax error's message names what is left open (the bracket, string or template literal) where the tree
says which, and points where the text stopped making sense: not at a reserved word the recovery read as a
name, nor at the start of the damage.

Positions are the reports' own: 1-based lines and UTF-16 columns, astral characters counted twice.
"""

from __future__ import annotations

import pytest

from capture_analysis import rules
from capture_analysis.analyze import FileAnalysis, analyze_text


def syntax_errors(code: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Each BX001 as (where, message, [(where, message)] of its related locations)."""
    analysis: FileAnalysis = analyze_text("t.ts", code)
    where = analysis.source.position
    return [(str(where(d.start)), d.message.removeprefix("syntax error: "),
             [(str(where(start)), note) for start, _, note in d.related])
            for d in analysis.diagnostics if d.rule is rules.SYNTAX_ERROR]


def test_a_call_without_its_parenthesis_names_the_one_it_leaves_open():
    code = "export function f(s: number) {\n  let c = s;\n  keep(c, () => c++;\n  return () => c;\n}\n"
    assert syntax_errors(code) == [("3:20", "missing `)` to close the `(` at 3:7 in an argument list",
                                    [("3:7", "the `(` left open")])]


def test_a_parenthesis_left_open_is_reported_where_typescript_expects_its_close_and_no_reserved_word_is():
    """The recovery reads `return` as a name inside the ERROR; it is where TypeScript says "`)` expected", not
    "a reserved word used as a name" (what the report said, with a second error at the `}`)."""
    code = "export function f() {\n  let x = (1\n  return x\n}\n"
    assert syntax_errors(code) == [("3:3", "missing `)` to close the `(` at 2:11", [("2:11", "the `(` left open")])]


def test_an_export_after_an_open_parenthesis_is_no_reserved_word_used_as_a_name():
    """Issue 42's shape: the recovery reads the next line's `export` as a name inside the ERROR, and the report
    said "unexpected `export`: a reserved word used as a name" there, after "unexpected `result`"."""
    code = "const hook = ((\n  result\nexport function f(s: number) {\n  let c = s;\n  return () => c++;\n}\n"
    assert syntax_errors(code) == [("2:3", "missing `)` to close the `(` at 1:14", [("1:14", "the `(` left open")])]


def test_an_argument_left_open_in_a_return_names_its_parenthesis_not_the_name_before_the_end():
    code = "export function f(t: number) {\n  return [1, 2].map((x) => x + t;\n}\n"
    ((where, message, related),) = syntax_errors(code)
    assert message == "missing `)` to close the `(` at 2:20" and where == "2:32" and related == [
        ("2:20", "the `(` left open")]


def test_a_callback_s_call_left_open_names_the_call_s_parenthesis_lines_above():
    code = ("export function f(s: number) {\n  let c = s;\n  items.forEach((x) => {\n    c += x;\n  }\n"
            "  return () => c;\n}\n")
    assert ("6:17", "missing `)` to close the `(` at 3:16 in an argument list", [("3:16", "the `(` left open")]) \
        in syntax_errors(code)


def test_a_block_without_its_brace_names_the_brace_the_tree_leaves_open():
    """Which `{` lacks its `}` is the tree's reading: the `if`'s `}` closes the function's block in it."""
    code = "export function f(s: number) {\n  let c = s;\n  if (c > 0) {\n    c++;\n  return () => c;\n}\n"
    assert syntax_errors(code) == [("7:1", "missing `}` to close the `{` at 1:30 in a block",
                                    [("1:30", "the `{` left open")])]


def test_an_array_without_its_bracket_names_it():
    code = "export function f(s: number) {\n  const xs = [s, 2;\n  return () => xs;\n}\n"
    assert syntax_errors(code) == [("2:19", "missing `]` to close the `[` at 2:14 in an array literal",
                                    [("2:14", "the `[` left open")])]


@pytest.mark.parametrize("code, expected", [
    ("export function f(s: number) {\n  let a = 1,, b = 2;\n  return () => a + b;\n}\n",
     ("2:12", "unexpected `,` in a declaration", [])),
    ("export function f(s: number,, t: number) {\n  return () => s + t;\n}\n",
     ("1:28", "unexpected `,` in a parameter list", [])),
])
def test_a_stray_comma_is_reported_at_itself(code, expected):
    assert syntax_errors(code) == [expected]


@pytest.mark.parametrize("quote", ["'", '"'])
def test_an_unterminated_string_is_reported_at_its_quote_not_at_the_next_line(quote):
    """It used to be "unexpected `return` in a declaration", on the line after."""
    code = f"export function f(s: number) {{\n  const label = {quote}abc;\n  return () => s;\n}}\n"
    assert syntax_errors(code) == [
        ("2:17", f"unterminated string literal: no closing `{quote}` before the end of the line", [])]


@pytest.mark.parametrize("template", ["`abc;", "`abc ${s} def;"])
def test_an_unterminated_template_literal_is_reported_at_its_backtick(template):
    """With a substitution it used to be "unexpected `}` in a declaration", at the substitution's end."""
    code = f"export function f(s: number) {{\n  const label = {template}\n  return () => s;\n}}\n"
    assert syntax_errors(code) == [("2:17", "unterminated template literal: the backtick here is never closed", [])]


def test_positions_count_utf16_units_before_the_opener_and_the_error():
    """😀 is two UTF-16 units, é one: `keep(` is at column 17, the `;` the parser stopped at at column 36."""
    code = ('export function f(s: number) {\n  let c = s;\n  /* 😀é */ keep("😀😀", (x) => c++;\n'
            "  return () => c;\n}\n")
    assert syntax_errors(code) == [("3:36", "missing `)` to close the `(` at 3:17 in an argument list",
                                    [("3:17", "the `(` left open")])]
    code = "export function f(s: number) {\n  const 名 = \"😀\"; const label = 'abc;\n  return () => s;\n}\n"
    assert [where for where, _, _ in syntax_errors(code)] == ["2:33"]


def test_the_rest_of_the_file_is_still_analyzed():
    code = ("export function f(s: number) {\n  keep(s, () => s;\n}\n"
            "export function g(n: number) {\n  let t = n;\n  return () => t++;\n}\n")
    analysis = analyze_text("t.ts", code)
    (t,) = [d for d in analysis.diagnostics if d.decision is not None and d.decision.binding.name == "t"]
    assert t.message.startswith("`g` needs 1 heap box per call for `t`") and "reassigned at 6:16" in t.message
    assert "BX001" in [d.rule.code for d in analysis.diagnostics]
