"""What a generated program is made of below its syntax: bindings, functions, scopes and scope instances.

The tree (``expressions.py``, ``statements.py``, ``program.py``) and the
generator (``generate*.py``) share these.  A ``Scope`` is the generator's
lexical scope; an ``Instance`` is the run-time scope instance that DESIGN 2.3
speaks of (a function's activation, or one iteration of a loop), which the
JavaScript print makes observable with a token (docs/fuzzing.md, "The
oracle: `stack`").
"""

from __future__ import annotations

import enum
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
    #: ``class K {}``: the outer binding (elements never name the class: its inner binding is not generated).
    CLASS = "class"


class InstanceKind(enum.Enum):
    ACTIVATION = 0
    ITERATION = 1


@dataclass(eq=False)
class Instance:
    """A scope instance that holds bindings at run time: one activation of a function, or one iteration of a loop.

    The JavaScript print declares a token for it (``__enter``) where the instance begins and marks it dead
    (``__leave``) in a ``finally`` where it ends; ``scope`` is where that token is declared, so code in it and in
    the scopes inside it can read the token of the very instance its bindings belong to.
    """

    name: str
    kind: InstanceKind
    scope: Scope | None = None
    #: a closure checks it, so the JavaScript print declares the token.
    used: bool = False
    #: for an iteration: the loop statement (``statements.Loop``).
    loop: object = None


@dataclass(eq=False)
class Scope:
    """A lexical scope as the generator sees it: the bindings declared in it so far, and its scope instance."""

    parent: Scope | None
    vars: list[Var] = field(default_factory=list)
    #: the instance the bindings declared here belong to: the parent's unless this scope starts one.
    instance: Instance | None = None
    #: bindings that code inside cannot name (a class declaration's own name, seen from its elements).
    hides: frozenset = frozenset()
    #: code inside sees ``vars`` and nothing of the parents (a class's static elements, which run while the class
    #: is defined, see what was visible then); the parents still hold the tokens it may read.
    sealed: bool = False

    def __post_init__(self) -> None:
        if self.instance is None and self.parent is not None:
            self.instance = self.parent.instance

    def within(self, ancestor: Scope) -> bool:
        """Is this scope ``ancestor`` or inside it (lexically, across function boundaries)?"""
        scope: Scope | None = self
        while scope is not None:
            if scope is ancestor:
                return True
            scope = scope.parent
        return False


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
    #: the run-time instance that holds it (None: not checked for `stack`, see ``instance_of``).
    instance: Instance | None = None
    #: only the idiom that declared it uses it (``callback_loop``): random code never names it, so it does not
    #: escape by chance.
    private: bool = False
    #: the function declaration this binding names (not at module level): a read of it may create that function
    #: (DESIGN 2.1.1), so the JavaScript print snapshots what it captures there (``first_read_groups``).
    declaration: Fn | None = None

    @property
    def writable(self) -> bool:
        return self.kind not in (VarKind.CONST, VarKind.FUNCTION_NAME)


def instance_of(kind: VarKind, scope: Scope, owner: Fn | None) -> Instance | None:
    """The instance a binding declared in ``scope`` lives in.

    A function-expression name lives in an environment made once per evaluation of the expression, not per
    activation; it is never written, so it is never `stack` and is not checked.
    """
    if owner is None or kind is VarKind.FUNCTION_NAME:
        return None
    return scope.instance


