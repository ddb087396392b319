"""Hover: what boxcheck decided for the binding under the cursor, and why.

The hover answers the question a developer asks while typing a factory:
does this binding cost a heap cell per call?  It shows the storage, the
closures that capture the binding, the reason with its evidence chain (the
``--explain`` steps), and the allocations per call of the function that
declares it, the same facts as the CLI, in the same 1-based UTF-16
``line:column`` notation.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter

from ..analyze import FileAnalysis
from ..model import Closure, Storage
from ..results import Decision, FunctionReport, Site
from ..words import SHOWN, capped, closure_name

STORAGE_WORDS = {
    Storage.LOCAL: "an ordinary local, nothing per call",
    Storage.MODULE: "one environment per program, nothing per call",
    Storage.VALUE: "each capturing closure holds a copy, nothing per call",
    Storage.STACK: "shared in the frame, nothing per call",
    Storage.BOX: "a heap box of its own, allocated once per scope instance",
    Storage.CONTEXT: "a slot in a heap context shared with other bindings, one context per scope instance",
}


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A binding's name where it is declared or referred to."""

    start: int
    end: int
    decision: Decision


class BindingIndex:
    """Every declaration and reference of a decided binding, sorted by offset, for lookups by position.

    Names never overlap, so the span that starts last at or before an offset is the only candidate.  Sorted on
    the first hover unless ``prepare`` did it with the analysis (``incremental.TreeKeeper.run`` says when).
    """

    def __init__(self, analysis: FileAnalysis):
        self.analysis = analysis
        self.spans: list[tuple[int, int, Decision]] = []
        self.starts: list[int] | None = None

    def prepare(self) -> None:
        if self.starts is None:
            for decision in self.analysis.decisions:
                binding = decision.binding
                self.spans.append((binding.start, binding.end, decision))
                self.spans.extend((ref.start, ref.end, decision) for ref in binding.references)
            self.spans.sort(key=itemgetter(0))
            self.starts = [span[0] for span in self.spans]

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence whose name contains ``offset`` (its end excluded)."""
        self.prepare()
        assert self.starts is not None
        i = bisect.bisect_right(self.starts, offset) - 1
        if i >= 0 and offset < self.spans[i][1]:
            return Occurrence(*self.spans[i])
        return None


def function_report(analysis: FileAnalysis, closure: Closure | None) -> FunctionReport | None:
    return next((f for f in analysis.functions if f.closure is closure), None)


def allocations_line(report: FunctionReport, subject: str) -> str:
    once = f" and **{report.once}** once per program (it runs once)" if report.once else ""
    return (f"{subject} allocates **{report.per_call}** per call and **{report.per_iteration}** per loop "
            f"iteration{once}{sites_text(report.sites)}")


def sites_text(sites: list[Site]) -> str:
    if not sites:
        return ""
    more = f"; and {len(sites) - SHOWN} more sites" if len(sites) > SHOWN else ""
    return ": " + "; ".join(site_text(site) for site in sites[:SHOWN]) + more


def site_text(site: Site) -> str:
    names = capped([f"`{d.binding.name}`" for d in site.decisions[:SHOWN]], len(site.decisions))
    return f"{site.kind.value} {{{names}}} {site.multiplicity}"


def hover_markdown(analysis: FileAnalysis, decision: Decision,
                   measured: Callable[[FunctionReport], str | None] | None = None) -> str:
    """``measured``: the line of a measured run for a function's report (``lsp/measured``), if one is set."""
    source = analysis.source
    binding = decision.binding
    site = decision.site
    storage = f"**{decision.storage.value}**"
    if site is not None:
        storage += f" ({site.multiplicity})"
    lines = [f"boxcheck: `{binding.name}` ({binding.kind.value}) is {storage}: {STORAGE_WORDS[decision.storage]}",
             "", decision.reason]
    if decision.captured_by:
        captured = ", ".join(f"{closure_name(c)} at {source.position(c.name_start)}" for c in decision.captured_by)
        lines += ["", f"Captured by {captured}."]
    if decision.evidence:
        lines += ["", "Evidence:"]
        lines += [f"{n}. {source.position(step.offset)}: {step.text}" for n, step in enumerate(decision.evidence, 1)]
    report = function_report(analysis, binding.closure)
    own = next((c for c in analysis.model.closures if c.binding is binding), binding.init_closure)
    own_report = function_report(analysis, own)
    for each in (report, own_report if own_report is not report else None):
        if each is not None:
            lines += ["", allocations_line(each, f"Each call of {closure_name(each.closure)}")]
            found = measured(each) if measured is not None else None
            if found is not None:
                lines += ["", found]
    return "\n".join(lines)
