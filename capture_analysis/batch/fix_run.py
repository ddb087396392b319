"""``--fix`` and ``--diff``: the options, and what a run does with its files' fixes (``fixing`` fixes each file).

``--fix``
    Each file is fixed where it is analyzed, then reported as a normal run
    reports it: what remains decides the exit code, as with ``ruff check
    --fix``.  A line on standard error says what was fixed.  ``--fix``
    reads no cache entry (a file is analyzed for its fixes whatever the
    cache holds) and writes none; the next run caches the files under their
    new bytes.
``--fix --diff``
    The fixes as a unified diff on standard output (or ``--output-file``),
    nothing written and no report; exit 1 when there is something to fix,
    0 when there is not (``ruff check --diff``), 2 on a usage or I/O error.
Standard input
    ``--fix --stdin-filename PATH`` prints the whole text, fixed, on
    standard output, and the report on standard error (or into
    ``--output-file``), as ``ruff check --fix --stdin-filename`` does for an
    editor, which replaces its buffer with it; ``PATH`` is never written.
    A text the configuration excludes goes back as it came.  Plain ``-`` is
    refused: the fixes depend on the language, which only a name tells.

``--fix`` with ``--write-baseline`` is refused too: the baseline would
record the findings of files that the same run changes.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import shutil
import sys
from dataclasses import dataclass
from typing import TextIO

from ..words import plural
from .adoption import Adoption
from .tasks import Analyzed, FileTask, FixMode, FixRequest, Outcome


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fix", action="store_true",
                        help="apply the fixes that are certain to the files analyzed (declare a never-reassigned "
                             "`let` as `const`; move a binding that BX107 reports, with its users, into a block of "
                             "its own), then report what remains; with --stdin-filename, print the fixed text")
    parser.add_argument("--diff", action="store_true",
                        help="with --fix: print the fixes as a unified diff, write nothing and report nothing; "
                             "exit 1 when there is something to fix, else 0")


def refusal(args: argparse.Namespace, unnamed_stdin: bool) -> str | None:
    """Why ``--fix`` or ``--diff`` cannot run with the other options, if they cannot."""
    if args.diff and not args.fix:
        return "--diff shows what --fix would change: give both"
    if not args.fix:
        return None
    if unnamed_stdin:
        return "--fix on standard input needs --stdin-filename PATH: the fixes depend on the language its name says"
    if args.write_baseline is not None:
        return "--fix changes the files whose findings --write-baseline would record: fix first, then write it"
    if getattr(args, "scheduler", None) is not None:
        return "--fix writes the files where they are analyzed, and a cluster's workers have only their bytes: " \
               "fix without --scheduler"
    if args.diff and (args.format != "text" or args.statistics):
        return "--diff prints a unified diff, not a report: give no --format or --statistics"
    return None


#: the line of a run with no fix to apply, which says what was looked for: the news that the code has neither, and
#: not that the command found nothing it understood (most findings need a change of design, which no fix makes).
NOTHING_TO_FIX = ("nothing to fix: no `let` to declare `const`, no binding of a BX107 finding to move into a block "
                  "of its own (what --fix applies; the other findings have no certain fix)")


class Discarded(io.StringIO):
    """Where the report of a ``--diff`` run goes."""

    def write(self, text: str) -> int:
        return len(text)


@dataclass(slots=True)
class FixRun:
    request: FixRequest
    #: ``--quiet``: no line about what was fixed.
    quiet: bool
    output_file: str | None
    findings: int = 0
    declarations: int = 0
    files: int = 0
    #: standard input was taken by an outcome: its text, fixed, went to standard output, or it was not analyzed
    #: (binary, too large: exit 2).
    stdin_taken: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace, narrowing: Adoption | None) -> FixRun | None:
        """``None`` without ``--fix``; ``narrowing``: what the run leaves out of its findings, whose fixes the files
        leave out too."""
        if not args.fix:
            return None
        mode = FixMode.DIFF if args.diff else FixMode.STDOUT if args.stdin_filename is not None else FixMode.WRITE
        baseline = narrowing.matcher.baseline if narrowing is not None and narrowing.matcher is not None else None
        since = narrowing.since if narrowing is not None else None
        return cls(FixRequest(mode, baseline, since), args.quiet, args.output_file)

    def task(self, task: FileTask) -> FileTask:
        return dataclasses.replace(task, fix=self.request)

    def report_stream(self, out: TextIO) -> TextIO:
        """Where the report goes: nowhere with ``--diff``; beside the fixed text of standard input, on standard
        error unless ``--output-file`` names a file."""
        if self.request.mode is FixMode.DIFF:
            return Discarded()
        if self.request.mode is FixMode.STDOUT and self.output_file is None:
            return sys.stderr
        return out

    def take(self, outcome: Outcome, out: TextIO, errors: TextIO) -> None:
        """Counts what was fixed in a file; prints its diff (``--diff``) or its text (standard input)."""
        self.stdin_taken = True
        if not isinstance(outcome, Analyzed) or outcome.fixed is None:
            return
        fixed = outcome.fixed
        if fixed.note:
            print(f"boxcheck: {outcome.path}: {fixed.note}", file=errors)
        if fixed.changed:
            self.files += 1
            self.findings += fixed.findings
            self.declarations += fixed.declarations
        if fixed.diff:
            out.write(fixed.diff)
        if fixed.text is not None:
            out.flush()
            sys.stdout.buffer.write(fixed.text)
            sys.stdout.buffer.flush()

    def finish(self, out: TextIO, errors: TextIO) -> None:
        """The line that says what was fixed (with ``--diff``: what would be), after what ``out`` holds.

        Standard input that the configuration excludes was not read: it goes back as it came, since an editor
        replaces its buffer with what it gets."""
        out.flush()
        if self.request.mode is FixMode.STDOUT and not self.stdin_taken:
            shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        if self.quiet:
            return
        if not self.files:
            print(f"boxcheck: {NOTHING_TO_FIX}", file=errors)
            return
        would = self.request.mode is FixMode.DIFF
        done = []
        if self.findings:
            done.append(f"{'fix' if would else 'fixed'} {plural(self.findings, 'finding')}")
        if self.declarations:
            done.append(f"{'declare' if would else 'declared'} {plural(self.declarations, '`let` declaration')} "
                        "`const`")
        print(f"boxcheck: {'would ' if would else ''}{' and '.join(done)} in {plural(self.files, 'file')}",
              file=errors)

    def exit_code(self, failed: bool) -> int:
        """``failed``: whether the findings that remain fail the run; with ``--diff``, whether there are fixes."""
        if self.request.mode is FixMode.DIFF:
            return 1 if self.files else 0
        return 1 if failed else 0
