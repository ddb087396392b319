"""A function declared in a block of sloppy-mode code also binds a function-level ``var`` (ECMAScript B.3.2.1).

::

    function f() {
      const g = () => h;       // the function-level `h`, still undefined
      { function h() {} }      // evaluating the declaration copies the block's `h` into it
      return g;                // g() returns the function: `h` changed after `g` captured it
    }

So a function that is not strict gets, for each such declaration of ``h``
(unless ``h`` is a parameter, or ``var h`` in the block would clash with a
``let``, ``const``, ``class``, block-level function or destructured catch
parameter of a scope around it):

* a ``var h`` of its own, unless the body already declares one (a ``var``
  or a function declaration), holding ``undefined`` from the body's start;
* a write of that ``var`` where the declaration stands: it runs when the
  block's statements reach it.

Code inside the block still names the block's own ``h``, and
``if (c) function h() {}`` is a declaration in a block of its own.

Strictness is read from the file (``strictness``), which cannot tell a
TypeScript script compiled with ``alwaysStrict``, or a ``.js`` module by its
``package.json``.  There the ``var`` does not exist, and the names outside
the block refer to an outer function's binding or a global.  So each
reference the new ``var`` takes is also passed on, as it is, to the scope
around the function: whichever reading holds, the binding it names sees it.
"""

from __future__ import annotations

from ..model import SAFE_USE, Binding, BindingKind, BlockFunction, Reference, Scope, Use, UseKind

#: what a function's own scope may already hold under the name: ``var h`` joins them.
VAR_LIKE = (BindingKind.VAR, BindingKind.FUNCTION)


def bind_vars(function_scope: Scope, declared: list[BlockFunction], pattern_catches: set[Scope],
              bindings: list[Binding], references: list[Reference]) -> None:
    """Add the ``var`` bindings and their writes, before ``function_scope`` resolves its references."""
    closure = function_scope.closure
    lexical = lexical_scopes(function_scope, bindings, pattern_catches)
    names: set[str] = set()
    for block_function in declared:
        block, own = block_function.block, block_function.binding
        name, start, end = own.name, own.start, own.end
        if name == "arguments" or clashes(block, function_scope, name, lexical.get(name, ())):
            continue
        var = function_scope.declarations.get(name)
        if var is None:
            var = Binding(name, BindingKind.VAR, function_scope, start, end, closure.body_start)
            function_scope.declarations[name] = var
            bindings.append(var)
        # The declaration reads the block's binding and writes the ``var``: the function flows
        # into the ``var`` (and escapes with it), and the ``var`` changes there.
        read = Reference(name, start, end, block, closure, True, False, own, False, Use(UseKind.FLOW, "", var), start)
        write = Reference(name, start, end, block, closure, False, True, var, True, SAFE_USE, block_function.statement)
        own.references.append(read)
        var.references.append(write)
        references += (read, write)
        names.add(name)
    outer = function_scope.parent
    if not names or outer is None:
        return
    parameters = function_scope.parameters
    for ref in function_scope.pending:
        if ref.name in names and not (parameters is not None and parameters[0] <= ref.start < parameters[1]):
            passed = ref.copy()
            outer.pending.append(passed)
            references.append(passed)


def evaluated(write: Reference) -> Binding | None:
    """The block-level function whose declaration makes this write, if one does."""
    declared = write.scope.declarations.get(write.name)
    if declared is not None and declared.kind is BindingKind.FUNCTION and declared.start == write.start \
            and write.binding is not declared:
        return declared
    return None


def lexical_scopes(function_scope: Scope, bindings: list[Binding],
                   pattern_catches: set[Scope]) -> dict[str, list[Scope]]:
    """The scopes of the function, its own scope aside, that declare each name in a way ``var`` clashes with.

    The walk declares a function's bindings (its nested functions' too) while it is inside the function,
    so they are the last ones in ``bindings`` when its scope closes: one pass over them, however deep
    the blocks nest (walking up from each block instead was quadratic in the depth).
    """
    closure = function_scope.closure
    found: dict[str, list[Scope]] = {}
    for binding in reversed(bindings):
        if not function_scope.start <= binding.start < function_scope.end:
            break
        scope = binding.scope
        if scope.closure is closure and scope is not function_scope and (
                binding.kind is not BindingKind.CATCH or scope in pattern_catches):
            found.setdefault(binding.name, []).append(scope)
    return found


def clashes(block: Scope, function_scope: Scope, name: str, lexical: list[Scope] | tuple[()]) -> bool:
    """Would ``var name`` in ``block`` be an early error, or is ``name`` a parameter?

    ``lexical``: the function's scopes that declare ``name`` (``lexical_scopes``); one that encloses the
    block (spans nest, so enclosing is containing) holds a clashing declaration.
    """
    for scope in lexical:
        if scope is not block and scope.start <= block.start and block.end <= scope.end:
            return True
    if function_scope.shadowed is not None and name in function_scope.shadowed:
        return True  # a parameter's name, hidden by a body ``var``: still a parameter name
    existing = function_scope.declarations.get(name)
    return existing is not None and existing.kind not in VAR_LIKE
