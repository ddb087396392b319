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

from collections.abc import Sequence

from ..allocations import empty_reports, new_site
from ..decide import BindingDecider
from ..escape import EscapeGraph
from ..model import Binding, FileModel, Scope, Storage
from ..parsing import ParsedFile
from ..results import Decision, FunctionReport, PolicySite, Step, StepRole
from ..v8_scopes import ContextScopes, Part
from ..words import closure_label, closure_list


class V8Decider(BindingDecider):
    def __init__(self, model: FileModel, file: ParsedFile):
        super().__init__(model, file)
        self.scopes = ContextScopes(file)

    def decide(self, binding: Binding) -> Decision:
        if binding.closure.is_module:
            return Decision(binding, Storage.MODULE, "declared at module top level: nothing per call")
        capturers = binding.closure.capturers_among([r.closure for r in binding.references
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
            why = (f"referenced across a function boundary by {closure_list(self.source, capturers)}: "
                   "V8 gives it a context slot, written or not")
        else:
            decision.reason = "no inner function refers to it: V8 keeps it in a register or stack slot"
            return decision
        decision.storage = Storage.CONTEXT
        decision.reason = f"{why}; the slot is in {context.describe(self.source)}"
        decision.add_evidence(*(Step(c.name_start, f"captured by {closure_label(self.source, c)}",
                                      role=StepRole.CAPTURE) for c in capturers))
        decision.add_evidence(Step(context.offset, f"slot in {context.describe(self.source)}",
                                      role=StepRole.CONTEXT_SLOT))
        return decision


def decide(model: FileModel, file: ParsedFile, graph: EscapeGraph,
           only: Sequence[Binding] | None = None) -> list[Decision]:
    """``graph`` is unused: V8 does no escape analysis."""
    return V8Decider(model, file).run(only)


def allocate(model: FileModel, file: ParsedFile, decisions: list[Decision]) -> list[FunctionReport]:
    """One context per V8 scope that holds at least one slot."""
    source = file.source
    reports = empty_reports(model, file)
    scopes = ContextScopes(file)
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
