"""Escape across calls (DESIGN 2.2.1), proven in Node: a closure handed to a function of the same file is `stack`
only when that function does not keep it, and the oracle sees every helper do what its summary says.

Each helper of ``fuzz/helpers.py`` gets ``function t0(a) { HELPER(() => a); a++; }``: the arrow refers to ``a``,
which is written after it is made, so ``a`` is `stack` when the arrow does not outlive ``t0`` and `box` when it
may.  The oracle (docs/fuzzing.md, "The oracle: `stack`") says whether the arrow ran after ``t0`` returned.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from capture_analysis import compiled, parameters
from capture_analysis.analyze import analyze_text

from .conftest import storage_of
from .fuzz.expressions import Call, Closure, Expr, Lit, NameTarget, Read, Update
from .fuzz.helpers import HELPERS, KEEPING, RESULT_KEPT
from .fuzz.model import TS, Fn, FnKind, Mode
from .fuzz.program import Program
from .fuzz.soundness import Tally, check
from .test_fuzz_soundness import (
    PURE_RUN,
    in_pure_python,
    needs_node,
    one_function,
    oracle,  # noqa: F401 (the fixture)
    param,
    seeded_programs,
)

#: the keeping helpers: the run calls each one's callback after ``t0`` returned (``drain`` calls what ``keep``
#: was given, and the functions an object it was given holds).
RUNS_LATER = KEEPING
#: the helpers that call their callback during the call.
CALLS_NOW = frozenset(HELPERS) - KEEPING - {"hDrop"}


def handed_to(helper: str) -> Program:
    a = param("a", 1)
    arrow = Fn(FnKind.ARROW, None, body=Read(a))
    call = Call(Lit(helper), [Closure(arrow)])
    if helper in RESULT_KEPT:
        call = Call(Lit("keep"), [call])
    program = one_function([call, Update(NameTarget(a), "++", prefix=False)], [a], [(arrow, a)])
    program.helpers = {helper}
    return program


@needs_node
@pytest.mark.parametrize("helper", list(HELPERS))
def test_a_closure_handed_to_a_helper_is_stack_exactly_when_the_helper_does_not_keep_it(oracle, helper):  # noqa: F811
    program = handed_to(helper)
    tally = Tally()
    outcome = check(program, oracle, tally)
    assert outcome.problems == [], outcome.source
    storage = storage_of(analyze_text("fuzz.ts", outcome.source), "a")
    assert storage == ("box" if helper in KEEPING else "stack"), outcome.source
    # the helper does what the table says: the oracle saw the arrow outlive `t0`, or run inside it
    assert (outcome.run.outlived != {}) is (helper in RUNS_LATER), outcome.run
    assert (outcome.run.checked != {}) is (helper in RUNS_LATER | CALLS_NOW), outcome.run
    assert tally.stack_by_callee == (0 if helper in KEEPING or helper == "hDrop" else 1)


def store_read_as_a_call(real):
    """``Parameters.landing`` with every parameter of a known callee read as one that is only called: the
    argument lands nowhere, so no store, return or hand-off of the callee's is seen."""

    def landing(self, call, index):
        if call.binding is not None and self.callee(call.binding) is not None:
            return parameters.DROPPED, "passed to a callee read as one that only calls it"
        return real(self, call, index)

    return landing


def skip_into_pure_python(request, tmp_path) -> bool:
    """The summary is patched in ``parameters``, which compiled callers never look up: on a compiled build, the
    test runs again in a process that imports the pure-Python sources."""
    if compiled():
        assert not os.environ.get(PURE_RUN), "the copy without extension modules imported a compiled build"
        in_pure_python(request, tmp_path)
        return True
    return False


@needs_node
def test_the_oracle_refutes_a_summary_that_reads_a_store_as_a_call(oracle, monkeypatch, request, tmp_path):  # noqa: F811
    if skip_into_pure_python(request, tmp_path):
        return
    monkeypatch.setattr(parameters.Parameters, "landing", store_read_as_a_call(parameters.Parameters.landing))
    outcome = check(handed_to("hKeep"), oracle)
    assert [(p.binding, p.storage) for p in outcome.problems] == [("a", "stack")]


#: how many seeded programs the broken summary gets to be found in.
BROKEN_SUMMARY_PROGRAMS = 300


@needs_node
def test_the_fuzzer_finds_a_summary_that_reads_a_store_as_a_call(oracle, monkeypatch, request, tmp_path):  # noqa: F811
    """With the summary broken, a bounded seeded run finds a `stack` verdict Node refutes, for a binding the real
    summary does not call `stack`."""
    if skip_into_pure_python(request, tmp_path):
        return
    real = parameters.Parameters.landing
    broken = store_read_as_a_call(real)
    monkeypatch.setattr(parameters.Parameters, "landing", broken)
    tally = Tally()
    for program in seeded_programs(5, BROKEN_SUMMARY_PROGRAMS):
        outcome = check(program, oracle, tally)
        refuted = [p for p in outcome.problems if p.storage == "stack"]
        if not refuted:
            continue
        monkeypatch.setattr(parameters.Parameters, "landing", real)
        truth = analyze_text("fuzz.ts", outcome.source)
        monkeypatch.setattr(parameters.Parameters, "landing", broken)
        caused = [p for p in refuted if storage_of(truth, p.binding) != "stack"]
        if caused:
            print(f"\nfound after {tally.programs} programs: {caused[0]}")
            return
    pytest.fail(f"no refuted `stack` in {tally.programs} programs ({tally.line()})")


# -- builtins that run a callback and drop it, on receivers known to be arrays, maps or sets --------------------


