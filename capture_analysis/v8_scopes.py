"""V8's scopes: which context holds a binding that V8 gives a slot, and when that context is made.

V8 creates one context per scope that has at least one slot, when the scope
is entered (so a context of a loop body is made on every iteration); scopes
are never merged.  The scope model folds some of V8's scopes together (a
function whose parameters are not simple has one for them and one for its
body; a catch clause's parameter has one apart from its block), so ``Part``
says which of them a slot is in.  Both ``--policy v8`` (what V8 allocates)
and ``retention`` (what those contexts keep alive) place bindings with
``ContextScopes``; ``tests/test_v8.py`` checks the placement against V8.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .model import Binding, BindingKind, Closure, Loop, Scope, ScopeKind
from .parsing import ParsedFile, branch_around
from .source import SourceFile


class Part(enum.Enum):
    """Which V8 scope of a model scope holds a slot (the model folds some of them together)."""

    FUNCTION = "function"
    #: the body of a function whose parameters are not simple.
    BODY = "body"
    BLOCK = "block"
    LOOP_BODY = "loop body"
    LOOP_HEAD = "loop head"
    #: a catch clause's own parameter.
    CATCH = "catch"
    #: the block of a catch clause (and destructured catch parameters).
    CATCH_BODY = "catch block"
    CLASS = "class"


@dataclass(frozen=True, slots=True)
class ContextScope:
    scope: Scope
    part: Part
    offset: int
    loop: Loop | None
    branch: int | None

    def describe(self, source: SourceFile) -> str:
        at = source.position(self.offset)
        what = {
            Part.FUNCTION: "the function context",
            Part.BODY: f"the context of the function body at {at} (its parameters have defaults, destructuring "
                         "or a rest element, so V8 gives the body a context of its own)",
            Part.BLOCK: f"the context of the block at {at}",
            Part.LOOP_BODY: f"the context of the loop body at {at}",
            Part.LOOP_HEAD: f"the context of the loop head at {at}",
            Part.CATCH: f"the catch context at {at}",
            Part.CATCH_BODY: f"the context of the catch block at {at}",
            Part.CLASS: f"the class context at {at}",
        }[self.part]
        when = ", made on every iteration" if self.loop is not None else ""
        if self.branch == self.offset:
            when += ", made only when this branch runs"
        elif self.branch is not None:
            when += f", made only when the branch at {source.position(self.branch)} runs"
        return what + when


class ContextScopes:
    """Finds the V8 scope of each binding; remembers which functions have simple parameters."""

    def __init__(self, file: ParsedFile):
        self.file = file
        self.simple: dict[Closure, bool] = {}

    def is_simple(self, closure: Closure) -> bool:
        if closure not in self.simple:
            self.simple[closure] = self.file.simple_parameters(closure.start, closure.end)
        return self.simple[closure]

    def of(self, binding: Binding) -> ContextScope:
        scope = binding.scope
        kind = scope.kind
        if kind is ScopeKind.FUNCTION_NAME:
            return self.function(binding.closure)
        if kind is ScopeKind.FUNCTION:
            closure = scope.closure
            if binding.kind is BindingKind.PARAM or self.is_simple(closure):
                return self.function(closure)
            return ContextScope(scope, Part.BODY, closure.body_start, scope.instance_loop, None)
        if kind is ScopeKind.CATCH:
            node = self.file.node_at(binding.start, binding.end)
            own = binding.kind is BindingKind.CATCH and node.parent is not None and node.parent.type == "catch_clause"
            return self.nested(scope, Part.CATCH if own else Part.CATCH_BODY)
        if kind is ScopeKind.LOOP_HEAD:
            return self.nested(scope, Part.LOOP_HEAD)
        if kind is ScopeKind.CLASS:
            return self.nested(scope, Part.CLASS)
        return self.nested(scope, Part.LOOP_BODY if scope.loop is not None else Part.BLOCK)

    def function(self, closure: Closure) -> ContextScope:
        assert closure.scope is not None
        return ContextScope(closure.scope, Part.FUNCTION, closure.start, None, None)

    def nested(self, scope: Scope, part: Part) -> ContextScope:
        closure = scope.closure
        branch = branch_around(self.file.node_at(scope.start, scope.end), closure.start, closure.end)
        return ContextScope(scope, part, scope.start, scope.instance_loop,
                            branch.start_byte if branch is not None else None)
