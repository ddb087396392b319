"""Context retention: the bindings V8 keeps alive for durable closures that never use them (BX107, BX108).

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

A finding (DESIGN 2.6) needs a closure that outlives the activation
*durably* (``lifetimes``: returned, stored, registered, passed to a call that
may keep it; not a callback that a call runs and drops), a binding in a
context it holds (``contexts``: V8's scopes, placed by ``v8_scopes`` as for
``--policy v8``) that may hold an object (``values``), and no durable code
that refers to the binding (``reach``: a durable closure, what it nests, what
it can get hold of): the object is then alive for nothing, unless the
function's own code clears it first.  ``kept`` says what the object is and
whether the finding is a warning.  One retention per binding: the durable
closures that keep it, the closures that put it in the context, the
context, and the evidence chain.

The analysis does not depend on the storage policy: it says what V8 (and
any engine that shares one environment per scope instance) does with the
code as written.  What it leaves out is listed in docs/retention.md.
"""

from __future__ import annotations

from collections.abc import Collection

from ..escape import EscapeGraph
from ..model import Binding, Closure, FileModel
from ..parsing import ParsedFile
from ..results import Retention
from . import bits
from .callees import Callees, shipped
from .contexts import Candidates
from .lifetimes import Lifetimes
from .message import retention
from .reach import CanRun
from .values import ValueShapes

__all__ = ["Callees", "find_retentions"]


def find_retentions(model: FileModel, file: ParsedFile, graph: EscapeGraph,
                    within: Collection[Closure] | None = None, callees: Callees | None = None) -> list[Retention]:
    """The retentions of a file, in the order of the bindings' declarations; with ``within``, only those that
    closures among these functions make (what ``boxcheck graph -f`` can draw of them is all there).

    Cheapest questions first: most files have no candidate; in most of the rest every closure that holds a
    context refers (itself or through the closures nested in it) to everything in it, or escapes not at all;
    only then are the durable closures found (``lifetimes``), what durable code uses, whether a function
    around a closure or a closure that captures it keeps the same contexts anyway.  Sets of candidates are
    bit masks, so that deep nesting costs big-integer operations, not loops."""
    shapes = ValueShapes(file, model)
    candidates = Candidates(model, file, shapes)
    if not candidates.bindings:
        return []
    nested = nested_uses(model, candidates)
    escaping = [closure for closure in model.closures if closure.parent is not None and not closure.parent.is_module
                and candidates.held(closure) & ~bits.mask(nested.get(closure, 0)) and graph.escapes(closure)]
    if not escaping:
        return []
    lifetimes = Lifetimes(model, file, graph, callees or shipped())
    pending = [closure for closure in escaping if (within is None or closure in within) and lifetimes.durable(closure)]
    if not pending:
        return []
    enclosing: dict[Closure, Closure | None] = {}
    # What each pending closure keeps alive is asked twice (before and after the costliest question) rather
    # than kept: a mask per closure, as wide as the candidates, made a function with thousands of closures
    # quadratic in memory.
    left: list[tuple[Closure, Closure | None, list[Closure]]] = []
    wanted = 0
    for closure in pending:
        outer = nearest_durable_ancestor(closure, lifetimes, enclosing)
        if not kept_alive(candidates, nested, closure, outer, []):
            continue
        alone, capturers = lifetimes.alone(closure)
        left_over = kept_alive(candidates, nested, closure, outer, [] if alone else capturers)
        if left_over:
            left.append((closure, outer, [] if alone else capturers))
            wanted |= left_over
    if not left:
        return []
    reach = CanRun(model, file, graph, candidates.index)  # the costliest question, asked last
    used = used_by_durable_code(model, candidates, lifetimes, reach, nested, wanted)
    found = Found(candidates, shapes, lifetimes)
    for closure, outer, capturers in left:
        left_over = kept_alive(candidates, nested, closure, outer, capturers) & ~used & ~found.dead
        if left_over:
            found.add(closure, left_over, reach)
    return [retention(binding, closures, candidates.place(binding), file, lifetimes)
            for binding, closures in sorted(found.retainers.items(), key=lambda item: item[0].start)]


