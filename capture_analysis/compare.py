"""``--compare P1,P2[,...]``: one file decided under several policies, side by side.

The file is parsed and bound once; each policy decides from the same model,
so a function and a binding are the same objects under every policy.  What
a run shows:

* the primary analysis (``--policy``, default ``optimal``) as usual;
* per file, the allocations of each function under each policy and their
  difference from the first one named (the text table, and a ``policies``
  object per function in JSON); a file where nothing allocates under any of
  them has no table, only a place in the count of such files;
* the headline: the run's total under each policy and its difference from
  the first one (text: the lines above the totals line; JSON:
  ``summary.policies``), the number a compiler engineer asks for first;
* the *rule report*, the two sides of "a captured binding that is never
  reassigned needs no box (unless a closure captures it before it is
  initialized)", when ``legacy`` and ``optimal`` are both compared:
  BX104 for each never-reassigned binding ``legacy`` boxes and ``optimal``
  keeps off the heap, and ``optimal``'s BX103 for each never-reassigned
  binding that does need shared storage;
* the notes (BX105) of compared policies that do not model a function.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any

from . import rules
from .analyze import Analyzer, Bound, Decide, FileAnalysis, Severities, apply_policy
from .diagnose import Diagnostic, shown
from .model import Binding, Closure
from .policies import POLICIES, Policy
from .results import Decision, FunctionReport
from .source import SourceFile
from .words import closure_label, closure_row, plural

LEGACY, OPTIMAL = "legacy", "optimal"


@dataclass(frozen=True, slots=True)
class Counts:
    per_call: int
    per_iteration: int
    #: sites counted in ``per_call``/``per_iteration`` that are made only when a branch runs.
    conditional: int = 0
    #: why the policy does not count all of this function's allocations, if it does not.
    unmodelled: str | None = None
    #: sites made once per program (the function runs once), counted in neither ``per_call`` nor ``per_iteration``.
    once: int = 0

    @property
    def allocates(self) -> bool:
        return bool(self.per_call or self.per_iteration or self.once)

    def minus(self, other: Counts) -> tuple[int, int, int]:
        return self.per_call - other.per_call, self.per_iteration - other.per_iteration, self.once - other.once


@dataclass(frozen=True, slots=True)
class Row:
    closure: Closure
    #: one entry per compared policy, in the order they were named.
    counts: tuple[Counts, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    policies: tuple[str, ...]
    rows: tuple[Row, ...]
    #: each policy's function reports by closure, in the order of ``policies``: the sites a measured run
    #: weights (``report.probes``).
    reports: tuple[dict[Closure, FunctionReport], ...] = ()

    @property
    def baseline(self) -> str:
        return self.policies[0]

    def row_of(self, closure: Closure) -> Row | None:
        return next((row for row in self.rows if row.closure is closure), None)

    def totals(self) -> tuple[Counts, ...]:
        return tuple(Counts(sum(r.counts[i].per_call for r in self.rows),
                            sum(r.counts[i].per_iteration for r in self.rows),
                            sum(r.counts[i].conditional for r in self.rows),
                            once=sum(r.counts[i].once for r in self.rows))
                     for i in range(len(self.policies)))


@dataclass(slots=True)
class ComparedAnalysis(FileAnalysis):
    """The primary analysis, its diagnostics extended by the rule report, and the comparison."""

    comparison: Comparison = field(default_factory=lambda: Comparison((), ()))


def parse_policies(text: str) -> tuple[str, ...]:
    """``"legacy,optimal"`` -> ``("legacy", "optimal")``; a ``ValueError`` says what is wrong."""
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        raise ValueError(f"unknown policy {', '.join(unknown)}; registered: {', '.join(POLICIES)}")
    if len(names) < 2:
        raise ValueError("needs two or more different policies, such as `legacy,optimal`")
    return names


def compared(bound: Bound, policy: Policy, severity: Severities, names: tuple[str, ...]) -> ComparedAnalysis:
    """``bound`` decided under ``policy`` and each of ``names``; the findings are ``policy``'s and the rule
    report's, shown as any analysis's are."""
    analyses = {name: apply_policy(bound, POLICIES[name]) for name in dict.fromkeys((policy.name, *names))}
    primary = analyses[policy.name]
    diagnostics = primary.diagnostics + rule_report(analyses, names, policy.name)
    diagnostics.sort(key=lambda d: (d.start, d.rule.code))
    copied = {f.name: getattr(primary, f.name) for f in fields(FileAnalysis) if f.init}
    copied["diagnostics"] = diagnostics
    copied["shown"] = shown(bound.file, diagnostics, severity)
    return ComparedAnalysis(**copied, comparison=compare(analyses, names))


def counts_of(report: FunctionReport, unmodelled: dict[Closure, str]) -> Counts:
    return Counts(report.per_call, report.per_iteration, report.conditional, unmodelled.get(report.closure),
                  report.once)


def compare(analyses: dict[str, FileAnalysis], names: tuple[str, ...]) -> Comparison:
    columns = []
    for name in names:
        analysis = analyses[name]
        hook = analysis.policy.unmodelled
        unmodelled = hook(analysis.model, analysis.file) if hook is not None else {}
        columns.append({report.closure: counts_of(report, unmodelled) for report in analysis.functions})
    # every policy reports every function but the module, which ``optimal`` reports only for a top-level loop's
    # per-iteration sites: a policy without its report allocates nothing there
    closures = sorted({closure for column in columns for closure in column}, key=lambda c: c.index)
    nothing = Counts(0, 0)
    rows = tuple(Row(closure, tuple(column.get(closure, nothing) for column in columns)) for closure in closures)
    return Comparison(names, rows, tuple(analyses[name].report_of for name in names))


# -- the rule report ------------------------------------------------------------------------


def never_reassigned(binding: Binding) -> bool:
    """No assignment but the declaration's own initializer (``xs.push(1)`` does not reassign ``xs``)."""
    return not any(r.is_write and not r.is_declaration_write for r in binding.references)


