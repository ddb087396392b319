"""Where a generated program's function declarations may first be read (DESIGN 2.1.1), for the JavaScript print.

Under the ``optimal`` policy a function declaration F is created at its
first possible read in its scope instance, not when its scope is entered.
The oracle snapshots what F captures at every event that may be that read,
once per instance of F's scope (``__d`` in ``oracle.js``: the first one
counts); they are, as ``capture_analysis/creation.py`` has them:

* a read of F's name anywhere (``(__d(...), f)``; ``f ??= e`` reads it too; a
  plain write ``f = e`` does not read it);
* the creation of a closure (or class element) of F's activation that refers
  to F, however deeply nested in it (``__c(fn, pairs, own, groups)``): it may
  read F from then on;
* for another declaration G that refers to F, every event of G (a fixpoint:
  so each event of G carries F's snapshot too, and G's, transitively);
* F's own statement, for a declaration in a block or a ``switch`` (sloppy
  code copies it to a function-wide ``var`` there; ``creation.py`` counts it
  in strict code too);
* F's scope entry (``__r`` first in the block, as before), for a declaration
  of its function's body that nothing refers to: no reference at all, or only
  from declarations that are themselves never referred to (the fallback; a
  plain write of F is a reference).

Module-level declarations, direct ``eval`` and ``with`` (the other
fallbacks) are not generated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from .expressions import NameTarget, Read
from .model import Fn, FnKind, Instance, Scope, Var, VarKind


def own_code(fn: Fn) -> Iterator[object]:
    """The nodes of ``fn``'s own parameters and body, not entering the functions it creates."""
    stack: list[object] = [fn.params, fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        if not dataclasses.is_dataclass(node) or isinstance(node, (Var, Instance, Scope, Fn)):
            continue
        yield node
        stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))


def referenced_in_own_code(fns: list[Fn]) -> set[Var]:
    """The bindings read or written in the own code of the function that declares them (a reference in a function
    it creates is that function's: ``Fn.captures``)."""
    found: set[Var] = set()
    for fn in fns:
        for node in own_code(fn):
            if isinstance(node, (Read, NameTarget)) and node.var.owner is fn:
                found.add(node.var)
    return found


def transitive_reads(fn: Fn) -> list[Fn]:
    """The declarations ``fn`` refers to (through ``captures``: bindings of its parent's activation), and those they
    refer to, transitively; ``fn`` itself left out."""
    found: list[Fn] = []
    stack = [v.declaration for v in fn.captures if v.declaration is not None]
    while stack:
        declaration = stack.pop()
        if declaration is None or declaration is fn or declaration in found:
            continue
        found.append(declaration)
        stack.extend(v.declaration for v in declaration.captures if v.declaration is not None)
    return found


def plan_declarations(fns: list[Fn]) -> None:
    """Fill ``Var.declaration``, ``Fn.reads`` and ``Fn.at_entry`` for every function of a program, and declare the
    instance tokens the JavaScript print passes to ``__d``."""
    declarations = [fn for fn in fns if fn.kind is FnKind.DECLARATION and fn.parent is not None]
    for fn in declarations:
        assert fn.name is not None and fn.name.kind is VarKind.FUNCTION
        fn.name.declaration = fn
    for fn in fns:
        fn.reads = transitive_reads(fn)
    referenced = referenced_in_own_code(fns)
    # a declaration is moved from its scope's entry if something may read it: its activation's own code, a closure
    # of that activation, its own statement (in a block), or a declaration that is moved itself
    moved = {fn for fn in declarations if fn.in_block or fn.name in referenced}
    for fn in fns:
        if fn.kind is not FnKind.DECLARATION and fn.parent is not None:
            moved.update(v.declaration for v in fn.captures if v.declaration is not None)
    changed = True
    while changed:
        changed = False
        for reader in list(moved):
            for v in reader.captures:
                if v.declaration is not None and v.declaration is not reader and v.declaration not in moved:
                    moved.add(v.declaration)
                    changed = True
    for fn in declarations:
        fn.at_entry = fn not in moved
        if fn.captures:
            assert fn.name is not None and fn.name.instance is not None
            fn.name.instance.used = True  # ``__d`` names the instance by its token
