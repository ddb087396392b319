"""Analyzer bugs the fuzzer has found and that are still open, recognized in a program's tree.

A problem that one of these explains does not fail the fuzzing run: the bug
stays visible through its minimized regression file (``regressions/``,
marked ``xfail(strict=True)``), and the run counts how often it met it.
Anything these do not explain fails the run.  Remove an entry when the
analyzer is fixed: its regression then passes, and strict xfail says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .program import Assign, Closure, Decl, Expr, Fn, ForEach, Program, Target, Var

#: fields that point back up or across the tree, not down into it.
NOT_CHILDREN = frozenset({"parent", "captures", "initializes", "name", "var", "capturers"})


def children(node: object) -> Iterator[object]:
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        if f.name in NOT_CHILDREN:
            continue
        value = getattr(node, f.name)
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, tuple):
                yield from item
            else:
                yield item


def walk(node: object) -> Iterator[object]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in children(current) if dataclasses.is_dataclass(c) and not isinstance(c, Var))


def created_in(node: object) -> set[Fn]:
    """Closures whose literal is evaluated as part of ``node`` (not the ones inside their bodies)."""
    found: set[Fn] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Closure):
            found.add(current.fn)
            continue
        stack.extend(c for c in children(current) if dataclasses.is_dataclass(c) and not isinstance(c, Var))
    return found


def pattern_defaults(target: Target) -> list[Expr]:
    return [n for n in walk(target) if isinstance(n, Expr)]


def writes_after_their_operands(program: Program) -> Iterator[tuple[list[Var], list[object]]]:
    """(written bindings, what is evaluated before the write) for every write with operands."""
    for fn in program.functions:
        for node in walk(fn):
            if isinstance(node, Assign):
                yield node.target.vars(), [node.value, *pattern_defaults(node.target)]
            elif isinstance(node, Decl) and node.keyword == "var":
                for d in node.declarators:
                    if d.init is not None:
                        yield d.target.vars(), [d.init, *pattern_defaults(d.target)]
            elif isinstance(node, ForEach) and node.keyword in (None, "var"):
                yield node.target.vars(), [node.iterable, *pattern_defaults(node.target)]


def write_after_operand_closure(program: Program, var: Var) -> bool:
    """Issue: a write's position is taken to be its target's, though it happens after its operands.

    ``x = keep(() => x)``, ``[x] = [keep(() => x)]``, ``x ||= keep(() => x)``,
    ``var x = keep(() => x)``, ``for (x of [keep(() => x)])``: the closure is
    created while the right-hand side (or iterable, or initializer) is
    evaluated, and ``x`` is written after it; boxcheck compares the closure's
    position with the target's, which comes first in the text, and says
    ``value``.  Regression: ``regressions/write-after-operand-closure-*.ts``.
    """
    for written, operands in writes_after_their_operands(program):
        if var not in written:
            continue
        made = set().union(*(created_in(o) for o in operands))
        if any(c in made for c in var.capturers):
            return True
    return False


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    explains: Callable[[Program, Var], bool]


KNOWN_BUGS = (KnownBug("write-after-operand-closure", write_after_operand_closure),)


def explain(program: Program, var: Var) -> str | None:
    for bug in KNOWN_BUGS:
        if bug.explains(program, var):
            return bug.name
    return None
