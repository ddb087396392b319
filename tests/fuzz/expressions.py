"""Expressions, assignment targets and parameters of a generated program, each printed as TypeScript or JavaScript.

The JavaScript print adds the oracle's hooks (``oracle.js``); none of them
writes a program binding, and each returns what it wraps.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass

from .model import JS, TS, Fn, Mode, Var, declaration_groups, first_read_groups, ids, live_checks, snapshot_pairs


class Expr(abc.ABC):
    @abc.abstractmethod
    def render(self, mode: Mode) -> str: ...


@dataclass(eq=False)
class Lit(Expr):
    text: str

    def render(self, mode: Mode) -> str:
        return self.text


class Wrap(enum.Enum):
    """How the TypeScript print dresses a reference; JavaScript prints the bare name."""

    NONE = "none"
    PAREN = "paren"
    AS_ANY = "as"
    BANG = "bang"


def dress(name: str, wrap: Wrap, mode: Mode) -> str:
    if mode is JS or wrap is Wrap.NONE:
        return name
    if wrap is Wrap.PAREN:
        return f"({name})"
    if wrap is Wrap.AS_ANY:
        return f"({name} as any)"
    return f"{name}!"


@dataclass(eq=False)
class Read(Expr):
    """A read of a binding.  In the JavaScript print, a read of a function declaration's name first tells the oracle
    that the declaration, and those it refers to, may be read (so created) here: ``(__d([...]), f)``."""

    var: Var
    wrap: Wrap = Wrap.NONE

    def render(self, mode: Mode) -> str:
        if mode is JS:
            groups = first_read_groups(self.var)
            if groups is not None:
                return f"(__d({groups}), {self.var.name})"
        return dress(self.var.name, self.wrap, mode)


@dataclass(eq=False)
class Binary(Expr):
    left: Expr
    op: str
    right: Expr

    def render(self, mode: Mode) -> str:
        return f"({self.left.render(mode)} {self.op} {self.right.render(mode)})"


@dataclass(eq=False)
class Cond(Expr):
    """``(t ? a : b)``: only one arm runs, so a write in one arm never follows a closure made in the other."""

    test: Expr
    then: Expr
    otherwise: Expr

    def render(self, mode: Mode) -> str:
        return f"({self.test.render(mode)} ? {self.then.render(mode)} : {self.otherwise.render(mode)})"


@dataclass(eq=False)
class Call(Expr):
    callee: Expr
    args: list[Expr]
    optional: bool = False

    def render(self, mode: Mode) -> str:
        callee = self.callee.render(mode)
        if isinstance(self.callee, Closure):
            callee = f"({callee})"
        dot = "?." if self.optional else ""
        return f"{callee}{dot}({', '.join(a.render(mode) for a in self.args)})"


@dataclass(eq=False)
class Suspend(Expr):
    """``(await e)`` or ``(yield e)`` in ``fn``: the activation may resume long after, so the JavaScript print
    checks ``fn``'s instances again on resumption (``__back``)."""

    word: str
    value: Expr
    fn: Fn

    def render(self, mode: Mode) -> str:
        text = f"({self.word} {self.value.render(mode)})"
        if mode is JS and self.fn.checks:
            return f"__back({text}, {live_checks(self.fn)})"
        return text


@dataclass(eq=False)
class ArrayLit(Expr):
    items: list[Expr]

    def render(self, mode: Mode) -> str:
        return "[" + ", ".join(i.render(mode) for i in self.items) + "]"


@dataclass(eq=False)
class ObjectLit(Expr):
    """``({a: e, ...})``; a property whose key is the name it reads is printed as a shorthand, ``({f3})``, in the
    TypeScript print (the JavaScript print spells it ``f3: f3``, to hook the read)."""

    props: list[tuple[str, Expr]]

    def render(self, mode: Mode) -> str:
        parts = []
        for key, value in self.props:
            shorthand = isinstance(value, Read) and value.var.name == key and value.wrap is Wrap.NONE
            parts.append(key if shorthand and mode is TS else f"{key}: {value.render(mode)}")
        return "({" + ", ".join(parts) + "})"


@dataclass(eq=False)
class ClassLit(Expr):
    """A class whose elements (``FnKind.METHOD`` ...) capture like closures: an anonymous class expression, or,
    with ``name``, the body of a class declaration (``ClassDecl``).

    Every element is created when the class is defined, before static code runs; so the JavaScript
    print snapshots what they capture in a first static block, which runs once they all exist.
    (Elements never name the class: its inner name is not generated.)
    """

    elements: list[Fn]
    name: Var | None = None

    def render(self, mode: Mode) -> str:
        from .functions import render_element

        parts = []
        captured = [v for fn in self.elements for v in fn.captures]
        reads = [d for fn in self.elements for d in fn.reads]
        hooks = []
        if mode is JS and captured:
            hooks.append(f"__r({snapshot_pairs(captured)});")
        if mode is JS and any(d.captures for d in reads):
            hooks.append(f"__d({declaration_groups(reads)});")  # the elements may read these declarations
        if hooks:
            parts.append(f"static {{ {' '.join(hooks)} }}")
        parts.extend(render_element(fn, mode) for fn in self.elements)
        if self.name is not None:
            return f"class {self.name.name} {{ " + " ".join(parts) + " }"
        return "(class { " + " ".join(parts) + " })"


