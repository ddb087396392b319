"""The generator's statements (a mixin of ``Generator``).

Blocks, declarations (``let``/``const``/``var``, patterns, classes), ``if``
with braced or single-statement branches, loops whose body is a block or a
single statement (an ``if``, a labelled block, a ``switch``, a ``try``, another
loop, ...), labels with ``break``/``continue`` (labelled or not, out of nested
loops, blocks and ``switch``), ``switch`` with fallthrough and ``default``
anywhere, ``try``/``catch``/``finally``, ``return``/``throw``/``break``/
``continue`` followed by code that never runs; and the idioms of
``generate_idioms.py`` among them.

Every loop gets its iteration ``Instance``: the bindings of its body (a block
at any depth inside it, not crossing a function) and of its ``let``/``const``
head live in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .expressions import ArrayLit, Call, Closure, Cond, Expr, Lit, NameTarget, ObjectLit, Update
from .generate_functions import Pending
from .model import Fn, FnKind, Instance, InstanceKind, Scope, Type, VarKind
from .statements import (
    JUMPS,
    Block,
    BlockStmt,
    ClassDecl,
    Decl,
    Declarator,
    ExprStmt,
    FnDecl,
    ForClassic,
    ForEach,
    Guarded,
    If,
    Jump,
    Labelled,
    Return,
    Stmt,
    Switch,
    Throw,
    Try,
    While,
    ends_open,
)

if TYPE_CHECKING:
    from .generate import Generator

KEYS = ("a", "b", "c")


@dataclass(frozen=True)
class JumpTarget:
    """A statement that ``break`` (and, for a loop, ``continue``) may leave, in the function being generated."""

    label: str | None
    loop: bool
    #: an unlabelled ``break`` leaves it (a loop or a ``switch``; a labelled block needs its label).
    breakable: bool


class StatementsMixin:
    def block(self: Generator, parent: Scope, budget: int, function_body: Scope | None = None,
              scope: Scope | None = None) -> Block:
        """A block; ``function_body`` is the scope to use when this is a function's body, ``scope`` the one to
        use for a loop body (the iteration's)."""
        scope = function_body or scope or Scope(parent)
        hoisted: list[Fn] = []
        if self.can_nest():
            for _ in range(self.int(0, 1 if budget < 4 else 2)):
                fn = Fn(FnKind.DECLARATION, self.fn, site=scope)
                fn.is_async = self.chance(10)
                fn.is_generator = not fn.is_async and self.chance(10)
                fn.name = self.new_var("f", VarKind.FUNCTION, Type.FN, scope, self.fn)
                fn.in_block = function_body is None
                self.pending.append(Pending(fn, scope, False))
                hoisted.append(fn)
        stmts: list[Stmt] = []
        if self.swap_next_block and function_body is None:
            # the first block inside a loop body (the body itself, or a block of the statement that is the body)
            self.swap_next_block = False
            stmts.extend(self.callback_swap(scope, declare=True))
        if self.first_read_next_block and function_body is None:
            self.first_read_next_block = False
            stmts.extend(self.first_read(scope, budget))
        for _ in range(self.int(0, max(0, min(budget, 6)))):
            new = self.statement(scope, budget - 1)
            stmts.extend(new)
            if new and isinstance(new[-1], JUMPS) and not self.chance(40):
                break  # else: code after the jump, which never runs
        for fn in hoisted:
            stmts.insert(self.int(0, len(stmts)), FnDecl(fn))
        returns = self.fn is None or self.fn.kind is not FnKind.STATIC_BLOCK  # no ``return`` in a static block
        if returns and self.chance(15 if function_body is None else 40):
            stmts.append(Return(self.return_value(scope)))
        return Block(stmts)

    def return_value(self: Generator, scope: Scope) -> Expr | None:
        choice = self.int(0, 3)
        if choice == 1:
            return self.fn_value(scope, 1)
        if choice == 2:
            return ArrayLit([self.fn_value(scope, 1) for _ in range(self.int(1, 2))])
        if choice == 3:
            return ObjectLit([(k, self.fn_value(scope, 1)) for k in KEYS[: self.int(1, 2)]])
        return self.num(scope, 1)

    def statement(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        choice = self.int(0, 19) if budget > 0 else self.int(0, 4)
        if choice in (0, 11):
            return [self.declaration(scope)]
        if choice == 1:
            write = self.write(scope, 1)
            if write is not None:
                return [ExprStmt(write)]
        if choice == 2:
            callees = self.visible(scope, Type.FN)
            if callees:
                call: Expr = Call(self.read(self.pick(callees)), self.args(scope, 1))
                if self.chance(30):
                    call = Call(Lit("keep"), [call])  # a generator's object, kept, is run by ``drain``
                return [Guarded(Block([ExprStmt(call)]))] if self.chance(85) else [ExprStmt(call)]
        if choice == 3:
            value = self.fn_value(scope, 1)
            return [ExprStmt(self.helper_call(value) if self.chance(50) else Call(Lit("keep"), [value]))]
        if choice == 4 and self.can_nest():
            iife = Call(self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION))), self.args(scope, 1))
            return [Guarded(Block([ExprStmt(iife)]))]
        if choice == 5:
            return [self.if_statement(scope, budget)]
        if choice == 6:
            return [BlockStmt(self.block(scope, budget - 1))]
        if choice == 7:
            return [self.for_classic(scope, budget)]
        if choice == 8:
            return [self.for_each(scope, budget)]
        if choice == 9:
            return self.while_loop(scope, budget)
        if choice == 10:
            if self.chance(60):
                found = self.try_family(scope, budget)
                if found:
                    return found
            return [self.try_statement(scope, budget)]
        if choice == 12:
            return [self.switch(scope, budget)]
        if choice == 13:
            return [self.labelled(scope, budget)]
        if choice == 14:
            return [self.jump(scope)]
        if choice == 15:
            found = self.branch_write(scope, budget)
            if found:
                return found
        if choice == 16:
            found = self.callback_swap(scope)
            if found:
                return found
        if choice == 17 and self.can_nest():
            return [self.class_declaration(scope)] if self.chance(50) else self.callback_loop(scope, budget)
        if choice == 18:
            found = self.helper_write(scope) if self.chance(50) else []
            if found:
                return found
            return [ExprStmt(Cond(self.condition(scope), self.num(scope, 2), self.num(scope, 2)))]
        if choice == 19:
            found = self.first_read_loop(scope, budget) if self.chance(25) else self.first_read(scope, budget)
            if found:
                return found
        return [self.declaration(scope)] if self.chance(50) else [ExprStmt(self.num(scope, 1))]

    def single_statement(self: Generator, scope: Scope, budget: int, with_block: bool = False) -> Stmt:
        """A statement where only one is allowed (a loop body, an ``if`` branch): never a declaration."""
        if with_block:
            choice = self.pick((1, 2, 4))
        else:
            choice = self.int(0, 9) if budget > 0 else self.pick((0, 6, 7))
        if choice == 1:
            return self.if_statement(scope, budget)
        if choice == 2:
            return self.labelled(scope, budget, loop=False)
        if choice == 3:
            return self.switch(scope, budget)
        if choice == 4:
            if not with_block and self.chance(40):
                found = self.try_family(Scope(scope), budget)
                if found:
                    return BlockStmt(Block(found))
            return self.try_statement(scope, budget)
        if choice == 5:
            return BlockStmt(self.block(scope, budget - 1))
        if choice == 6:
            return self.jump(scope)
        if choice == 7:
            return ExprStmt(Call(Lit("keep"), [self.fn_value(scope, 1)]))
        if choice == 8:
            return self.for_classic(scope, budget) if self.chance(50) else self.for_each(scope, budget)
        if choice == 9:
            block = Block(self.callback_swap(Scope(scope), declare=True))
            if block.stmts:
                return BlockStmt(block)
        write = self.write(scope, 1)
        return ExprStmt(write if write is not None else self.num(scope, 1))

    def branch(self: Generator, scope: Scope, budget: int) -> Stmt:
        if self.chance(30) and not self.swap_next_block:
            return self.single_statement(scope, budget - 1)
        return BlockStmt(self.block(scope, budget - 1))

    def if_statement(self: Generator, scope: Scope, budget: int) -> If:
        cond = self.condition(scope)
        then = self.branch(scope, budget)
        otherwise = self.branch(scope, budget) if self.chance(40) else None
        if otherwise is not None and ends_open(then):
            then = BlockStmt(Block([then]))  # else the ``else`` would attach to an ``if`` inside ``then``
        return If(cond, then, otherwise)

    # -- declarations --------------------------------------------------------------------

    def declaration(self: Generator, scope: Scope) -> Decl:
        keyword = self.pick(("let", "const", "var"))
        kind = {"let": VarKind.LET, "const": VarKind.CONST, "var": VarKind.VAR}[keyword]
        declarators: list[Declarator] = []
        for _ in range(self.int(1, 2)):
            shape = self.int(0, 4)
            if shape == 4 and kind is not VarKind.VAR and self.can_nest():
                literal, methods = self.class_lit(scope)
                var = self.declare("k", kind, Type.CLASS, scope)
                self.methods[var] = methods
                declarators.append(Declarator(NameTarget(var), literal))
                continue
            if shape in (2, 3):
                declarators.append(self.pattern_declarator(kind, scope, array=shape == 2))
                continue
            type_ = Type.FN if shape == 1 else Type.NUM
            if type_ is Type.FN and kind is not VarKind.VAR and self.can_nest() and self.chance(50):
                # the initializer is the closure literal itself: ``const f = () => f()``
                var = self.declare("v", kind, type_, scope)
                init: Expr | None = self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)), var)
                declarators.append(Declarator(NameTarget(var), init, self.chance(20)))
                continue
            init = None if kind is not VarKind.CONST and self.chance(15) else self.value(type_, scope, 1)
            var = self.declare("v", kind, type_, scope)
            if isinstance(init, Closure) and kind is not VarKind.VAR:
                init.fn.initializes = var
            declarators.append(Declarator(NameTarget(var), init, self.chance(20)))
        return Decl(keyword, declarators)

    def class_declaration(self: Generator, scope: Scope) -> ClassDecl:
        var = self.declare("k", VarKind.CLASS, Type.CLASS, scope)
        literal, methods = self.class_lit(scope, var)
        self.methods[var] = methods
        return ClassDecl(literal)

    # -- loops -------------------------------------------------------------------------

    def iteration(self: Generator) -> Instance:
        return Instance(self.fresh("__i"), InstanceKind.ITERATION)

    def loop_body(self: Generator, head: Scope, iteration: Instance, budget: int, label: str | None,
                  braced: bool = False) -> Stmt:
        """The body, in the iteration's scope: a block, or (unless ``braced``) a single statement."""
        body_scope = Scope(head, instance=iteration)
        iteration.scope = body_scope
        self.jumps.append(JumpTarget(label, loop=True, breakable=True))
        self.swap_next_block = self.swap_holder is not None or self.chance(30)
        if not braced and self.chance(40):
            # a ``callback_loop`` body holds a block: the body's ``if``, labelled block or ``try``
            body: Stmt = self.single_statement(body_scope, max(1, budget - 1), self.swap_holder is not None)
        else:
            body = BlockStmt(self.block(head, budget - 1, scope=body_scope))
        self.jumps.pop()
        self.swap_next_block = self.first_read_next_block = False
        return body

    def for_classic(self: Generator, scope: Scope, budget: int, label: str | None = None) -> ForClassic:
        iteration = self.iteration()
        keyword = self.pick(("let", "var"))
        if keyword == "let":
            head = Scope(scope, instance=iteration)
            var = self.new_var("i", VarKind.LET, Type.NUM, head, self.fn)
        else:
            head = scope
            var = self.declare("i", VarKind.VAR, Type.NUM, scope)
        self.refer(var)
        loop = ForClassic(BlockStmt(Block()), iteration, keyword, var, self.int(1, 3))
        if self.can_nest():
            if self.chance(10):
                kind = VarKind.LET if keyword == "let" else VarKind.VAR
                extra = self.new_var("h", kind, Type.FN, head, self.fn) if keyword == "let" \
                    else self.declare("h", kind, Type.FN, scope)
                loop.also_init = (extra, Call(Lit("keep"), [self.closure(head, FnKind.ARROW)]))
            if self.chance(10):
                loop.also_test = Call(Lit("keep"), [self.closure(head, FnKind.ARROW)])
            if self.chance(15):
                loop.also_update = Call(Lit("keep"), [self.closure(head, FnKind.ARROW)])
        loop.body = self.loop_body(head, iteration, budget, label)
        return loop

    def for_each(self: Generator, scope: Scope, budget: int, label: str | None = None) -> ForEach:
        iteration = self.iteration()
        of = self.chance(75)
        type_ = Type.FN if of and self.chance(30) else Type.NUM
        if of:
            iterable: Expr = ArrayLit([self.value(type_, scope, 1) for _ in range(self.int(1, 3))])
        else:
            iterable = ObjectLit([(k, Lit(str(i))) for i, k in enumerate(KEYS[: self.int(1, 3)])])
        existing = self.visible(scope, type_, writable=True)
        if existing and self.chance(30):
            target = self.name_target(self.pick(existing))
            return ForEach(self.loop_body(scope, iteration, budget, label), iteration, None, target, of, iterable)
        keyword = self.pick(("const", "let", "var"))
        kind = {"let": VarKind.LET, "const": VarKind.CONST, "var": VarKind.VAR}[keyword]
        head = Scope(scope, instance=iteration) if keyword != "var" else scope
        var = self.declare("x", kind, type_, head)
        body = self.loop_body(head, iteration, budget, label)
        return ForEach(body, iteration, keyword, NameTarget(var), of, iterable)

    def while_loop(self: Generator, scope: Scope, budget: int) -> list[Stmt]:
        """``while`` over a counter declared just before it: braced with the counter moved first, or the counter
        moved in the test (``while (w++ < n) stmt``, ``do stmt while (w++ < n)``)."""
        counter = self.declare("w", VarKind.LET, Type.NUM, scope)
        iteration = self.iteration()
        form = self.int(0, 2)
        body = self.loop_body(scope, iteration, budget, None, braced=form == 0)
        self.refer(counter)
        if form == 0:
            assert isinstance(body, BlockStmt)
            body.block.stmts.insert(0, ExprStmt(Update(NameTarget(counter), "++", prefix=False)))
        loop = While(body, iteration, counter, self.int(1, 3), counts_in_test=form > 0, do_while=form == 2)
        declaration = Decl("let", [Declarator(NameTarget(counter), Lit("0"))])
        return [declaration, loop]

    # -- labels, jumps, switch, try ----------------------------------------------------

    def labelled(self: Generator, scope: Scope, budget: int, loop: bool | None = None) -> Stmt:
        label = self.fresh("L")
        if loop is None:
            loop = self.chance(50)
        if loop:
            if self.chance(50):
                return Labelled(label, self.for_classic(scope, budget, label))
            return Labelled(label, self.for_each(scope, budget, label))
        self.jumps.append(JumpTarget(label, loop=False, breakable=False))
        body = self.block(scope, budget - 1)
        self.jumps.pop()
        return Labelled(label, BlockStmt(body))

    def jump(self: Generator, scope: Scope, conditional: bool = True) -> Stmt:
        """``break``/``continue`` (to any target in reach, labelled or not), ``return`` or ``throw``; if
        ``conditional``, half the time under an ``if``."""
        options: list[Stmt | str] = []
        if any(t.breakable for t in self.jumps):
            options.append(Jump("break"))
        if any(t.loop for t in self.jumps):
            options.append(Jump("continue"))
        for target in self.jumps:
            if target.label is not None:
                options.append(Jump("break", target.label))
                if target.loop:
                    options.append(Jump("continue", target.label))
        if self.fn is None or self.fn.kind is not FnKind.STATIC_BLOCK:
            options.append("return")
        options.append("throw")
        # the value is made only for the jump chosen: a closure made for nothing would be missing from the print
        jump = self.pick(options)
        if jump == "return":
            jump = Return(self.num(scope, 1) if self.chance(50) else None)
        elif jump == "throw":
            jump = Throw(self.num(scope, 1))
        return If(self.condition(scope), jump) if conditional and self.chance(50) else jump

    def switch(self: Generator, scope: Scope, budget: int) -> Switch:
        """All clauses share one scope: a later clause's code and closures see an earlier clause's bindings,
        which a run that enters at the later clause never initializes (reading them there throws)."""
        discriminant = self.num(scope, 1) if self.chance(50) else Lit(str(self.int(0, 2)))
        body = Scope(scope)
        count = self.int(1, 3)
        default_at = self.int(0, count - 1) if self.chance(15) else (count - 1 if self.chance(30) else -1)
        clauses: list[tuple[int | None, list[Stmt]]] = []
        self.jumps.append(JumpTarget(None, loop=False, breakable=True))
        for index in range(count):
            stmts: list[Stmt] = []
            for _ in range(self.int(0, max(0, min(budget - 1, 3)))):
                stmts.extend(self.statement(body, budget - 1))
            if self.chance(40):
                stmts.append(Jump("break"))
            clauses.append((None if index == default_at else index, stmts))
        self.jumps.pop()
        return Switch(discriminant, clauses)

    def try_statement(self: Generator, scope: Scope, budget: int) -> Try:
        body = self.block(scope, budget - 1)
        form = self.int(0, 2)  # catch, catch and finally, finally
        handler = param = None
        if form < 2:
            handler_scope = Scope(scope)
            param = self.new_var("e", VarKind.CATCH, Type.NUM, handler_scope, self.fn) if self.chance(70) else None
            handler = self.block(handler_scope, budget - 1)
        finalizer = self.block(scope, budget - 1) if form > 0 else None
        return Try(body, param, handler, finalizer)
