"""Gradual adoption: ``--baseline``, ``--write-baseline`` and ``--since``, the findings a run leaves out.

A codebase that already has findings cannot turn boxcheck on in CI until
they are all fixed, unless a run can leave out the old ones: those a
baseline records (``baseline``), or those that stand on no line changed
since a git commit (``changed_lines``).  Either is a property of the run, not
of a file's analysis: the files are analyzed (or read from the cache, in
any number of ``--jobs``) as always, and their findings narrowed here, in
the parent, before the run counts them for the totals and the exit code,
so a finding left out is neither printed, in any format, nor counted.  A
run given none of these options makes no ``Adoption`` and is not touched.

Such a run prints no file's allocation summary in the text format unless
``--show-allocations`` asks: a summary counts every allocation of the file,
those of the findings left out too, so a run whose findings are all in the
baseline would repeat the cost of the old code at each run, where it has
nothing new to say but its totals line.
"""


from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..report import Totals
from ..report.file_record import DiagnosticRecord, FileRecord, findings, packed_of, severity
from ..report.text import plural
from ..rules import Severity
from .tasks import Analyzed, Outcome

if TYPE_CHECKING:
    from .baseline import Matcher, Recorder
    from .changed_lines import ChangedLines


class AdoptionError(Exception):
    """An option of this module that cannot be honoured: a usage or I/O error (exit 2)."""


def add_options(parser: argparse.ArgumentParser) -> None:
    recorded = parser.add_mutually_exclusive_group()
    recorded.add_argument("--baseline", metavar="FILE",
                          help="neither show nor count the findings this baseline file records (written by "
                               "--write-baseline); recorded findings no longer found are listed in a note")
    recorded.add_argument("--write-baseline", metavar="FILE",
                          help="record the findings of the files analyzed in this baseline file (keeping its "
                               "entries for other files) and show none of them")
    parser.add_argument("--since", metavar="REF",
                        help="show only the findings that stand on a line changed since this git commit (git "
                             "diff REF, untracked files included): the declaration, a write, a capture, the escape")
    parser.add_argument("--show-allocations", action="store_true",
                        help="text: with --baseline, --write-baseline or --since, list each file's allocating "
                             "functions too, which such a run leaves out (they count the findings left out); "
                             "other runs list them anyway")


@dataclass(slots=True)
class Adoption:
    """What one run leaves out of its files' findings, and what it says about that at the end."""

    matcher: Matcher | None = None
    recorder: Recorder | None = None
    since: ChangedLines | None = None
    #: the baseline file, as the user named it.
    baseline_path: str = ""
    #: ``--show-allocations``: keep the files' allocation summaries (the text format's).
    allocations: bool = False
    #: the findings the baseline recorded (all of them, when it is written), and those --since left out.
    baselined: int = 0
    unchanged: int = 0

    @classmethod
    def of(cls, args: argparse.Namespace, severities: tuple[tuple[str, Severity | None], ...]) -> Adoption | None:
        """``None`` when the run was given none of the options; ``severities``: the run's, for the rules it
        turned off (a baseline's findings of those cannot be missed)."""
        if args.baseline is None and args.write_baseline is None and args.since is None:
            return None
        if args.write_baseline is not None and args.since is not None:
            raise AdoptionError("--write-baseline records every finding: give it without --since")
        # (imported here: a run without these options never needs them, nor `subprocess` for git)
        from .baseline import Baseline, BaselineError, Matcher, Recorder
        from .changed_lines import ChangedLines, ChangedLinesError

        off = frozenset(code for code, level in severities if level is None)
        adoption = cls(baseline_path=args.baseline or args.write_baseline or "", allocations=args.show_allocations)
        try:
            if args.baseline is not None:
                adoption.matcher = Matcher(Baseline.read(args.baseline), off)
            if args.write_baseline is not None:
                adoption.recorder = Recorder.at(args.write_baseline, off)
            if args.since is not None:
                adoption.since = ChangedLines.since(args.since)
        except (BaselineError, ChangedLinesError) as error:
            raise AdoptionError(str(error)) from error
        return adoption

    def narrow(self, outcome: Outcome) -> Outcome:
        """The outcome with only the findings the run shows, and the counts of those."""
        if not isinstance(outcome, Analyzed):
            return outcome
        path = outcome.path
        if self.recorder is None and self.matcher is None and self.since is None and self.allocations:
            return outcome
        decoded = list(findings(outcome.record))
        diagnostics = decoded
        if self.recorder is not None:
            self.recorder.record(path, diagnostics)
            diagnostics = []
        elif self.matcher is not None:
            diagnostics = self.matcher.narrow(path, diagnostics)
        self.baselined += len(outcome.record["diagnostics"]) - len(diagnostics)
        if self.since is not None:
            diagnostics = self.changed(path, diagnostics)
        allocating = outcome.record["allocating"] if self.allocations else []
        if len(diagnostics) == len(outcome.record["diagnostics"]) and allocating == outcome.record["allocating"]:
            return outcome
        counts = dataclasses.replace(outcome.counts, levels=tuple(severity(d) for d in diagnostics))
        record: FileRecord = {**outcome.record, "diagnostics": packed_of(outcome.record, decoded, diagnostics),
                              "allocating": allocating}
        return dataclasses.replace(outcome, record=record, counts=counts)

    def changed(self, path: str, diagnostics: list[DiagnosticRecord]) -> list[DiagnosticRecord]:
        assert self.since is not None
        lines = self.since.of(path)
        if lines is None:
            return diagnostics
        kept = [d for d in diagnostics if not lines.isdisjoint(d["lines"])]
        self.unchanged += len(diagnostics) - len(kept)
        return kept

    def finish(self, totals: Totals) -> bool:
        """Writes the baseline, notes what it no longer finds, and adds what was left out to the totals;
        False when the baseline could not be written."""
        from .baseline import BaselineError, summary

        written = True
        if self.recorder is not None:
            try:
                kept = self.recorder.write()
                others = f"; kept the entries of {plural(kept, 'file')} this run did not analyze" if kept else ""
                print(f"boxcheck: wrote {plural(self.baselined, 'finding')} to {self.baseline_path}{others}",
                      file=sys.stderr)
            except BaselineError as error:
                print(f"boxcheck: {error}", file=sys.stderr)
                written = False
        elif self.matcher is not None:
            unmatched = self.matcher.finish()
            totals.baseline_unmatched = sum(item.recorded - (item.found or 0) for item in unmatched)
            lines = list(summary(unmatched, self.baseline_path)) if unmatched else []
            if lines:
                print("boxcheck: " + "\n".join(lines), file=sys.stderr)
        if self.recorder is not None or self.matcher is not None:
            totals.baselined = self.baselined
        if self.since is not None:
            totals.unchanged = self.unchanged
        return written
