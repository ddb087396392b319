"""The generator's idioms (a mixin of ``Generator``): shapes that random statements rarely line up.

A closure that refers to ``x`` and a write of ``x`` on two paths that do or
do not meet (``branch_write``: the arms of an ``if`` or of ``? :``, the
operands of ``&&``/``||``/``??``, two ``switch`` cases, code after a jump), and
a closure of one loop iteration kept in a binding that the next iteration
calls (``callback_swap``, ``callback_loop``).  Without these two, the random
families did not meet the per-iteration hole of issue 16 in a 15-minute run
(12,000 programs); with them, after 168 to 1,276 programs (docs/fuzzing.md,
"Results").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expressions import Assign, Binary, Call, Cond, Expr, Lit, NameTarget
from .helpers import NAMES, RESULT_KEPT
from .model import FnKind, Scope, Type, Var, VarKind
from .statements import Block, BlockStmt, Decl, Declarator, ExprStmt, Guarded, If, Jump, Stmt, Switch

if TYPE_CHECKING:
    from .generate import Generator


class IdiomsMixin:
    # -- idioms --------------------------------------------------------------------------

    def kept_closure(self: Generator, scope: Scope, focus: Var) -> Expr:
        """A closure that refers to ``focus``, kept (escapes), stored in a function binding, called, or handed to
        a module-level helper that calls it, keeps it, or runs it later."""
        closure = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), focus=[focus])
        how = self.int(0, 3)
        holders = [v for v in self.visible(scope, Type.FN, writable=True) if v is not focus]
        if how == 1 and holders:
            return Assign(self.name_target(self.pick(holders)), "=", closure)
        if how == 2:
            return Call(closure, [])
        if how == 3:
            return self.helper_call(closure)
        return Call(Lit("keep"), [closure])

    def helper_write(self: Generator, scope: Scope) -> list[Stmt]:
        """``hCall(() => { x = ... })``, maybe ``x = ...`` after: a closure that refers to (and may write) a binding
        of this function, handed to a helper, which decides whether the binding may stay in the frame."""
        targets = self.visible(scope, writable=True)
        if not targets or not self.can_nest():
            return []
        var = self.pick(targets)
        closure = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), focus=[var])
        stmts: list[Stmt] = [ExprStmt(self.helper_call(closure))]
        if self.chance(60):
            stmts.append(ExprStmt(self.write_of(var, scope, 1)))
        return stmts

    def helper_call(self: Generator, value: Expr) -> Expr:
        """``hCall(f)``, ``keep(hWrap(f))``...: ``value`` handed to a helper of ``helpers.py``."""
        name = self.pick(NAMES)
        self.helpers.add(name)
        call = Call(Lit(name), [value])
        return Call(Lit("keep"), [call]) if name in RESULT_KEPT else call

    def branch_write(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """A closure that refers to ``x`` and a write of ``x`` on two paths: the arms of an ``if`` or of ``? :``,
        the operands of ``&&``/``||`` (both may run), two ``switch`` cases (with or without ``break``), or before
        and after a jump (the write never runs)."""
        targets = self.visible(scope, writable=True)
        if not targets or not self.can_nest():
            return []
        var = self.pick(targets)
        use, write = self.kept_closure(scope, var), self.write_of(var, scope, 1)
        first, second = (use, write) if self.chance(60) else (write, use)
        form = self.int(0, 4)
        if form == 1:
            return [ExprStmt(Cond(self.condition(scope), first, second))]
        if form == 2:
            return [ExprStmt(Binary(first, self.pick(("&&", "||", "??")), second))]
        if form == 3:
            cases = [(0, [ExprStmt(first)] + ([Jump("break")] if self.chance(60) else [])), (1, [ExprStmt(second)])]
            return [Switch(self.num(scope, 1) if self.chance(50) else Lit(str(self.int(0, 1))), cases)]
        if form == 4:
            return [BlockStmt(Block([ExprStmt(use), self.jump(scope, conditional=False), ExprStmt(write)]))]
        return [If(self.condition(scope), BlockStmt(Block([ExprStmt(first)])), BlockStmt(Block([ExprStmt(second)])))]

    def callback_loop(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """``let g; LOOP { ... g?.(); g = () => y; ... }``, then maybe ``g?.()``: each iteration calls the
        closure the one before it stored, which refers to that iteration's bindings (the block that declares
        ``y`` is the body, or a block of the statement that is the body)."""
        holder = self.declare("g", VarKind.LET, Type.FN, scope)
        holder.private = True
        self.swap_holder = holder
        form = self.int(0, 2)
        loop = (self.while_loop(scope, budget) if form == 0 else
                [self.for_classic(scope, budget)] if form == 1 else [self.for_each(scope, budget)])
        self.swap_holder = None
        stmts: list[Stmt] = [Decl("let", [Declarator(NameTarget(holder), None)]), *loop]
        if self.chance(50):
            stmts.append(Guarded(Block([ExprStmt(Call(self.read(holder), [], optional=True))])))
        return stmts

    def callback_swap(self: Generator, scope: Scope, declare: bool = False) -> list[Stmt]:
        """``g?.(); g = () => y;``: call the closure a function binding holds (in a loop, maybe one of an earlier
        iteration), then store a new one that refers to ``y``, a binding of this block (declared here if
        ``declare``), maybe written after."""
        holders = self.visible(scope, Type.FN, writable=True)
        if self.swap_holder is not None:
            holders.append(self.swap_holder)
        if not holders or not self.can_nest():
            return []
        outside = [v for v in holders if v.instance is not scope.instance]
        holder = self.pick(outside if outside and self.chance(70) else holders)
        if self.swap_holder is not None:
            holder, self.swap_holder = self.swap_holder, None
        stmts: list[Stmt] = []
        own = [v for v in scope.vars if v is not holder]
        if declare or not own:
            kind = VarKind.LET if self.chance(70) else VarKind.CONST
            init = self.num(scope, 1)
            var = self.declare("y", kind, Type.NUM, scope)
            stmts.append(Decl(kind.value, [Declarator(NameTarget(var), init)]))
            own = [var]
        focus = self.pick(own)
        stmts.append(Guarded(Block([ExprStmt(Call(self.read(holder), [], optional=True))])))
        closure = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), focus=[focus])
        stmts.append(ExprStmt(Assign(self.name_target(holder), "=", closure)))
        if focus.writable and self.chance(70):
            stmts.append(ExprStmt(self.write_of(focus, scope, 1)))
        return stmts

