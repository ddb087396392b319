"""Sloppy-mode ``arguments`` aliases the parameters (``mapped_arguments``): each form is run in Node
first, so the test shows that the engine really lets the parameter change after capture, then that
boxcheck does not call it ``value``."""

from __future__ import annotations

import pytest
import tree_sitter

from capture_analysis.bind import mapped_arguments

from .conftest import analyze, needs_node, node_got, reason_of, storages

#: uses of ``arguments`` that write the first parameter (``helper`` is a function that writes ``this[0]``).
WRITING = {
    "element": "arguments[0] = 2;",
    "compound": "arguments[0] += 1;",
    "update": "arguments[0]++;",
    "destructuring": "[arguments[0]] = [2];",
    "destructuring-default": "({ k: arguments[0] = 2 } = {});",
    "for-in-head": "for (arguments[0] in { k: 1 });",
    "handed-on": "(function (args) { args[0] = 2; })(arguments);",
    "stored": "const args = arguments; args[0] = 2;",
    "receiver-of-a-call": "arguments[1]();",
    "parenthesized": "(arguments)[0] = 2;",
    "in-an-arrow": "(() => { arguments[0] = 2; })();",
    "escaped-name": "\\u0061rguments[0] = 2;",
}
#: uses that only read: the parameter keeps its value.
READING = {
    "length": "const n = arguments.length;",
    "element": "const first = arguments[0];",
    "computed-index": "const last = arguments[arguments.length - 1];",
    "delete": "delete arguments[0];",
    "nested-function": "(function () { arguments[0] = 2; })(5);",
}


def script(use: str, directive: str = "") -> str:
    return (f"function f(x, helper) {{\n  {directive}\n  const get = () => x;\n  {use}\n  return get;\n}}\n"
            "const got = f(1, function () { this[0] = 2; })();\n")


@needs_node
@pytest.mark.parametrize("form", sorted(WRITING))
def test_a_write_through_arguments_after_capture_is_never_value(form):
    code = script(WRITING[form])
    assert node_got(code) != "1", "the engine did not change the parameter: the form proves nothing"
    assert storages(code, "script.js")["x"] not in ("value", "local"), form


@needs_node
@pytest.mark.parametrize("form", sorted(READING))
def test_reading_arguments_keeps_value(form):
    code = script(READING[form])
    assert node_got(code) == "1"
    assert storages(code, "script.js")["x"] == "value", form


@needs_node
@pytest.mark.parametrize(("directive", "path"), [('"use strict";', "script.js"), ("", "module.mjs")])
def test_strict_code_has_an_unmapped_arguments_object(directive, path):
    code = script(WRITING["element"], directive)
    assert node_got(code, module=path.endswith(".mjs")) == "1"
    assert storages(code, path)["x"] == "value"


def test_the_reason_names_the_use():
    code = script(WRITING["handed-on"])
    assert "`arguments` object, used at 4:38" in reason_of(analyze(code, "script.js"), "x")


def test_the_facts_come_from_the_binders_tree(monkeypatch):
    """Found while binding, from the tree the binder walks: a 9 MB script with 500 `arguments` uses in strict
    functions must not be parsed a second time (that cost 2.3 s and 190 MB on `lib/typescript.js`)."""
    parsers: list[tree_sitter.Language] = []
    real = tree_sitter.Parser

    def counted(language: tree_sitter.Language) -> tree_sitter.Parser:
        """Every parse makes a parser: counted where the compiled core (setup.py) looks it up too."""
        parsers.append(language)
        return real(language)

    monkeypatch.setattr(tree_sitter, "Parser", counted)
    code = "var ts = {}; ((module) => {\n  'use strict';\n" + script(WRITING["handed-on"]) + "})();\n"
    assert storages(code, "script.js")["x"] == "value"
    assert storages(script(WRITING["handed-on"]), "script.js")["x"] == "box"
    assert len(parsers) == 2, "one parse per analysis"


def test_a_function_whose_node_is_not_found_counts_as_mapped(monkeypatch):
    """The cautious side: without its node, a function's strictness and parameters are unknown."""
    monkeypatch.setattr(mapped_arguments, "function_node", lambda root, closure: None)
    assert storages(script(WRITING["handed-on"]), "script.js")["x"] == "box"


#: uses of a sloppy function's ``arguments`` that hand out the function itself (``arguments.callee``).
HANDING_OUT_CALLEE = {
    "callee-returned": "return arguments.callee;",
    "callee-stored": "const me = arguments.callee; return me;",
    "computed-key": "return arguments['cal' + 'lee'];",
    "object-returned": "return arguments;",
}


@needs_node
@pytest.mark.parametrize("form", sorted(HANDING_OUT_CALLEE))
def test_a_function_handed_out_as_arguments_callee_escapes(form):
    """Node calls the function again after its creator returned, through what the first call handed
    out: a binding it writes cannot stay in the creator's frame."""
    use = HANDING_OUT_CALLEE[form]
    code = (f"function make() {{\n  let n = 0;\n  const step = function () {{ n++; {use} }};\n  const out = step();\n"
            "  return out;\n}\nconst out = make();\nconst again = typeof out === 'function' ? out : out.callee;\n"
            "const got = String(again() && 'called');\n")
    assert node_got(code) == "called"
    assert storages(code, "script.js")["n"] == "box", form


@needs_node
def test_reading_an_element_or_the_length_hands_out_nothing():
    """(Calling ``arguments.callee(...)`` makes the object the receiver of a call, which may hand out
    anything: that counts, cautiously, as handing out ``callee``.)"""
    code = ("function make() {\n  let n = 0;\n  const step = function (k) { n++;"
            " return arguments[0] + arguments.length; };\n  step(2);\n  return n;\n}\nconst got = String(make());\n")
    assert node_got(code) == "1"
    assert storages(code, "script.js")["n"] == "stack"


@needs_node
@pytest.mark.parametrize("read", ["arguments[0]", "[...arguments][0]", "Array.from(arguments)[0]"])
def test_a_closure_stored_into_a_parameter_escapes_through_arguments(read):
    """The mapped object reads the parameter's current value: here the closure, returned and called by
    Node after ``make`` returned; ``arguments.length`` alone reads no value."""
    code = (f"function make(a) {{\n  let x = 1;\n  a = () => x;\n  const out = {read};\n  x = 2;\n  return out;\n}}\n"
            "const got = String(make(0)());\n")
    assert node_got(code) == "2"
    assert storages(code, "script.js")["x"] == "box", read
    length_only = code.replace(f"const out = {read};", "const out = arguments.length ? () => 0 : null;")
    assert storages(length_only, "script.js")["x"] == "stack"
