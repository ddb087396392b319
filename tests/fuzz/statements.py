"""Statements of a generated program, each printed as TypeScript or as instrumented JavaScript.

A loop body may be any statement (braced or not).  When some closure checks
the loop's iteration instance, the JavaScript print runs each iteration's body
as ``{ const __i4 = __enter(1); try BODY finally { __leave(__i4); } }``: the
token is fresh on every entry and dead once the body is left (normally, by
``break``, ``continue``, ``return`` or a throw).  Only braces and hooks are
added: both prints have the same statements, bindings and closures.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

from .expressions import Assign, ClassLit, Expr, Target, Update
from .functions import render_function
from .model import JS, TS, Fn, Instance, Mode, Var, first_read_groups, ids, inline, snapshot_pairs


class Stmt(abc.ABC):
    @abc.abstractmethod
    def render(self, mode: Mode, indent: str) -> str: ...


@dataclass(eq=False)
class Block:
    stmts: list[Stmt] = field(default_factory=list)

    def hoisted(self) -> list[Fn]:
        return [s.fn for s in self.stmts if isinstance(s, FnDecl)]

    def render(self, mode: Mode, indent: str, prologue: list[str] | None = None) -> str:
        inner = indent + "  "
        lines = []
        if mode is JS:
            for fn in self.hoisted():
                if fn.captures and fn.at_entry:
                    # a function declaration nothing may read is taken to be created when its scope is entered
                    # (the others, where they may first be read: ``Read``, ``Closure``, ``FnDecl``)
                    lines.append(f"{inner}__r({snapshot_pairs(fn.captures)});")
            lines.extend(inner + line for line in prologue or [])
        for stmt in self.stmts:
            lines.append(stmt.render(mode, inner))
        if not lines:
            return "{}"
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"


@dataclass(eq=False)
class Declarator:
    target: Target
    init: Expr | None
    annotate: bool = False


@dataclass(eq=False)
class Decl(Stmt):
    keyword: str
    declarators: list[Declarator]

    def head(self, mode: Mode) -> str:
        parts = []
        for d in self.declarators:
            text = d.target.render(mode)
            if mode is TS and d.annotate:
                text += ": any"
            if d.init is not None:
                text += f" = {d.init.render(mode)}"
            parts.append(text)
        return f"{self.keyword} {', '.join(parts)}"

    def render(self, mode: Mode, indent: str) -> str:
        text = f"{indent}{self.head(mode)};"
        if mode is JS and self.keyword == "var":
            # a ``var`` initializer is a write: it may run again, after closures captured the ``var``
            written = [v for d in self.declarators if d.init is not None for v in d.target.vars()]
            if written:
                text += f" __chk({ids(written)});"
        return text


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr

    def render(self, mode: Mode, indent: str) -> str:
        expr = self.expr
        text = expr.render(mode, bare=True) if isinstance(expr, (Assign, Update)) else expr.render(mode)
        if text.startswith(("{", "function", "class", "async function")):
            text = f"({text})"
        return f"{indent}{text};"


@dataclass(eq=False)
class Guarded(Stmt):
    """``try { stmt } catch {}``: a call that may throw (TDZ, calling a number) must not end the function."""

    body: Block

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}try {self.body.render(mode, indent)} catch {{}}"


@dataclass(eq=False)
class FnDecl(Stmt):
    """A function declaration.  One in a block (or a ``switch``) is taken to be read where its statement stands
    (DESIGN 2.1.1 as ``creation.py`` reads it: sloppy code copies it to a ``var`` there), so the JavaScript print
    tells the oracle there too."""

    fn: Fn

    def render(self, mode: Mode, indent: str) -> str:
        text = indent + render_function(self.fn, mode, indent)
        if mode is JS and self.fn.in_block and self.fn.name is not None:
            groups = first_read_groups(self.fn.name)
            if groups is not None:
                text = f"{indent}__d({groups});\n{text}"
        return text


@dataclass(eq=False)
class ClassDecl(Stmt):
    """``class K { ... }``: block-scoped like ``let``, bound once the class is defined."""

    body: ClassLit

    def render(self, mode: Mode, indent: str) -> str:
        return indent + self.body.render(mode)


@dataclass(eq=False)
class BlockStmt(Stmt):
    block: Block

    def render(self, mode: Mode, indent: str) -> str:
        return indent + self.block.render(mode, indent)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    otherwise: Stmt | None = None

    def render(self, mode: Mode, indent: str) -> str:
        text = f"{indent}if ({self.cond.render(mode)}) {inline(self.then, mode, indent)}"
        if self.otherwise is not None:
            text += f" else {inline(self.otherwise, mode, indent)}"
        return text


@dataclass(eq=False)
class Labelled(Stmt):
    """``L3: stmt``: a block (``break L3``) or a loop (``break L3`` and ``continue L3``)."""

    label: str
    body: Stmt

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}{self.label}: {inline(self.body, mode, indent)}"


def ends_open(stmt: Stmt) -> bool:
    """Would an ``else`` after this statement attach to an ``if`` inside it (the dangling ``else``)?"""
    if isinstance(stmt, If):
        return stmt.otherwise is None or ends_open(stmt.otherwise)
    if isinstance(stmt, Labelled):
        return ends_open(stmt.body)
    if isinstance(stmt, Loop):
        return ends_open(stmt.body)
    return False


@dataclass(eq=False)
class Loop(Stmt):
    """A loop; ``iteration`` is the instance of the bindings declared in its body and its per-iteration head."""

    body: Stmt
    iteration: Instance

    def __post_init__(self) -> None:
        self.iteration.loop = self

    @property
    def lexical_head(self) -> bool:
        """Does its head declare per-iteration bindings (``let``/``const``)?"""
        return False

    def render_body(self, mode: Mode, indent: str, prologue: list[str]) -> str:
        token = self.iteration.name if self.iteration.used and mode is JS else None
        if mode is TS or (token is None and not prologue):
            return inline(self.body, mode, indent)
        inner = indent + "  "
        lines = [inner + line for line in prologue]
        if token is None:
            lines.append(self.body.render(mode, inner))
        else:
            if isinstance(self.body, BlockStmt):
                block = self.body.block.render(mode, inner)
            else:
                block = "{\n" + self.body.render(mode, inner + "  ") + f"\n{inner}}}"
            lines.append(f"{inner}const {token} = __enter(1);")
            lines.append(f"{inner}try {block} finally {{ __leave({token}); }}")
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"


@dataclass(eq=False)
class ForClassic(Loop):
    """``for (let|var i = 0; i < n; i++)``, with closures made in the head's clauses if asked."""

    keyword: str = "let"
    var: Var | None = None
    bound: int = 1
    #: a second head binding, ``for (let i = 0, h = keep(() => i); ...)``: closures there see the first copy.
    also_init: tuple[Var, Expr] | None = None
    #: evaluated before the test: a closure there belongs to the current iteration.
    also_test: Expr | None = None
    #: evaluated after the increment in the update clause: a closure there lives in the next iteration's copy.
    also_update: Expr | None = None

    @property
    def lexical_head(self) -> bool:
        return self.keyword == "let"

    def render(self, mode: Mode, indent: str) -> str:
        assert self.var is not None
        i = self.var.name
        init = f"{i} = 0"
        test = f"{i} < {self.bound}"
        update = f"{i}++"
        if self.also_init is not None:
            init += f", {self.also_init[0].name} = {self.also_init[1].render(mode)}"
        if self.also_test is not None:
            test = f"({self.also_test.render(mode)}, {test})"
        prologue = []
        if mode is JS:
            test = f"__g() && {test}"
            update = f"__w({update}, {ids([self.var])})"
            if self.keyword == "var":
                # the head's initializers write the ``var``s again each time the loop starts
                written = [self.var] + ([self.also_init[0]] if self.also_init is not None else [])
                prologue.append(f"__chk({ids(written)});")
        if self.also_update is not None:
            update += f", {self.also_update.render(mode)}"
        body = self.render_body(mode, indent, prologue)
        return f"{indent}for ({self.keyword} {init}; {test}; {update}) {body}"