def rule_report(analyses: dict[str, FileAnalysis], names: tuple[str, ...], primary: str) -> list[Diagnostic]:
    """What the compared policies add to the primary analysis's diagnostics."""
    out: list[Diagnostic] = []
    if LEGACY in names and OPTIMAL in names:
        out.extend(overboxed(analyses[LEGACY], analyses[OPTIMAL]))
        if primary != OPTIMAL:
            out.extend(Diagnostic(d.rule, d.start, d.end, f"under `{OPTIMAL}`, {d.message}", d.related, d.decision)
                       for d in analyses[OPTIMAL].diagnostics if d.rule is rules.CAPTURED_BEFORE_INIT
                       or (d.rule is rules.RUN_ONCE_CAPTURE and d.decision is not None
                           and d.decision.early_capture is not None))
    for name in names:
        if name != primary:
            out.extend(d for d in analyses[name].diagnostics if d.rule is rules.UNMODELLED_FUNCTION)
    return out


def overboxed(legacy: FileAnalysis, optimal: FileAnalysis) -> list[Diagnostic]:
    """BX104: what ``legacy`` boxes that is never reassigned and that ``optimal`` keeps off the heap."""
    source = legacy.source
    decided: dict[Binding, Decision] = {d.binding: d for d in optimal.decisions}
    out = []
    for decision in legacy.decisions:
        binding = decision.binding
        better = decided.get(binding)
        if not decision.storage.allocates or better is None or better.storage.allocates:
            continue
        if not never_reassigned(binding):
            continue
        message = (f"`{binding.name}` is never reassigned, yet `{LEGACY}` boxes it: {decision.reason}; "
                   f"`{OPTIMAL}` needs no heap storage for it ({better.storage.value}): {better.reason}")
        related = [(c.name_start, c.name_start + max(len(c.name or ""), 1),
                    f"captured by {closure_label(source, c)}") for c in decision.captured_by]
        out.append(Diagnostic(rules.NEVER_REASSIGNED_BOXED, binding.start, binding.end, message, related, decision))
    return out


# -- output ---------------------------------------------------------------------------------


def cell(counts: Counts, with_once: bool) -> str:
    marks = ("*" if counts.conditional else "") + ("!" if counts.unmodelled else "")
    once = f"/{counts.once}" if with_once else ""
    return f"{counts.per_call}/{counts.per_iteration}{once}{marks}"


def signed(numbers: tuple[int, ...], with_once: bool) -> str:
    return "/".join(f"{n:+d}" if n else "0" for n in (numbers if with_once else numbers[:2]))


def render_table(analysis: FileAnalysis, comparison: Comparison) -> list[str]:
    """The text table: functions that allocate under some policy, and the file's totals."""
    source = analysis.source
    names = comparison.policies
    rows = [row for row in comparison.rows if any(c.allocates or c.unmodelled for c in row.counts)]
    if not rows:
        return []  # counted by the run's headline: on rxjs, a tenth of the output said "no allocations"
    heading = ", ".join(f"`{n}`" for n in names)
    header = ["function", *names, *(f"{n}-{comparison.baseline}" for n in names[1:])]
    table = [header]
    once = any(c.once for row in rows for c in row.counts)
    for row in rows:
        label = closure_row(source, row.closure)
        table.append([label, *(cell(c, once) for c in row.counts),
                      *(signed(c.minus(row.counts[0]), once) for c in row.counts[1:])])
    totals = comparison.totals()
    table.append(["total", *(cell(c, once) for c in totals), *(signed(c.minus(totals[0]), once) for c in totals[1:])])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    units = "per call/per iteration/once per program" if once else "per call/per iteration"
    out = [f"{analysis.path}: allocations {units} under {heading}, and the difference from "
           f"`{comparison.baseline}`"]
    for line in table:
        out.append("  " + "  ".join(text.ljust(widths[0]) if i == 0 else text.rjust(widths[i])
                                    for i, text in enumerate(line)).rstrip())
    if any(c.conditional for row in rows for c in row.counts):
        out.append("  * includes sites made only when a branch runs (an `if` arm, a `switch` case, a `catch`)")
    for name, reason in sorted({(names[i], c.unmodelled) for row in rows for i, c in enumerate(row.counts)
                                if c.unmodelled}):
        out.append(f"  ! not counted by `{name}`: {reason.split(':', 1)[0]} (BX105)")
    return out


