"""The data the scope builder produces: scopes, bindings, references, closures.

No phase's logic lives here: only properties and lookups derived from the records' own fields.  Offsets are
UTF-8 byte offsets into ``SourceFile.data``; positions are computed only for what is reported.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final


class ScopeKind(enum.Enum):
    """Where names are declared; a scope closes when its node ends, and what it does not declare goes through."""

    #: the file: ``import { a } from "m"; const b = 1;``.
    MODULE = "module"
    #: a function's parameters and body: ``function f(a) { var v; }``.
    FUNCTION = "function"
    #: a block, a ``switch`` body, or the block of a bare sloppy-mode declaration: ``{ let x; }``.
    BLOCK = "block"
    #: ``for (let i ...)`` / ``for (const x of ...)``: bindings fresh per iteration.
    LOOP_HEAD = "loop-head"
    #: a ``catch`` clause's parameter and block: ``catch (e) { let m; }``.
    CATCH = "catch"
    #: a class's own name seen from inside its body: ``class C { m() { return C; } }``.
    CLASS = "class"
    #: ``const f = function g() {}``: ``g`` lives in a scope of its own.
    FUNCTION_NAME = "function-name"
    #: an enum's body: in its initializers a bare member name is that member, ``B = A * 2`` reads ``E.A``.
    ENUM = "enum"


class BindingKind(enum.Enum):
    """How a name was declared: it decides where the binding lives and when it holds its first value."""

    #: ``var v = 1;``: the whole function, ``undefined`` from its start.
    VAR = "var"
    #: ``let x = 1;``: its block, uninitialized until the declaration runs (TDZ).
    LET = "let"
    #: ``const c = 1;``: as ``let``, and never assigned again.
    CONST = "const"
    #: ``using r = open();``: as ``const``, disposed of when the block ends.
    USING = "using"
    #: ``function f() {}``: created when its scope is entered.
    FUNCTION = "function"
    #: ``class C {}``: as ``let``, bound once the class is defined.
    CLASS = "class"
    #: ``function f(a, b = 1) {}``: initialized left to right when the call starts.
    PARAM = "param"
    #: ``catch (e) {}``: the thrown value.
    CATCH = "catch"
    #: ``import { a } from "m";``: a live view of the other module's binding.
    IMPORT = "import"
    #: ``enum E { A }``: the enum object.
    ENUM = "enum"
    #: ``namespace N {}``: the namespace object.
    NAMESPACE = "namespace"
    #: The name of a named function expression, visible only inside it: ``g`` in ``(function g() {})``.
    FUNCTION_NAME = "function-name"
    #: A class's own name as seen from inside its body: ``C`` in ``class C { m() { return C; } }``.
    CLASS_NAME = "class-name"


#: bindings with a temporal dead zone: uninitialized, and throwing when used, until their declaration runs.
LEXICAL = frozenset({BindingKind.LET, BindingKind.CONST, BindingKind.CLASS, BindingKind.USING})
#: bindings that an assignment never changes: it throws, or (a function expression's own name) is ignored.
UNASSIGNABLE = frozenset({BindingKind.CONST, BindingKind.USING, BindingKind.IMPORT, BindingKind.CLASS_NAME,
                          BindingKind.FUNCTION_NAME})


class Storage(enum.Enum):
    """Where a binding lives (docs/design.md, section 2): the answer boxcheck gives for each one."""

    #: ``let n = 0; n++;`` with no closure referring to it: a register or a frame slot.
    LOCAL = "local"
    #: ``const cache = new Map();`` at module level: one environment per program.
    MODULE = "module"
    #: ``const k = 2; return (x) => x * k;``: the closure holds a copy.
    VALUE = "value"
    #: ``let n = 0; const inc = () => n++; inc();``: shared, but no closure outlives the call: a frame slot.
    STACK = "stack"
    #: ``let n = 0; return () => n++;``: a heap cell of its own, the only shared binding of its instance.
    BOX = "box"
    #: ``let a = 0, b = 0; return () => a++ + b++;``: a slot of one heap object shared by the instance's bindings.
    CONTEXT = "context"

    @property
    def allocates(self) -> bool:
        return self in (Storage.BOX, Storage.CONTEXT)


class ClosureKind(enum.Enum):
    """A function-like body, by the syntax that makes it."""

    #: ``function f() {}``.
    FUNCTION_DECLARATION = "function"
    #: ``const f = function () {};``.
    FUNCTION_EXPRESSION = "function-expression"
    #: ``const f = (x) => x;``.
    ARROW = "arrow"
    #: ``{ m() {} }`` in an object literal or a class.
    METHOD = "method"
    #: ``{ get size() {} }``.
    GETTER = "getter"
    #: ``{ set size(v) {} }``.
    SETTER = "setter"
    #: ``class C { constructor() {} }``.
    CONSTRUCTOR = "constructor"
    #: ``class C { x = compute(); }``: runs at construction (or at definition, if static).
    FIELD_INITIALIZER = "field-initializer"
    #: ``class C { static { init(); } }``: runs once, while the class is defined.
    STATIC_BLOCK = "static-block"
    #: ``namespace N { ... }``: compiles to a function called where it stands.
    NAMESPACE = "namespace"
    #: the file's top-level code.
    MODULE = "module"


class UseKind(enum.Enum):
    """What the surrounding expression does with a value (for escape analysis)."""

    #: the value is dropped or only inspected (``typeof f``, ``f === g``, ``if (f)``).
    SAFE = "safe"
    #: the value is called: ``f()``, ``f?.()``, ``new F()``, ``f.call(o)``, an IIFE.
    CALLEE = "callee"
    #: the value may outlive the activation (``why`` says how).
    ESCAPE = "escape"
    #: the value is copied into a binding (``target``).
    FLOW = "flow"


class Use:
    """What the expression around a value does with it; compared by value, as a frozen record."""

    __slots__ = ("index", "kind", "target", "why")

    def __init__(self, kind: UseKind, why: str = "", target: Binding | Reference | None = None, index: int = -1):
        self.kind: Final = kind
        self.why: Final = why
        #: FLOW: the ``Binding`` or write ``Reference`` copied into; ESCAPE with an ``index`` >= 0: the callee's.
        self.target: Final = target
        self.index: Final = index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Use):
            return NotImplemented
        return (self.kind is other.kind and self.why == other.why and self.target is other.target
                and self.index == other.index)

    def __hash__(self) -> int:
        return hash((self.kind, self.why, self.target, self.index))


SAFE_USE = Use(UseKind.SAFE)
CALLEE_USE = Use(UseKind.CALLEE)
#: called as the operand of ``await``: an async function's call is over when the ``await`` is.
AWAITED_CALLEE_USE = Use(UseKind.CALLEE, "awaited")

# The model's records are plain classes with ``__slots__``, not dataclasses: the binder makes hundreds of thousands
# per run, and compiled (setup.py) a plain class is a native struct with a compiled ``__init__`` (a dataclass's stays
# interpreted).  Each compares by identity (two scopes with equal fields are two scopes), as ``eq=False`` did.


class Loop:
    """A loop statement inside one function.  ``repeated``: the spans run once per iteration (a ``for``'s test,
    update and body, not its initializer; a ``for-in/of``'s head target and body, not the iterated expression)."""

    __slots__ = ("copies_head", "end", "line_node_start", "repeated", "start", "update")

    def __init__(self, start: int, end: int, repeated: tuple[tuple[int, int], ...], line_node_start: int,
                 update: tuple[int, int] | None = None, copies_head: bool = False) -> None:
        self.start = start
        self.end = end
        self.repeated = repeated
        self.line_node_start = line_node_start
        #: for ``for (;;)`` loops: the span of the update clause, which runs on the next
        #: iteration's fresh copy of the per-iteration head bindings.
        self.update = update
        #: a ``for (let ...; ...)`` head: each iteration's copy starts with the previous one's values, so what a
        #: head binding holds (a closure of this iteration) reaches the next one.
        self.copies_head = copies_head

    def repeats(self, offset: int) -> bool:
        return any(s <= offset < e for s, e in self.repeated)

    def in_update(self, offset: int) -> bool:
        return self.update is not None and self.update[0] <= offset < self.update[1]


class Scope:
    __slots__ = ("block_functions", "case_ends", "closure", "declarations", "decorated", "end", "has_direct_eval",
                 "instance_loop", "kind", "loop", "members", "parameter_expressions", "parameters", "parent",
                 "pending", "shadowed", "start")

    def __init__(self, kind: ScopeKind, start: int, end: int, parent: Scope | None, closure: Closure,
                 loop: Loop | None = None) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.parent = parent
        self.closure = closure
        #: the loop this scope belongs to, one instance per iteration.
        self.loop = loop
        self.declarations: dict[str, Binding] = {}
        self.pending: list[Reference] = []
        self.has_direct_eval = False
        #: for a function scope: the span of its parameter list. Parameter defaults see the
        #: parameters and the outer scopes, never the body's own declarations.
        self.parameters: tuple[int, int] | None = None
        #: for a ``switch`` body: where each clause ends, in order. Control enters the body at any
        #: clause, so a declaration in one clause may be skipped by a run that starts at a later one.
        self.case_ends: tuple[int, ...] | None = None
        #: for a class scope: the class or one of its elements has a decorator, which may run an element
        #: before the class's own name is bound (decide.py, exception (c)).
        self.decorated = False
        #: for a function scope: the function declarations in its blocks (``block_functions``).
        self.block_functions: list[BlockFunction] | None = None
        #: for a function scope: its parameters hold an expression (a default, a computed key), so its body's
        #: ``var``\ s and functions live in an environment of their own: ``function f(a, g = () => a) { var a }``
        #: has two ``a`` bindings, the parameter that ``g`` sees and the body's, which starts as its copy.
        self.parameter_expressions = False
        #: the parameters a body ``var`` or function of the same name hides, by name (``parameter_expressions``).
        self.shadowed: dict[str, Binding] | None = None
        #: for an enum's body: its members' names, which its initializers' bare names refer to (no binding).
        self.members: frozenset[str] | None = None
        #: the innermost loop whose iterations each make a fresh instance of this scope: the loop it is the body
        #: or head of, or any loop of its function that runs it again, whatever statements nest it there
        #: (``for (...) if (c) { let x }``).  None: one instance per activation.
        self.instance_loop: Loop | None = None

    def __repr__(self) -> str:
        return f"Scope({self.kind}, {self.start}, {self.end})"


class Binding:
    __slots__ = ("end", "exported", "init_closure", "init_offset", "kind", "name", "per_iteration_of",
                 "references", "scope", "source", "start")

    def __init__(self, name: str, kind: BindingKind, scope: Scope, start: int, end: int, init_offset: int,
                 init_closure: Closure | None = None, per_iteration_of: Loop | None = None) -> None:
        self.name = name
        self.kind = kind
        self.scope = scope
        self.start = start
        self.end = end
        #: offset at which the binding holds its first value (see decide.py).
        self.init_offset = init_offset
        #: the closure literal that is this binding's initializer, if any.
        self.init_closure = init_closure
        self.references: list[Reference] = []
        #: set for ``for (let ...)`` / ``for (const ... of)`` head bindings.
        self.per_iteration_of = per_iteration_of
        #: declared by an ``export`` declaration: its value leaves the module.
        self.exported = False
        #: for a name of a destructuring pattern, the span of the value it is taken from: that value runs before
        #: any name of the pattern is bound, so a closure created there captures it early (``const {a} = f(() => a)``).
        self.source: tuple[int, int] | None = None

    def __repr__(self) -> str:
        return f"Binding({self.name!r}, {self.kind}, {self.start}, {self.end})"

    @property
    def closure(self) -> Closure:
        return self.scope.closure

    def changing_writes(self) -> list[Reference]:
        """The writes that can change the binding: assigning a ``const``, a ``using``, an import or a class's own
        name throws a TypeError, and a named function expression's own name ignores it (sloppy code) or throws
        (strict code), so none of those writes anything (design 2.3)."""
        if self.kind in UNASSIGNABLE:
            return [r for r in self.references if r.is_write and r.is_declaration_write]
        return [r for r in self.references if r.is_write]


@dataclass(slots=True)
class BlockFunction:
    """A function declaration in a block of a sloppy-mode function (``bind.block_functions``)."""

    block: Scope
    #: the declaration's own binding, in ``block``.
    binding: Binding
    #: where the declaration stands: its write to the function-level ``var`` runs there.
    statement: int


class Reference:
    __slots__ = ("binding", "closure", "effect", "end", "is_declaration_write", "is_read", "is_write", "name",
                 "scope", "start", "use")

    def __init__(self, name: str, start: int, end: int, scope: Scope, closure: Closure, is_read: bool,
                 is_write: bool, binding: Binding | None = None, is_declaration_write: bool = False,
                 use: Use = SAFE_USE, effect: int = 0) -> None:
        self.name = name
        self.start = start
        self.end = end
        self.scope = scope
        self.closure = closure
        self.is_read = is_read
        self.is_write = is_write
        self.binding = binding
        #: for writes: a ``var`` initializer or other write that is part of a declaration.
        self.is_declaration_write = is_declaration_write
        #: for reads: what the expression around the reference does with the value.
        self.use = use
        #: for writes: the offset where the write takes effect. ``x = keep(() => x)`` writes
        #: after its right-hand side created the closure, so this is the assignment's end.
        self.effect = effect

    def __repr__(self) -> str:
        return f"Reference({self.name!r}, {self.start}, {self.end})"

    def copy(self) -> Reference:
        """Another reference with the same fields: the same use of the name, resolved again elsewhere."""
        return Reference(self.name, self.start, self.end, self.scope, self.closure, self.is_read, self.is_write,
                         self.binding, self.is_declaration_write, self.use, self.effect)


class Closure:
    """A function-like body: function, arrow, method, field initializer, static block, or the module."""

    __slots__ = ("arguments_callee", "arguments_exposes", "arguments_uses", "arguments_write", "binding",
                 "body_start", "children", "creation_offset", "dynamic_scope_sites", "end", "flow",
                 "has_syntax_error", "index", "is_async", "is_generator", "kind", "loops", "name", "name_end",
                 "name_start", "parameter_names", "parent", "runs_once", "scope", "start", "use")

    def __init__(self, kind: ClosureKind, name: str | None, start: int, end: int, name_start: int, name_end: int,
                 parent: Closure | None, creation_offset: int, use: Use = SAFE_USE) -> None:
        self.kind = kind
        self.name = name
        self.start = start
        self.end = end
        #: the span that names it in reports: its name token, else its head (``function``, ``(x) =>``).
        self.name_start = name_start
        self.name_end = name_end
        self.parent = parent
        #: offset in the parent's code where the closure value is created.
        self.creation_offset = creation_offset
        self.scope: Scope | None = None
        self.binding: Binding | None = None
        self.children: list[Closure] = []
        self.loops: Sequence[Loop] = ()
        self.is_async = False
        self.is_generator = False
        self.has_syntax_error = False
        #: direct ``eval`` or ``with`` inside (the offsets, for the diagnostic).
        self.dynamic_scope_sites: Sequence[int] = ()
        #: index among all closures of the file, for stable ids.
        self.index = 0
        #: what the expression around the closure literal does with the new closure.
        self.use = use
        #: where the closure's body begins (function declarations and ``var`` are hoisted there).
        self.body_start = 0
        #: for a function whose ``arguments`` object is mapped to its parameters (sloppy mode, simple
        #: parameters): its uses of it, and the first that may write the parameters (``mapped_arguments``).
        self.arguments_uses: Sequence[Reference] = ()
        self.arguments_write: Reference | None = None
        #: the first use that may hand out ``arguments.callee``, the function itself (``mapped_arguments``).
        self.arguments_callee: Reference | None = None
        #: the first use that may read a parameter's current value out of the object (``mapped_arguments``).
        self.arguments_exposes: Reference | None = None
        #: its control flow, built when a binding of its own is both captured and written in it.
        self.flow: FlowGraph | None = None
        #: it runs at most once per program (``bind/runs_once``): what it allocates per call, it allocates once.
        self.runs_once = False
        #: the name each argument of a call binds, in order; ``None`` for a pattern or a rest (``parameters``).
        self.parameter_names: tuple[str | None, ...] = ()

    def __repr__(self) -> str:
        return f"Closure({self.kind}, {self.name!r}, {self.start}, {self.end})"

    @property
    def is_module(self) -> bool:
        return self.kind is ClosureKind.MODULE

    @property
    def is_class_member(self) -> bool:
        """A method, accessor, constructor, field initializer or static block of a class: strict code."""
        scope = self.scope.parent if self.scope is not None else None
        if scope is not None and scope.kind is ScopeKind.FUNCTION_NAME:
            scope = scope.parent
        return scope is not None and scope.kind is ScopeKind.CLASS and self.kind is not ClosureKind.FUNCTION_DECLARATION

    def loops_at(self, offset: int) -> list[Loop]:
        """Loops of this closure whose repeated part contains ``offset``."""
        return [loop for loop in self.loops if loop.repeats(offset)]

    def capturers_among(self, closures: list[Closure]) -> list[Closure]:
        """The closures created by this activation that contain ``closures`` (first seen first): when these refer
        to a binding of ``self``, those are what capture it."""
        out: list[Closure] = []
        for closure in closures:
            capturer = self.child_containing(closure)
            if capturer is not None and capturer not in out:
                out.append(capturer)
        return out

    def child_containing(self, inner: Closure) -> Closure | None:
        """The direct child of ``self`` on the way down to ``inner`` (``inner`` itself if direct)."""
        node: Closure | None = inner
        while node is not None and node.parent is not self:
            node = node.parent
        return node


class FlowEdge(enum.Enum):
    """The edges of a ``FlowGraph`` that an evidence chain names, each in its own words (``decide``)."""

    #: a loop runs again: from the end of its body (or its update clause) back to its test or head.
    BACK = "back"
    #: a ``for`` loop's update clause runs after its body: ``for (let i = 0; i < n; i++)``.
    UPDATE = "update"
    #: a ``try`` block (or its ``catch``) throws, to the handler (or the ``finally``).
    THROW = "throw"
    #: a jump out of a ``try`` or ``catch`` runs the ``finally`` first, then goes on from its end.
    FINALLY = "finally"
    #: a ``case`` that does not end in ``break`` runs on into the next one.
    FALLTHROUGH = "fallthrough"
    #: ``break`` or ``continue``, to the loop's exit or its next turn.
    JUMP = "jump"


class FlowNote:
    """Why an edge of a ``FlowGraph`` exists, when an evidence chain should say it; compared by value."""

    __slots__ = ("kind", "offset")

    def __init__(self, kind: FlowEdge, offset: int) -> None:
        self.kind: Final = kind
        #: where: the loop, the ``try``, the ``finally``, the ``case``, the jump.
        self.offset: Final = offset

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FlowNote):
            return NotImplemented
        return self.kind is other.kind and self.offset == other.offset

    def __hash__(self) -> int:
        return hash((self.kind, self.offset))


