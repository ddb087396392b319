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
the analysis takes the contexts it holds (``contexts``: V8's scopes, as
``--policy v8`` models them), the candidate bindings in them, and removes
what the closure can use (``reach``: itself, the closures nested in it, the
closures it can get hold of).  What is left is retained for nothing, unless
the function's own code clears it first (``values``).  One retention per
binding: the escaping closures that keep it, the closures that put it in the
context, the context, and the evidence chain.

The analysis does not depend on the storage policy: it says what V8 (and
any engine that shares one environment per scope instance) does with the
code as written.  What it leaves out is listed in docs/retention.md.
"""

from __future__ import annotations

from dataclasses import replace

from ..escape import EscapeGraph
from ..model import Binding, Closure, FileModel
from ..policies.support import capturers_of, closure_label
from ..policies.v8 import ContextScope, Part
from ..records import Retention, Step
from ..source import SourceFile
from .contexts import Candidates, Context
from .reach import Reach, escape_routes
from .values import ValueShapes

__all__ = ["find_retentions"]

#: how many retaining or referencing closures a message names before it counts the rest.
SHOWN = 3


def find_retentions(model: FileModel, source: SourceFile, graph: EscapeGraph) -> list[Retention]:
    """The retentions of a file, in the order of the bindings' declarations.

    Cheapest questions first: most files have no candidate; in most of the rest every closure that holds a
    context refers (itself or through the closures nested in it) to everything in it; only then is it asked
    whether the closure escapes (which may build the escape graph) and what else it can run."""
    candidates = Candidates(model, source)
    if not candidates.bindings:
        return []
    nested = nested_uses(candidates)
    pending = []
    for closure in model.closures:
        if closure.parent is None or closure.parent.is_module:
            continue
        held = [(context, mask) for context, mask in candidates.held_by(closure) if mask & ~nested.get(closure, 0)]
        if held and graph.escapes(closure):
            pending.append((closure, held))
    if not pending:
        return []
    reach = Reach(model, source, graph, candidates.bit)
    retainers: dict[Binding, list[Closure]] = {}
    for closure, held in pending:
        uses = reach.uses(closure)
        alone, capturers = escape_routes(graph, closure)
        for context, mask in held:
            left_over = mask & ~uses
            if not left_over or not alone and all(held_mask(candidates, c, context) & left_over == left_over
                                                  for c in capturers):
                continue  # it lives only in a context that its capturers keep, and this one with it
            if outlived_by_an_enclosing_closure(closure, context.scope.closure, graph):
                continue
            for binding in context.bindings:
                if candidates.bit[binding] & left_over and not reach.may_hold(binding, closure):
                    retainers.setdefault(binding, []).append(closure)
    shapes = ValueShapes(source)
    out = []
    for binding in sorted(retainers, key=lambda b: b.start):
        if shapes.may_hold_an_object(binding) and shapes.clearing_write(binding) is None:
            out.append(retention(binding, retainers[binding], candidates.place(binding), source, graph))
    return out


def nested_uses(candidates: Candidates) -> dict[Closure, int]:
    """The candidates each closure refers to, itself or through the closures nested in it (a direct ``eval``
    refers to everything)."""
    uses: dict[Closure, int] = {}
    everything = (1 << len(candidates.bindings)) - 1
    for binding, bit in candidates.bit.items():
        owner = binding.scope.closure
        for ref in binding.references:
            closure: Closure | None = ref.closure
            while closure is not None and closure is not owner:
                uses[closure] = uses.get(closure, 0) | bit
                closure = closure.parent
            if ref.closure.dynamic_scope_sites:
                uses[ref.closure] = everything
    return uses


def held_mask(candidates: Candidates, closure: Closure, context: Context) -> int:
    return next((mask for held, mask in candidates.held_by(closure) if held is context), 0)


def outlived_by_an_enclosing_closure(closure: Closure, function: Closure, graph: EscapeGraph) -> bool:
    """A closure nested in one that escapes ``function`` is made when that one runs: the outer one is the
    retainer to judge (it runs the inner one, and holds the same contexts of ``function``)."""
    enclosing = closure.parent
    while enclosing is not None and enclosing is not function:
        if graph.escapes(enclosing):
            return True
        enclosing = enclosing.parent
    return False


def retention(binding: Binding, retained_by: list[Closure], place: ContextScope, source: SourceFile,
              graph: EscapeGraph) -> Retention:
    referenced_by = capturers_of(binding.closure, [ref.closure for ref in binding.references
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
                                      f"in {record.context}")
             for closure in record.referenced_by[:SHOWN]]
    if not record.referenced_by:
        steps.append(Step(record.binding.start, f"a named catch parameter: V8 gives it a slot in {record.context} "
                                                "whether or not anything refers to it"))
    first = record.retained_by[0]
    label = closure_label(source, first)
    steps.append(Step(first.name_start, f"{label} is created inside that scope, so it holds the context "
                                        "for as long as it lives"))
    steps.extend(graph.escape_chain(first))
    steps.append(Step(first.name_start, f"nothing {label} can run refers to `{name}`: not itself, no closure "
                                        "nested in it, no closure it can get hold of through what it reads"))
    return steps
