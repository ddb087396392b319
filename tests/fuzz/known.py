"""Open analyzer bugs the fuzzer has found, recognized by their shape in a generated program.

While a bug the fuzzer found is open, its minimized program is in
``regressions/`` with ``// known bug: NAME`` (its test is then
``xfail(strict=True)``), and an entry here recognizes the bug's shape in the
program tree, so that the fuzzing run counts it instead of failing on it and
keeps looking for other bugs.  Anything no entry explains fails the run.
When the analyzer is fixed, the regression's header says ``// fixed: NAME``
and the entry goes: a fixed bug is never excused again.

Open: ``assignment-to-a-name-that-throws`` (found by the ``try`` family of
``generate_try.py``): ``flow/throws.py`` takes an assignment to a name never
to throw, but assigning a ``const`` throws a TypeError (and assigning a
binding in its TDZ a ReferenceError), so the ``catch`` may run after a
closure created before that assignment.  ``assigns_a_const_in_try``
recognizes a ``try`` whose block assigns a ``const`` and whose ``catch``
writes the binding.

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
every possible read is a possible creation point).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .expressions import Assign, ClassLit, Closure, NameTarget, Update
from .model import Fn, Instance, Scope, Var, VarKind
from .program import Program
from .statements import FnDecl, Try


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    #: does this bug explain the verdict for ``var`` that the oracle refuted in ``program``?
    explains: Callable[[Program, Var], bool]
    #: the verdict it makes wrong: ``value`` or ``stack``.
    storage: str = "value"


def own_code(root: object) -> Iterator[object]:
    """Every node of ``root``'s own code (functions it creates are not entered)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Fn):
            children: list = [node.params, node.body]
        elif isinstance(node, (Closure, FnDecl, ClassLit)) or not dataclasses.is_dataclass(node):
            continue
        else:
            children = [getattr(node, f.name) for f in dataclasses.fields(node)]
        while children:
            child = children.pop()
            if isinstance(child, (list, tuple)):
                children.extend(child)
            elif dataclasses.is_dataclass(child) and not isinstance(child, (Fn, Var, Scope, Instance)):
                stack.append(child)


def assigns_a_const_in_try(program: Program, var: Var) -> bool:
    """Does a ``try`` of ``var``'s function assign a ``const`` by name in its block and write ``var`` in its
    ``catch``?"""
    if var.owner is None:
        return False
    for node in own_code(var.owner):
        if not isinstance(node, Try) or node.handler is None:
            continue
        throws = any(isinstance(n, Assign) and isinstance(n.target, NameTarget) and n.target.var.kind is VarKind.CONST
                     for n in own_code(node.body))
        writes = any(isinstance(n, (Assign, Update)) and var in n.target.vars() for n in own_code(node.handler))
        if throws and writes:
            return True
    return False


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug("assignment-to-a-name-that-throws", assigns_a_const_in_try),
)


def explain(program: Program, var: Var, storage: str = "value") -> str | None:
    for bug in KNOWN_BUGS:
        if bug.storage == storage and bug.explains(program, var):
            return bug.name
    return None
