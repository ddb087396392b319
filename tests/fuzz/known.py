"""Open analyzer bugs the fuzzer has found, recognized by their shape in a generated program.

While a bug the fuzzer found is open, its minimized program is in
``regressions/`` with ``// known bug: NAME`` (its test is then
``xfail(strict=True)``), and an entry here recognizes the bug's shape in the
program tree, so that the fuzzing run counts it instead of failing on it and
keeps looking for other bugs.  Anything no entry explains fails the run.
When the analyzer is fixed, the regression's header says ``// fixed: NAME``
and the entry goes: a fixed bug is never excused again.

Open: ``first-read-in-text-order`` (found by the function-declaration
families of ``generate_declarations.py``): ``creation.py`` takes a function
declaration's first possible read to be its textually first reference (or
closure, or declaration that refers to it), but that need not run first: it
may sit in one arm of an ``if`` whose other arm reads the declaration and then
writes what it captures, or in a destructuring pattern whose source, printed
after it, runs before it.  ``runs_unordered`` recognizes a declaration whose
textually first such event may be skipped, or overtaken, by another.

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
``x`` out of it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .expressions import Assign, ClassLit, Closure, Cond, NameTarget, Param, Read
from .model import Fn, FnKind, Instance, Scope, Var
from .program import Program
from .statements import JUMPS, Declarator, FnDecl, ForEach, If, Loop, Switch


@dataclass(frozen=True, slots=True)
class KnownBug:
    name: str
    #: does this bug explain the verdict for ``var`` that the oracle refuted in ``program``?
    explains: Callable[[Program, Var], bool]
    #: the verdict it makes wrong: ``value`` or ``stack``.
    storage: str = "value"


def slots(node: object) -> Iterator[tuple[object, str, int]]:
    """The children of a node of a function's own code, in the order of the source text (a ``for`` loop's head
    before its body), each with the field it is in and its index there (a ``switch`` clause's statements: the
    clause's); functions below it are not entered (a closure, a declaration, a class is one node)."""
    if isinstance(node, Fn):
        fields = [("params", node.params), ("body", node.body)]
    elif isinstance(node, (Closure, FnDecl, ClassLit)) or not dataclasses.is_dataclass(node):
        return
    else:
        fields = [(f.name, getattr(node, f.name)) for f in dataclasses.fields(node)]
        if isinstance(node, Loop):
            fields.sort(key=lambda field: field[0] == "body")
    for name, value in fields:
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            for part in item if isinstance(item, tuple) else (item,):
                for child in part if isinstance(part, list) else [part]:
                    if dataclasses.is_dataclass(child) and not isinstance(child, (Fn, Var, Scope, Instance)):
                        yield child, name, index


#: a step down the tree: (the parent, the field the child is in, its index there, the child).
Step = tuple[object, str, int, object]


def walk_own_code(root: object) -> Iterator[tuple[object, tuple[Step, ...]]]:
    """Every node of ``root``'s own code (a function's, or a statement's) in source order, with the steps from
    ``root`` down to it."""
    stack: list[tuple[object, tuple[Step, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        yield node, path
        stack.extend(reversed([(child, (*path, (node, name, index, child))) for child, name, index in slots(node)]))


def leaves_early(node: object) -> bool:
    """Does ``node`` hold a ``break``, ``continue``, ``return`` or ``throw`` (not in a function it creates)?"""
    return any(isinstance(child, JUMPS) for child, _ in walk_own_code(node))


#: a destructuring's part that runs first although printed last (``[a = f] = [g()]``: the source).
SOURCE_FIRST = {Declarator: "init", Assign: "value", Param: "default", ForEach: "iterable"}


def overtakes(first: Step, other: Step) -> bool:
    """At their common node: may the later-printed ``other`` run without, or before, the first?"""
    node, name, index, _ = first
    if isinstance(node, (If, Cond)):
        return name != other[1]  # the two arms
    if isinstance(node, Switch):
        return index != other[2]  # two clauses: a run may enter at the second, or leave the first by ``break``
    source = SOURCE_FIRST.get(type(node))
    pattern = not isinstance(getattr(node, "target", None), NameTarget) or isinstance(node, ForEach)
    return source is not None and pattern and other[1] == source and name != source


def events(declaration: Fn) -> list[tuple[Step, ...]]:
    """Where ``declaration`` may first be read in its activation's own code, in source order, as ``creation.py``
    counts them: a reference to it or to a declaration that refers to it, the creation of a closure or class that
    refers to either, such a declaration's statement in a block."""
    parent = declaration.parent
    assert parent is not None
    code = list(walk_own_code(parent))
    readers = {declaration} | {node.fn for node, _ in code if isinstance(node, FnDecl) and declaration in node.fn.reads}
    names = {fn.name for fn in readers}
    found = []
    for node, path in code:
        if isinstance(node, (Read, NameTarget)):
            event = node.var in names
        elif isinstance(node, FnDecl):
            event = node.fn in readers and node.fn.in_block
        elif isinstance(node, Closure):
            event = any(d in readers for d in node.fn.reads)
        elif isinstance(node, ClassLit):
            event = any(d in readers for element in node.elements for d in element.reads)
        else:
            event = False
        if event:
            found.append(path)
    return found


def runs_unordered(program: Program, var: Var) -> bool:
    """Is ``var`` captured by a function declaration whose textually first possible read (``creation.py``'s
    creation point) may not run before another: the other is in the other arm of an ``if`` or ``? :``, in another
    ``switch`` clause, or in a destructuring's source while the first is in its pattern; or the first is in a
    statement that may leave (``return``, ``throw``, ``break``, ``continue``) before reaching the other."""
    for capturer in var.capturers:
        if capturer.kind is not FnKind.DECLARATION or capturer.parent is None:
            continue
        found = events(capturer)
        first = found[0] if found else ()
        for other in found[1:]:
            common = 0
            while common < min(len(first), len(other)) and first[common] == other[common]:
                common += 1
            if common == min(len(first), len(other)):
                continue
            if overtakes(first[common], other[common]) or any(leaves_early(step[3]) for step in first[common:]):
                return True
    return False


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug("first-read-in-text-order", runs_unordered),
)


def explain(program: Program, var: Var, storage: str = "value") -> str | None:
    for bug in KNOWN_BUGS:
        if bug.storage == storage and bug.explains(program, var):
            return bug.name
    return None
