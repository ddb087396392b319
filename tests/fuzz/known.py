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

from .program import (
    ArrayTarget,
    Assign,
    Closure,
    Decl,
    Expr,
    Fn,
    ForEach,
    ObjectTarget,
    Param,
    Program,
    Target,
    Update,
    Var,
)

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


def writes_in(node: object) -> set[Var]:
    """Bindings written while ``node`` is evaluated (not inside the closures it creates)."""
    written: set[Var] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Closure):
            continue
        if isinstance(current, (Assign, Update)):
            written.update(current.target.vars())
        stack.extend(c for c in children(current) if dataclasses.is_dataclass(c) and not isinstance(c, Var))
    return written


def destructurings(program: Program) -> Iterator[tuple[Target, object]]:
    """(pattern, source) of every destructuring: the source is evaluated first, then the pattern."""
    for fn in program.functions:
        for node in walk(fn):
            if isinstance(node, Decl):
                for d in node.declarators:
                    if d.init is not None and isinstance(d.target, (ArrayTarget, ObjectTarget)):
                        yield d.target, d.init
            elif isinstance(node, Assign) and isinstance(node.target, (ArrayTarget, ObjectTarget)):
                yield node.target, node.value
            elif isinstance(node, Param) and node.default is not None \
                    and isinstance(node.target, (ArrayTarget, ObjectTarget)):
                yield node.target, node.default
            elif isinstance(node, ForEach) and isinstance(node.target, (ArrayTarget, ObjectTarget)):
                yield node.target, node.iterable


def pattern_default_write_after_source(program: Program, var: Var) -> bool:
    """Issue: a write in a destructuring default is placed where it stands, though it runs after the source.

    ``let {a = (x = 1)} = {b: keep(() => x)}``: the source is evaluated
    first, creating the closure; then the pattern runs, and its default
    writes ``x``.  The write's offset (and the end of its own assignment) is
    before the closure's in the text, so boxcheck says ``value``.  Also in
    destructuring assignments, destructured parameters with a default and
    ``for-of`` heads.  Regression: ``regressions/pattern-default-write-after-source.ts``.
    """
    for pattern, source in destructurings(program):
        written = set().union(*(writes_in(d) for d in pattern_defaults(pattern)))
        if var in written and any(c in created_in(source) for c in var.capturers):
            return True
    return False


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    explains: Callable[[Program, Var], bool]


KNOWN_BUGS = (KnownBug("pattern-default-write-after-source", pattern_default_write_after_source),)


def explain(program: Program, var: Var) -> str | None:
    for bug in KNOWN_BUGS:
        if bug.explains(program, var):
            return bug.name
    return None
