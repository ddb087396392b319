"""The generator's function-declaration families (a mixin of ``Generator``): first reads before and after.

Under the ``optimal`` policy a function declaration F is created at its
first possible read in its scope instance (DESIGN 2.1.1), so a binding x
that F captures is ``value`` when x is initialized before that read and not
written after it.  Random statements rarely put a read of F, x's
initialization and a write of x in telling orders, so ``first_read`` lines
them up: in one block,

    [an early read of F]   [x's declaration, or nothing: x exists]   [a write of x]
    [a late read of F]     [a write of x]

each part maybe left out, F's declaration anywhere among them (hoisting),
and F's body sure to read x.  A read of F is one of:

* a call, ``try { f(...) } catch {}``;
* passing or storing it: ``keep(f)``, ``keep([f])``, ``keep({ f })`` (the
  shorthand, a read that is not back-patched);
* a closure created there that refers to F (an arrow or function expression,
  kept, stored in a ``const``, or called at once): it may read F from then on;
* a call of another declaration G that refers to F (G calls or keeps F), or
  that F and G call each other (mutual recursion, under a guard so it ends);
* and, sometimes, such a read in one arm of an ``if`` and another read in the
  other arm, maybe followed there by a write of x.

``first_read_loop`` puts the family first in a loop body, so F (and x, when
declared there) is made afresh in each iteration, and an iteration's reads may
come before or after its writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expressions import ArrayLit, Call, Lit, NameTarget, ObjectLit, Read, Wrap
from .generate_functions import Pending
from .model import Fn, FnKind, Scope, Type, Var, VarKind
from .statements import Block, BlockStmt, Decl, Declarator, ExprStmt, FnDecl, Guarded, If, Stmt

if TYPE_CHECKING:
    from .generate import Generator


class DeclarationsMixin:
    def function_declaration(self: Generator, scope: Scope) -> tuple[Fn, Pending]:
        """A function declaration of the current function in ``scope``; its body is generated later (``Pending``)."""
        fn = Fn(FnKind.DECLARATION, self.fn, site=scope)
        fn.is_async = self.chance(8)
        fn.is_generator = not fn.is_async and self.chance(5)
        fn.name = self.new_var("f", VarKind.FUNCTION, Type.FN, scope, self.fn)
        fn.in_block = scope is not self.var_scope
        pending = Pending(fn, scope, False, focus_writes=self.chance(20))
        self.pending.append(pending)
        self.pending_of[fn.name] = pending
        return fn, pending

    def read_of(self: Generator, declaration: Var, scope: Scope, extra: list[Stmt]) -> list[Stmt]:
        """Statements that read ``declaration`` (a function declaration's name), directly or through a closure or
        another declaration; a declaration made for it goes to ``extra`` (hoisted: placed anywhere)."""
        form = self.int(0, 7)
        if form == 1:
            return [ExprStmt(Call(Lit("keep"), [self.read(declaration)]))]
        if form == 2:
            return [ExprStmt(Call(Lit("keep"), [ArrayLit([self.read(declaration)])]))]
        if form == 3:
            self.refer(declaration)
            return [ExprStmt(Call(Lit("keep"), [ObjectLit([(declaration.name, Read(declaration, Wrap.NONE))])]))]
        if form in (4, 5) and self.can_nest():
            closure = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), focus=[declaration])
            how = self.int(0, 2)
            if how == 1:
                holder = self.declare("v", VarKind.CONST, Type.FN, scope)
                closure.fn.initializes = holder
                return [Decl("const", [Declarator(NameTarget(holder), closure)])]
            if how == 2:
                return [Guarded(Block([ExprStmt(Call(closure, []))]))]
            return [ExprStmt(Call(Lit("keep"), [closure]))]
        if form in (6, 7) and self.can_nest():
            # through another declaration: it reads ``declaration`` (form 7: and ``declaration`` calls it back)
            other, pending = self.function_declaration(scope)
            assert other.name is not None
            called = self.pending_of.get(declaration)
            if form == 7 and called is not None and declaration in scope.vars:  # else it cannot see ``other``
                pending.calls.append(declaration)
                called.calls.append(other.name)
            else:
                pending.focus.append(declaration)
            extra.append(FnDecl(other))
            return [Guarded(Block([ExprStmt(Call(self.read(other.name), self.args(scope, 0)))]))]
        return [Guarded(Block([ExprStmt(Call(self.read(declaration), self.args(scope, 0)))]))]

    def arm(self: Generator, declaration: Var, x: Var, scope: Scope) -> BlockStmt:
        """A block that reads ``declaration``, maybe followed by a write of ``x``."""
        inner = Scope(scope)
        hoisted: list[Stmt] = []
        stmts = self.read_of(declaration, inner, hoisted)
        if x.writable and self.chance(40):
            stmts.append(ExprStmt(self.write_of(x, inner, 1)))
        for stmt in hoisted:
            stmts.insert(self.int(0, len(stmts)), stmt)
        return BlockStmt(Block(stmts))

    def first_read(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """A function declaration F that reads x, reads of F before and after x's initialization and writes
        (module docstring)."""
        if not self.can_nest():
            return []
        fn, pending = self.function_declaration(scope)
        assert fn.name is not None
        hoisted: list[Stmt] = [FnDecl(fn)]
        stmts: list[Stmt] = []
        if self.chance(60):
            stmts.extend(self.read_of(fn.name, scope, hoisted))
        existing = [v for v in self.visible(scope, Type.NUM) if v.owner is self.fn]
        if existing and self.chance(30):
            x = self.pick(existing)
        else:
            keyword = self.pick(("let", "const", "var"))
            kind = {"let": VarKind.LET, "const": VarKind.CONST, "var": VarKind.VAR}[keyword]
            init = self.num(scope, 1) if kind is VarKind.CONST or self.chance(85) else None
            x = self.declare("x", kind, Type.NUM, scope)
            stmts.append(Decl(keyword, [Declarator(NameTarget(x), init)]))
        pending.focus.append(x)
        if x.writable and self.chance(30):
            stmts.append(ExprStmt(self.write_of(x, scope, 1)))
        if not stmts or self.chance(70):
            if self.chance(20):
                # a read in each arm: the textually first one is not on every path to the other
                stmts.append(If(self.condition(scope), self.arm(fn.name, x, scope), self.arm(fn.name, x, scope)))
            else:
                stmts.extend(self.read_of(fn.name, scope, hoisted))
        if x.writable and self.chance(35):
            stmts.append(ExprStmt(self.write_of(x, scope, 1)))
        for stmt in hoisted:
            stmts.insert(self.int(0, len(stmts)), stmt)
        return stmts

    def first_read_loop(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """A loop whose body begins with ``first_read``: a declaration (and its x) per iteration."""
        self.first_read_next_block = True
        form = self.int(0, 2)
        loop = (self.while_loop(scope, budget) if form == 0 else
                [self.for_classic(scope, budget)] if form == 1 else [self.for_each(scope, budget)])
        self.first_read_next_block = False
        return loop
