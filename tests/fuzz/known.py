"""Open analyzer bugs the fuzzer has found, recognized by their shape in a generated program.

While a bug the fuzzer found is open, its minimized program is in
``regressions/`` with ``// known bug: NAME`` (its test is then
``xfail(strict=True)``), and an entry here recognizes the bug's shape in the
program tree, so that the fuzzing run counts it instead of failing on it and
keeps looking for other bugs.  Anything no entry explains fails the run.
When the analyzer is fixed, the regression's header says ``// fixed: NAME``
and the entry goes: a fixed bug is never excused again.

Both bugs found so far are fixed, so there is no entry.  Their predicates
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

from .program import Program, Var


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    #: does this bug explain a `value` verdict for ``var`` that the oracle refuted in ``program``?
    explains: Callable[[Program, Var], bool]


KNOWN_BUGS: tuple[KnownBug, ...] = ()


def explain(program: Program, var: Var) -> str | None:
    for bug in KNOWN_BUGS:
        if bug.explains(program, var):
            return bug.name
    return None
