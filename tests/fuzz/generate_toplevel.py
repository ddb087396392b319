"""The generator's loops at module top level (a mixin of ``Generator``).

DESIGN 2.3: bindings declared at module top level are ``module``, except the
per-iteration bindings of a top-level loop (its ``let``/``const`` head and
the blocks it runs again): each iteration has its own, and they are decided
like any loop's (``value``, ``box``, ``context``).  ``top_level`` prints, between
the module's function declarations and the driver's calls, a few loops of the
module's own run-once code::

    let g0;
    try { for (let i1 = 0; i1 < 2; i1++) {
      const y2 = i1 + 1;
      g0?.();                   // the closure of the iteration before
      g0 = () => y2;
      keep(() => i1);
      if (y2 > 1) continue;
      i1 += 0;                  // a write of the head's copy, after its closures
    } } catch {}                // top-level code that throws must not end the run

Their code is owned by a stand-in function (``Program.top``), never printed as
one: its bindings are checked like a function's (the holder ``g0`` is
``module``, which the oracle cannot refute), and the closures it creates are
its children.  The statements are a small fixed set (declarations, closures,
writes, the ``callback_swap`` idiom, ``break``/``continue``): no ``return``,
``await`` or ``yield``, which top-level code may not hold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expressions import ArrayLit, Call, Expr, Lit, NameTarget
from .generate_statements import JumpTarget
from .model import Fn, FnKind, Scope, Type, VarKind
from .statements import Block, BlockStmt, Decl, Declarator, ExprStmt, ForClassic, ForEach, Guarded, If, Jump, Stmt

if TYPE_CHECKING:
    from .generate import Generator


class TopLevelMixin:
    def top_level(self: Generator, module: Scope) -> tuple[Fn | None, list[Stmt]]:
        """The module's run-once code: 0 to 2 loops with per-iteration bindings that closures capture."""
        count = self.int(0, 2)
        if count == 0:
            return None, []
        top = Fn(FnKind.DECLARATION, None, site=module)
        saved = (self.fn, self.var_scope, self.pending, self.jumps)
        scope = Scope(module)
        self.fn, self.var_scope, self.pending, self.jumps = top, scope, [], []
        stmts: list[Stmt] = []
        holder = self.declare("g", VarKind.LET, Type.FN, scope)
        holder.private = True
        stmts.append(Decl("let", [Declarator(NameTarget(holder), None)]))
        for _ in range(count):
            # in a ``try``: top-level code that throws (a read in the TDZ, calling a number) must not end the run
            stmts.append(Guarded(Block([self.top_loop(scope, holder)])))
        if self.chance(60):
            stmts.append(Guarded(Block([ExprStmt(Call(self.read(holder), [], optional=True))])))
        stmts.append(ExprStmt(Call(Lit("keep"), [self.read(holder)])))
        for pending in self.pending:
            self.function(pending.fn, pending.scope, pending.expression_body, 2, pending.focus,
                          pending.focus_writes, pending.calls)
        self.fn, self.var_scope, self.pending, self.jumps = saved
        top.body = Block(stmts)
        return top, stmts

    def top_loop(self: Generator, scope: Scope, holder) -> Stmt:
        iteration = self.iteration()
        head = Scope(scope, instance=iteration)
        classic = self.chance(50)
        if classic:
            var = self.new_var("i", VarKind.LET, Type.NUM, head, self.fn)
            self.refer(var)
            keyword = "let"
        else:
            keyword = self.pick(("const", "let"))
            kind = VarKind.CONST if keyword == "const" else VarKind.LET
            var = self.new_var("x", kind, Type.NUM, head, self.fn)
        body_scope = Scope(head, instance=iteration)
        iteration.scope = body_scope
        self.jumps.append(JumpTarget(None, loop=True, breakable=True))
        body: list[Stmt] = []
        swapped = False
        for _ in range(self.int(2, 6)):
            choice = self.int(0, 5)
            own = [v for v in self.visible(body_scope) if v.instance is iteration]
            if choice == 0 or not own:
                kind = VarKind.LET if self.chance(60) else VarKind.CONST
                init = self.num(body_scope, 1)
                y = self.declare("y", kind, Type.NUM, body_scope)
                body.append(Decl(kind.value, [Declarator(NameTarget(y), init)]))
            elif choice == 1:
                body.append(ExprStmt(self.kept_closure(body_scope, self.pick(own))))
            elif choice == 2:
                writable = [v for v in own if v.writable]
                if writable:
                    body.append(ExprStmt(self.write_of(self.pick(writable), body_scope, 1)))
            elif choice == 3 and not swapped:
                swapped = True
                self.swap_holder = holder
                body.extend(self.callback_swap(body_scope, declare=self.chance(50)))
                self.swap_holder = None
            elif choice == 4:
                body.append(If(self.condition(body_scope), Jump(self.pick(("break", "continue")))))
            else:
                closure = self.closure(body_scope, FnKind.ARROW, focus=[self.pick(own)])
                body.append(ExprStmt(Call(Lit("keep"), [closure])))
        self.jumps.pop()
        loop_body = BlockStmt(Block(body))
        if classic:
            return ForClassic(loop_body, iteration, "let", var, self.int(1, 3))
        items: list[Expr] = [Lit(str(self.int(0, 5))) for _ in range(self.int(1, 3))]
        return ForEach(loop_body, iteration, keyword, NameTarget(var), True, ArrayLit(items))
