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

Open: ``logical-assignment-value-is-the-old-value`` (found with the
``stack`` check, by the random families alone): the value of ``x ??= e`` or
``x ||= e`` is ``x``'s old value when that is a closure, but boxcheck's escape
graph follows only ``e`` out of it, so the closure held in ``x`` escapes
unseen.

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

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from .expressions import ArrayTarget, Assign, Closure, ObjectTarget, Param
from .model import Fn, Instance, InstanceKind, Scope, Var
from .program import Program
from .statements import BlockStmt, Declarator, ExprStmt, ForClassic, Loop


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


def nodes(root: object):
    """Every node of the tree below ``root`` (expressions, statements, targets, parameters, functions through
    the closures, declarations and classes that hold them), not following the links back to bindings, scopes
    and instances."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if not dataclasses.is_dataclass(node) or isinstance(node, (Var, Instance, Scope)) or id(node) in seen:
            continue
        seen.add(id(node))  # an ``await``/``yield`` links back to its function
        yield node
        if isinstance(node, Fn):
            stack.extend([node.params, node.body])
            continue
        stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))


def uses_logical_assignment_value(program: Program, var: Var) -> bool:
    """Does the program use the value of an ``x ??= e`` or ``x ||= e`` (not as a statement of its own) where
    ``x`` is given a closure that refers to ``var`` (initialized, assigned, or defaulted to one)?"""
    holders: set[int] = set()
    used: list[Assign] = []
    statements: set[int] = set()
    for node in nodes(program.functions):
        if isinstance(node, ExprStmt):
            statements.add(id(node.expr))
        pairs = []
        if isinstance(node, Declarator):
            pairs.append((node.target, node.init))
        elif isinstance(node, (Param, ArrayTarget)):
            items = [(node.target, node.default)] if isinstance(node, Param) else node.items
            pairs.extend(items)
        elif isinstance(node, ObjectTarget):
            pairs.extend((target, default) for _, target, default in node.items)
        elif isinstance(node, Assign):
            pairs.append((node.target, node.value))
            if node.op in ("??=", "||="):
                used.append(node)
        for target, value in pairs:
            if isinstance(value, Closure) and var in value.fn.refers:
                holders.update(id(v) for v in target.vars())
    return any(id(a) not in statements and any(id(v) in holders for v in a.target.vars()) for a in used)


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug("per-iteration-block-in-unbraced-loop-body", in_unbraced_loop_body, "stack"),
    KnownBug("closure-carried-by-for-head-copy", in_for_with_two_head_bindings, "stack"),
    KnownBug("logical-assignment-value-is-the-old-value", uses_logical_assignment_value, "stack"),
)


def explain(program: Program, var: Var, storage: str = "value") -> str | None:
    for bug in KNOWN_BUGS:
        if bug.storage == storage and bug.explains(program, var):
            return bug.name
    return None
