"""Where the ``optimal`` policy takes a capturing closure to be created (docs/design.md, section 2.1.1).

An arrow, a function expression, a method is created where it stands.  A
function declaration is hoisted: the language makes it when its scope is
entered, but nothing can tell that from a later creation until its binding
is first read, so a compiler may create it there, as Roslyn and Swift do
with local functions::

    function parse(input) {
      const { ctx } = setUp(input);          // ctx is initialized here ...
      function handle(r) { return ctx.add(r); }
      return run().then(handle);             // ... before `handle` is first read: ctx can be copied
    }

The first possible read of a declaration F in its activation A is the
earliest of:

* a reference to F in A's own code (a call, a read, passing or storing it,
  naming it in an object literal);
* the creation of a closure of A that refers to F, however deeply nested in
  it: the closure may run, and read F, from then on; for another declaration
  G that refers to F, G's own first possible read (a fixpoint, so that
  declarations calling each other are created together);
* F's own statement, for a declaration in a block (sloppy code copies it
  into a function-level ``var`` there, Annex B) or exported from a namespace
  (the compiled code assigns it to the namespace object there).

F stays at its scope's entry where it may be read before any code runs: at
a module's top level (an ES module's exports are bound before its code
runs), where a direct ``eval`` or ``with`` can reach it, and when nothing
refers to it at all.  The ``legacy`` and ``v8`` policies keep every
declaration at its scope's entry, as the measured compiler and V8 do.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Closure, ClosureKind, Reference, ScopeKind


@dataclass(frozen=True, slots=True)
class Created:
    """Where a closure is taken to be created, and why there."""

    offset: int
    #: the reference that first reads a function declaration, if it was moved from its scope's entry.
    first_read: Reference | None = None
    #: the closure that reference is in, when it is not the activation's own code.
    through: Closure | None = None
    #: the declaration's own statement is its first read (a block's function, a namespace export).
    at_statement: bool = False

    @property
    def moved(self) -> bool:
        return self.first_read is not None or self.at_statement


class CreationPoints:
    """The creation point of every closure a decision asks about, computed per activation on first demand."""

    def __init__(self) -> None:
        self.points: dict[Closure, Created] = {}

    def of(self, closure: Closure) -> Created:
        found = self.points.get(closure)
        if found is not None:
            return found
        if closure.kind is not ClosureKind.FUNCTION_DECLARATION or closure.parent is None:
            return Created(closure.creation_offset)
        self.points.update(declarations_of(closure.parent))
        return self.points[closure]


def declarations_of(activation: Closure) -> dict[Closure, Created]:
    """The creation point of each function declaration of ``activation``.

    Each starts at its first read in the activation's own code or by an expression closure; then a
    declaration read by another declaration G can be read from G's creation on, until nothing moves."""
    declarations = [c for c in activation.children if c.kind is ClosureKind.FUNCTION_DECLARATION]
    points: dict[Closure, Created] = {}
    read_by: dict[Closure, list[tuple[Closure, Reference]]] = {}
    for declaration in declarations:
        if stays_at_entry(activation, declaration):
            points[declaration] = Created(declaration.creation_offset)
            continue
        best: Created | None = None
        binding = declaration.binding
        assert binding is not None
        if binding.scope is not activation.scope or (activation.kind is ClosureKind.NAMESPACE and binding.exported):
            best = Created(declaration.start, at_statement=True)
        for ref in binding.references:
            if ref.closure is activation:
                candidate = Created(ref.start, ref)
            else:
                reader = activation.child_containing(ref.closure)
                if reader is None or reader is declaration:
                    continue
                if reader.kind is ClosureKind.FUNCTION_DECLARATION:
                    read_by.setdefault(reader, []).append((declaration, ref))
                    continue
                candidate = Created(reader.creation_offset, ref, reader)
            if best is None or candidate.offset < best.offset:
                best = candidate
        if best is not None:
            points[declaration] = best
    changed = True
    while changed:
        changed = False
        for reader, reads in read_by.items():
            created = points.get(reader)
            if created is None:
                continue
            for declaration, ref in reads:
                current = points.get(declaration)
                if current is None or created.offset < current.offset:
                    points[declaration] = Created(created.offset, ref, reader)
                    changed = True
    for declaration in declarations:
        if declaration not in points:
            points[declaration] = Created(declaration.creation_offset)  # never read: as the language makes it
    return points


def stays_at_entry(activation: Closure, declaration: Closure) -> bool:
    """Where the declaration may be read before any of the activation's code runs, or nothing is known."""
    binding = declaration.binding
    if binding is None or activation.is_module or activation.has_syntax_error:
        return True
    if activation.scope is None or (activation.scope.kind is not ScopeKind.FUNCTION
                                    and activation.kind is not ClosureKind.NAMESPACE):
        return True
    return binding.scope.has_direct_eval or bool(activation.dynamic_scope_sites)
