"""Random well-formed programs over the constructs boxcheck decides.

The generator reads every choice from a byte string that hypothesis draws,
so a failing program shrinks towards fewer statements and plainer forms:
byte 0 (and the end of the string) picks the first option of every choice,
which is the simplest.

It knows its own scopes.  A function's own code only refers to bindings that
are already initialized where it stands (earlier declarations, hoisted
function declarations, parameters); a closure body may refer to anything
lexically visible, including bindings declared after the closure (reading one
before its initialization throws, and every call that may throw is guarded).
Closure bodies are generated after the body that creates them is complete,
which is what makes "declared later" visible, the way pyflakes defers bodies.

Termination: loops have constant bounds; a body or a closure may still write
a loop counter, so the JavaScript print guards every loop test and function
entry with a global budget (``oracle.js``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from .program import (
    STATIC_ELEMENTS,
    ArrayLit,
    ArrayTarget,
    Assign,
    Binary,
    Block,
    BlockStmt,
    Break,
    Call,
    ClassLit,
    Closure,
    Decl,
    Declarator,
    Expr,
    ExprStmt,
    Fn,
    FnDecl,
    FnKind,
    ForClassic,
    ForEach,
    Guarded,
    If,
    Lit,
    NameTarget,
    New,
    ObjectLit,
    ObjectTarget,
    Param,
    Program,
    Read,
    Return,
    Stmt,
    Switch,
    Target,
    Try,
    Type,
    Update,
    Var,
    VarKind,
    While,
    Wrap,
)

#: closures nest at most this deep below a module-level function.
MAX_DEPTH = 3
NUM_WRITE_OPS = ("=", "+=", "-=", "??=", "||=", "&&=")
FN_WRITE_OPS = ("=", "??=", "||=", "&&=")
KEYS = ("a", "b", "c")


@dataclass(eq=False)
class Scope:
    """A lexical scope as the generator sees it: the bindings declared in it so far."""

    parent: Scope | None
    vars: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Pending:
    """A closure whose parameters and body are generated once its creator's body is complete."""

    fn: Fn
    #: where the closure stands: its body sees everything declared in this scope and around it.
    scope: Scope
    expression_body: bool


#: the bytes a program is drawn from: hypothesis shrinks them towards fewer and smaller, that is, simpler.
MIN_BYTES = 256
MAX_BYTES = 4096


