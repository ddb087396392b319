"""Where an argument lands when the callee is known: the parameter of a function of the same file (DESIGN 2.2.1).

"Passed as an argument" is an escape only because the callee is unknown.
When the callee is a name that can only hold one function of this file (a
declaration, or a ``const``/``let``/``var`` initialized with a function or
arrow and never assigned again), the argument is copied into that
function's parameter, and the escape graph follows the parameter instead:
``each(xs, f)`` escapes only if ``each`` stores, returns or hands on its
``f`` to something that does.  One graph holds every function of the file,
so recursion and helpers that hand a callback to another helper need no
fixpoint of their own: reachability is one.

The callee stays unknown (the argument escapes, as before) when a call's
activation may outlive the caller (an ``async`` function resumes after an
``await``, a generator runs when its object is iterated), when the callee
reads its ``arguments`` object (which hands out any argument) or holds a
direct ``eval`` or ``with`` (whose names nobody can read statically), when
an ``eval`` or a ``with`` stands between the call and the callee's binding, and
for a parameter that is a pattern or a rest element.  An argument past the
last parameter, of a callee that never reads ``arguments``, lands nowhere,
unless that parameter is a pattern or a rest element (a rest gathers it);
an async function so dropped still counts as called, cautiously, as it does
when a call of another file's function drops it (``linking``).

A call of an imported name is an argument ``slot`` of another file's
function: what becomes of it is that file's to say (``linking``), once the
run has resolved it, and until then it escapes.  A member of a namespace
import (``ns.f(...)``) is the imported function ``f``: a module namespace
object's properties are the module's exports, which nothing can reassign but
the module itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

from .model import Binding, BindingKind, Closure, ClosureKind, FileModel, Reference, Use

#: an argument of a call of an imported function: the import's specifier, the imported name, the argument's index.
Slot: TypeAlias = "tuple[str, str, int]"
#: what a resolved slot that does not escape does: ``RUN`` or ``DROPPED``, the edge's note, and where the callee is.
Landing: TypeAlias = "tuple[str, str, str]"

#: the imported name of ``import * as ns`` and ``export * as ns``: the module's namespace object.
NAMESPACE: Final = "*"
#: what ``Parameters.landing`` says of an argument that no parameter receives and nothing can read.
DROPPED: Final = "dropped"
#: of one that the callee runs during the call and drops (an async one may still run on after it).
RUN: Final = "run"
#: the bindings whose value is the function they are initialized with, if nothing assigns them again.
HOLDERS = frozenset({BindingKind.FUNCTION, BindingKind.FUNCTION_NAME, BindingKind.CONST, BindingKind.LET,
                     BindingKind.VAR})
#: globals whose first argument the language runs during the call and drops: ``new Promise(executor)`` calls the
#: executor at once and keeps only the promise (``Promise(f)`` without ``new`` throws before it reads ``f``).
RUN_AND_DROP_GLOBALS = frozenset({"Promise"})
#: the closures a name can call with arguments that land in their parameters.
CALLABLE = frozenset({ClosureKind.FUNCTION_DECLARATION, ClosureKind.FUNCTION_EXPRESSION, ClosureKind.ARROW})


class Parameters:
    """The known callees of one file, asked per argument while the escape graph is built."""

    def __init__(self, model: FileModel, origin: Callable[[Binding], tuple[str, str] | None] | None = None,
                 imported: Mapping[Slot, Landing] | None = None) -> None:
        """``origin``: an import binding's specifier and imported name (``linking.links``); ``imported``: the
        slots the run resolved to parameters that do not escape (``linking.project``)."""
        self.origin = origin
        self.imported = imported or {}
        self.member_calls = model.member_calls
        #: functions whose arguments anything may read: ``arguments``, or ``eval``/``with`` in them or below.
        self.opaque: set[Closure] = set()
        for ref in model.references:
            if ref.binding is None and ref.name == "arguments":
                owner: Closure | None = ref.closure
                while owner is not None and owner.kind is ClosureKind.ARROW:
                    owner = owner.parent
                if owner is not None:
                    self.opaque.add(owner)
        for closure in model.closures:
            if not closure.dynamic_scope_sites:
                continue
            around: Closure | None = closure
            while around is not None and around not in self.opaque:
                self.opaque.add(around)
                around = around.parent
        self._callees: dict[Binding, Closure | None] = {}

    def callee(self, binding: Binding) -> Closure | None:
        """The one function ``binding`` can hold when it is called, if it is a function whose parameters the
        call's arguments land in."""
        if binding in self._callees:
            return self._callees[binding]
        closure = binding.init_closure
        if closure is not None and not (binding.kind in HOLDERS and closure.kind in CALLABLE
                                        and closure.scope is not None and not closure.has_syntax_error
                                        and single_value(binding)):
            closure = None
        self._callees[binding] = closure
        return closure

    def landing(self, call: Reference, index: int) -> tuple[Binding | str, str] | None:
        """Where the ``index``-th argument of a call of the name ``call`` goes and the edge's note: the callee's
        parameter, ``DROPPED``, or ``None`` when the callee is unknown or may keep what it is given past the call
        (the argument escapes)."""
        binding = call.binding
        if call.start in self.member_calls:
            return None  # ``ns.f(...)``: ``f`` is called, not ``ns`` (``slot``)
        if binding is None:
            if call.name in RUN_AND_DROP_GLOBALS and index == 0 and static(call.closure, None):
                return RUN, f"passed to `{call.name}`, which runs it during the call and drops it"
            return None
        callee = self.callee(binding) if static(call.closure, binding.closure) else None
        if callee is None or self.unfollowed(callee) is not None:
            return None
        label = f"`{binding.name}`"
        names = callee.parameter_names
        if index >= len(names):
            # a last ``None`` may be a rest parameter, which gathers every argument from its place on
            if names and names[-1] is None:
                return None
            return DROPPED, f"passed to {label}, which has no parameter for it"
        name = names[index]
        parameter = parameter_binding(callee, name)
        if parameter is None:
            return None
        return parameter, f"passed to {label} as `{name}`"

    def slot(self, call: Reference, index: int) -> Slot | None:
        """The imported function's argument that the ``index``-th argument of a call of ``call`` is, if ``call``
        names a function imported by name, or is the namespace of a namespace import whose member is called
        (``ns.f(...)``), with no ``eval``/``with`` in between."""
        binding = call.binding
        if binding is None or binding.kind is not BindingKind.IMPORT or self.origin is None:
            return None
        origin = self.origin(binding)
        if origin is None or not static(call.closure, binding.closure):
            return None
        member = self.member_calls.get(call.start)
        if (member is None) != (origin[1] != NAMESPACE):
            return None  # a namespace called itself, or a named import's method called
        return origin[0], origin[1] if member is None else member, index

    def imported_note(self, use: Use, slot: Slot) -> str:
        """An argument of an imported function that the run does not follow, or that keeps it: the callee, as the
        call names it, and where it comes from (``boxcheck summaries`` on that file says what it does with it)."""
        call = use.target
        if not isinstance(call, Reference):
            return use.why
        member = self.member_calls.get(call.start)
        callee = call.name if member is None else f"{call.name}.{member}"
        return f'passed to `{callee}`, imported from "{slot[0]}"'

    def unfollowed(self, callee: Closure) -> str | None:
        """Why a call of ``callee`` takes every argument to escape, whatever the callee's code does with it."""
        if callee.is_async:
            return "an async function, whose call may resume after the caller returned"
        if callee.is_generator:
            return "a generator, whose calls live on in the generator objects they return"
        if callee in self.opaque:
            return "it reads its `arguments` object, or holds a direct `eval` or a `with`"
        return None


