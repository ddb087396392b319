"""The calls of known callees in ``boxcheck graph`` (DESIGN 2.2.1): where a closure goes that stays in the call.

A closure handed to a function that does not keep it has no escape edge, so
without these edges the picture could not tell it from one that is only
called, and the reader could not see why ``total`` is ``stack`` although
its closure is passed as an argument.  The escape graph knows each such
call (``EscapeGraph.calls_reached``); this module picks, for one drawn
closure, those that the picture shows as its own edges:

* only calls whose parameter does not escape: a parameter that does is part
  of the closure's escape, which its edge to "outlives the call" already says;
* only what the closure is itself handed as: through the bindings that hold
  it, but not through another closure that captures one of them (that
  closure is what the call receives, with an edge of its own);
* a callee that hands the closure on to another callee is drawn as a chain,
  from the first callee's parameter to the second (``Call.via``), rather
  than as two edges from the closure with labels of two functions.

The parameter is drawn in the callee's frame even when it is ``local``.  A
callee that is not drawn (``--function``) still gets its edge, to the
parameter in a dashed frame ``callee each @1`` where the callee's frame
would be, as an enclosing function's captured bindings are: an edge to
nowhere would not say which function keeps nothing, and a node of another
file's kind would say the callee is elsewhere.  That parameter shows no
storage, since the callee is not decided then (``commands.graph.drawable``),
and a drawing of one function must not depend on whether the rest was.
A function of another file is one node, labelled with where it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from dataclasses import dataclass

from ..escape import EscapeGraph
from ..model import Binding, Closure


@dataclass(frozen=True, slots=True)
class Call:
    """One call that keeps nothing: from the closure (``via`` None) or on from a callee's parameter ``via``, at
    ``offset``, the edge's note ``why``, and the callee's parameter (or ``path:line:col`` of a function of
    another file)."""

    via: Binding | None
    offset: int
    why: str
    place: Binding | str


class Handed:
    """The nodes at which the walk of what a closure is itself handed as stops: another closure, and a callee's
    parameter (which hands it on as a ``Call`` of its own)."""

    __slots__ = ("parameters",)

    def __init__(self, parameters: Set[Binding]) -> None:
        self.parameters = parameters

    def __contains__(self, node: object) -> bool:
        return isinstance(node, Closure) or node in self.parameters


def calls_of(graph: EscapeGraph, closure: Closure) -> Iterator[Call]:
    """The calls of known callees that ``closure`` reaches and that keep nothing, first met first: a chain's
    first call comes before the calls it leads on to."""
    reached = graph.calls_reached(closure)
    if not reached:
        return
    flow = graph.graph
    parameters = graph.callee_parameters
    own = {closure, *flow.descendants(closure, Handed(parameters))}
    holders = [closure, *graph.reaches(closure)]
    for offset, why, place in reached:
        if isinstance(place, Binding):
            if graph.escape_chain(place):
                continue
            sources = [node for node in flow.predecessors(place) if flow.edges[node, place] == (offset, why)]
        else:
            sources = [node for node in holders if (offset, why, place) in graph.imported_calls.get(node, ())]
        for source in sources:
            if source in own:
                yield Call(None, offset, why, place)
                break
            if isinstance(source, Binding) and source in parameters:
                yield Call(source, offset, why, place)
                break


def callee_label(why: str) -> str:
    """The callee a call's note names: ``passed to `each` as `f` `` -> `` `each` ``."""
    return why.removeprefix("passed to ").partition(" as ")[0]
