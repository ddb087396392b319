"""Where a measured run is read for each function that allocates: the places whose execution counts make its sites.

A file's record keeps, beside what the formats show, one *probe* per function that allocates under a
reported policy, so that ``--counts`` can weight the record by a coverage file without the analysis (the
cache and ``--jobs`` workers hand back records only).  Positions are 1-based lines and UTF-16 columns, as
in the rest of the record, because that is what both a script's offsets and a source map's segments come
down to:

``[name, line, column, index, head_end, kind, sites, end, lead]``

``line``, ``column``  where the function starts (as its JSON record says).
``index``      the function's place in the record's ``functions`` (``-1`` when the record does not list it).
``head_end``   ``[line, column]`` of the function's name: V8 starts a function where its head does not
               (a ``static`` method at its name, an accessor at ``get``), anywhere from its start to its name.
``kind``       the closure's kind (``model.ClosureKind``): a class field initializer or a static block
               V8 runs inside the class's ``<instance_members_initializer>`` or ``<static_initializer>``,
               so it is counted by the code around it; the module runs once per process.
``sites``      ``{policy: [[multiplicity, [[line, column], ...]], ...]}``: per-call sites made as often as
               the function was called, or as the most-run of those places ran (the blocks that declare
               its bindings, a policy's branch), per-iteration sites as often as their loop body, and once
               sites at most once per process.
``end``        ``[line, column]`` of the function's end: the findings inside it are weighted by it.
``lead``       ``[line, column]`` where its statement starts: a source map may put the compiled function
               at the ``export`` or ``export default`` before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model import Closure, ClosureKind, ScopeKind
from ..results import FunctionReport, PolicySite, Site
from ..source import SourceFile

Probe = list[Any]
#: the kinds V8 runs as part of the class's own initializer functions (probe ``kind``).
SYNTHETIC = frozenset({ClosureKind.FIELD_INITIALIZER.value, ClosureKind.STATIC_BLOCK.value})
MODULE = ClosureKind.MODULE.value
#: scopes made when their code runs, not when the function is entered.
BLOCKS = frozenset({ScopeKind.BLOCK, ScopeKind.CATCH})
#: ``export`` and ``export default`` just before a declaration.
EXPORT = re.compile(rb"(?:export\s+(?:default\s+)?)$")


def probes(source: SourceFile, reports: dict[str, dict[Closure, FunctionReport]],
           index: dict[Closure, int]) -> Iterator[Probe]:
    """One probe per function with a site under any of ``reports``' policies, in source order, each as it is
    made: a record keeps them as text (``file_record.probes_text``), and their lists are never all alive."""
    closures = sorted({c for by in reports.values() for c, r in by.items() if r.sites}, key=lambda c: c.index)
    for closure in closures:
        start = source.position(closure.start)
        first = source.position(lead(source.data, closure.start))
        head = source.position(max(closure.start, closure.name_start))
        sites = {name: [site_probe(source, site) for site in by[closure].sites]
                 for name, by in reports.items() if closure in by and by[closure].sites}
        end = source.position(closure.end)
        yield [closure.name, start.line, start.column, index.get(closure, -1), [head.line, head.column],
               closure.kind.value, sites, [end.line, end.column], [first.line, first.column]]


def lead(data: bytes, start: int) -> int:
    """The start of the ``export`` (``export default``) that introduces the declaration at ``start``."""
    line = data.rfind(b"\n", 0, start) + 1
    found = EXPORT.search(data, line, start)
    return found.start() if found is not None else start


def site_probe(source: SourceFile, site: Site) -> list[Any]:
    return [site.multiplicity, [[p.line, p.column] for p in map(source.position, places(site))]]


def places(site: Site) -> list[int]:
    """The byte offsets whose execution makes the site; none: the function's entry (its calls).

    Only a loop body, a policy's branch, or blocks that declare every binding of the site are read from the
    block counts: the function's own bindings are made at its entry, wherever they are declared (V8 counts
    the code after a ``return`` as not run, where a hoisted ``function`` or ``var`` is often declared).
    """
    loop = site.loop
    if site.per_iteration and loop is not None:
        return [max(loop.repeated)[0] if loop.repeated else loop.start]
    if isinstance(site, PolicySite):
        return [site.branch] if site.branch is not None else []
    scopes = [d.binding.scope for d in site.decisions]
    if scopes and all(scope.kind in BLOCKS for scope in scopes):
        return sorted({scope.start for scope in scopes})
    return []
