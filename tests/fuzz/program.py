"""A generated program as a tree, printed twice from the same nodes.

``render(program, TS)`` is what boxcheck analyzes: TypeScript with a few
optional annotations and assertions.  ``render(program, JS)`` is what Node
runs: the same program with the types stripped and the oracle's hooks added
(see ``oracle.js`` and docs/fuzzing.md).  Both come from one tree, so the
closure structure, the bindings and the order of evaluation are the same; the
hooks only read bindings and never write one.

Every binding name is unique in a program, which lets the checker match the
generator's bindings to boxcheck's decisions by name, and lets the generator
know, without any name resolution of its own, which closure refers to which
binding.
"""

from __future__ import annotations

import abc
import enum
import json
from dataclasses import dataclass, field


class Mode(enum.Enum):
    TS = "ts"
    JS = "js"


TS, JS = Mode.TS, Mode.JS


class Type(enum.Enum):
    NUM = "num"
    FN = "fn"
    #: a class: only ever constructed (``New``).
    CLASS = "class"


class VarKind(enum.Enum):
    PARAM = "param"
    LET = "let"
    CONST = "const"
    VAR = "var"
    FUNCTION = "function"
    FUNCTION_NAME = "function-name"
    CATCH = "catch"


@dataclass(eq=False)
class Var:
    """A binding the generator declared."""

    name: str
    kind: VarKind
    type: Type
    #: the function whose activation holds it; None at module level.
    owner: Fn | None
    index: int
    #: the capturing closures (children of ``owner`` that refer to it), in creation order of discovery.
    capturers: list[Fn] = field(default_factory=list)

    @property
    def writable(self) -> bool:
        return self.kind not in (VarKind.CONST, VarKind.FUNCTION_NAME)


class FnKind(enum.Enum):
    DECLARATION = "declaration"
    ARROW = "arrow"
    EXPRESSION = "expression"
    #: elements of a class expression (``ClassLit``): created when the class is, run later or at once.
    METHOD = "method"
    FIELD = "field"
    STATIC_FIELD = "static-field"
    STATIC_BLOCK = "static-block"


#: class elements that run while the class is defined, before the binding it initializes is.
STATIC_ELEMENTS = (FnKind.STATIC_FIELD, FnKind.STATIC_BLOCK)


@dataclass(eq=False)
class Fn:
    kind: FnKind
    parent: Fn | None
    #: the declared name (declarations) or the function-expression name.
    name: Var | None = None
    params: list[Param] = field(default_factory=list)
    #: a block body, or a single expression for ``() => expr``.
    body: Block | Expr | None = None
    #: bindings of ``parent``'s activation referred to inside this function (it is their capturer).
    captures: list[Var] = field(default_factory=list)
    #: the ``const``/``let`` this literal initializes directly (DESIGN 2.1 (a): its own slot is back-patched).
    initializes: Var | None = None
    #: a class element's name (``m3``, ``f4``).
    label: str = ""

    def capture(self, var: Var) -> None:
        if var not in self.captures:
            self.captures.append(var)
            var.capturers.append(self)


# -- rendering helpers ----------------------------------------------------------------


def ids(vars_: list[Var]) -> str:
    return "[" + ", ".join(str(v.index) for v in vars_) + "]"


def snapshot_pairs(vars_: list[Var]) -> str:
    """``[[k, () => x], ...]``: the binding ids and getters the oracle snapshots at a closure's creation."""
    return "[" + ", ".join(f"[{v.index}, () => {v.name}]" for v in vars_) + "]"


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
    var: Var
    wrap: Wrap = Wrap.NONE

    def render(self, mode: Mode) -> str:
        return dress(self.var.name, self.wrap, mode)


@dataclass(eq=False)
class Binary(Expr):
    left: Expr
    op: str
    right: Expr

    def render(self, mode: Mode) -> str:
        return f"({self.left.render(mode)} {self.op} {self.right.render(mode)})"


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
class ArrayLit(Expr):
    items: list[Expr]

    def render(self, mode: Mode) -> str:
        return "[" + ", ".join(i.render(mode) for i in self.items) + "]"


@dataclass(eq=False)
class ObjectLit(Expr):
    props: list[tuple[str, Expr]]

    def render(self, mode: Mode) -> str:
        return "({" + ", ".join(f"{k}: {v.render(mode)}" for k, v in self.props) + "})"


