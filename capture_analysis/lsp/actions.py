"""Code actions: edits computed from an analysis, offered where the request's range touches them.

Each analysis's fixes (``fixes.declare_const``, ``suppress``, ``fixes.own_block``) are made on the first
request for them, from a copy of the analyzed tree (``incremental.Fixes``), and kept with the analysis as byte
offsets; later requests only filter them and convert the offsets to the negotiated encoding.
``boxcheck --fix`` applies the same ``fixes`` to the files of a run.

The fixes of most findings depend on intent (keep state in an object, move
a closure out of a loop, reorder declarations): no edit expresses them
safely, so the quick fix offered for every finding but BX001 and BX003 is a
suppression comment (``suppress``).  Besides it: a ``let`` that is never
reassigned can be declared ``const`` (a rewrite, ``declare_const``); BX003
(unused suppression) is fixed by deleting the comment (``suppress``); BX107
(context retention) by moving the binding and its users into a block of
their own, where that is exact (``own_block``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..fixes import ActionKind, Fix


def wanted(kind: ActionKind, only: list[str] | None) -> bool:
    """``context.only`` is hierarchical: ``refactor`` asks for ``refactor.rewrite`` too."""
    return only is None or any(kind.value == k or kind.value.startswith(k + ".") for k in only)


def touching(fixes: list[Fix], start: int, end: int, only: list[str] | None) -> list[Fix]:
    return [fix for fix in fixes if fix.start <= end and start <= fix.end and wanted(fix.kind, only)]


def code_action(fix: Fix, uri: str, to_range: Callable[[int, int], dict[str, dict[str, int]]],
                diagnostic: dict[str, Any] | None = None) -> dict[str, Any]:
    """An LSP ``CodeAction``; ``to_range(start, end)`` converts byte offsets, ``diagnostic`` is the LSP form."""
    action: dict[str, Any] = {
        "title": fix.title,
        "kind": fix.kind.value,
        "edit": {"changes": {uri: [{"range": to_range(r.start, r.end), "newText": r.text} for r in fix.edits]}},
    }
    if diagnostic is not None:
        action["diagnostics"] = [diagnostic]
    if fix.preferred:
        action["isPreferred"] = True
    return action