@dataclass(eq=False)
class ForEach(Loop):
    """``for (const x of [...])``, ``for (k in {...})``, with a declaration or an existing target."""

    keyword: str | None = None
    target: Target | None = None
    of: bool = True
    iterable: Expr | None = None

    @property
    def lexical_head(self) -> bool:
        return self.keyword in ("let", "const")

    def render(self, mode: Mode, indent: str) -> str:
        assert self.target is not None and self.iterable is not None
        head = self.target.render(mode)
        if self.keyword is not None:
            head = f"{self.keyword} {head}"
        elif head.startswith("{"):
            head = f"({head})"
        word = "of" if self.of else "in"
        prologue = []
        if mode is JS and self.keyword in (None, "var"):
            # the head assigns a binding that outlives the iteration
            prologue.append(f"__chk({ids(self.target.vars())});")
        body = self.render_body(mode, indent, prologue)
        return f"{indent}for ({head} {word} {self.iterable.render(mode)}) {body}"


@dataclass(eq=False)
class While(Loop):
    """``while (w < n) { w++; ... }`` over an existing counter, or ``while (w++ < n) stmt`` (``counts_in_test``),
    or, with ``do_while``, ``do stmt while (w++ < n);``: the counter always moves, ``continue`` or not."""

    counter: Var | None = None
    bound: int = 1
    counts_in_test: bool = False
    do_while: bool = False

    def render(self, mode: Mode, indent: str) -> str:
        assert self.counter is not None
        counter = self.counter.name
        if self.counts_in_test:
            counter = f"__w({counter}++, {ids([self.counter])})" if mode is JS else f"{counter}++"
        test = f"{counter} < {self.bound}"
        if mode is JS:
            test = f"__g() && {test}"
        body = self.render_body(mode, indent, [])
        if self.do_while:
            return f"{indent}do {body} while ({test});"
        return f"{indent}while ({test}) {body}"


