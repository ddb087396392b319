"""Open analyzer bugs the fuzzer has found, recognized by their shape in a generated program.

While a bug the fuzzer found is open, its minimized program is in
``regressions/`` with ``// known bug: NAME`` (its test is then
``xfail(strict=True)``), and an entry here recognizes the bug's shape in the
program tree, so that the fuzzing run counts it instead of failing on it and
keeps looking for other bugs.  Anything no entry explains fails the run.
When the analyzer is fixed, the regression's header says ``// fixed: NAME``
and the entry goes: a fixed bug is never excused again.

None is open now.

The bugs fixed so far have no entry; their predicates are
in the history of this file: ``write-after-operand-closure`` (a write placed
at its target, before the right-hand side that created the capturing closure;
fixed by "Soundness fix: a write takes effect after its assigned value is
evaluated"), ``pattern-default-write-after-source`` (a write in a
destructuring default, after the source that created the capturing closure;
fixed by "Soundness fix: expressions inside a destructuring pattern run after
its source"), ``per-iteration-block-in-unbraced-loop-body`` (a block inside a
loop's single-statement body taken for a block of the activation: issue 16's
per-iteration instances), ``closure-carried-by-for-head-copy`` (a
``for (let i = 0, g; ...)`` head copy carrying one iteration's closure into
the next: ``Loop.copies_head``) and ``logical-assignment-value-is-the-old-value``
(the value of ``x ??= e`` is ``x``'s old closure: the escape graph follows
``x`` out of it) and ``first-read-in-text-order`` (a function declaration
taken to be created at its textually first reference, which an ``if`` arm,
an early exit or a pattern's source may overtake: ``creation.Created.points``,
every possible read is a possible creation point) and
``assignment-to-a-name-that-throws`` (an assignment to a ``const``, an import,
or a name in its TDZ throws, so the ``catch`` may follow it: the binder's
``throwing_names``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .model import Var
from .program import Program


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    #: does this bug explain the verdict for ``var`` that the oracle refuted in ``program``?
    explains: Callable[[Program, Var], bool]
    #: the verdict it makes wrong: ``value`` or ``stack``.
    storage: str = "value"


KNOWN_BUGS: tuple[KnownBug, ...] = ()


def explain(program: Program, var: Var, storage: str = "value") -> str | None:
    for bug in KNOWN_BUGS:
        if bug.storage == storage and bug.explains(program, var):
            return bug.name
    return None
