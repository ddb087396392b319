"""A generated program as a tree, printed twice from the same nodes.

``render(program, TS)`` is what boxcheck analyzes: TypeScript with a few
optional annotations and assertions.  ``render(program, JS)`` is what Node
runs: the same program with the types stripped and the oracle's hooks added
(see ``oracle.js`` and docs/fuzzing.md).  Both come from one tree, so the
closure structure, the bindings and the order of evaluation are the same; the
hooks only read bindings and never write one, and the only names they add
are the oracle's own (``__a3``, ``__i4``: scope-instance tokens).

The nodes are in ``model.py`` (bindings, functions, scope instances),
``expressions.py``, ``statements.py`` and ``functions.py``.

Every binding name is unique in a program, which lets the checker match the
generator's bindings to boxcheck's decisions by name, and lets the generator
know, without any name resolution of its own, which closure refers to which
binding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .expressions import Expr
from .helpers import prelude
from .model import TS, Fn, Mode, Var
from .statements import FnDecl, Stmt


@dataclass(eq=False, repr=False)
class Program:
    #: module-level function declarations; each is called by the driver.
    functions: list[Fn]
    #: the driver's calls: (function, argument expressions).
    calls: list[tuple[Fn, list[Expr]]]
    #: seed of the order in which ``drain`` calls the kept closures.
    drain_seed: int
    vars: list[Var]
    #: the module's own run-once code after its function declarations: loops whose per-iteration bindings are
    #: decided like a function's (``generate_toplevel.py``).
    top: list[Stmt] = field(default_factory=list)
    #: the module-level helpers that the program hands closures to (``helpers.py``), printed first.
    helpers: set[str] = field(default_factory=set)

    def render(self, mode: Mode) -> str:
        # The oracle runs the JavaScript as strict code: boxcheck is told so too, since sloppy mode
        # would add bindings (a block-level function's function-wide ``var``, ``block_functions``).
        parts = ['"use strict";'] if mode is TS else []
        parts += prelude(self.helpers)
        parts += [FnDecl(fn).render(mode, "") for fn in self.functions]
        parts += [stmt.render(mode, "") for stmt in self.top]
        for fn, args in self.calls:
            assert fn.name is not None
            call = f"{fn.name.name}({', '.join(a.render(mode) for a in args)})"
            parts.append(f"try {{ keep({call}); }} catch {{}}")
        parts.append(f"drain({self.drain_seed});")
        return "\n".join(parts) + "\n"

    def __repr__(self) -> str:
        return self.describe()

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """What hypothesis prints for an example: without it, its pretty printer walks the dataclass's fields,
        the whole tree of bindings and functions (tens of megabytes)."""
        printer.text(self.describe())

    def function_vars(self) -> list[Var]:
        """The bindings checked against boxcheck's decisions: all but the module's function declarations (the
        module's own top-level code has a stand-in owner: its per-iteration bindings are checked, the others are
        ``module``, which nothing refutes)."""
        return [v for v in self.vars if v.owner is not None]

    def describe(self) -> str:
        """The TypeScript source and the verdict-relevant facts, for a failure message."""
        captured = {v.name: [c.name.name if c.name else c.kind.value for c in v.capturers]
                    for v in self.function_vars() if v.capturers}
        return self.render(TS) + "\n// captured: " + json.dumps(captured)


def render(program: Program, mode: Mode) -> str:
    return program.render(mode)