def static(at: Closure | None, owner: Closure | None) -> bool:
    """No direct ``eval`` or ``with`` from ``at`` up to ``owner`` (``None``: the module): a ``with`` object's property
    or a ``var`` that a sloppy ``eval`` declares could stand for a name at run time."""
    while at is not None:
        if at.dynamic_scope_sites:
            return False
        if at is owner:
            return True
        at = at.parent
    return True


def parameter_binding(callee: Closure, name: str | None) -> Binding | None:
    """The parameter an argument lands in: ``None`` for a pattern or a rest element (``name`` is ``None``).  With
    parameter expressions, a body ``var`` of the same name is another binding (``Scope.shadowed``)."""
    scope = callee.scope
    if name is None or scope is None:
        return None
    shadowed = scope.shadowed
    parameter = (shadowed.get(name) if shadowed is not None else None) or scope.declarations.get(name)
    return parameter if parameter is not None and parameter.kind is BindingKind.PARAM else None


def passed_to_known_callee(note: str) -> bool:
    """Is this an escape edge's note of ``landing`` (``passed to `each` as `f` ``)?"""
    return note.startswith("passed to `")


def single_value(binding: Binding) -> bool:
    """Nothing but its declaration gives ``binding`` a value: a function declaration is never written, a variable
    at most once, by its initializer (a ``const`` or ``let`` initializer is no write of the binder's)."""
    writes = [ref for ref in binding.references if ref.is_write]
    if binding.kind is BindingKind.FUNCTION or binding.kind is BindingKind.FUNCTION_NAME:
        return not writes
    return len(writes) <= 1 and all(ref.is_declaration_write for ref in writes)