@dataclass(eq=False)
class Try(Stmt):
    """``try {} catch (e) {} finally {}``, with a handler, a finalizer or both."""

    body: Block
    param: Var | None
    handler: Block | None
    finalizer: Block | None = None

    def render(self, mode: Mode, indent: str) -> str:
        text = f"{indent}try {self.body.render(mode, indent)}"
        if self.handler is not None:
            param = f" ({self.param.name})" if self.param is not None else ""
            text += f" catch{param} {self.handler.render(mode, indent)}"
        if self.finalizer is not None:
            text += f" finally {self.finalizer.render(mode, indent)}"
        return text


@dataclass(eq=False)
class Switch(Stmt):
    """``switch (d) { case 0: ... default: ... }``: one scope for all clauses, entered at any of them.

    A run that enters below a clause skips its declarations: a closure made there captures them in their TDZ.
    """

    discriminant: Expr
    #: (label, statements); label None is ``default``.
    clauses: list[tuple[int | None, list[Stmt]]]

    def render(self, mode: Mode, indent: str) -> str:
        inner = indent + "  "
        lines = [f"{indent}switch ({self.discriminant.render(mode)}) {{"]
        for label, stmts in self.clauses:
            lines.append(f"{inner}{'default' if label is None else f'case {label}'}:")
            lines.extend(stmt.render(mode, inner + "  ") for stmt in stmts)
        lines.append(f"{indent}}}")
        return "\n".join(lines)


@dataclass(eq=False)
class Jump(Stmt):
    """``break``, ``continue``, ``break L`` or ``continue L``."""

    word: str = "break"
    label: str | None = None

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}{self.word}{' ' + self.label if self.label else ''};"


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}return{' ' + self.value.render(mode) if self.value is not None else ''};"


@dataclass(eq=False)
class Throw(Stmt):
    value: Expr

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}throw {self.value.render(mode)};"


#: statements after which the rest of their block never runs.
JUMPS = (Jump, Return, Throw)
