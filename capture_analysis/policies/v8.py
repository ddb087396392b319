"""Policy ``v8``: what V8 allocates for the same sources (docs/policies.md).

V8 gives a context slot to every binding that an inner function refers to,
written or not, and to every binding a direct ``eval`` can see.  There is no
copy by value and no escape analysis.  A slot lives in the context of the
scope that declares the binding, and V8 creates one context per scope that
has at least one slot, when the scope is entered (so a context of a loop body
is made on every iteration).  Scopes are never merged::

    function f(a = 1) {            // parameters not simple: the body is a scope of its own
      let x = 0;                   //   `a` -> the function context, `x` -> the body's context
      for (let i = 0; i < 3; i++) {  // `i` -> a context per iteration (the loop head)
        const d = i * 2;             // `d` -> another one per iteration (the loop body block)
        keep(() => a + x + i + d);
      }
    }                              // 2 contexts per call, 2 per iteration

The scopes: the function (parameters, and the body's top-level declarations
when the parameters are simple), the body (when they are not), each block,
a catch clause's parameter, the catch block, a per-iteration ``for`` head, a
loop body, a class.  A named function expression's own name lives in its
function's context.  V8 gives every named catch parameter a slot, captured or
not (``Scope::MustAllocateInContext``).  Module-level bindings cost nothing
per call.  What V8 allocates that is not a binding (``this`` or
``arguments`` captured by an arrow, class scopes) is listed in
docs/policies.md.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from ..decide import BindingDecider
from ..escape import EscapeGraph
from ..model import Binding, BindingKind, Closure, FileModel, Loop, Scope, ScopeKind, Storage
from ..records import SHOWN, Decision, FunctionReport, Step, StepRole, capped
from ..source import SourceFile
from .support import (
    PolicySite,
    branch_around,
    capturers_of,
    closure_label,
    empty_reports,
    new_site,
    node_at,
    simple_parameters,
)


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
            Part.BODY: f"the context of the function body at {at} (the parameters are not simple)",
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

    def __init__(self, source: SourceFile):
        self.source = source
        self.simple: dict[Closure, bool] = {}

    def is_simple(self, closure: Closure) -> bool:
        if closure not in self.simple:
            self.simple[closure] = simple_parameters(self.source, closure)
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
            node = node_at(self.source, binding.start, binding.end)
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
        branch = branch_around(node_at(self.source, scope.start, scope.end), scope.closure)
        return ContextScope(scope, part, scope.start, scope.instance_loop,
                            branch.start_byte if branch is not None else None)


class V8Decider(BindingDecider):
    def __init__(self, model: FileModel, source: SourceFile):
        super().__init__(model, source)
        self.scopes = ContextScopes(source)

    def decide(self, binding: Binding) -> Decision:
        if binding.closure.is_module:
            return Decision(binding, Storage.MODULE, "declared at module top level: nothing per call")
        capturers = capturers_of(binding.closure, [r.closure for r in binding.references
                                                   if r.closure is not binding.closure])
        writes = [r for r in binding.references if r.is_write]
        decision = Decision(binding, Storage.LOCAL, "", capturers, writes)
        context = self.scopes.of(binding)
        if binding.scope.has_direct_eval:
            sites = binding.closure.dynamic_scope_sites
            at = f" at {self.source.position(min(sites))}" if sites else ""
            why = f"visible to a direct `eval` or `with`{at}: V8 gives every binding it can reach a context slot"
            decision.conservative = why
        elif binding.closure.has_syntax_error:
            why = "the function contains a syntax error, so its captures are unknown: decided conservatively"
            decision.conservative = why
        elif context.part is Part.CATCH:
            why = "a named catch parameter: V8 gives it a context slot whether or not a closure captures it"
        elif capturers:
            labels = capped([closure_label(self.source, c) for c in capturers[:SHOWN]], len(capturers))
            why = f"referenced across a function boundary by {labels}: V8 gives it a context slot, written or not"
        else:
            decision.reason = "no inner function refers to it: V8 keeps it in a register or stack slot"
            return decision
        decision.storage = Storage.CONTEXT
        decision.reason = f"{why}; the slot is in {context.describe(self.source)}"
        decision.evidence.extend(Step(c.name_start, f"captured by {closure_label(self.source, c)}",
                                      role=StepRole.CAPTURE) for c in capturers)
        decision.evidence.append(Step(context.offset, f"slot in {context.describe(self.source)}",
                                      role=StepRole.CONTEXT_SLOT))
        return decision


def decide(model: FileModel, source: SourceFile, graph: EscapeGraph,
           only: Sequence[Binding] | None = None) -> list[Decision]:
    """``graph`` is unused: V8 does no escape analysis."""
    return V8Decider(model, source).run(only)


def allocate(model: FileModel, source: SourceFile, decisions: list[Decision]) -> list[FunctionReport]:
    """One context per V8 scope that holds at least one slot."""
    reports = empty_reports(model, source)
    scopes = ContextScopes(source)
    sites: dict[tuple[Scope, Part], PolicySite] = {}
    for decision in decisions:
        report = reports.get(decision.binding.closure)
        if report is None:
            continue
        report.decisions.append(decision)
        if not decision.storage.allocates:
            continue
        context = scopes.of(decision.binding)
        site = sites.get((context.scope, context.part))
        if site is None:
            site = new_site(source, report, Storage.CONTEXT, context.loop, context.offset, context.branch)
            sites[(context.scope, context.part)] = site
        site.decisions.append(decision)
        decision.site = site
    return list(reports.values())
