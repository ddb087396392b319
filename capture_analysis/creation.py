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

from dataclasses import dataclass, field

from .model import Closure, ClosureKind, Reference, ScopeKind


@dataclass(frozen=True, slots=True)
class Created:
    """Where a closure is taken to be created, and why there.

    A function declaration is created at whichever of its possible reads runs first, which the text
    cannot tell (an ``if`` arm read first in the text may not run, a pattern's source runs before its
    defaults): each of ``points`` may be the one, and a decision must hold for all of them."""

    #: the possible creation points, sorted; one for a closure that is not a moved declaration.
    points: tuple[int, ...]
    #: for a moved declaration, what reads it at each point: the reference, and the closure it is in when it
    #: is not the activation's own code (both ``None`` for its own statement).
    origins: dict[int, tuple[Reference | None, Closure | None]] = field(default_factory=dict)

    @property
    def offset(self) -> int:
        """The earliest point in the text: what the words name when no other point matters."""
        return self.points[0]

    @property
    def moved(self) -> bool:
        return bool(self.origins)


class CreationPoints:
    """The creation points of every closure a decision asks about, computed per activation on first demand."""

    def __init__(self) -> None:
        self.points: dict[Closure, Created] = {}

    def of(self, closure: Closure) -> Created:
        found = self.points.get(closure)
        if found is not None:
            return found
        if closure.kind is not ClosureKind.FUNCTION_DECLARATION or closure.parent is None:
            return Created((closure.creation_offset,))
        self.points.update(declarations_of(closure.parent))
        return self.points[closure]


@dataclass(slots=True)
class Reads:
    """What is known so far of where a declaration may be read: each point, with what reads it there."""

    origins: dict[int, tuple[Reference | None, Closure | None]] = field(default_factory=dict)
    #: the points in the order they were found: a reader passes on only those found since it last did.
    found: list[int] = field(default_factory=list)

    def add(self, offset: int, ref: Reference | None, through: Closure | None) -> bool:
        if offset in self.origins:
            return False
        self.origins[offset] = (ref, through)
        self.found.append(offset)
        return True


def declarations_of(activation: Closure) -> dict[Closure, Created]:
    """The creation points of each function declaration of ``activation``.

    Each may be read wherever its activation's own code reads it and wherever an expression closure that
    refers to it is created; a declaration read by another declaration G may also be read wherever G may
    be: the points flow along those reads until nothing is added."""
    declarations = [c for c in activation.children if c.kind is ClosureKind.FUNCTION_DECLARATION]
    reads: dict[Closure, Reads] = {}
    read_by: dict[Closure, list[tuple[Closure, Reference]]] = {}
    fixed: set[Closure] = set()
    for declaration in declarations:
        if stays_at_entry(activation, declaration):
            fixed.add(declaration)
            continue
        found = reads[declaration] = Reads()
        binding = declaration.binding
        assert binding is not None
        if binding.scope is not activation.scope or (activation.kind is ClosureKind.NAMESPACE and binding.exported):
            found.add(declaration.start, None, None)
        for ref in binding.references:
            if ref.closure is activation:
                found.add(ref.start, ref, None)
                continue
            reader = activation.child_containing(ref.closure)
            if reader is None or reader is declaration:
                continue
            if reader.kind is ClosureKind.FUNCTION_DECLARATION:
                read_by.setdefault(reader, []).append((declaration, ref))
            else:
                found.add(reader.creation_offset, ref, reader)
    # Each read passes on only the points its reader gained since the read last did: those it passed before are
    # in the target already, and every point a read passes has that read for its origin, so the points, the
    # rounds and each point's origin are those of passing every point each round, without its cost (the square
    # of the points in a file of thousands of declarations that call each other, as TypeScript's compiler is).
    passed = {reader: [0] * len(targets) for reader, targets in read_by.items()}
    changed = True
    while changed:
        changed = False
        for reader, targets in read_by.items():
            if reader in fixed:
                for declaration, ref in targets:
                    if declaration in reads:
                        changed |= reads[declaration].add(reader.creation_offset, ref, reader)
                continue
            source = reads.get(reader)
            if source is None:
                continue
            done = passed[reader]
            for index, (declaration, ref) in enumerate(targets):
                target = reads.get(declaration)
                if target is None or done[index] == len(source.found):
                    continue
                gained = source.found[done[index]:]
                done[index] = len(source.found)
                for offset in gained:
                    changed |= target.add(offset, ref, reader)
    points: dict[Closure, Created] = {}
    for declaration in declarations:
        found_reads = reads.get(declaration)
        if found_reads is None or not found_reads.origins:
            points[declaration] = Created((declaration.creation_offset,))  # never read: as the language makes it
            continue
        points[declaration] = Created(tuple(sorted(found_reads.origins)), found_reads.origins)
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
