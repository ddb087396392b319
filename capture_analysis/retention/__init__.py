"""Context retention: the bindings V8 keeps alive for escaping closures that never use them (rule BX107).

V8 gives each scope instance one context, holding every binding of the scope
that any inner function refers to, and every closure created inside the
scope holds that whole context (and, through it, the contexts around it).
So a closure that outlives its activation keeps alive what only a sibling
used::

    function make() {
      const big = new Big();            // in make's context: `use` refers to it
      const use = () => big.data.length;
      use();
      return () => 1;                   // holds make's context, so `big` too
    }

For every closure that may outlive its activation (``escape.EscapeGraph``),
the analysis takes the contexts it holds (``contexts``: V8's scopes, placed
by ``v8_scopes`` as for ``--policy v8``), the candidate bindings in them,
and removes what the closure can use (``reach``: itself, the closures nested in it, the
closures it can get hold of).  What is left is retained for nothing, unless
the function's own code clears it first (``values``).  One retention per
binding: the escaping closures that keep it, the closures that put it in the
context, the context, and the evidence chain.

The analysis does not depend on the storage policy: it says what V8 (and
any engine that shares one environment per scope instance) does with the
code as written.  What it leaves out is listed in docs/retention.md.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from ..escape import EscapeGraph
from ..model import Binding, Closure, FileModel
from ..parsing import ParsedFile
from ..results import Retention, Step, StepRole
from ..source import SourceFile
from ..v8_scopes import ContextScope, Part
from ..words import closure_label
from .contexts import Candidates
from .reach import CanRun, escape_routes
from .values import ValueShapes

__all__ = ["find_retentions"]

#: how many retaining or referencing closures a message names before it counts the rest.
SHOWN = 3


def find_retentions(model: FileModel, file: ParsedFile, graph: EscapeGraph,
                    within: Collection[Closure] | None = None) -> list[Retention]:
    """The retentions of a file, in the order of the bindings' declarations; with ``within``, only those that
    closures among these functions make (what ``boxcheck graph -f`` can draw of them is all there).

    Cheapest questions first: most files have no candidate; in most of the rest every closure that holds a
    context refers (itself or through the closures nested in it) to everything in it; only then is it asked
    whether the closure escapes (which may build the escape graph), whether a function around it or a
    closure that captures it keeps the same contexts anyway, and last what else it can run.  Sets of
    candidates are bit masks, so that deep nesting costs big-integer operations, not loops."""
    source = file.source
    shapes = ValueShapes(file)
    candidates = Candidates(model, file, shapes)
    if not candidates.bindings:
        return []
    nested = nested_uses(model, candidates)
    pending = [closure for closure in model.closures if closure.parent is not None and not closure.parent.is_module
               and (within is None or closure in within)
               and candidates.held(closure) & ~nested.get(closure, 0) and graph.escapes(closure)]
    if not pending:
        return []
    reach: CanRun | None = None
    found = Found(candidates, shapes)
    enclosing: dict[Closure, Closure | None] = {}
    for closure in pending:
        left_over = candidates.held(closure) & ~nested.get(closure, 0) & ~found.dead
        outer = nearest_escaping_ancestor(closure, graph, enclosing)
        if outer is not None:
            # made when ``outer`` runs: for ``outer``'s own contexts and those around it, ``outer`` is judged
            left_over &= ~candidates.held(outer)
        if not left_over:
            continue
        alone, capturers = escape_routes(graph, closure)
        if not alone and capturers:
            kept_anyway = -1
            for capturer in capturers:
                kept_anyway &= candidates.held(capturer)
            left_over &= ~kept_anyway  # it lives only in contexts its capturers keep, with these in them
        if not left_over:
            continue
        if reach is None:
            reach = CanRun(model, file, graph, candidates.bit)  # the costliest question, asked last
        left_over &= ~reach.uses(closure)
        if left_over:
            found.add(closure, left_over, reach)
    return [retention(binding, closures, candidates.place(binding), source, graph)
            for binding, closures in sorted(found.retainers.items(), key=lambda item: item[0].start)]


class Found:
    """The retaining closures of each binding; a binding cleared before the function ends is looked at once,
    then masked."""

    def __init__(self, candidates: Candidates, shapes: ValueShapes):
        self.candidates = candidates
        self.shapes = shapes
        self.dead = 0
        self.retainers: dict[Binding, list[Closure]] = {}

    def add(self, closure: Closure, left_over: int, reach: CanRun) -> None:
        bindings = self.candidates.bindings
        while left_over:
            low = left_over & -left_over
            left_over ^= low
            binding = bindings[low.bit_length() - 1]
            if binding not in self.retainers:
                if self.shapes.clearing_write(binding) is not None:
                    self.dead |= low
                    continue
                self.retainers[binding] = []
            if not reach.may_hold(binding, closure):
                self.retainers[binding].append(closure)
        for binding in [b for b, closures in self.retainers.items() if not closures]:
            del self.retainers[binding]


def nearest_escaping_ancestor(closure: Closure, graph: EscapeGraph,
                              memo: dict[Closure, Closure | None]) -> Closure | None:
    """The innermost function around ``closure`` (below the module) that escapes its own activation; memoized
    for every closure on the way, so that deep nesting costs linear time."""
    chain: list[Closure] = []
    walk = closure
    while walk not in memo:
        parent = walk.parent
        if parent is None or parent.is_module:
            memo[walk] = None
        elif graph.escapes(parent):
            memo[walk] = parent
        else:
            chain.append(walk)
            walk = parent
    for inner in chain:
        memo[inner] = memo[walk]
    return memo[closure]


def nested_uses(model: FileModel, candidates: Candidates) -> dict[Closure, int]:
    """The candidates each closure refers to, itself or through the closures nested in it (a direct ``eval``
    refers to everything): each closure's own references, added up from the innermost out."""
    uses: dict[Closure, int] = {}
    everything = (1 << len(candidates.bindings)) - 1
    for binding, bit in candidates.bit.items():
        for ref in binding.references:
            uses[ref.closure] = uses.get(ref.closure, 0) | bit
    for closure in model.closures:
        if closure.dynamic_scope_sites:
            uses[closure] = everything
    for closure in reversed(model.closures):
        parent = closure.parent
        if parent is not None and closure in uses:
            uses[parent] = uses.get(parent, 0) | uses[closure]
    return uses


