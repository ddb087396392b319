"""A retention in words: what is kept, by which durable closure and how it outlives the call, and the fix.

The message names the binding and what it holds (its initializer), the
first retaining closure and the durable escape that keeps it (``returned at
7:3``, ``registered with `el.addEventListener` at 9:5``), the context, and
the closures that put the binding there, which run only during the call.
The evidence chain, for ``--explain``, has one step per link.
"""

from __future__ import annotations

from dataclasses import replace

from ..escape import FlowNode, describe
from ..model import Binding, BindingKind, Closure
from ..parsing import ParsedFile
from ..results import Retention, Step, StepRole
from ..source import SourceFile
from ..v8_scopes import ContextScope, Part
from ..words import closure_label
from .kept import Held, held
from .lifetimes import Lifetimes

#: how many retaining or referencing closures a message names before it counts the rest.
SHOWN = 3


def retention(binding: Binding, retained_by: list[Closure], place: ContextScope, file: ParsedFile,
              lifetimes: Lifetimes) -> Retention:
    """The closures made once the binding holds its first value come first, and the first is the one the message
    names: one made before may be handed out on a path that returns before the binding holds anything (an early
    ``return { next() {...} }``), where it keeps only an empty slot."""
    source = file.source
    retained_by = sorted(retained_by, key=lambda closure: closure.creation_offset < binding.init_offset)
    referenced_by = binding.closure.capturers_among([ref.closure for ref in binding.references
                                                     if ref.closure is not binding.closure])
    where = context_words(place, binding.closure, source)
    record = Retention(binding, retained_by, referenced_by, where, place.offset)
    what = held(binding, file)
    record.warning = warns(what, retained_by, lifetimes)
    first = retained_by[0]
    record.evidence = evidence(record, source, lifetimes)
    holds = f" ({what.words})" if what.words and binding.kind is not BindingKind.CATCH else ""
    record.message = (f"`{binding.name}`{holds} is kept alive by {escaping_words(first, source, lifetimes)}"
                      f"{others(len(retained_by) - 1)} through {where}, though "
                      f"{referencing_words(referenced_by, source)}; {fix_words(binding, what)}")
    return record


def warns(what: Held, retained_by: list[Closure], lifetimes: Lifetimes) -> bool:
    """Made here and large or kept for the program's life; or the Meteor shape (``kept``)."""
    if what.copies is not None and any(lifetimes.stores_into(closure, what.copies) for closure in retained_by):
        return True
    return what.made_here and (what.large or any(lifetimes.long_lived(closure) for closure in retained_by))


def context_words(place: ContextScope, function: Closure, source: SourceFile) -> str:
    owner = closure_label(source, function)
    if place.part is Part.FUNCTION:
        return f"the function context of {owner}"
    return f"{replace(place, branch=None).describe(source)}, in {owner}"


def escaping_words(closure: Closure, source: SourceFile, lifetimes: Lifetimes) -> str:
    """``the arrow at 7:10 (returned at 7:3)``, ``the method `next` (kept in `api`, returned at 9:3)``."""
    label = closure_label(source, closure)
    chain = lifetimes.chain(closure)
    if not chain:
        return label
    last = chain[-1]
    hops = [f"{fate.why} at {source.position(fate.offset)}" if fate.why.startswith("passed to") else fate.why
            for fate in chain[:-1] if fate.why.startswith(("stored in", "assigned to", "added with", "passed to"))
            and not (isinstance(fate.next, Binding) and fate.next.init_closure is closure)]  # not its own name
    through = f"{', '.join(hops)}, then " if hops else ""
    return f"{label} ({through}{last.why} at {source.position(last.offset)})"


def others(count: int) -> str:
    if not count:
        return ""
    return f" and {count} other durable closure{'' if count == 1 else 's'}"


def referencing_words(closures: list[Closure], source: SourceFile) -> str:
    if not closures:
        return "nothing refers to it (V8 gives every named catch parameter a slot)"
    names = []
    for closure in closures[:SHOWN]:
        position = "" if closure.name is None else f" ({source.position(closure.name_start)})"
        names.append(closure_label(source, closure) + position)
    more = len(closures) - SHOWN
    listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return f"only {listed}, which {'runs' if len(closures) == 1 else 'run'} during the call, " \
           f"refer{'s' if len(closures) == 1 else ''} to it"


def fix_words(binding: Binding, what: Held) -> str:
    if binding.kind is BindingKind.CATCH:
        return "fix: leave the catch parameter out (`catch {`) or create the closure outside the `catch`"
    if binding.kind is BindingKind.PARAM:
        return f"fix: copy what is needed out of `{binding.name}` into a block of its own, with its users"
    return f"fix: move `{binding.name}` and the code that uses it into a block of their own, or set " \
           f"`{binding.name}` to `null` when done"


def evidence(record: Retention, source: SourceFile, lifetimes: Lifetimes) -> list[Step]:
    name = record.binding.name
    steps = [Step(closure.name_start, f"{closure_label(source, closure)} refers to `{name}`, so V8 gives it a slot "
                                      f"in {record.context}; it runs only during the call",
                  role=StepRole.CONTEXT_SLOT)
             for closure in record.referenced_by[:SHOWN]]
    if not record.referenced_by:
        steps.append(Step(record.binding.start, f"a named catch parameter: V8 gives it a slot in {record.context} "
                                                "whether or not anything refers to it", role=StepRole.CONTEXT_SLOT))
    first = record.retained_by[0]
    label = closure_label(source, first)
    steps.append(Step(first.name_start, f"{label} is created inside that scope, so it holds the context "
                                        "for as long as it lives", role=StepRole.HOLDS_CONTEXT))
    node: FlowNode | None = first
    for fate in lifetimes.chain(first):
        subject = describe(node) if node is not None else ""
        steps.append(Step(fate.offset, f"{subject}: {fate.why}", subject, role=StepRole.ESCAPE))
        node = fate.next
    steps.append(Step(first.name_start, f"no durable code refers to `{name}`: not {label}, no closure nested in "
                                        "it or that it can get hold of, no other closure that outlives the call",
                      role=StepRole.UNUSED))
    return steps
