"""Which costs a change of the code removes (design 2.7): those are warnings, and their message says the change.

A finding is worth a developer's time when something they can write differently makes the allocation go
away.  Under the selected policy that is:

* an early capture (BX103) that reordering removes: every binding of its allocation site is captured
  before its initialization by a closure that its own initializer does not need, so initializing the
  bindings first makes them by-value copies and the site disappears;
* a loop body's (or a ``for`` head's) binding that a closure keeps per iteration (BX102): declared before
  the loop, it costs one allocation per call instead of one per iteration;
* under ``legacy``, a box (BX101) that holding the state in one ``const`` object, or the closures in one
  ``const`` array, removes: the reference compiler boxes neither (its ``obj2`` and ``arr8`` controls).

A cost the state itself requires (``optimal``'s one context per activation for shared mutable state of
escaping closures, which no compiler can avoid) is info, and ``findings`` reports it once per function.
Findings in test files are info too: a test runs once per test run, and its ``let count = 0`` in a callback
is not a cost anyone pays (``--counts`` still ranks what a measured run made there).
"""

from __future__ import annotations

import re

from ..model import Binding, Closure
from ..policies import Policy
from ..results import Decision
from ..source import SourceFile
from ..words import closure_label

#: a test file by the names Jest, Vitest and Node's runner give them: a ``.test``/``.spec`` suffix or a
#: ``__tests__``/``__mocks__`` folder.  Not a folder named ``test``: fixtures live there too (this project's
#: own), and a compiler engineer checking a rule on them wants its warnings.
TEST_FILE = re.compile(r"(^|[/\\])(__tests__|__mocks__)[/\\]|[._-](test|spec)\.[cm]?[jt]sx?$", re.IGNORECASE)

LEGACY = "legacy"


def is_test_file(path: str) -> bool:
    return TEST_FILE.search(path) is not None


def reorder(source: SourceFile, decision: Decision) -> str | None:
    """How reordering removes ``decision``'s early capture, or ``None`` when no order of the code can:

    the capturing closure is created inside the binding's own initializer (``const Self = z.lazy(() =>
    Self)``, a recursive definition), or the initializer reads the capturing closure's binding
    (``const s = make(get)``, where ``get`` reads ``s``), so the binding cannot be initialized first.
    """
    capturer = decision.early_capture
    if capturer is None:
        return None
    binding = decision.binding
    if needs_capturer(binding, capturer):
        return None
    return (f"initialize `{binding.name}` before {closure_label(source, capturer)} is first created or read "
            "(where the reason says), and it needs no heap storage")


def needs_capturer(binding: Binding, capturer: Closure) -> bool:
    """Does the binding's initialization itself create or read the closure that captures it early?"""
    start, end = binding.start, max(binding.init_offset, binding.end)
    if binding.source is not None:
        end = max(end, binding.source[1])
    if start <= capturer.start < end:
        return True
    holder = capturer.binding
    return holder is not None and any(start <= r.start < end for r in holder.references)


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


def loop_change(decision: Decision) -> str:
    """BX102's change: one allocation per call instead of one per iteration, where the iterations may share it."""
    binding = decision.binding
    if binding.per_iteration_of is not None:
        return (f"if the closures may share one `{binding.name}`, declare it before the loop "
                f"(`let {binding.name}; for ({binding.name} = ...`): one allocation per call instead of one per "
                "iteration")
    return (f"if the iterations may share one `{binding.name}`, declare it before the loop, or create the closure "
            "outside it: one allocation per call instead of one per iteration")


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
