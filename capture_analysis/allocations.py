"""Allocation sites: which heap objects one call of each function creates (once, for one that runs once).

Bindings that need shared heap storage are grouped per *scope instance*: the
function's activation, or one iteration of a loop (its per-iteration head
bindings and its body together).  Blocks that run at most once per
activation (``if``, plain blocks, ``try``/``catch``, ``switch``) merge into
the enclosing instance.  One such binding in an instance is a ``box``; two
or more share one ``context``.
"""

from __future__ import annotations

from .model import Closure, ClosureKind, FileModel, Loop, Storage
from .parsing import ParsedFile
from .results import Decision, FunctionReport, PolicySite, Site
from .source import SourceFile
from .words import function_label

#: closure kinds that are not function objects of their own.
NOT_ALLOCATED = frozenset({ClosureKind.FIELD_INITIALIZER, ClosureKind.STATIC_BLOCK, ClosureKind.NAMESPACE,
                           ClosureKind.MODULE})


def once_per_program(reports: list[FunctionReport]) -> list[FunctionReport]:
    """Under every policy: what a function that runs once (``bind/runs_once``) allocates per call, it allocates
    once per program; what it allocates in its loops is still per iteration."""
    for report in reports:
        if report.closure.runs_once:
            for site in report.sites:
                site.once = not site.per_iteration
    return reports


def allocate(model: FileModel, file: ParsedFile, decisions: list[Decision]) -> list[FunctionReport]:
    """Sites grouped by scope instance; every policy's ``allocate`` takes the parse, though this one only needs
    the positions of the source."""
    source = file.source
    reports = {c: FunctionReport(c) for c in model.closures if not c.is_module}
    groups: dict[tuple[Closure, Loop | None], list[Decision]] = {}
    for decision in decisions:
        closure = decision.binding.closure
        report = reports.get(closure)
        if report is None and closure.is_module and decision.storage.allocates:
            report = reports[closure] = FunctionReport(closure)  # a top-level loop's per-iteration bindings
        if report is None:
            continue
        report.decisions.append(decision)
        if decision.storage.allocates:
            groups.setdefault((closure, decision.binding.scope.instance_loop), []).append(decision)
    for (closure, loop), members in sorted(groups.items(), key=lambda kv: (kv[0][0].index, kv[1][0].binding.start)):
        report = reports[closure]
        kind = Storage.CONTEXT if len(members) > 1 else Storage.BOX
        site = Site(site_id(source, closure, len(report.sites)), kind, loop is not None, members, closure, loop,
                    loop.start if loop is not None else closure.start)
        for decision in members:
            decision.storage = kind
            decision.site = site
        report.sites.append(site)
        if loop is not None:
            initial_copy(source, report, loop, members)
    for closure in model.closures:
        parent = closure.parent
        if parent is None or parent.is_module or closure.kind in NOT_ALLOCATED:
            continue
        report = reports[parent]
        if parent.loops_at(closure.creation_offset):
            report.closures_per_iteration += 1
        else:
            report.closures_per_call += 1
    return [reports[c] for c in model.closures if c in reports]


def initial_copy(source: SourceFile, report: FunctionReport, loop: Loop, members: list[Decision]) -> None:
    """The copy of a ``for (let ...)`` head that a closure in the initializer captures (design 2.3).

    The loop makes the head's bindings once for the initializer, then copies them for each iteration; a
    closure created in the initializer holds that first copy.  When the iterations' copies need shared
    storage, so does that one: one more site per call, for the head's bindings the initializer captures::

        for (let i = 0, first = () => i; i < n; i++) keep(() => i++);   // a box per iteration, and one more
    """
    if not loop.copies_head:
        return
    captured = [d for d in members if d.binding.per_iteration_of is loop and any(
        loop.start <= c.creation_offset < loop.end and not loop.repeats(c.creation_offset) for c in d.captured_by)]
    if captured:
        kind = Storage.CONTEXT if len(captured) > 1 else Storage.BOX
        report.sites.append(Site(site_id(source, report.closure, len(report.sites)), kind, False, captured,
                                 report.closure, None, loop.start))


def site_id(source: SourceFile, closure: Closure, index: int) -> str:
    """``makeTally@5:1#0``: the function, where it starts, and the site's rank in it (the JSON ``id``)."""
    start = source.position(closure.start)
    return f"{function_label(closure)}@{start.line}:{start.column}#{index}"


def empty_reports(model: FileModel, file: ParsedFile) -> dict[Closure, FunctionReport]:
    """One report per function with its closure counts and no sites yet: the start of another policy's
    ``allocate``."""
    return {report.closure: report for report in allocate(model, file, [])}


def new_site(source: SourceFile, report: FunctionReport, kind: Storage, loop: Loop | None, offset: int,
             branch: int | None) -> PolicySite:
    site = PolicySite(site_id(source, report.closure, len(report.sites)), kind, loop is not None, [],
                      report.closure, loop, offset, branch=branch)
    report.sites.append(site)
    return site
