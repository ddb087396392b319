"""The generator's functions, parameters, destructuring patterns and classes (a mixin of ``Generator``).

A closure's body is generated once its creator's body is complete
(``Pending``), so it may refer to bindings declared after it.  A closure may
have a *focus*: bindings its body is sure to refer to (read, write or call),
which the idioms of ``generate_statements.py`` use to put a closure that
captures ``x`` and a write of ``x`` on paths that do, or do not, meet.

Each function's parameters and body get its activation (``Instance``); where
its token is declared decides which closures can check it (``Fn.plan_checks``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .expressions import (
    ArrayLit,
    ArrayTarget,
    Binary,
    Call,
    ClassLit,
    Closure,
    Expr,
    Lit,
    NameTarget,
    ObjectLit,
    ObjectTarget,
    Param,
    Read,
    Target,
)
from .model import STATIC_ELEMENTS, Fn, FnKind, Instance, InstanceKind, Scope, Type, Var, VarKind
from .statements import JUMPS, Block, Declarator, ExprStmt, Guarded, If

if TYPE_CHECKING:
    from .generate import Generator

KEYS = ("a", "b", "c")


@dataclass(eq=False)
class Pending:
    """A closure whose parameters and body are generated once its creator's body is complete."""

    fn: Fn
    #: what its body sees: everything declared in this scope and around it.
    scope: Scope
    expression_body: bool
    #: bindings its body must refer to.
    focus: list[Var] = field(default_factory=list)
    #: the body may refer to ``focus`` by writing it (else it reads or calls it).
    focus_writes: bool = True
    #: function declarations its body calls, under a guard on a parameter of its own, ``if (p !== 1) try { f(1) }
    #: catch {}``, so that declarations calling each other end (``generate_declarations.py``).
    calls: list[Var] = field(default_factory=list)


