"""Which bindings V8 keeps in contexts, and which of those contexts an escaping closure holds.

A binding is in a context when an inner function refers to it, or when it
is a named catch parameter (V8 gives those a slot whether or not anything
refers to them): the same test ``--policy v8`` applies, and the same V8
scope (``v8_scopes.ContextScopes``), checked against V8 by
``tests/test_v8.py``.  A closure holds the context of every V8 scope around
the point where it is created, and through the chain of ``previous`` links
every such context of the functions around it::

    function make() {             // make's function context: { big }
      const big = new Big();
      {                           // no context: nothing here is captured
        const keep = () => 1;     //   holds make's function context, so `big`
      }
      const use = () => big;
    }

Only the bindings that could keep an object alive are candidates.  Left out,
each for its reason: module-level bindings (the module's context lives as
long as the program does), the bindings of a namespace body and of a function
that runs once per program (``bind/runs_once``: a module wrapper, a UMD factory),
a function's or class's own name seen from inside it and a function created
in its own scope (each holds a closure whose contexts the holder holds
already: only the small function object itself is kept), bindings that only
ever hold primitives (``values``), bindings a direct ``eval`` or ``with`` can
reach and bindings of a function with a syntax error (nothing is known of
them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Binding, BindingKind, Closure, FileModel, Scope, ScopeKind
from ..parsing import ParsedFile
from ..v8_scopes import ContextScope, ContextScopes, Part
from . import bits
from .values import ValueShapes

#: bindings that never keep more than the closure holding them keeps already.
OWN_NAMES = frozenset({BindingKind.FUNCTION_NAME, BindingKind.CLASS_NAME, BindingKind.IMPORT, BindingKind.ENUM,
                       BindingKind.NAMESPACE})


def runs_once(closure: Closure) -> bool:
    """The module, and what runs once per program (``bind/runs_once``: a module-level IIFE, a UMD factory, a
    namespace declared once...): what they keep alive is kept once, as module bindings are."""
    return closure.is_module or closure.runs_once


@dataclass(slots=True)
class Context:
    """The candidate bindings of one scope, in V8's context of that scope (a function whose parameters are not
    simple has two: the parameters', which a closure in a parameter default holds, and the body's)."""

    scope: Scope
    bindings: list[Binding] = field(default_factory=list)
    #: the bits of ``bindings`` (``Candidates.index``), and of the parameters among them: packed (``bits``).
    mask: int = 0
    parameters: int = 0


class Candidates:
    """The candidate bindings of a file, by scope.  The syntax is asked what a captured binding may hold (one
    look each, from the root down) and whether a catch parameter nothing refers to is a named one; which V8
    context holds a binding, in words, is found for the ones reported (``place``)."""

    def __init__(self, model: FileModel, file: ParsedFile, shapes: ValueShapes):
        self.source = file.source
        self.scopes = ContextScopes(file)
        self.contexts: dict[Scope, Context] = {}
        #: each candidate's place in ``bindings``: its bit in every mask (kept as the index, not ``1 << index``,
        #: which is as wide as the index: ``bits``).
        self.index: dict[Binding, int] = {}
        self.bindings: list[Binding] = []
        self.held_memo: dict[Closure, int] = {}
        self.joined_memo: dict[tuple[Scope | None, bool, Closure | None], int] = {}
        self.scope_memo: dict[Scope, int] = {}
        # One pass over every binding of the file, the cheapest tests first and those of its function once:
        # only a function that nests others has bindings in a context.
        skipped: dict[Closure, bool] = {}
        for binding in model.bindings:
            closure = binding.scope.closure
            skip = skipped.get(closure)
            if skip is None:
                skip = skipped[closure] = not closure.children or runs_once(closure) or closure.has_syntax_error
            if skip or binding.kind in OWN_NAMES or not self.in_context(binding, closure):
                continue
            if self.eligible(binding, closure) and shapes.may_hold_an_object(binding):
                self.add(binding)

    @staticmethod
    def eligible(binding: Binding, closure: Closure) -> bool:
        if binding.scope.has_direct_eval:
            return False
        init = binding.init_closure
        # not ``function helper() {}``, ``const f = () => ...``: the function object only
        return not (init is not None and init.parent is closure and not any(
            ref.is_write and not ref.is_declaration_write for ref in binding.references))

    def in_context(self, binding: Binding, closure: Closure) -> bool:
        for ref in binding.references:
            if ref.closure is not closure:
                return True
        return binding.kind is BindingKind.CATCH and self.scopes.of(binding).part is Part.CATCH

    def add(self, binding: Binding) -> None:
        context = self.contexts.get(binding.scope)
        if context is None:
            context = self.contexts[binding.scope] = Context(binding.scope)
        index = len(self.bindings)
        self.index[binding] = index
        self.bindings.append(binding)
        context.bindings.append(binding)
        context.mask = bits.union(context.mask, bits.one(index))
        if binding.kind is BindingKind.PARAM:
            context.parameters = bits.union(context.parameters, bits.one(index))

    def place(self, binding: Binding) -> ContextScope:
        return self.scopes.of(binding)

    def held(self, closure: Closure) -> int:
        """The candidates in the contexts that ``closure`` holds once created: those of the V8 scopes around its
        creation point in its function, and what that function holds, and so on out (memoized: linear time
        in deep nesting).  The closures created at one point share one mask (``joined``): a mask is as wide
        as the candidates, so one per closure made a function with thousands of each quadratic in memory."""
        memo = self.held_memo
        chain: list[Closure] = []
        walk: Closure | None = closure
        while walk is not None and walk not in memo and walk.parent is not None and not walk.parent.is_module:
            chain.append(walk)
            walk = walk.parent
        outer = memo.get(walk, 0) if walk is not None else 0
        for inner in reversed(chain):
            outer = memo[inner] = self.joined(inner, outer)
        return bits.mask(memo.get(closure, 0))

    def joined(self, closure: Closure, outer: int) -> int:
        """The candidates of ``closure``'s creation point and ``outer`` (what its function holds), both packed:
        one object for every closure created in one scope of one function."""
        scope, in_parameters = self.creation(closure)
        key = (scope, in_parameters, closure.parent)
        packed = self.joined_memo.get(key)
        if packed is None:
            packed = self.joined_memo[key] = bits.union(self.within(scope, in_parameters), outer)
        return packed

    def creation(self, closure: Closure) -> tuple[Scope | None, bool]:
        """The scope of ``closure.parent`` around the point where ``closure`` is created, and whether that point
        is in a parameter default."""
        scope = closure.scope.parent if closure.scope is not None else None
        while scope is not None and scope.closure is closure:
            scope = scope.parent  # a named function expression's own name, in its own context
        if scope is None:
            return None, False
        return scope, scope.kind is ScopeKind.FUNCTION and closure.creation_offset < scope.closure.body_start

    def within(self, scope: Scope | None, in_parameters: bool) -> int:
        """The candidates of the scopes of a function around a creation point (``creation``), packed."""
        if scope is None:
            return 0
        owner = scope.closure
        if in_parameters:
            # in a parameter default: only the parameters' context (the list is not simple)
            context = self.contexts.get(scope)
            return bits.union(context.parameters if context is not None else 0, self.around(scope.parent, owner))
        return self.around(scope, owner)

    def around(self, scope: Scope | None, owner: Closure) -> int:
        """The candidates of ``scope`` and the scopes around it that belong to ``owner`` (memoized by scope), packed."""
        memo = self.scope_memo
        chain: list[Scope] = []
        while scope is not None and scope.closure is owner and scope not in memo:
            chain.append(scope)
            scope = scope.parent
        outer = memo.get(scope, 0) if scope is not None and scope.closure is owner else 0
        for inner in reversed(chain):
            context = self.contexts.get(inner)
            outer = memo[inner] = bits.union(context.mask if context is not None else 0, outer)
        return outer