def retention(binding: Binding, retained_by: list[Closure], place: ContextScope, source: SourceFile,
              graph: EscapeGraph) -> Retention:
    referenced_by = binding.closure.capturers_among([ref.closure for ref in binding.references
                                                     if ref.closure is not binding.closure])
    where = context_words(place, binding.closure, source)
    record = Retention(binding, retained_by, referenced_by, where, place.offset)
    first = retained_by[0]
    record.evidence = evidence(record, source, graph)
    record.message = (f"`{binding.name}` is kept alive by {escaping_words(first, source, graph)}"
                      f"{others(len(retained_by) - 1)} through {where}, though "
                      f"{referencing_words(referenced_by, source, graph)}")
    return record


def context_words(place: ContextScope, function: Closure, source: SourceFile) -> str:
    owner = closure_label(source, function)
    if place.part is Part.FUNCTION:
        return f"the function context of {owner}"
    return f"{replace(place, branch=None).describe(source)}, in {owner}"


def escaping_words(closure: Closure, source: SourceFile, graph: EscapeGraph) -> str:
    """``the arrow at 7:10 (returned at 7:3)``."""
    label = closure_label(source, closure)
    chain = graph.escape_chain(closure)
    if not chain:
        return label
    last = chain[-1]
    why = last.text.split(": ", 1)[-1]
    hops = [step.subject for step in chain[1:] if step.subject != label]
    through = f"through {', '.join(hops)}, " if hops else ""
    return f"{label} ({through}{why} at {source.position(last.offset)})"


def others(count: int) -> str:
    if not count:
        return ""
    return f" and {count} other escaping closure{'' if count == 1 else 's'}"


def referencing_words(closures: list[Closure], source: SourceFile, graph: EscapeGraph) -> str:
    if not closures:
        return "nothing refers to it (V8 gives every named catch parameter a slot)"
    names = []
    for closure in closures[:SHOWN]:
        notes = [] if closure.name is None else [str(source.position(closure.name_start))]
        if graph.escapes(closure):
            notes.append("which escapes too")
        names.append(closure_label(source, closure) + (f" ({', '.join(notes)})" if notes else ""))
    more = len(closures) - SHOWN
    listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return f"only {listed} refer{'s' if len(closures) == 1 else ''} to it"


def evidence(record: Retention, source: SourceFile, graph: EscapeGraph) -> list[Step]:
    name = record.binding.name
    steps = [Step(closure.name_start, f"{closure_label(source, closure)} refers to `{name}`, so V8 gives it a slot "
                                      f"in {record.context}", role=StepRole.CONTEXT_SLOT)
             for closure in record.referenced_by[:SHOWN]]
    if not record.referenced_by:
        steps.append(Step(record.binding.start, f"a named catch parameter: V8 gives it a slot in {record.context} "
                                                "whether or not anything refers to it", role=StepRole.CONTEXT_SLOT))
    first = record.retained_by[0]
    label = closure_label(source, first)
    steps.append(Step(first.name_start, f"{label} is created inside that scope, so it holds the context "
                                        "for as long as it lives", role=StepRole.HOLDS_CONTEXT))
    steps.extend(graph.escape_chain(first))
    steps.append(Step(first.name_start, f"nothing {label} can run refers to `{name}`: not itself, no closure "
                                        "nested in it, no closure it can get hold of through what it reads",
                      role=StepRole.UNUSED))
    return steps