@dataclass(eq=False)
class ClassLit(Expr):
    """An anonymous class expression whose elements (``FnKind.METHOD`` ...) capture like closures.

    Every element is created when the class is defined, before static code runs; so the JavaScript
    print snapshots what they capture in a first static block, which runs once they all exist.
    (Elements never name the class: an anonymous class has no inner name of its own.)
    """

    elements: list[Fn]

    def render(self, mode: Mode) -> str:
        parts = []
        captured = [v for fn in self.elements for v in fn.captures]
        if mode is JS and captured:
            parts.append(f"static {{ __r({snapshot_pairs(captured)}); }}")
        parts.extend(render_element(fn, mode) for fn in self.elements)
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
    """A function or arrow expression: created where it stands."""

    fn: Fn

    def render(self, mode: Mode) -> str:
        text = render_function(self.fn, mode)
        if mode is JS and self.fn.captures:
            # back-patch: a closure that is the initializer of its own ``const``/``let`` holds itself
            own = self.fn.initializes.index if self.fn.initializes is not None else -1
            return f"__c({text}, {snapshot_pairs(self.fn.captures)}, {own})"
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
    """``[a, b = 1, ...r]`` as an assignment or declaration pattern."""

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
        if isinstance(self.target, ObjectTarget):
            text = f"({text})"
        elif not bare:
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


# -- statements -----------------------------------------------------------------------


class Stmt(abc.ABC):
    @abc.abstractmethod
    def render(self, mode: Mode, indent: str) -> str: ...


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
        return f"{indent}{text};"


@dataclass(eq=False)
class Guarded(Stmt):
    """``try { stmt } catch {}``: a call that may throw (TDZ, calling a number) must not end the function."""

    body: Block

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}try {self.body.render(mode, indent)} catch {{}}"


@dataclass(eq=False)
class FnDecl(Stmt):
    fn: Fn

    def render(self, mode: Mode, indent: str) -> str:
        return indent + render_function(self.fn, mode, indent)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Block
    otherwise: Block | None = None

    def render(self, mode: Mode, indent: str) -> str:
        text = f"{indent}if ({self.cond.render(mode)}) {self.then.render(mode, indent)}"
        if self.otherwise is not None:
            text += f" else {self.otherwise.render(mode, indent)}"
        return text


@dataclass(eq=False)
class BlockStmt(Stmt):
    block: Block

    def render(self, mode: Mode, indent: str) -> str:
        return indent + self.block.render(mode, indent)


@dataclass(eq=False)
class ForClassic(Stmt):
    """``for (let|var i = 0; i < n; i++)``, with closures made in the head's clauses if asked."""

    keyword: str
    var: Var
    bound: int
    body: Block
    #: a second head binding, ``for (let i = 0, h = keep(() => i); ...)``: closures there see the first copy.
    also_init: tuple[Var, Expr] | None = None
    #: evaluated before the test: a closure there belongs to the current iteration.
    also_test: Expr | None = None
    #: evaluated after the increment in the update clause: a closure there lives in the next iteration's copy.
    also_update: Expr | None = None

    def render(self, mode: Mode, indent: str) -> str:
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
        body = self.body.render(mode, indent, prologue)
        return f"{indent}for ({self.keyword} {init}; {test}; {update}) {body}"


@dataclass(eq=False)
class ForEach(Stmt):
    """``for (const x of [...])``, ``for (k in {...})``, with a declaration or an existing target."""

    keyword: str | None
    target: Target
    of: bool
    iterable: Expr
    body: Block

    def render(self, mode: Mode, indent: str) -> str:
        head = self.target.render(mode)
        if self.keyword is not None:
            head = f"{self.keyword} {head}"
        elif isinstance(self.target, ObjectTarget):
            head = f"({head})"
        word = "of" if self.of else "in"
        prologue = []
        if mode is JS and self.keyword in (None, "var"):
            # the head assigns a binding that outlives the iteration
            prologue.append(f"__chk({ids(self.target.vars())});")
        body = self.body.render(mode, indent, prologue)
        return f"{indent}for ({head} {word} {self.iterable.render(mode)}) {body}"