@dataclass(slots=True)
class FlowGraph:
    """The control flow of one activation, in straight-line *segments* (built by ``flow/builder``;
    ``flow/reach`` answers what can run after what).  Within a segment, execution follows the text."""

    #: for each segment, its successors with the note of the edge (or None).
    successors: list[list[tuple[int, FlowNote | None]]] = field(default_factory=list)
    #: disjoint byte intervals, sorted: ``[starts[i], ends[i])`` belongs to segment ``owners[i]``.
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    #: a block scope's start -> the segment its entry begins (a fresh instance of its bindings).
    scope_entries: dict[int, int] = field(default_factory=dict)
    #: a loop's start -> the segments where its per-iteration head bindings are made afresh.
    loop_copies: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: for a segment in a ``try`` block (or a ``catch`` clause that a ``finally`` follows): where its last
    #: operation that may throw ends (``flow/throws``); a segment not here throws nothing.
    throws_until: dict[int, int] = field(default_factory=dict)
    #: the first segment of each ``finally`` block, and the two ways out of its end: True for the one after the
    #: ``try`` statement (normal completion), False for the one that goes on with a jump or an exception.
    finally_entries: set[int] = field(default_factory=set)
    finally_gates: dict[int, bool] = field(default_factory=dict)

    def may_throw_after(self, segment: int, start: int | None) -> bool:
        """Whether something in ``segment`` may throw after ``start`` (``None``: from the segment's start)."""
        last = self.throws_until.get(segment)
        return last is not None and (start is None or last > start)

    def segment_at(self, offset: int) -> int | None:
        index = bisect.bisect_right(self.starts, offset) - 1
        if index >= 0 and offset < self.ends[index]:
            return self.owners[index]
        return None


@dataclass(slots=True)
class FileModel:
    module: Closure
    closures: list[Closure]
    bindings: list[Binding]
    references: list[Reference]
    #: where the callback of a builtin that runs it and drops it stands (``xs.forEach(f)``: ``bind.containers``).
    dropped_callbacks: frozenset[int] = frozenset()
    #: the receiver of each call ``ns.f(...)`` of a namespace import, by offset: ``f`` (``parameters.Parameters.slot``).
    member_calls: dict[int, str] = field(default_factory=dict)

    def release(self) -> None:
        """Breaks the model's cycles (it is unusable after): refcounting frees it, not the collection."""
        for closure in self.closures:
            closure.children.clear()
            closure.arguments_uses, closure.scope, closure.arguments_write = (), None, None
            closure.arguments_callee = closure.arguments_exposes = None
        for binding in self.bindings:
            binding.references.clear()
            binding.init_closure, binding.scope.shadowed, binding.scope.block_functions = None, None, None
            binding.scope.declarations.clear()
