"""The generator's ``try`` family (a mixin of ``Generator``): closures around the points that may throw.

DESIGN 2.1.2: a ``catch`` follows only the points of its ``try`` block after
which something may throw (a call, an operator, a read of a name, ...);
creating a closure, a literal and assigning a name do not throw; a
``finally`` continues each completion that entered it.  ``try_family`` puts
a binding ``y``, closures that capture it and writes of it around those
points::

    let y = 2; let g;
    for (let i = 0; i < 2; i++) {          // sometimes: for break/continue through finally
      try {
        g = () => y;                       // created before a point that may throw
        maybeThrow(y > 1);                 // throws or not, decided at run time
        y = 3;                             // assigning a name: does not throw
        g = () => y;                       // created after the last point that may throw
        if (y < 2) continue;               // or break, return (a closure), throw
      } catch (e) {
        y += 1;                            // follows only the points that may throw
      } finally {
        y = 4;                             // follows every completion of the block
      }
      y--;                                 // not after a closure that was returned
    }

``maybeThrow(c)`` is a global of the oracle (``oracle.js``): it throws iff
``c`` is truthy, so the condition decides per run whether the ``catch`` runs.
Sometimes the block assigns a ``const`` (``c = 1``): an assignment to a name
that writes nothing and always throws a TypeError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expressions import Assign, Call, Expr, Lit, NameTarget
from .generate_statements import JumpTarget
from .model import FnKind, Scope, Type, Var, VarKind
from .statements import Block, BlockStmt, Decl, Declarator, ExprStmt, ForClassic, If, Return, Stmt, Throw, Try

if TYPE_CHECKING:
    from .generate import Generator


class TryMixin:
    def try_family(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """A ``try`` statement (maybe in a loop of its own) with closures of ``y`` before and after the points
        of its block that may throw, and writes of ``y`` in the ``catch``, the ``finally`` and after it."""
        if not self.can_nest():
            return []
        stmts: list[Stmt] = []
        targets = self.visible(scope, Type.NUM, writable=True)
        if targets and self.chance(40):
            focus = self.pick(targets)
        else:
            kind = VarKind.LET if self.chance(70) else VarKind.VAR
            init = Lit(str(self.int(0, 3)))
            focus = self.declare("y", kind, Type.NUM, scope)
            stmts.append(Decl(kind.value, [Declarator(NameTarget(focus), init)]))
        holder = None
        probe = self.chance(10)  # only a closure stored, then ``c = 1`` (it throws), and a write in the ``catch``
        if probe or self.chance(60):
            holder = self.declare("g", VarKind.LET, Type.FN, scope)
            holder.private = True  # only this family stores into it (a plain assignment: it does not throw)
            stmts.append(Decl("let", [Declarator(NameTarget(holder), None)]))
        self.try_const = None
        if probe or self.chance(20):
            # ``c = 1`` on a ``const``: assigns a name, writes nothing, and throws (a TypeError)
            self.try_const = self.declare("c", VarKind.CONST, Type.NUM, scope)
            stmts.append(Decl("const", [Declarator(NameTarget(self.try_const), Lit("0"))]))
        if probe:
            assert holder is not None and self.try_const is not None
            closure = self.closure(scope, FnKind.ARROW, focus=[focus])
            body = [ExprStmt(Assign(NameTarget(holder), "=", closure)),
                    ExprStmt(Assign(NameTarget(self.try_const), "=", Lit("1")))]
            handler = Block([ExprStmt(self.write_of(focus, scope, 1))])
            stmts.append(Try(Block(body), None, handler))
            stmts.append(ExprStmt(Call(Lit("keep"), [self.read(holder)])))
            self.refer(self.try_const)
            return stmts
        if self.chance(35):
            stmts.append(self.try_loop(scope, budget, focus, holder))
        else:
            stmts.append(self.try_around(scope, budget, focus, holder))
        if self.chance(60):
            stmts.append(ExprStmt(self.write_of(focus, scope, 1)))
        if holder is not None and self.chance(50):
            stmts.append(ExprStmt(Call(Lit("keep"), [self.read(holder)])))
        return stmts

    def try_loop(self: Generator, scope: Scope, budget: int, focus: Var, holder: Var | None) -> ForClassic:
        """``for (let i = 0; i < n; i++) { try ... }``: ``break``/``continue`` through the ``finally``."""
        iteration = self.iteration()
        head = Scope(scope, instance=iteration)
        var = self.new_var("i", VarKind.LET, Type.NUM, head, self.fn)
        self.refer(var)
        body_scope = Scope(head, instance=iteration)
        iteration.scope = body_scope
        self.jumps.append(JumpTarget(None, loop=True, breakable=True))
        body: list[Stmt] = [self.try_around(body_scope, budget, focus, holder)]
        if self.chance(50):
            body.append(ExprStmt(self.write_of(focus, body_scope, 1)))
        self.jumps.pop()
        return ForClassic(BlockStmt(Block(body)), iteration, "let", var, self.int(1, 3))

    def try_capture(self: Generator, scope: Scope, focus: Var, holder: Var | None) -> Expr:
        """A closure of ``focus``: stored in ``holder`` (nothing after it throws), kept, or called."""
        closure = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), focus=[focus])
        if holder is not None and self.chance(60):
            return Assign(self.name_target(holder), "=", closure)
        if self.chance(70):
            return Call(Lit("keep"), [closure])
        return Call(closure, [])

    def may_throw(self: Generator, scope: Scope) -> Stmt:
        """A point that throws on some runs: ``maybeThrow(cond)``, ``if (cond) throw n``, or a guarded call."""
        if self.chance(60):
            return ExprStmt(Call(Lit("maybeThrow"), [self.condition(scope)]))
        return If(self.condition(scope), Throw(self.num(scope, 1)))

    def try_piece(self: Generator, scope: Scope, focus: Var, holder: Var | None) -> Stmt:
        choice = self.int(0, 5)
        if choice in (0, 1):
            return ExprStmt(self.try_capture(scope, focus, holder))
        if choice == 2:
            return self.may_throw(scope)
        if choice == 3:
            # assigning a literal to a name: not a point that may throw
            return ExprStmt(Assign(self.name_target(focus), "=", Lit(str(self.int(0, 5)))))
        if choice == 4:
            return ExprStmt(self.write_of(focus, scope, 1))
        return ExprStmt(Lit(str(self.int(0, 5))))

    def try_exit(self: Generator, scope: Scope, focus: Var, holder: Var | None) -> Stmt:
        """``return`` (maybe a closure of ``focus``), ``break``, ``continue`` or ``throw``, maybe under an ``if``."""
        returns = self.fn is None or self.fn.kind is not FnKind.STATIC_BLOCK
        if returns and self.chance(40):
            value = self.closure(scope, FnKind.ARROW, focus=[focus]) if self.chance(60) else \
                (self.read(holder) if holder is not None else None)
            jump: Stmt = Return(value)
            return If(self.condition(scope), jump) if self.chance(50) else jump
        return self.jump(scope)

    def try_around(self: Generator, scope: Scope, budget: int, focus: Var, holder: Var | None) -> Try:
        body_scope = Scope(scope)
        body: list[Stmt] = [self.try_piece(body_scope, focus, holder) for _ in range(self.int(1, 5))]
        if not any(isinstance(s, ExprStmt) and isinstance(s.expr, (Assign, Call))
                   for s in body) or self.chance(50):
            body.insert(self.int(0, len(body)), ExprStmt(self.try_capture(body_scope, focus, holder)))
        if self.chance(50):
            body.insert(self.int(0, len(body)), self.may_throw(body_scope))
        if self.try_const is not None and self.chance(70):
            if holder is not None and self.chance(50):
                # stored where nothing but the assignment that throws follows it
                closure = self.closure(body_scope, FnKind.ARROW, focus=[focus])
                body.append(ExprStmt(Assign(self.name_target(holder), "=", closure)))
            body.append(ExprStmt(Assign(self.name_target(self.try_const), "=", Lit("1"))))
        if self.chance(35):
            body.append(self.try_exit(body_scope, focus, holder))
        form = self.int(0, 2)  # catch, catch and finally, finally
        handler = param = finalizer = None
        if form < 2:
            handler_scope = Scope(scope)
            param = self.new_var("e", VarKind.CATCH, Type.NUM, handler_scope, self.fn) if self.chance(50) else None
            stmts: list[Stmt] = []
            if self.chance(80):
                stmts.append(ExprStmt(self.write_of(focus, handler_scope, 1)))
            if self.chance(30):
                stmts.append(ExprStmt(self.try_capture(handler_scope, focus, holder)))
            if self.chance(15):
                stmts.append(self.try_exit(handler_scope, focus, holder))
            handler = Block(stmts)
        if form > 0:
            final_scope = Scope(scope)
            stmts = []
            if self.chance(70):
                stmts.append(ExprStmt(self.write_of(focus, final_scope, 1)))
            if self.chance(25):
                stmts.append(ExprStmt(self.try_capture(final_scope, focus, holder)))
            if self.chance(10):
                stmts.append(self.try_exit(final_scope, focus, holder))
            finalizer = Block(stmts)
        return Try(Block(body), param, handler, finalizer)
