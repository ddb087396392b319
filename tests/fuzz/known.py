"""Open analyzer bugs the fuzzer has found, recognized by their shape in a generated program.

While a bug the fuzzer found is open, its minimized program is in
``regressions/`` with ``// known bug: NAME`` (its test is then
``xfail(strict=True)``), and an entry here recognizes the bug's shape in the
program tree, so that the fuzzing run counts it instead of failing on it and
keeps looking for other bugs.  Anything no entry explains fails the run.
When the analyzer is fixed, the regression's header says ``// fixed: NAME``
and the entry goes: a fixed bug is never excused again.

Open: ``per-iteration-block-in-unbraced-loop-body`` (issue 16): a block
that a loop runs again is a fresh scope instance per iteration only if it is
the loop's braced body (or there is a ``let``/``const`` head), so a binding of
a block inside a single-statement body (``while (c) if (d) { let y ... }``,
``for (var i ...) try { ... }``) is taken for a binding of the activation, or
of an outer loop's iteration, and is ``stack`` although a closure stored in a
binding outside the loop runs in a later iteration.

Open: ``closure-carried-by-for-head-copy`` (found with the first): a
``for (let i = 0, g; ...)`` head binding is copied into the next iteration's
copy, so a closure stored in ``g`` runs in the next iteration, after the one
whose bindings it refers to ended; boxcheck counts ``g`` as the iteration's own
and answers ``stack``.

The bugs fixed so far have no entry.  Their predicates
are in the history of this file: ``write-after-operand-closure`` (a write
placed at its target, before the right-hand side that created the capturing
closure; fixed by "Soundness fix: a write takes effect after its assigned
value is evaluated") and ``pattern-default-write-after-source`` (a write in a
destructuring default, after the source that created the capturing closure;
fixed by "Soundness fix: expressions inside a destructuring pattern run after
its source").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .model import InstanceKind, Var
from .program import Program
from .statements import BlockStmt, ForClassic, Loop


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    #: does this bug explain the verdict for ``var`` that the oracle refuted in ``program``?
    explains: Callable[[Program, Var], bool]
    #: the verdict it makes wrong: ``value`` or ``stack``.
    storage: str = "value"


def in_unbraced_loop_body(program: Program, var: Var) -> bool:
    """Is ``var`` a binding of an iteration of a loop whose body is a single statement and whose head declares
    nothing per iteration (the binding is declared in a block of that statement)?"""
    instance = var.instance
    if instance is None or instance.kind is not InstanceKind.ITERATION:
        return False
    loop = instance.loop
    assert isinstance(loop, Loop)
    return not isinstance(loop.body, BlockStmt) and not loop.lexical_head


def in_for_with_two_head_bindings(program: Program, var: Var) -> bool:
    """Is ``var`` a binding of an iteration of ``for (let i = 0, h = ...; ...)``, whose second head binding may
    carry a closure of one iteration into the next?"""
    instance = var.instance
    if instance is None or instance.kind is not InstanceKind.ITERATION:
        return False
    loop = instance.loop
    return isinstance(loop, ForClassic) and loop.lexical_head and loop.also_init is not None


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug("per-iteration-block-in-unbraced-loop-body", in_unbraced_loop_body, "stack"),
    KnownBug("closure-carried-by-for-head-copy", in_for_with_two_head_bindings, "stack"),
)


def explain(program: Program, var: Var, storage: str = "value") -> str | None:
    for bug in KNOWN_BUGS:
        if bug.storage == storage and bug.explains(program, var):
            return bug.name
    return None