class FunctionsMixin:
    # -- closures and classes --------------------------------------------------------------

    def closure(self: Generator, scope: Scope, kind: FnKind, initializes: Var | None = None,
                focus: list[Var] | None = None) -> Closure:
        fn = Fn(kind, self.fn, initializes=initializes, site=scope)
        fn.is_async = self.chance(10)
        fn.is_generator = kind is FnKind.EXPRESSION and not fn.is_async and self.chance(8)
        expression_body = kind is FnKind.ARROW and self.chance(40)
        self.pending.append(Pending(fn, scope, expression_body, list(focus or [])))
        return Closure(fn)

    def class_lit(self: Generator, scope: Scope, name: Var | None = None) -> tuple[ClassLit, list[str]]:
        """A class; its elements' bodies, like closures', are generated once the creator's is done.

        Static elements run while the class is defined, before the binding it initializes is: they see
        only what is visible now (a sealed scope), not what is declared after.  No element sees ``name``:
        inside the class that name is another binding (the class's inner name), which is not generated.
        """
        hides = frozenset({name}) if name is not None else frozenset()
        frozen = Scope(scope, [v for v in self.visible(scope) if v is not name], sealed=True)
        seen = Scope(scope, hides=hides)
        elements: list[Fn] = []
        for _ in range(self.int(1, 3)):
            kind = self.pick((FnKind.METHOD, FnKind.FIELD, FnKind.STATIC_BLOCK, FnKind.STATIC_FIELD))
            fn = Fn(kind, self.fn, label=self.fresh(kind.value[0]), site=scope)
            if kind is FnKind.METHOD:
                fn.is_async = self.chance(10)
                fn.is_generator = not fn.is_async and self.chance(10)
            expression_body = kind in (FnKind.FIELD, FnKind.STATIC_FIELD)
            self.pending.append(Pending(fn, frozen if kind in STATIC_ELEMENTS else seen, expression_body))
            elements.append(fn)
        return ClassLit(elements, name), [fn.label for fn in elements if fn.kind is FnKind.METHOD]

    # -- patterns --------------------------------------------------------------------------

    def pattern(self: Generator, scope: Scope, declare, array: bool, nested: int = 1) -> Target:
        """An array or object pattern of one to three names (``declare()`` makes each), maybe nested.

        Names are bound left to right, and each default is evaluated just before its own name is bound: a
        default may read a name to its left and capture (through a closure) any name of the pattern.
        """
        names: list[Var] = []
        items: list = []
        for index in range(self.int(1, 3) if self.chance(50) else 1):
            if nested > 0 and self.chance(12):
                # a nested pattern's default must be destructurable: the source may not give it a value
                inner_array = self.chance(50)
                default: Expr | None = ArrayLit([]) if inner_array else ObjectLit([])
                target = self.pattern(scope, declare, inner_array, nested - 1)
            else:
                default = self.default(scope, names)
                target = NameTarget(declare())
            names.extend(target.vars())
            items.append((KEYS[index], target, default) if not array else (target, default))
        return ArrayTarget(items) if array else ObjectTarget(items)

    def default(self: Generator, scope: Scope, earlier: list[Var] | None = None) -> Expr | None:
        """A default value in a pattern; a closure there is created while the pattern binds."""
        if not self.chance(40):
            return None
        if earlier and self.chance(30):
            var = self.pick(earlier)
            if var.type is Type.NUM:
                return Binary(self.read(var), "+", Lit("1"))
        if self.can_nest() and self.chance(50):
            return self.closure(scope, FnKind.ARROW, focus=[self.pick(earlier)] if earlier and self.chance(50)
                                else None)
        return self.num(scope, 1)

    def source(self: Generator, target: Target, scope: Scope) -> Expr:
        """A value to destructure: some names get one, the others their default; a nested pattern gets an
        array or object (an array pattern over a number would throw)."""
        def part(sub: Target) -> Expr:
            return self.num(scope, 1) if isinstance(sub, NameTarget) else self.source(sub, scope)

        if isinstance(target, ArrayTarget):
            return ArrayLit([part(sub) for sub, _ in target.items[: self.int(0, len(target.items))]])
        assert isinstance(target, ObjectTarget)
        return ObjectLit([(k, part(sub)) for k, sub, _ in target.items if self.chance(60)])

    @staticmethod
    def before(target: Target, scope: Scope) -> Scope:
        """``scope`` as the source of a pattern sees it: the pattern's names are not bound yet (a closure there
        could capture them early; its own code cannot read them)."""
        return Scope(scope, hides=frozenset(target.vars()))

    def pattern_declarator(self: Generator, kind: VarKind, scope: Scope, array: bool) -> Declarator:
        prefix = "d" if array else "o"
        target = self.pattern(scope, lambda: self.declare(prefix, kind, Type.NUM, scope), array)
        if array and self.chance(20):
            assert isinstance(target, ArrayTarget)
            target.rest = NameTarget(self.declare("r", kind, Type.NUM, scope))
        return Declarator(target, self.source(target, self.before(target, scope)))

    # -- functions ---------------------------------------------------------------------

    def params(self: Generator, fn: Fn, scope: Scope) -> None:
        for _ in range(self.int(0, 3)):
            shape = self.int(0, 3)
            if shape in (2, 3):
                target = self.pattern(scope, lambda: self.new_var("p", VarKind.PARAM, Type.NUM, scope, fn),
                                      shape == 2)
                fn.params.append(Param(target, self.source(target, self.before(target, scope)) if self.chance(80) else
                                       (ArrayLit([]) if shape == 2 else ObjectLit([]))))
                continue
            default = None
            if shape == 1:
                default = self.closure(scope, FnKind.ARROW) if self.can_nest() and self.chance(50) \
                    else self.num(scope, 1)
            callable_ = isinstance(default, Closure) or (default is None and self.chance(30))
            var = self.new_var("p", VarKind.PARAM, Type.FN if callable_ else Type.NUM, scope, fn)
            fn.params.append(Param(NameTarget(var), default, annotate=self.chance(20)))
        if self.chance(10):
            var = self.new_var("r", VarKind.PARAM, Type.NUM, scope, fn)
            fn.params.append(Param(NameTarget(var), rest=True))

    def focus_expr(self: Generator, var: Var, scope: Scope, writes: bool = True) -> Expr:
        """A reference to ``var``: a read, a call, or a write (which makes it written after capture)."""
        if writes and var.writable and self.chance(35):
            return self.write_of(var, scope, 1)
        if var.type is Type.FN:
            return Call(self.read(var), [], optional=True)
        if var.type is Type.NUM:
            return Binary(self.read(var), "+", self.num(scope, 1))
        return self.read(var)

    def function(self: Generator, fn: Fn, outer: Scope, expression_body: bool, budget: int,
                 focus: list[Var] | None = None, focus_writes: bool = True, calls: list[Var] | None = None) -> None:
        """Generate ``fn``'s parameters and body, then, recursively, the closures it creates."""
        saved = (self.fn, self.var_scope, self.pending, self.jumps, self.in_params)
        self.fn, self.pending, self.jumps = fn, [], []
        self.fns.append(fn)
        if fn.kind is FnKind.EXPRESSION and self.chance(30):
            name_scope = Scope(outer)
            fn.name = self.new_var("n", VarKind.FUNCTION_NAME, Type.FN, name_scope, fn)
            outer = name_scope
        fn.activation = Instance(self.fresh("__a"), InstanceKind.ACTIVATION)
        param_scope = Scope(outer, instance=fn.activation)
        guard = None
        if calls:
            # first, so that every call passes it; random code never names it, so never writes it
            guard = self.new_var("p", VarKind.PARAM, Type.NUM, param_scope, fn)
            guard.private = True
            fn.params.append(Param(NameTarget(guard)))
        if fn.kind in (FnKind.DECLARATION, FnKind.ARROW, FnKind.EXPRESSION, FnKind.METHOD):
            self.in_params = True
            self.params(fn, param_scope)
            self.in_params = False
        body_scope = Scope(param_scope)
        fn.token_in_params = (fn.kind in (FnKind.DECLARATION, FnKind.ARROW, FnKind.EXPRESSION, FnKind.METHOD)
                              and not fn.has_rest())
        fn.activation.scope = param_scope if fn.token_in_params else body_scope
        self.var_scope = body_scope
        if expression_body:
            if focus:
                fn.body = self.focus_expr(self.pick(focus), body_scope)
            else:
                fn.body = self.num(body_scope, 2) if self.chance(70) else (self.write(body_scope, 1) or Lit("0"))
        else:
            fn.body = self.block(param_scope, budget, function_body=body_scope)
            stmts = fn.body.stmts
            reached = next((i for i, stmt in enumerate(stmts) if isinstance(stmt, JUMPS)), len(stmts))
            for var in focus or []:
                # before the first jump: the reference must run when the closure is called
                stmts.insert(self.int(0, reached), ExprStmt(self.focus_expr(var, body_scope, focus_writes)))
            for var in calls or []:
                assert guard is not None
                call = Guarded(Block([ExprStmt(Call(self.read(var), [Lit("1")]))]))
                stmts.insert(self.int(0, reached), If(Binary(Read(guard), "!==", Lit("1")), call))
        for pending in self.pending:
            self.function(pending.fn, pending.scope, pending.expression_body, max(1, budget - 2), pending.focus,
                          pending.focus_writes, pending.calls)
        self.fn, self.var_scope, self.pending, self.jumps, self.in_params = saved