@dataclass(eq=False)
class Joined(Expr):
    """Its parts printed one after the other; ``Typed`` parts differ between the prints."""

    parts: list[Expr]

    def render(self, mode: Mode) -> str:
        return "".join(part.render(mode) for part in self.parts)


@dataclass(eq=False)
class Typed(Expr):
    """``: annotation``, in the TypeScript print only."""

    annotation: str

    def render(self, mode: Mode) -> str:
        return f": {self.annotation}" if mode is TS else ""


#: the receiver's declared type and value (none: the call names its receiver), the call (``CB``: the arrow), and
#: what `a`, which the arrow reads and ``t0`` writes after the call, must be.
BUILTIN_CASES = {
    "array literal .forEach": (None, "[1, 2].forEach(CB)", "stack"),
    "array literal .map": (None, "[1, 2].map(CB)", "stack"),
    "Object.keys(...).some": (None, "Object.keys({ k: 1 }).some(CB)", "stack"),
    "new Promise executor": (None, "new Promise(CB)", "stack"),
    "declared number[] .filter": (("number[]", "[1, 2]"), "xs.filter(CB)", "stack"),
    "declared Array<number> .sort": (("Array<number>", "[2, 1]"), "xs.sort(CB)", "stack"),
    "declared readonly tuple .reduce": (("readonly [number, number]", "[1, 2]"), "xs.reduce(CB, 0)", "stack"),
    "declared Map .forEach": (("Map<number, number>", "new Map([[1, 2]])"), "xs.forEach(CB)", "stack"),
    "declared ReadonlySet .forEach": (("ReadonlySet<number>", "new Set([1])"), "xs.forEach(CB)", "stack"),
    "declared any .forEach, which keeps": (("any", "{ forEach(f) { keep(f); } }"), "xs.forEach(CB)", "box"),
    "declared Map .map, no such method": (("Map<number, number>", "Object.assign(new Map(), { map: keep })"),
                                           "xs.map(CB)", "box"),
    # a container's `forEach` is the builtin's only while nothing gave it another
    "array literal, methods called on it": (None, "const xs = [1, 2]; xs.push(3); xs.forEach(CB)", "stack"),
    "array literal given its own forEach": (None, "const xs = [1, 2]; xs.forEach = keep; xs.forEach(CB)", "box"),
    "array literal given forEach by a computed key": (None, 'const xs = [1, 2]; xs["forEach"] = keep; xs.forEach(CB)',
                                                      "box"),
    "array literal handed to defineProperty": (
        None, 'const xs = [1, 2]; Object.defineProperty(xs, "forEach", { value: keep }); xs.forEach(CB)', "box"),
    "array literal handed to a function that patches it": (
        None, "const xs = [1, 2]; ((ys) => { ys.forEach = keep; })(xs); xs.forEach(CB)", "box"),
    "declared number[] given its own forEach": (("number[]", "[1, 2]"), "xs.forEach = keep; xs.forEach(CB)", "box"),
}


def builtin_program(receiver: tuple[str, str] | None, call: str) -> Program:
    """``function t0(a) { [const xs: T = v;] CALL; a++; }``, the arrow ``() => a`` in place of ``CB``."""
    a = param("a", 1)
    arrow = Fn(FnKind.ARROW, None, body=Read(a))
    before, _, after = call.partition("CB")
    body: list[Expr] = [Joined([Lit(before), Closure(arrow), Lit(after)]), Update(NameTarget(a), "++", prefix=False)]
    if receiver is not None:
        annotation, value = receiver
        body.insert(0, Joined([Lit("const xs"), Typed(annotation), Lit(f" = {value}")]))
    return one_function(body, [a], [(arrow, a)])


@needs_node
@pytest.mark.parametrize(("receiver", "call", "storage"), list(BUILTIN_CASES.values()), ids=list(BUILTIN_CASES))
def test_a_callback_a_builtin_runs_and_drops_is_stack_and_node_agrees(oracle, receiver, call, storage):  # noqa: F811
    outcome = check(builtin_program(receiver, call), oracle)
    assert outcome.problems == [], outcome.source
    assert storage_of(analyze_text("fuzz.ts", outcome.source), "a") == storage, outcome.source
    assert (outcome.run.outlived != {}) is (storage == "box"), outcome.run
    assert outcome.run.checked != {}, "the arrow never ran: nothing was tested"


# -- a block the next line continues, which the grammar read as one expression (docs/parsing.md) -------------------


@needs_node
@pytest.mark.parametrize("after", ["[a] = [2]", "[, a] = [1, 2]"])
def test_a_write_after_a_block_the_grammar_misread_is_seen_and_node_agrees(oracle, after):  # noqa: F811
    """``keep(() => a); { l: {} }`` then, on the next line, a destructuring that writes ``a``: read as one
    expression statement (an object literal subscripted by ``[a]``), the write was lost and ``a`` was `value`,
    which the oracle refutes: the kept arrow, run after ``t0`` returned, sees 2, not the copy's 1.  (A call or a
    template on the next line kept its writes even when misread: tests/fuzz/regressions has them.)"""
    a = param("a", 1)
    arrow = Fn(FnKind.ARROW, None, body=Read(a))
    # after a statement of its own (``0;``): the printer puts an expression that starts with `{` in parentheses
    block = Lit(f"0;\n  {{ l: {{}} }}\n  {after}")
    program = one_function([Call(Lit("keep"), [Closure(arrow)]), block], [a], [(arrow, a)])
    outcome = check(program, oracle)
    assert outcome.problems == [], outcome.source
    assert storage_of(analyze_text("fuzz.ts", outcome.source), "a") == "box", outcome.source
    assert outcome.run.checked != {}, "the arrow never ran: nothing was tested"