class Found:
    """The retaining closures of each binding; a binding cleared before the function ends, or whose object the
    function returns, is looked at once, then masked."""

    def __init__(self, candidates: Candidates, shapes: ValueShapes, lifetimes: Lifetimes):
        self.candidates = candidates
        self.shapes = shapes
        self.lifetimes = lifetimes
        self.dead = 0
        self.retainers: dict[Binding, list[Closure]] = {}

    def add(self, closure: Closure, left_over: int, reach: CanRun) -> None:
        bindings = self.candidates.bindings
        while left_over:
            low = left_over & -left_over
            left_over ^= low
            binding = bindings[low.bit_length() - 1]
            if binding not in self.retainers:
                if self.shapes.clearing_write(binding) is not None or self.lifetimes.returned(binding):
                    self.dead |= low
                    continue
                self.retainers[binding] = []
            if not reach.may_hold(binding, closure):
                self.retainers[binding].append(closure)
        for binding in [b for b, closures in self.retainers.items() if not closures]:
            del self.retainers[binding]


def used_by_durable_code(model: FileModel, candidates: Candidates, lifetimes: Lifetimes, reach: CanRun,
                         nested: dict[Closure, int], wanted: int) -> int:
    """Which of the ``wanted`` candidates durable code refers to (alive for a reason): what each durable closure
    can run uses, of the bindings of the functions around it (a function's own code is not code that outlives
    its call).  What a closure and those nested in it refer to is asked first; what it can get hold of (the
    "can run" graph) only for candidates still open."""
    own: dict[Closure, int] = {}
    for binding, index in candidates.index.items():
        if wanted >> index & 1:
            own[binding.closure] = bits.union(own.get(binding.closure, 0), bits.one(index))
    #: the wanted candidates of a function and of those around it, packed: one set per function, which its
    #: closures share.
    inside: dict[Closure, int] = {}
    used = 0
    for closure in model.closures:  # parents before children
        parent = closure.parent
        if parent is None:
            continue
        packed = inside.get(parent)
        if packed is None:
            grand = parent.parent
            packed = inside[parent] = bits.union(inside.get(grand, 0) if grand is not None else 0, own.get(parent, 0))
        mask = bits.mask(packed)
        if mask & ~used and lifetimes.durable(closure):
            used |= bits.mask(nested.get(closure, 0)) & mask
            if mask & ~used:
                used |= reach.uses(closure) & mask
    return used


def kept_alive(candidates: Candidates, nested: dict[Closure, int], closure: Closure, outer: Closure | None,
               capturers: list[Closure]) -> int:
    """The candidates that ``closure`` alone keeps alive and does not use (itself or through the closures nested
    in it): not those of the contexts of ``outer``, the durable function around it, which is judged for them
    (it is made when ``outer`` runs); and, when it lives only in contexts that the durable closures
    ``capturers`` keep, not those they all hold anyway."""
    left_over = candidates.held(closure) & ~bits.mask(nested.get(closure, 0))
    if outer is not None:
        left_over &= ~candidates.held(outer)
    if left_over and capturers:
        kept_anyway = -1
        for capturer in capturers:
            kept_anyway &= candidates.held(capturer)
        left_over &= ~kept_anyway
    return left_over


def nearest_durable_ancestor(closure: Closure, lifetimes: Lifetimes,
                             memo: dict[Closure, Closure | None]) -> Closure | None:
    """The innermost function around ``closure`` (below the module) that outlives its own activation durably;
    memoized for every closure on the way, so that deep nesting costs linear time."""
    chain: list[Closure] = []
    walk = closure
    while walk not in memo:
        parent = walk.parent
        if parent is None or parent.is_module:
            memo[walk] = None
        elif lifetimes.durable(parent):
            memo[walk] = parent
        else:
            chain.append(walk)
            walk = parent
    for inner in chain:
        memo[inner] = memo[walk]
    return memo[closure]


def nested_uses(model: FileModel, candidates: Candidates) -> dict[Closure, int]:
    """The candidates each closure refers to, itself or through the closures nested in it (a direct ``eval``
    refers to everything), packed (``bits``): each closure's own references, added up from the innermost out."""
    uses: dict[Closure, int] = {}
    everything = (1 << len(candidates.bindings)) - 1
    for binding, index in candidates.index.items():
        for ref in binding.references:
            uses[ref.closure] = bits.union(uses.get(ref.closure, 0), bits.one(index))
    for closure in model.closures:
        if closure.dynamic_scope_sites:
            uses[closure] = everything
    for closure in reversed(model.closures):
        parent = closure.parent
        if parent is not None and closure in uses:
            uses[parent] = bits.union(uses.get(parent, 0), uses[closure])
    return uses