@dataclass(eq=False)
class While(Stmt):
    """``while (w < n) { w++; ... }`` over an existing counter."""

    counter: Var
    bound: int
    body: Block

    def render(self, mode: Mode, indent: str) -> str:
        test = f"{self.counter.name} < {self.bound}"
        if mode is JS:
            test = f"__g() && {test}"
        return f"{indent}while ({test}) {self.body.render(mode, indent)}"


@dataclass(eq=False)
class Try(Stmt):
    body: Block
    param: Var | None
    handler: Block

    def render(self, mode: Mode, indent: str) -> str:
        param = f" ({self.param.name})" if self.param is not None else ""
        return f"{indent}try {self.body.render(mode, indent)} catch{param} {self.handler.render(mode, indent)}"


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
class Break(Stmt):
    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}break;"


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None

    def render(self, mode: Mode, indent: str) -> str:
        return f"{indent}return{' ' + self.value.render(mode) if self.value is not None else ''};"


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
                if fn.captures:
                    # function declarations are created when the block is entered
                    lines.append(f"{inner}__r({snapshot_pairs(fn.captures)});")
            lines.extend(inner + line for line in prologue or [])
        for stmt in self.stmts:
            lines.append(stmt.render(mode, inner))
        if not lines:
            return "{}"
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"


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


def render_element(fn: Fn, mode: Mode) -> str:
    """A class element; its name is ``fn.label``."""
    if fn.kind is FnKind.METHOD:
        return fn.label + render_function(fn, mode).removeprefix("function")
    if fn.kind is FnKind.STATIC_BLOCK:
        assert isinstance(fn.body, Block)
        return "static " + fn.body.render(mode, "", ["__tick();"] if mode is JS else [])
    assert fn.body is not None and not isinstance(fn.body, Block)
    value = fn.body.render(mode)
    if mode is JS:
        value = f"(__tick(), {value})"
    static = "static " if fn.kind is FnKind.STATIC_FIELD else ""
    return f"{static}{fn.label} = {value};"


def render_function(fn: Fn, mode: Mode, indent: str = "") -> str:
    params = "(" + ", ".join(p.render(mode) for p in fn.params) + ")"
    if isinstance(fn.body, Block):
        body = fn.body.render(mode, indent, ["__tick();"] if mode is JS else [])
    else:
        assert fn.body is not None
        expr = fn.body.render(mode)
        if expr.startswith("{"):
            expr = f"({expr})"
        body = f"(__tick(), {expr})" if mode is JS else expr
    if fn.kind is FnKind.ARROW:
        return f"{params} => {body}"
    name = f" {fn.name.name}" if fn.name is not None else ""
    return f"function{name}{params} {body}"


@dataclass(eq=False, repr=False)
class Program:
    #: module-level function declarations; each is called by the driver.
    functions: list[Fn]
    #: the driver's calls: (function, argument expressions).
    calls: list[tuple[Fn, list[Expr]]]
    #: seed of the order in which ``drain`` calls the kept closures.
    drain_seed: int
    vars: list[Var]

    def render(self, mode: Mode) -> str:
        # The oracle runs the JavaScript as strict code: boxcheck is told so too, since sloppy mode
        # would add bindings (a block-level function's function-wide ``var``, ``block_functions``).
        parts = ['"use strict";'] if mode is TS else []
        parts += [FnDecl(fn).render(mode, "") for fn in self.functions]
        for fn, args in self.calls:
            assert fn.name is not None
            call = f"{fn.name.name}({', '.join(a.render(mode) for a in args)})"
            parts.append(f"try {{ keep({call}); }} catch {{}}")
        parts.append(f"drain({self.drain_seed});")
        return "\n".join(parts) + "\n"

    def __repr__(self) -> str:
        return self.describe()

    def function_vars(self) -> list[Var]:
        """The bindings boxcheck decides (all but module level)."""
        return [v for v in self.vars if v.owner is not None]

    def describe(self) -> str:
        """The TypeScript source and the verdict-relevant facts, for a failure message."""
        captured = {v.name: [c.name.name if c.name else c.kind.value for c in v.capturers]
                    for v in self.function_vars() if v.capturers}
        return self.render(TS) + "\n// captured: " + json.dumps(captured)


def render(program: Program, mode: Mode) -> str:
    return program.render(mode)