def counts_json(counts: Counts, baseline: Counts) -> dict[str, Any]:
    per_call, per_iteration, once = counts.minus(baseline)
    return {"per_call": counts.per_call, "per_iteration": counts.per_iteration, "once": counts.once,
            "conditional": counts.conditional, "unmodelled": counts.unmodelled,
            "difference": {"per_call": per_call, "per_iteration": per_iteration, "once": once}}


def policies_json(comparison: Comparison, closure: Closure) -> dict[str, Any] | None:
    """The ``policies`` object of one function: its counts under each policy, and the difference."""
    row = comparison.row_of(closure)
    if row is None:
        return None
    return {name: counts_json(counts, row.counts[0])
            for name, counts in zip(comparison.policies, row.counts, strict=True)}


def deciding(names: tuple[str, ...]) -> Decide:
    """``compared`` for these policies, as an ``analyze.Analyzer`` decides (and picklable)."""
    return partial(compared, names=names)


def document_json(names: tuple[str, ...], compared: list[list[int]],
                  unallocating: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's ``compare`` field and its ``summary.policies``, from the files' totals under each policy
    (``Totals.compared``); ``unallocating``: the files where nothing allocates under any of them."""
    totals: dict[str, dict[str, Any]] = {name: dict(zip(TOTAL_FIELDS, counts, strict=True))
                                         for name, counts in zip(names, compared, strict=True)}
    for counts in totals.values():
        counts["difference"] = {key: counts[key] - totals[names[0]][key] for key in TOTAL_FIELDS}
    return {"policies": list(names), "baseline": names[0], "files_without_allocations": unallocating}, totals


#: a run's total under a policy, in the order of ``Totals.compared`` (and of a file record's ``compared``).
TOTAL_FIELDS = ("per_call", "per_iteration", "once")
UNITS = ("per call", "per iteration", "once per program")


def headline(names: tuple[str, ...], compared: list[list[int]], files: int, unallocating: int, *,
             listed: bool = True, measured: dict[str, Any] | None = None) -> list[str]:
    """The text format's headline of a ``--compare`` run: each policy's total over every file, and the
    difference from the first policy, in words ("`legacy`: 412 per call ...; `optimal`: 79 per call ...;
    from `legacy`: -333 per call (-81%)").  ``listed``: whether the files' tables were printed above.
    """
    with_once = any(counts[2] for counts in compared)
    units = UNITS if with_once else UNITS[:2]
    head = f"allocations of the {plural(files, 'file')} compared, by policy"
    if unallocating:
        one = unallocating == 1
        some = f"all {unallocating}" if unallocating == files and files > 1 else f"{unallocating} of them"
        head += (f" ({some} {'allocates' if one else 'allocate'} nothing under any policy"
                 + (f" and {'is' if one else 'are'} not listed above)" if listed else ")"))
    width = max(len(name) for name in names) + 3
    baseline = compared[0]
    out = [head + ":"]
    for index, (name, counts) in enumerate(zip(names, compared, strict=True)):
        amounts = ", ".join(f"{count} {unit}" for count, unit in zip(counts[:len(units)], units, strict=True))
        line = f"  {f'`{name}`:'.ljust(width)} {amounts}"
        if index:
            line += f"; from `{names[0]}`: " + ", ".join(
                change(count - base, base, unit)
                for count, base, unit in zip(counts[:len(units)], baseline[:len(units)], units, strict=True))
        out.append(line)
    if measured is not None:
        made = measured["allocations"]
        first = made.get(names[0], 0)
        out.append("  this run: " + ", ".join(
            f"`{name}` {made.get(name, 0):,}" + (f" ({(made.get(name, 0) - first) / first:+.0%})"
                                                  if index and first else "")
            for index, name in enumerate(names)) + " allocations (measured, --counts)")
    return out


def change(difference: int, base: int, unit: str) -> str:
    """``-333 per call (-81%)``, ``+2 once per program (+40%)``, ``±0 per iteration``; no percentage of nothing."""
    if not difference:
        return f"±0 {unit}"
    percent = f" ({difference / base:+.0%})" if base else ""
    return f"{difference:+d} {unit}{percent}"


def analyze_compared(source: SourceFile, policy: Policy, names: tuple[str, ...]) -> ComparedAnalysis:
    """One source compared, with no configured severity: what a test or a script asks."""
    analysis = Analyzer(policy, {}, deciding(names))(source)
    assert isinstance(analysis, ComparedAnalysis)
    return analysis