class FnKind(enum.Enum):
    DECLARATION = "declaration"
    ARROW = "arrow"
    EXPRESSION = "expression"
    #: elements of a class (``ClassLit``, ``ClassDecl``): created when the class is, run later or at once.
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
    params: list = field(default_factory=list)
    #: a ``Block`` body, or a single expression for ``() => expr`` and field initializers.
    body: object = None
    #: bindings of ``parent``'s activation referred to inside this function (it is their capturer).
    captures: list[Var] = field(default_factory=list)
    #: the ``const``/``let`` this literal initializes directly (DESIGN 2.1 (a): its own slot is back-patched).
    initializes: Var | None = None
    #: a class element's name (``m3``, ``f4``).
    label: str = ""
    is_async: bool = False
    is_generator: bool = False
    #: the scope it stands in (lexically; for a static element, not the sealed scope it sees).
    site: Scope | None = None
    #: its activation: the instance of the bindings declared in its own scopes.
    activation: Instance | None = None
    #: the JavaScript print declares the activation's token in a hidden last parameter (seen by parameter
    #: defaults), not in the body: the function has no rest parameter of its own.
    token_in_params: bool = False
    #: bindings of enclosing functions referred to anywhere inside it, nested functions included.
    refers: list[Var] = field(default_factory=list)
    #: what it checks on entry and on each resumption: the instances of ``refers`` it can see, with their bindings.
    checks: list[tuple[Instance, list[Var]]] = field(default_factory=list)
    #: a function declaration in a block or a ``switch``, not in its function's body: its statement counts as a
    #: read of it (DESIGN 2.1.1 as ``creation.py`` reads it).
    in_block: bool = False
    #: the function declarations of ``parent``'s activation that may be read once this function exists (a closure)
    #: or is read (a declaration): those it refers to, and those they refer to, transitively (``declarations.py``).
    reads: list[Fn] = field(default_factory=list)
    #: a declaration in its function's body that nothing may read: created when its scope is entered (the fallback).
    at_entry: bool = False

    def capture(self, var: Var) -> None:
        if var not in self.captures:
            self.captures.append(var)
            var.capturers.append(self)

    def has_rest(self) -> bool:
        return any(p.rest for p in self.params)

    def plan_checks(self) -> None:
        """Group ``refers`` by instance, keeping the instances whose token is visible where the function stands.

        A closure in a parameter default cannot see a token declared in the body, nor one in a loop head clause
        the token of the loop body: those are not checked (a missed check, never a false one).
        """
        groups: dict[Instance, list[Var]] = {}
        for var in self.refers:
            instance = var.instance
            if instance is None or instance.scope is None or self.site is None:
                continue
            if self.site.within(instance.scope):
                groups.setdefault(instance, []).append(var)
        self.checks = list(groups.items())
        for instance in groups:
            instance.used = True


# -- rendering helpers ----------------------------------------------------------------


def ids(vars_: list[Var]) -> str:
    return "[" + ", ".join(str(v.index) for v in vars_) + "]"


def snapshot_pairs(vars_: list[Var]) -> str:
    """``[[k, () => x], ...]``: the binding ids and getters the oracle snapshots at a closure's creation."""
    return "[" + ", ".join(f"[{v.index}, () => {v.name}]" for v in vars_) + "]"


def declaration_groups(fns: list[Fn]) -> str:
    """``[[token, d, [[k, () => x], ...]], ...]``: for each function declaration ``d`` that may be read here for the
    first time in its scope instance (``token``), what it captures; the oracle snapshots each once per instance."""
    groups = []
    for fn in fns:
        if fn.captures:
            assert fn.name is not None and fn.name.instance is not None
            groups.append(f"[{fn.name.instance.name}, {fn.name.index}, {snapshot_pairs(fn.captures)}]")
    return "[" + ", ".join(groups) + "]"


def first_read_groups(var: Var) -> str | None:
    """What a read of ``var`` may create, if it names a function declaration: the declaration and those it reads."""
    declaration = var.declaration
    if declaration is None:
        return None
    fns = [declaration, *declaration.reads]
    return declaration_groups(fns) if any(fn.captures for fn in fns) else None


def live_checks(fn: Fn) -> str:
    """``[[() => __a3, [k, ...]], ...]``: token getters (a token may still be in its TDZ) and their bindings."""
    return "[" + ", ".join(f"[() => {i.name}, {ids(vs)}]" for i, vs in fn.checks) + "]"


def inline(stmt, mode: Mode, indent: str) -> str:
    """A statement in a position that takes one (a loop body, an ``if`` branch, a label): its indent removed."""
    return stmt.render(mode, indent)[len(indent):]
