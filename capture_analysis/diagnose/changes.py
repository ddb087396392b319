"""Which costs a change of the code removes (design 2.7): those are warnings, and their message says the change.

A finding is worth a developer's time when something they can write differently makes the allocation go
away.  Under the selected policy that is:

* an early capture (BX103) that reordering removes: every binding of its allocation site is captured
  before its initialization by a closure that its own initializer does not need, so initializing the
  bindings first makes them by-value copies and the site disappears;
* a loop-carried ``for (let ...)`` head binding that the loop copies per iteration for a closure (BX102):
  declared before the loop, it costs one allocation per call instead of one per iteration (a binding the
  loop body declares is each iteration's own state: info);
* under ``legacy``, a box (BX101) that holding the state in one ``const`` object, or the closures in one
  ``const`` array, removes: the reference compiler boxes neither (its ``obj2`` and ``arr8`` controls).

A cost the state itself requires (``optimal``'s one context per activation for shared mutable state of
escaping closures, which no compiler can avoid) is info, and ``findings`` reports it once per function.
Findings in test files are info too: a test runs once per test run, and its ``let count = 0`` in a callback
is not a cost anyone pays (``--counts`` still ranks what a measured run made there).
"""

from __future__ import annotations

import re

from ..model import Binding, Closure, Scope
from ..policies import Policy
from ..results import Decision
from ..source import SourceFile
from ..words import closure_label

#: a test file by the names Jest, Vitest and Node's runner give them: a ``.test``/``.spec`` suffix or a
#: ``__tests__``/``__mocks__`` folder.  Not a folder named ``test``: fixtures live there too (this project's
#: own), and a compiler engineer checking a rule on them wants its warnings.
TEST_FILE = re.compile(r"(^|[/\\])(__tests__|__mocks__)[/\\]|[._-](test|spec)(-d)?\.[cm]?[jt]sx?$", re.IGNORECASE)

LEGACY = "legacy"
#: a line that starts a statement: the end of a declaration written without semicolons.
STATEMENT_START = re.compile(rb"\n\s*(?:var|let|const|function|class|if|for|while|do|return|export|import|"
                             rb"switch|try|throw)\b")


def is_test_file(path: str) -> bool:
    return TEST_FILE.search(path) is not None


def reorder(source: SourceFile, decision: Decision) -> str | None:
    """How reordering removes ``decision``'s early capture, or ``None`` when no order of the code can:

    the capturing closure is created inside the binding's own initializer (``const Self = z.lazy(() =>
    Self)``, a recursive definition), or the initializer reads the capturing closure's binding, itself or in
    a closure it creates (``const s = make(get)``, where ``get`` reads ``s``; two arrows that refer to each
    other), so the binding cannot be initialized first.
    """
    capturer = decision.early_capture
    if capturer is None:
        return None
    binding = decision.binding
    if needs_capturer(source, binding, capturer):
        return None
    return (f"initialize `{binding.name}` before {closure_label(source, capturer)} is first created or read "
            "(where the reason says), and it needs no heap storage")


def needs_capturer(source: SourceFile, binding: Binding, capturer: Closure) -> bool:
    """Does the binding's initialization itself create or read the closure that captures it early?"""
    if capturer is binding.init_closure or in_var_initializer(source, binding, capturer):
        return True
    start, end = binding.start, max(binding.init_offset, binding.end)
    if binding.source is not None:
        end = max(end, binding.source[1])
    if start <= capturer.start < end:
        return True
    holder = capturer.binding or holder_of(binding, capturer)
    return holder is not None and any(start <= r.start < end for r in holder.references)


def in_var_initializer(source: SourceFile, binding: Binding, capturer: Closure) -> bool:
    """``var visit = function visit2() { ... visit() }``, ``var v = wrap(function () { v })``: a ``var``'s
    initializer is not a closure of the binding's own (``init_closure``) and it is initialized at the write,
    so the model has no span for it; the closure is in it when nothing between the name and the closure ends
    the statement (a ``;``, or a line that starts another statement)."""
    if not binding.start < capturer.start:
        return False
    between = source.data[binding.end:capturer.start]
    return b";" not in between and STATEMENT_START.search(between) is None


def holder_of(binding: Binding, capturer: Closure) -> Binding | None:
    """The ``const`` or ``let`` whose initializer creates the closure (``const onAbort = () => ...``, ``const
    rules = memoize(() => factory)``), looked for in the scopes around ``binding``: mutual arrows
    (``onAbort`` calls ``cleanup``, ``cleanup`` removes ``onAbort``) capture each other, so neither can be
    initialized first."""
    scope: Scope | None = binding.scope
    while scope is not None:
        for candidate in scope.declarations.values():
            if candidate.init_closure is capturer or candidate.start < capturer.start < candidate.init_offset:
                return candidate
        if scope.closure is not binding.closure:
            return None
        scope = scope.parent
    return None


def site_reorderable(source: SourceFile, decision: Decision) -> str | None:
    """The change that removes the whole allocation of ``decision``'s site by reordering, if there is one:
    every binding of the site must be an early capture that reordering removes."""
    change = reorder(source, decision)
    site = decision.site
    if change is None or site is None:
        return change
    for member in site.decisions:
        if member is not decision and (member.early_capture is None or any(
                not w.is_declaration_write for w in member.writes) or reorder(source, member) is None):
            return None
    return change


def loop_change(decision: Decision) -> str | None:
    """BX102's change, for a loop-carried ``for (let ...)`` head binding, which the loop copies into every
    iteration: one allocation per call instead of one per iteration, where the closures may share it.  A
    binding the loop body declares is each iteration's own state, which its closures keep while they outlive
    the iteration: no change of this code keeps what the program does and removes it (``None``)."""
    binding = decision.binding
    if binding.per_iteration_of is None:
        return None
    return (f"the loop copies `{binding.name}` into each iteration: if the closures may share one, declare it "
            f"before the loop (`let {binding.name}; for ({binding.name} = ...`), one allocation per call instead "
            "of one per iteration")


def legacy_holder(decision: Decision, policy: Policy) -> str | None:
    """Under ``legacy``: the ``const`` holder that removes this box (the reference case's ``obj2``, ``arr8``)."""
    if policy.name != LEGACY or decision.early_capture is not None:
        return None
    name = decision.binding.name
    if any(not w.is_declaration_write for w in decision.writes):
        return (f"hold the mutable state in one `const` object (`const state = {{ {name} }}`, written as "
                f"`state.{name} = ...`), which `legacy` does not box")
    return (f"reach the closures through one `const` array or object (`const fns = [...]`, called as "
            f"`fns[0]()`) instead of `{name}`, which `legacy` then does not box")
