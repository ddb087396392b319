"""What one panel of ``boxcheck graph`` draws: everything, or only what needs the heap (``--heap-only``).

The full picture of a big function has every closure, every binding a
closure captures and an edge per capture: ``createScanner`` of
typescript.js has sixty closures and six hundred edges, which merge into
trunks nobody can follow.  The question the picture answers is which bindings need heap storage and what
forces each of them there, so ``--heap-only`` draws the decision's own
reasons, one edge each:

* the bindings whose storage allocates (``box``, ``context``), with their allocation sites;
* for each, the closure whose write made the copies differ (the decision's ``late_write``), the closure
  that captures it before its initialization (``early_capture``), and the closure that refers to it and
  outlives its activation (``escaping_holder``, whose own escape edge says how); when the policy
  allocates for the capture itself (``v8`` gives every captured binding a context slot, ``legacy`` boxes
  what is written anywhere) or the decision is conservative, every capture;
* the closures those edges come from, the functions that allocate, and the functions around them; a
  function with none of these is left out, and one that would be a frame around its oval alone is drawn
  as an oval in the frame around it.

No call of a known callee that keeps nothing is drawn (``dot_calls``): such
a call is why a binding stays off the heap, and the bindings that stay off
it are the ones ``--heap-only`` leaves out.

Bindings of the scopes around the drawn functions (``--function``) are
summarized: the module's in one node always (module storage never
allocates, and a bundle's module scope holds thousands), and an enclosing
function's beyond ``OUTER_LIMIT``, keeping the ones that allocate.  No edge
leads to a summary: the node lists the names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analyze import FileAnalysis
from ..model import Binding, Closure
from ..results import Decision, FunctionReport

#: more captured bindings of one enclosing function than this are summarized.
OUTER_LIMIT = 8
#: names written in a summary node's label; its tooltip lists up to ``TOOLTIP_NAMES``.
LABEL_NAMES = 5
TOOLTIP_NAMES = 60


def names(bindings: Sequence[Binding], limit: int) -> str:
    shown = ", ".join(b.name for b in bindings[:limit])
    return shown + (f" and {len(bindings) - limit} more" if len(bindings) > limit else "")


class Selection:
    def __init__(self, analysis: FileAnalysis, decision_of: dict[Binding, Decision], drawn: set[Closure],
                 roots: Sequence[Closure], heap_only: bool):
        self.analysis = analysis
        self.decision_of = decision_of
        self.drawn = drawn
        self.heap_only = heap_only
        self.roots = set(roots)
        self.closures = self.visible_closures() if heap_only else drawn

    def captures(self, binding: Binding) -> Iterator[tuple[Closure, bool, bool]]:
        """The drawn closures that capture ``binding``, each with whether it reads and writes it here; with
        ``heap_only``, only the captures that force its storage."""
        decision = self.decision_of[binding]
        if self.heap_only and not decision.storage.allocates:
            return
        reasons = [closure for closure in (decision.early_capture, decision.escaping_holder) if closure is not None]
        if not self.heap_only or decision.conservative is not None or not (reasons or decision.late_write):
            for ref in binding.references:
                if ref.closure in self.drawn and ref.closure is not binding.closure:
                    yield ref.closure, ref.is_read, ref.is_write
            return
        if decision.late_write is not None and decision.late_write.closure in self.drawn:
            yield decision.late_write.closure, False, True
        for closure in reasons:
            if closure in self.drawn:
                yield closure, True, False

    def framed(self, closure: Closure, report: FunctionReport | None) -> bool:
        """Does the closure get a frame of its own?  With ``heap_only``, one that would hold nothing but its
        oval (no allocation, no drawn function inside) is drawn in its parent's frame: sixty frames of one
        oval each made a column that every edge had to run along."""
        return (not self.heap_only or closure in self.roots or (report is not None and bool(report.sites))
                or any(child in self.closures for child in closure.children))

    def shows_binding(self, binding: Binding) -> bool:
        return not self.heap_only or self.decision_of[binding].storage.allocates

    def shows_closure(self, closure: Closure) -> bool:
        return closure in self.closures

    def visible_closures(self) -> set[Closure]:
        """The drawn functions that allocate or force an allocation, and the drawn functions around them."""
        visible: set[Closure] = set()
        for report in self.analysis.functions:
            if report.closure in self.drawn and report.sites:
                visible.add(report.closure)
        for binding, decision in self.decision_of.items():
            if decision.storage.allocates:
                visible.update(closure for closure, _, _ in self.captures(binding))
        for closure in list(visible):
            parent = closure.parent
            while parent is not None and parent in self.drawn and parent not in visible:
                visible.add(parent)
                parent = parent.parent
        return visible

    def outer(self, closure: Closure, captured: list[Binding]) -> tuple[list[Binding], list[Binding]]:
        """Of the bindings of an enclosing scope that drawn closures capture: those drawn one by one, and
        those summarized in one node."""
        if self.heap_only:
            kept = [b for b in captured if any(True for _ in self.captures(b))]
            return kept, []
        in_order = sorted(captured, key=lambda b: b.start)
        if closure.is_module:
            return [], in_order
        if len(captured) <= OUTER_LIMIT:
            return captured, []
        allocating = [b for b in captured if self.decision_of[b].storage.allocates]
        return allocating, [b for b in in_order if not self.decision_of[b].storage.allocates]