@dataclass(eq=False)
class New(Expr):
    """``new C().m(args)``, or ``new C(args)`` without ``method``."""

    cls: Expr
    method: str | None
    args: list[Expr]

    def render(self, mode: Mode) -> str:
        args = ", ".join(a.render(mode) for a in self.args)
        if self.method is None:
            return f"(new {self.cls.render(mode)}({args}))"
        return f"new {self.cls.render(mode)}().{self.method}({args})"


@dataclass(eq=False)
class Closure(Expr):
    """A function or arrow expression: created where it stands.  From then on it may read the function declarations
    it refers to (and those they refer to), so their first possible read is here too (DESIGN 2.1.1)."""

    fn: Fn

    def render(self, mode: Mode) -> str:
        from .functions import render_function

        text = render_function(self.fn, mode)
        if mode is JS and self.fn.captures:
            # back-patch: a closure that is the initializer of its own ``const``/``let`` holds itself
            own = self.fn.initializes.index if self.fn.initializes is not None else -1
            reads = f", {declaration_groups(self.fn.reads)}" if any(d.captures for d in self.fn.reads) else ""
            return f"__c({text}, {snapshot_pairs(self.fn.captures)}, {own}{reads})"
        return text


# -- writes ---------------------------------------------------------------------------


class Target(abc.ABC):
    @abc.abstractmethod
    def render(self, mode: Mode) -> str: ...

    @abc.abstractmethod
    def vars(self) -> list[Var]: ...


@dataclass(eq=False)
class NameTarget(Target):
    var: Var
    wrap: Wrap = Wrap.NONE

    def render(self, mode: Mode) -> str:
        return dress(self.var.name, self.wrap, mode)

    def vars(self) -> list[Var]:
        return [self.var]


@dataclass(eq=False)
class ArrayTarget(Target):
    """``[a, b = 1, ...r]`` as an assignment or declaration pattern; items may be patterns themselves."""

    items: list[tuple[Target, Expr | None]]
    rest: Target | None = None

    def render(self, mode: Mode) -> str:
        parts = [t.render(mode) + (f" = {d.render(mode)}" if d is not None else "") for t, d in self.items]
        if self.rest is not None:
            parts.append("..." + self.rest.render(mode))
        return "[" + ", ".join(parts) + "]"

    def vars(self) -> list[Var]:
        found = [v for t, _ in self.items for v in t.vars()]
        return found + (self.rest.vars() if self.rest is not None else [])


@dataclass(eq=False)
class ObjectTarget(Target):
    """``{k: a, m: b = 1}``."""

    items: list[tuple[str, Target, Expr | None]]

    def render(self, mode: Mode) -> str:
        parts = [f"{k}: {t.render(mode)}" + (f" = {d.render(mode)}" if d is not None else "")
                 for k, t, d in self.items]
        return "{" + ", ".join(parts) + "}"

    def vars(self) -> list[Var]:
        return [v for _, t, _ in self.items for v in t.vars()]


@dataclass(eq=False)
class Assign(Expr):
    target: Target
    op: str
    value: Expr

    def render(self, mode: Mode, bare: bool = False) -> str:
        text = f"{self.target.render(mode)} {self.op} {self.value.render(mode)}"
        if mode is JS and self.op != "=" and isinstance(self.target, NameTarget):
            # ``f ??= e`` reads ``f`` first: a read of a function declaration (``Read``)
            groups = first_read_groups(self.target.var)
            if groups is not None:
                return f"__w((__d({groups}), {text}), {ids(self.target.vars())})"
        if isinstance(self.target, ObjectTarget) or not bare:
            text = f"({text})"
        return f"__w({text}, {ids(self.target.vars())})" if mode is JS else text


@dataclass(eq=False)
class Update(Expr):
    target: NameTarget
    op: str
    prefix: bool

    def render(self, mode: Mode, bare: bool = False) -> str:
        name = self.target.render(mode)
        text = f"{self.op}{name}" if self.prefix else f"{name}{self.op}"
        if mode is JS:
            return f"__w({text}, {ids(self.target.vars())})"
        return text if bare else f"({text})"


@dataclass(eq=False)
class Param:
    target: Target
    default: Expr | None = None
    rest: bool = False
    annotate: bool = False

    def render(self, mode: Mode) -> str:
        text = ("..." if self.rest else "") + self.target.render(mode)
        if mode is TS and self.annotate:
            text += ": any"
        if self.default is not None:
            text += f" = {self.default.render(mode)}"
        return text
