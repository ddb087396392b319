"""The annotation language: what each clause means, and located errors for malformed ones."""

from __future__ import annotations

import dataclasses

import pytest

from capture_analysis.expectations import annotations as expect
from capture_analysis.expectations.annotations import (
    AllocationExpectation,
    Amount,
    DiagnosticExpectation,
    Header,
    StorageExpectation,
    Unannotated,
    render,
)
from capture_analysis.expectations.grammar import grammar_parser
from capture_analysis.expectations.reader import parse_annotations
from capture_analysis.model import BindingKind, Storage
from capture_analysis.policies import OPTIMAL, POLICIES
from capture_analysis.source import SourceFile


def parsed(text: str, path: str = "fixture.ts") -> expect.FileExpectations:
    return parse_annotations(SourceFile(path, text))


def clauses(annotation: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """The expectations and BAD answers of one annotation, without their offsets."""
    result = parsed(f"let x = 1; {annotation}\n")
    assert not result.errors, result.errors
    (only,) = result.annotations
    strip = lambda items: tuple(dataclasses.replace(i, offset=0) for i in items)  # noqa: E731
    return strip(only.expectations), strip(only.bad)


def error_of(text: str) -> expect.AnnotationError:
    result = parsed(text)
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


def test_storages_with_alternatives():
    assert clauses("//~ count: context, last: value or stack") == ((
        StorageExpectation("count", (Storage.CONTEXT,), 0),
        StorageExpectation("last", (Storage.VALUE, Storage.STACK), 0),
    ), ())


def test_a_kind_tells_apart_two_bindings_of_one_name():
    assert clauses("//~ Node (class): local, Node (class-name): value") == ((
        StorageExpectation("Node", (Storage.LOCAL,), 0, BindingKind.CLASS),
        StorageExpectation("Node", (Storage.VALUE,), 0, BindingKind.CLASS_NAME),
    ), ())


def test_words_of_the_language_are_names_where_a_name_is_expected():
    expected = (StorageExpectation("value", (Storage.STACK,), 0), StorageExpectation("no", (Storage.BOX,), 0),
                StorageExpectation("allocates", (Storage.VALUE,), 0))
    assert clauses("//~ value: stack, no: box, `allocates`: value") == (expected, ())


@pytest.mark.parametrize(("text", "amount", "by_policy"), [
    ("allocates nothing", Amount(0, 0), ()),
    ("allocates 1 per call", Amount(1, 0), ()),
    ("allocates 2 per iteration, 1 per call", Amount(1, 2), ()),
    ("allocates 1 per call (legacy: 2 per call, v8: nothing)", Amount(1, 0),
     (("legacy", Amount(2, 0)), ("v8", Amount(0, 0)))),
    ("allocates nothing (legacy: 3 per call, 1 per iteration)", Amount(0, 0), (("legacy", Amount(3, 1)),)),
])
def test_allocations(text, amount, by_policy, monkeypatch):
    for name in ("legacy", "v8"):
        monkeypatch.setitem(POLICIES, name, dataclasses.replace(OPTIMAL, name=name))
    (allocation,), _ = clauses(f"//~ {text}")
    assert allocation == AllocationExpectation(None, amount, by_policy, 0)


def test_allocations_of_a_named_function():
    (allocation,), _ = clauses("//~ inner allocates 1 per iteration")
    assert allocation.function == "inner" and allocation.amount == Amount(0, 1)


def test_diagnostics_present_absent_and_with_a_message_regex():
    found, _ = clauses(r'//~ reports BX002 "direct `eval`: \"x\""; reports no BX101')
    assert found == (DiagnosticExpectation("BX002", True, 'direct `eval`: "x"', 0),
                     DiagnosticExpectation("BX101", False, None, 0))
    assert found[0].matches("BX002", 'direct `eval`: "x" here')
    assert not found[0].matches("BX101", 'direct `eval`: "x"')


def test_bad_answers_stand_beside_the_expectation_they_contradict():
    assert clauses("//~ f: value; BAD: f: box") == (
        (StorageExpectation("f", (Storage.VALUE,), 0),), (StorageExpectation("f", (Storage.BOX,), 0),))
    assert clauses("//~ reports BX103; BAD: reports no BX103")[1] == (
        DiagnosticExpectation("BX103", False, None, 0),)


def test_carets_point_at_lines_above():
    result = parsed("let a = 1;\nlet b = 2;\n//~^^ a: local\n  // prose first //~^ b: local\n")
    assert not result.errors
    assert [(a.line, a.expectations[0].name) for a in result.annotations] == [(1, "a"), (3, "b")]


def test_header_chooses_policy_and_unannotated_lines():
    result = parsed("// a fixture\n//@ policy: optimal\n//@ unannotated: ignore\nlet x = 1;\n")
    assert not result.errors
    assert result.header == Header("optimal", Unannotated.IGNORE)
    assert parsed("let x = 1;\n").header == Header("optimal", Unannotated.REPORT)


def test_only_marked_comments_are_annotations():
    result = parsed('const s = "//~ x: bogus";\n// count: box\n/*~ x: bogus */\nlet t = `\n//~ y: bogus\n`;\n')
    assert result.annotations == [] and result.errors == []


def test_policies_registered_at_run_time_are_accepted(monkeypatch):
    monkeypatch.setitem(POLICIES, "probe", dataclasses.replace(OPTIMAL, name="probe"))
    result = parsed("//@ policy: probe\nfunction f() {} //~ allocates nothing (optimal: nothing)\n")
    assert not result.errors
    assert result.policies == ["probe", "optimal"]


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    ("let x = 1; //~ x: bogus\n", 1, 19, "unexpected `bogus`; expected a storage (local, module, value"),
    ("let x = 1; //~ x:\n", 1, 18, "ends early; expected a storage"),
    ("let x = 1;\n  //~ x box\n", 2, 9, "unexpected `box`; expected `(`, `:`"),
    ("let x = 1; //~ x (lett): box\n", 1, 19, "unexpected `lett`; expected a binding kind"),
    ("let x = 1; //~ x: box,\n", 1, 23, "ends early"),
    ("let x = 1; //~ x: box # why\n", 1, 23, "unexpected `#`"),
    ("let x = 1; //~ allocates 1 per call)\n", 1, 36, "unexpected `)`; expected `(`, `,`, `;`, the end"),
    ("let x = 1; //~\n", 1, 15, "ends early; expected `BAD`, `^`, `allocates`, `reports`, a binding name"),
    ("let x = 1; //~ allocates 2 per call, 1 per call\n", 1, 38, "`per call` is given twice"),
    ("let x = 1; //~ allocates 2 per calls\n", 1, 32, "unexpected `calls`; expected `call`, `iteration` or `program`"),
    ("let x = 1; //~ x: boxes\n", 1, 19, "unexpected `boxes`; expected a storage"),
    ("let x = 1; //~ allocates nothing (fastest: 1 per call)\n", 1, 35, "unknown policy `fastest`; registered"),
    ("let x = 1; //~ reports BX999\n", 1, 24, "unknown diagnostic code BX999"),
    ("let x = 1; //~ reports BX1\n", 1, 24, "unexpected `BX1`; expected `no`, a diagnostic code such as BX101"),
    ('let x = 1; //~ reports BX101 "(("\n', 1, 30, "invalid regular expression"),
    ("let x = 1; //~ x: box, x: value\n", 1, 24, "the storage of `x` is stated twice"),
    ("let x = 1; //~ x: box or box\n", 1, 19, "lists the same storage twice"),
    ("let x = 1; //~ x: value; BAD: y: box\n", 1, 31, "`BAD: y: box` needs the correct expectation"),
    ("let x = 1; //~ x: value or box; BAD: x: box\n", 1, 38, "must contradict"),
    ("let x = 1; //~ reports BX101; BAD: reports BX101\n", 1, 44, "must contradict"),
    ("let x = 1; //~^ x: box\n", 1, 12, "points above the first line"),
    ("let x = 1;\n//@ policy: optimal\n", 2, 1, "header must come before the first statement"),
    ("//@ policy: fastest\nlet x = 1;\n", 1, 13, "unknown policy `fastest`"),
    ("//@ policy: optimal\n//@ policy: optimal\nlet x = 1;\n", 2, 13, "header `policy` is given twice"),
    ("//@ strict\nlet x = 1;\n", 1, 5, "malformed header: unexpected `strict`"),
    ("//@ unannotated: skip\nlet x = 1;\n", 1, 18, "expected `report` or `ignore`"),
    ("function f() {} //~ allocates nothing (optimal: nothing)\n", 1, 31, "`optimal` is this file's policy"),
    ('const s = "😀"; //~ s: bogus\n', 1, 24, "unexpected `bogus`"),  # the emoji is two UTF-16 units
])
def test_malformed_annotations_are_located_errors(text, line, column, words):
    error = error_of(text)
    assert (error.path, error.line, error.column) == ("fixture.ts", line, column), str(error)
    assert words in error.message
    assert str(error).startswith(f"fixture.ts:{line}:{column}: error: ")


def test_every_malformed_annotation_of_a_file_is_reported():
    result = parsed("let x = 1; //~ x: bogus\nlet y = 2; //~ reports BX999\nlet z = 3; //~ z: box\n")
    assert [e.line for e in result.errors] == [1, 2]
    assert [a.line for a in result.annotations] == [3]


@pytest.mark.parametrize("annotation", [
    "count: context, last: value or stack",
    "C (class): box, C (class-name): value",
    "`reports`: box; inner allocates 1 per call, 2 per iteration",
    r'reports BX002 "direct \"eval\""; reports no BX101',
    "f: value; allocates nothing; BAD: f: box; BAD: allocates 1 per call",
])
def test_render_is_the_inverse_of_parsing(annotation):
    expectations, bad = clauses(f"//~ {annotation}")
    assert render(list(expectations), list(bad)) == annotation


def test_the_grammar_is_package_data_loaded_once():
    assert grammar_parser() is grammar_parser()
