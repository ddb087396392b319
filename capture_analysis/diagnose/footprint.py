"""Where a finding stands in the code, in two ways that survive edits elsewhere in the file.

A diagnostic's line moves whenever a line above it is added or removed, so
neither a baseline (``batch/baseline``) nor a changed-lines filter
(``--since``, ``batch/changed_lines``) can go by its position alone:

* ``enclosing``: the chain of functions around the finding, outermost
  first, by name, so that a baseline entry still matches after the code
  moved.  A function has the name the model gives it (its declared name,
  or the binding or property it is assigned to); a class member is
  prefixed with its class's name; one with no name is its kind::

      function make() {            // `n` below: "make > <arrow>"
        return [1].map(() => { let n = 0; return () => n++; });
      }
      class Tally { add() {} }     // a binding of `add`: "Tally.add"

  A binding's finding is placed in the function that declares the binding;
  any other (a syntax error, a direct ``eval``, an unused suppression) in
  the innermost function around its start.  Top-level code is
  ``<module>``.
* ``touched``: every offset the finding's evidence stands on: its own span,
  the binding's declaration, each write of it, each reference to it from a
  closure (a capture), the steps of the decision's or the retention's
  evidence (the escape path, the context that holds it), the closures that
  keep it alive.  A finding touches a changed line when any of these is on
  one: a new ``x++`` inside a closure turns the ``let x`` of an unchanged
  line into a finding, and ``--since`` must report it.
"""

from __future__ import annotations

from ..model import Binding, BindingKind, Closure, ClosureKind, FileModel, ScopeKind
from .findings import Diagnostic

#: the separator between the functions of a chain, outermost first.
SEPARATOR = " > "
MODULE = "<module>"


def binding_of(diagnostic: Diagnostic) -> Binding | None:
    """The binding the finding is about: a decision's or a retention's; ``None`` for the other findings."""
    if diagnostic.decision is not None:
        return diagnostic.decision.binding
    return diagnostic.retention.binding if diagnostic.retention is not None else None


def enclosing(model: FileModel, diagnostic: Diagnostic) -> str:
    binding = binding_of(diagnostic)
    closure = binding.closure if binding is not None else innermost(model.module, diagnostic.start)
    chain: list[str] = []
    node: Closure | None = closure
    while node is not None and not node.is_module:
        chain.append(function_name(node))
        node = node.parent
    return SEPARATOR.join(reversed(chain)) if chain else MODULE


def innermost(module: Closure, offset: int) -> Closure:
    """The deepest closure whose span holds ``offset``, found from the top down (a file may have thousands)."""
    node = module
    while True:
        inner = next((child for child in node.children if child.start <= offset < child.end), None)
        if inner is None:
            return node
        node = inner


def function_name(closure: Closure) -> str:
    name = closure.name or f"<{closure.kind.value}>"
    owner = class_name(closure)
    return f"{owner}.{name}" if owner is not None else name


def class_name(closure: Closure) -> str | None:
    """The name of the class whose member ``closure`` is (a method, an accessor, a field initializer...)."""
    if closure.kind is ClosureKind.FUNCTION_DECLARATION or closure.scope is None:
        return None
    scope = closure.scope.parent
    if scope is not None and scope.kind is ScopeKind.FUNCTION_NAME:
        scope = scope.parent
    if scope is None or scope.kind is not ScopeKind.CLASS:
        return None
    return next((b.name for b in scope.declarations.values() if b.kind is BindingKind.CLASS_NAME), None)


def touched(diagnostic: Diagnostic) -> list[int]:
    """The offsets the finding stands on (unsorted, with repeats): see the module's docstring."""
    offsets = [diagnostic.start, max(diagnostic.start, diagnostic.end - 1)]
    offsets.extend(start for start, _, _ in diagnostic.related)
    offsets.extend(step.offset for step in diagnostic.evidence)
    binding = binding_of(diagnostic)
    if binding is not None:
        offsets.append(binding.start)
        declared_in = binding.closure
        offsets.extend(ref.start for ref in binding.references if ref.is_write or ref.closure is not declared_in)
    if diagnostic.retention is not None:
        offsets.extend(closure.name_start for closure in diagnostic.retention.retained_by)
    return offsets
