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

The generator is split by concept: this module holds the choices, the
bindings, the expressions and the writes; ``generate_statements.py`` the
statements (blocks, loops, labels and jumps, ``switch``, ``try``);
``generate_idioms.py`` the idioms that put a write and a closure on different
paths, or a closure of one iteration in the next; ``generate_try.py`` closures
and writes around the points of a ``try`` block that may throw; ``generate_declarations.py``
function declarations read before and after what they capture is initialized
or written; ``generate_functions.py`` functions, parameters, patterns and
classes.  ``declarations.py`` then works out where each function declaration
may first be read, for the JavaScript print.

Termination: loops have constant bounds and counters that ``continue`` cannot
skip; a body or a closure may still write a loop counter, so the JavaScript
print guards every loop test and function entry with a global budget
(``oracle.js``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from .declarations import plan_declarations
from .expressions import (
    ArrayLit,
    ArrayTarget,
    Assign,
    Binary,
    Call,
    Cond,
    Expr,
    Lit,
    NameTarget,
    New,
    ObjectLit,
    ObjectTarget,
    Read,
    Suspend,
    Target,
    Update,
    Wrap,
)
from .generate_declarations import DeclarationsMixin
from .generate_functions import FunctionsMixin, Pending
from .generate_idioms import IdiomsMixin
from .generate_statements import JumpTarget, StatementsMixin
from .generate_toplevel import TopLevelMixin
from .generate_try import TryMixin
from .model import Fn, FnKind, Scope, Type, Var, VarKind, instance_of
from .program import Program

#: closures nest at most this deep below a module-level function.
MAX_DEPTH = 3
NUM_WRITE_OPS = ("=", "+=", "-=", "??=", "||=", "&&=")
FN_WRITE_OPS = ("=", "??=", "||=", "&&=")
KEYS = ("a", "b", "c")

#: the bytes a program is drawn from: hypothesis shrinks them towards fewer and smaller, that is, simpler.
MIN_BYTES = 256
MAX_BYTES = 4096


class Generator(StatementsMixin, IdiomsMixin, TryMixin, TopLevelMixin, DeclarationsMixin, FunctionsMixin):
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
        #: every function generated, for the last pass (``Fn.plan_checks``).
        self.fns: list[Fn] = []
        #: a class binding -> the names of its class's methods.
        self.methods: dict[Var, list[str]] = {}
        #: what ``break`` and ``continue`` may target here, innermost last (reset in each function).
        self.jumps: list[JumpTarget] = []
        #: generating parameters: no ``await`` or ``yield`` there.
        self.in_params = False
        #: the next block begins with ``callback_swap`` (set for the first block of some loop bodies).
        self.swap_next_block = False
        #: the function binding that the next ``callback_swap`` stores into (``callback_loop``).
        self.swap_holder: Var | None = None
        #: the next block begins with ``first_read`` (set for the first block of a ``first_read_loop`` body).
        self.first_read_next_block = False
        #: the function declarations made by ``first_read`` and what is pending of them (their bodies).
        self.pending_of: dict[Var, Pending] = {}
        #: the ``const`` that the ``try`` family being generated assigns in its block (it throws), if any.
        self.try_const: Var | None = None
        #: the module-level helpers the program hands closures to (``helper_call``).
        self.helpers: set[str] = set()

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

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter - 1}"

    # -- bindings ----------------------------------------------------------------------

    def new_var(self, prefix: str, kind: VarKind, type_: Type, scope: Scope, owner: Fn | None) -> Var:
        var = Var(self.fresh(prefix), kind, type_, owner, len(self.vars), instance=instance_of(kind, scope, owner))
        self.vars.append(var)
        scope.vars.append(var)
        return var

    def declare(self, prefix: str, kind: VarKind, type_: Type, scope: Scope) -> Var:
        """A binding of the current function; ``var`` goes to the function scope."""
        target_scope = self.var_scope if kind is VarKind.VAR and self.var_scope is not None else scope
        return self.new_var(prefix, kind, type_, target_scope, self.fn)

    def visible(self, scope: Scope, type_: Type | None = None, writable: bool = False) -> list[Var]:
        found: list[Var] = []
        hidden: frozenset = frozenset()
        node: Scope | None = scope
        while node is not None:
            hidden |= node.hides
            for var in node.vars:
                if var.owner is None or var in hidden or var.private:
                    continue  # module-level functions: calling them back only recurses
                if (type_ is None or var.type is type_) and (not writable or var.writable):
                    found.append(var)
            if node.sealed:
                break
            node = node.parent
        return found

    def refer(self, var: Var) -> None:
        """Record that the current function's code refers to ``var``: every function between the reference and
        ``var``'s owner refers to it, and the outermost of them captures it."""
        fn = self.fn
        if var.owner is None or fn is None or var.owner is fn:
            return
        while fn is not None and fn is not var.owner:
            if var not in fn.refers:
                fn.refers.append(var)
            if fn.parent is var.owner:
                fn.capture(var)
                return
            fn = fn.parent

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
        choice = self.int(0, 10) if depth > 0 else self.int(0, 1)
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
        if choice == 8:
            # only one arm runs: a write in one and a closure in the other never meet
            return Cond(self.condition(scope), self.num(scope, depth - 1), self.num(scope, depth - 1))
        if choice == 9:
            return Binary(self.num(scope, depth - 1), self.pick(("&&", "||", "??")), self.num(scope, depth - 1))
        if choice == 10 and self.fn is not None and not self.in_params:
            if self.fn.is_async:
                return Suspend("await", self.num(scope, depth - 1), self.fn)
            if self.fn.is_generator:
                return Suspend("yield", self.num(scope, depth - 1), self.fn)
        return Lit(str(self.int(0, 5)))

    def condition(self, scope: Scope) -> Expr:
        return Binary(self.num(scope, 1), self.pick(("<", ">", "===", "!==")), Lit(str(self.int(0, 3))))

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

    # -- writes ------------------------------------------------------------------------

    def write(self, scope: Scope, depth: int) -> Expr | None:
        targets = self.visible(scope, writable=True)
        if not targets:
            return None
        return self.write_of(self.pick(targets), scope, depth, targets)

    def write_of(self, var: Var, scope: Scope, depth: int, targets: list[Var] | None = None) -> Expr:
        """A write of ``var``, in any form; destructuring forms may write other ``targets`` too."""
        targets = targets if targets is not None else [var]
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
            return self.array_assignment(var, scope, depth, targets)
        if form == 4:
            key = self.pick(KEYS)
            return Assign(ObjectTarget([(key, self.name_target(var, True), None)]), "=",
                          ObjectLit([(key, self.value(var.type, scope, depth))]))
        ops = NUM_WRITE_OPS if var.type is Type.NUM else FN_WRITE_OPS
        op = self.pick(ops)
        target = self.name_target(var)
        return Assign(target, op, self.value(var.type, scope, depth))

    def array_assignment(self, var: Var, scope: Scope, depth: int, targets: list[Var]) -> Assign:
        """``[a, b = a, c = () => b] = [...]``: the targets are written left to right, after the source, and a
        default may read or capture a target to its left (already written) or to its right (not yet)."""
        chosen = [var, *[v for v in targets if v is not var][: self.int(0, 2) if self.chance(40) else 0]]
        items: list[tuple[Target, Expr | None]] = []
        for index, target in enumerate(chosen):
            default = None
            if self.chance(50):
                earlier = [v for v in chosen[:index] if v.type is target.type]
                default = self.read(self.pick(earlier)) if earlier and self.chance(40) \
                    else self.value(target.type, scope, depth)
            items.append((self.name_target(target, True), default))
        # the source gives the first few targets a value; the others take their default (or ``undefined``)
        given = self.int(0, len(chosen))
        return Assign(ArrayTarget(items), "=", ArrayLit([self.value(t.type, scope, depth) for t in chosen[:given]]))

    # -- the program -------------------------------------------------------------------

    def program(self) -> Program:
        module = Scope(None)
        functions: list[Fn] = []
        for _ in range(self.int(1, 3)):
            fn = Fn(FnKind.DECLARATION, None, site=module)
            fn.name = self.new_var("t", VarKind.FUNCTION, Type.FN, module, None)
            fn.is_async = self.chance(15)
            fn.is_generator = not fn.is_async and self.chance(10)
            functions.append(fn)
        for fn in functions:
            self.function(fn, module, False, self.int(2, 5))
        calls = []
        for fn in functions:
            for _ in range(self.int(1, 2)):
                calls.append((fn, [Lit(str(self.int(0, 5))) for _ in range(self.int(0, 2))]))
        drain_seed = self.int(0, 1000)
        # last, so that the choices of the rest of the program stay what they were before this family
        _, top = self.top_level(module)
        plan_declarations(self.fns)
        for fn in self.fns:
            fn.plan_checks()
        return Program(functions, calls, drain_seed, self.vars, top, self.helpers)


def programs() -> st.SearchStrategy[Program]:
    return st.binary(min_size=MIN_BYTES, max_size=MAX_BYTES).map(lambda choices: Generator(choices).program())