class Generator:
    """Reads every choice from a byte string: one byte a choice, zero (and the end) meaning the simplest.

    Drawing each choice from hypothesis costs about 0.3 ms; a program makes
    hundreds, so the fuzzer draws one byte string and lets hypothesis shrink it.
    """

    def __init__(self, choices: bytes):
        self.choices = choices
        self.position = 0
        self.vars: list[Var] = []
        self.counter = 0
        #: the function-level scope (where ``var`` goes) of the function being generated.
        self.var_scope: Scope | None = None
        self.fn: Fn | None = None
        self.pending: list[Pending] = []
        #: a class binding -> the names of its class's methods.
        self.methods: dict[Var, list[str]] = {}

    # -- choices (0 is the simplest, which is where shrinking goes) ----------------------

    def byte(self) -> int:
        if self.position >= len(self.choices):
            return 0
        self.position += 1
        return self.choices[self.position - 1]

    def int(self, low: int, high: int) -> int:
        if low == high:
            return low
        return low + self.byte() % (high - low + 1)

    def pick(self, options):
        return options[self.int(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return self.byte() * 100 >= (100 - percent) * 256

    # -- bindings ----------------------------------------------------------------------

    def new_var(self, prefix: str, kind: VarKind, type_: Type, scope: Scope, owner: Fn | None) -> Var:
        var = Var(f"{prefix}{self.counter}", kind, type_, owner, len(self.vars))
        self.counter += 1
        self.vars.append(var)
        scope.vars.append(var)
        return var

    def declare(self, prefix: str, kind: VarKind, type_: Type, scope: Scope) -> Var:
        """A binding of the current function; ``var`` goes to the function scope."""
        target_scope = self.var_scope if kind is VarKind.VAR and self.var_scope is not None else scope
        return self.new_var(prefix, kind, type_, target_scope, self.fn)

    def visible(self, scope: Scope, type_: Type | None = None, writable: bool = False) -> list[Var]:
        found: list[Var] = []
        node: Scope | None = scope
        while node is not None:
            for var in node.vars:
                if var.owner is None:
                    continue  # module-level functions: calling them back only recurses
                if (type_ is None or var.type is type_) and (not writable or var.writable):
                    found.append(var)
            node = node.parent
        return found

    def refer(self, var: Var) -> None:
        """Record that the current function's code refers to ``var``: find its capturer."""
        fn = self.fn
        if var.owner is None or fn is None or var.owner is fn:
            return
        while fn is not None and fn.parent is not var.owner:
            fn = fn.parent
        if fn is not None:
            fn.capture(var)

    def read(self, var: Var) -> Read:
        self.refer(var)
        return Read(var, self.wrap())

    def wrap(self, in_pattern: bool = False) -> Wrap:
        if not self.chance(15):
            return Wrap.NONE
        if in_pattern:
            return Wrap.BANG
        return self.pick((Wrap.PAREN, Wrap.AS_ANY, Wrap.BANG))

    def name_target(self, var: Var, in_pattern: bool = False) -> NameTarget:
        self.refer(var)
        return NameTarget(var, self.wrap(in_pattern))

    # -- expressions -------------------------------------------------------------------

    def num(self, scope: Scope, depth: int) -> Expr:
        choice = self.int(0, 7) if depth > 0 else self.int(0, 1)
        if choice == 1:
            candidates = self.visible(scope, Type.NUM)
            if candidates:
                return self.read(self.pick(candidates))
        if choice == 2:
            return Binary(self.num(scope, depth - 1), self.pick(("+", "-", "*")), self.num(scope, depth - 1))
        if choice == 3:
            callees = self.visible(scope, Type.FN)
            if callees:
                return Call(self.read(self.pick(callees)), self.args(scope, depth - 1), optional=self.chance(20))
        if choice == 4:
            write = self.write(scope, depth - 1)
            if write is not None:
                return write
        if choice == 5 and self.can_nest():
            return Call(self.closure(scope, FnKind.ARROW if self.chance(60) else FnKind.EXPRESSION), [])
        if choice == 6:
            return Call(Lit("keep"), [self.fn_value(scope, depth - 1)])
        if choice == 7:
            classes = self.visible(scope, Type.CLASS)
            if classes:
                cls = self.pick(classes)
                methods = self.methods.get(cls) or [None]
                return New(self.read(cls), self.pick(methods), self.args(scope, depth - 1))
        return Lit(str(self.int(0, 5)))

    def args(self, scope: Scope, depth: int) -> list[Expr]:
        """Arguments: numbers, or closures for a callee to call (a closure passed to a call escapes)."""
        return [self.fn_value(scope, depth) if self.chance(25) else self.num(scope, depth)
                for _ in range(self.int(0, 2))]

    def fn_value(self, scope: Scope, depth: int) -> Expr:
        choice = self.int(0, 2)
        if choice == 1 or not self.can_nest():
            candidates = self.visible(scope, Type.FN)
            if candidates:
                return self.read(self.pick(candidates))
            if not self.can_nest():
                return Lit("null")
        if choice == 2 and depth > 0:
            return Call(Lit("keep"), [self.fn_value(scope, depth - 1)])
        return self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION)))

    def value(self, type_: Type, scope: Scope, depth: int) -> Expr:
        return self.fn_value(scope, depth) if type_ is Type.FN else self.num(scope, depth)

    def can_nest(self) -> bool:
        return self.depth(self.fn) < MAX_DEPTH

    @staticmethod
    def depth(fn: Fn | None) -> int:
        count = 0
        while fn is not None and fn.parent is not None:
            count += 1
            fn = fn.parent
        return count

    def class_lit(self, scope: Scope) -> tuple[ClassLit, list[str]]:
        """An anonymous class; its elements' bodies, like closures', are generated once the creator's is done.

        Static elements run while the class is defined, before the binding it initializes is: they see
        only what is visible now (``frozen``), not what is declared after.
        """
        frozen = Scope(None, self.visible(scope))
        elements: list[Fn] = []
        for _ in range(self.int(1, 3)):
            kind = self.pick((FnKind.METHOD, FnKind.FIELD, FnKind.STATIC_BLOCK, FnKind.STATIC_FIELD))
            fn = Fn(kind, self.fn, label=f"{kind.value[0]}{self.counter}")
            self.counter += 1
            expression_body = kind in (FnKind.FIELD, FnKind.STATIC_FIELD)
            self.pending.append(Pending(fn, frozen if kind in STATIC_ELEMENTS else scope, expression_body))
            elements.append(fn)
        return ClassLit(elements), [fn.label for fn in elements if fn.kind is FnKind.METHOD]

    def closure(self, scope: Scope, kind: FnKind, initializes: Var | None = None) -> Closure:
        fn = Fn(kind, self.fn, initializes=initializes)
        expression_body = kind is FnKind.ARROW and self.chance(40)
        self.pending.append(Pending(fn, scope, expression_body))
        return Closure(fn)

    # -- writes ------------------------------------------------------------------------

    def write(self, scope: Scope, depth: int) -> Expr | None:
        targets = self.visible(scope, writable=True)
        if not targets:
            return None
        var = self.pick(targets)
        form = self.int(0, 4)
        if var.type is Type.NUM and form == 1:
            return Update(self.name_target(var), self.pick(("++", "--")), prefix=self.chance(50))
        if form == 2:
            others = [v for v in targets if v is not var and v.type is var.type]
            if others:
                other = self.pick(others)
                pattern = ArrayTarget([(self.name_target(var, True), None), (self.name_target(other, True), None)])
                return Assign(pattern, "=", ArrayLit([self.read(other), self.read(var)]))
        if form == 3:
            default = self.value(var.type, scope, depth) if self.chance(50) else None
            items: list[tuple[Target, Expr | None]] = [(self.name_target(var, True), default)]
            source = ArrayLit([] if default is not None and self.chance(50) else [self.value(var.type, scope, depth)])
            return Assign(ArrayTarget(items), "=", source)
        if form == 4:
            key = self.pick(KEYS)
            return Assign(ObjectTarget([(key, self.name_target(var, True), None)]), "=",
                          ObjectLit([(key, self.value(var.type, scope, depth))]))
        ops = NUM_WRITE_OPS if var.type is Type.NUM else FN_WRITE_OPS
        op = self.pick(ops)
        target = self.name_target(var)
        return Assign(target, op, self.value(var.type, scope, depth))

    # -- statements --------------------------------------------------------------------

    def block(self, parent: Scope, budget: int, function_body: Scope | None = None) -> Block:
        """A block; ``function_body`` is the scope to use when this is a function's body."""
        scope = function_body if function_body is not None else Scope(parent)
        hoisted: list[Fn] = []
        if self.can_nest():
            for _ in range(self.int(0, 1 if budget < 4 else 2)):
                fn = Fn(FnKind.DECLARATION, self.fn)
                fn.name = self.new_var("f", VarKind.FUNCTION, Type.FN, scope, self.fn)
                self.pending.append(Pending(fn, scope, False))
                hoisted.append(fn)
        stmts: list[Stmt] = []
        for _ in range(self.int(0, max(0, min(budget, 6)))):
            stmts.extend(self.statement(scope, budget - 1))
        for fn in hoisted:
            stmts.insert(self.int(0, len(stmts)), FnDecl(fn))
        returns = self.fn is None or self.fn.kind is not FnKind.STATIC_BLOCK  # no ``return`` in a static block
        if returns and self.chance(15 if function_body is None else 40):
            stmts.append(Return(self.return_value(scope)))
        return Block(stmts)

    def return_value(self, scope: Scope) -> Expr | None:
        choice = self.int(0, 3)
        if choice == 1:
            return self.fn_value(scope, 1)
        if choice == 2:
            return ArrayLit([self.fn_value(scope, 1) for _ in range(self.int(1, 2))])
        if choice == 3:
            return ObjectLit([(k, self.fn_value(scope, 1)) for k in KEYS[: self.int(1, 2)]])
        return self.num(scope, 1)

    def statement(self, scope: Scope, budget: int) -> list[Stmt]:
        choice = self.int(0, 12) if budget > 0 else self.int(0, 4)
        if choice == 0:
            return [self.declaration(scope)]
        if choice == 1:
            write = self.write(scope, 1)
            if write is not None:
                return [ExprStmt(write)]
        if choice == 2:
            callees = self.visible(scope, Type.FN)
            if callees:
                call = ExprStmt(Call(self.read(self.pick(callees)), self.args(scope, 1)))
                return [Guarded(Block([call]))] if self.chance(85) else [call]
        if choice == 3:
            return [ExprStmt(Call(Lit("keep"), [self.fn_value(scope, 1)]))]
        if choice == 4 and self.can_nest():
            iife = Call(self.closure(scope, self.pick((FnKind.ARROW, FnKind.EXPRESSION))), self.args(scope, 1))
            return [Guarded(Block([ExprStmt(iife)]))]
        if choice == 5:
            cond = Binary(self.num(scope, 1), self.pick(("<", ">", "===", "!==")), Lit(str(self.int(0, 3))))
            then = self.block(scope, budget - 1)
            otherwise = self.block(scope, budget - 1) if self.chance(40) else None
            return [If(cond, then, otherwise)]
        if choice == 6:
            return [BlockStmt(self.block(scope, budget - 1))]
        if choice == 7:
            return [self.for_classic(scope, budget)]
        if choice == 8:
            return [self.for_each(scope, budget)]
        if choice == 9:
            return self.while_loop(scope, budget)
        if choice == 10:
            return [self.try_catch(scope, budget)]
        if choice == 11:
            return [self.declaration(scope)]
        if choice == 12:
            return [self.switch(scope, budget)]
        return [self.declaration(scope)] if self.chance(50) else [ExprStmt(self.num(scope, 1))]

    def declaration(self, scope: Scope) -> Decl:
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
            if shape == 2:
                declarators.append(self.array_declarator(kind, scope))
                continue
            if shape == 3:
                declarators.append(self.object_declarator(kind, scope))
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

    def array_declarator(self, kind: VarKind, scope: Scope) -> Declarator:
        count = self.int(1, 2)
        values = ArrayLit([self.num(scope, 1) for _ in range(self.int(0, count))])
        items: list[tuple[Target, Expr | None]] = []
        for _ in range(count):
            default = self.default(scope)
            items.append((NameTarget(self.declare("d", kind, Type.NUM, scope)), default))
        rest = NameTarget(self.declare("r", kind, Type.NUM, scope)) if self.chance(20) else None
        return Declarator(ArrayTarget(items, rest), values)

    def object_declarator(self, kind: VarKind, scope: Scope) -> Declarator:
        keys = KEYS[: self.int(1, 2)]
        values = ObjectLit([(k, self.num(scope, 1)) for k in keys if self.chance(70)])
        items = [(k, NameTarget(self.declare("o", kind, Type.NUM, scope)), self.default(scope)) for k in keys]
        return Declarator(ObjectTarget(items), values)

    def default(self, scope: Scope) -> Expr | None:
        """A default value in a pattern; a closure there is created while the pattern binds."""
        if not self.chance(40):
            return None
        if self.can_nest() and self.chance(50):
            return self.closure(scope, FnKind.ARROW)
        return self.num(scope, 1)

    def loop_body(self, scope: Scope, budget: int) -> Block:
        return self.block(scope, budget - 1)

    def for_classic(self, scope: Scope, budget: int) -> ForClassic:
        keyword = self.pick(("let", "var"))
        if keyword == "let":
            head = Scope(scope)
            var = self.new_var("i", VarKind.LET, Type.NUM, head, self.fn)
        else:
            head = scope
            var = self.declare("i", VarKind.VAR, Type.NUM, scope)
        self.refer(var)
        loop = ForClassic(keyword, var, self.int(1, 3), Block())
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
        loop.body = self.loop_body(head, budget)
        return loop

    def for_each(self, scope: Scope, budget: int) -> ForEach:
        of = self.chance(75)
        type_ = Type.FN if of and self.chance(30) else Type.NUM
        if of:
            iterable: Expr = ArrayLit([self.value(type_, scope, 1) for _ in range(self.int(1, 3))])
        else:
            iterable = ObjectLit([(k, Lit(str(i))) for i, k in enumerate(KEYS[: self.int(1, 3)])])
        existing = self.visible(scope, type_, writable=True)
        if existing and self.chance(30):
            target: Target = self.name_target(self.pick(existing))
            return ForEach(None, target, of, iterable, self.loop_body(scope, budget))
        keyword = self.pick(("const", "let", "var"))
        kind = {"let": VarKind.LET, "const": VarKind.CONST, "var": VarKind.VAR}[keyword]
        head = Scope(scope) if keyword != "var" else scope
        var = self.declare("x", kind, type_, head)
        return ForEach(keyword, NameTarget(var), of, iterable, self.loop_body(head, budget))

    def while_loop(self, scope: Scope, budget: int) -> list[Stmt]:
        counter = self.declare("w", VarKind.LET, Type.NUM, scope)
        body = self.loop_body(scope, budget)
        self.refer(counter)
        body.stmts.insert(0, ExprStmt(Update(NameTarget(counter), "++", prefix=False)))
        return [Decl("let", [Declarator(NameTarget(counter), Lit("0"))]), While(counter, self.int(1, 3), body)]

    def switch(self, scope: Scope, budget: int) -> Switch:
        """All clauses share one scope: a later clause's code and closures see an earlier clause's bindings,
        which a run that enters at the later clause never initializes (reading them there throws)."""
        discriminant = self.num(scope, 1) if self.chance(50) else Lit(str(self.int(0, 2)))
        body = Scope(scope)
        count = self.int(1, 3)
        clauses: list[tuple[int | None, list[Stmt]]] = []
        for index in range(count):
            label = None if index == count - 1 and self.chance(30) else index
            stmts: list[Stmt] = []
            for _ in range(self.int(0, max(0, min(budget - 1, 3)))):
                stmts.extend(self.statement(body, budget - 1))
            if self.chance(40):
                stmts.append(Break())
            clauses.append((label, stmts))
        return Switch(discriminant, clauses)

    def try_catch(self, scope: Scope, budget: int) -> Try:
        body = self.block(scope, budget - 1)
        handler_scope = Scope(scope)
        param = self.new_var("e", VarKind.CATCH, Type.NUM, handler_scope, self.fn) if self.chance(70) else None
        return Try(body, param, self.block(handler_scope, budget - 1))

    # -- functions ---------------------------------------------------------------------

    def params(self, fn: Fn, scope: Scope) -> None:
        for _ in range(self.int(0, 3)):
            shape = self.int(0, 3)
            if shape == 2:
                var = self.new_var("p", VarKind.PARAM, Type.NUM, scope, fn)
                pattern = ArrayTarget([(NameTarget(var), self.default(scope))])
                fn.params.append(Param(pattern, ArrayLit([self.num(scope, 1)])))
                continue
            if shape == 3:
                key = self.pick(KEYS)
                var = self.new_var("p", VarKind.PARAM, Type.NUM, scope, fn)
                fn.params.append(Param(ObjectTarget([(key, NameTarget(var), self.default(scope))]),
                                       ObjectLit([])))
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

    def function(self, fn: Fn, outer: Scope, expression_body: bool, budget: int) -> None:
        """Generate ``fn``'s parameters and body, then, recursively, the closures it creates."""
        saved = (self.fn, self.var_scope, self.pending)
        self.fn, self.pending = fn, []
        if fn.kind is FnKind.EXPRESSION and self.chance(30):
            name_scope = Scope(outer)
            fn.name = self.new_var("n", VarKind.FUNCTION_NAME, Type.FN, name_scope, fn)
            outer = name_scope
        param_scope = Scope(outer)
        if fn.kind in (FnKind.DECLARATION, FnKind.ARROW, FnKind.EXPRESSION, FnKind.METHOD):
            self.params(fn, param_scope)
        body_scope = Scope(param_scope)
        self.var_scope = body_scope
        if expression_body:
            fn.body = self.num(body_scope, 2) if self.chance(70) else (self.write(body_scope, 1) or Lit("0"))
        else:
            fn.body = self.block(param_scope, budget, function_body=body_scope)
        for pending in self.pending:
            self.function(pending.fn, pending.scope, pending.expression_body, max(1, budget - 2))
        self.fn, self.var_scope, self.pending = saved

    def program(self) -> Program:
        module = Scope(None)
        functions: list[Fn] = []
        for _ in range(self.int(1, 3)):
            fn = Fn(FnKind.DECLARATION, None)
            fn.name = self.new_var("t", VarKind.FUNCTION, Type.FN, module, None)
            functions.append(fn)
        for fn in functions:
            self.function(fn, module, False, self.int(2, 5))
        calls = []
        for fn in functions:
            for _ in range(self.int(1, 2)):
                calls.append((fn, [Lit(str(self.int(0, 5))) for _ in range(self.int(0, 2))]))
        return Program(functions, calls, self.int(0, 1000), self.vars)


def programs() -> st.SearchStrategy[Program]:
    return st.binary(min_size=MIN_BYTES, max_size=MAX_BYTES).map(lambda choices: Generator(choices).program())
