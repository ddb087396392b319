"""``boxcheck``: the command line.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for
usage and I/O errors (a missing path, an unreadable file, a file named on
the command line that was skipped, an internal error on one file).  Every
other file is still analyzed and reported.

Files are analyzed by ``--jobs`` worker processes (``batch/workers``), on a Dask
cluster (``--scheduler``, ``batch/cluster``) or through the cache
(``batch/cache``); either way the reporter receives their outcomes
(``batch/tasks``) in input order, so the output does not depend on either.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from . import __version__, compiled
from . import config as configuration
from .batch import adoption, cluster, fix_run, gc_tuning
from .batch.cache import DIRECTORY, DISABLE_ENV, Cache, disabled_by_environment
from .batch.files import collect, unsupported
from .batch.fixing import stdin_outcome
from .batch.linked import alone, linked
from .batch.loading import DEFAULT_MAX_BYTES, LoadError, load_stream
from .batch.outcome import outcome_of
from .batch.place import Place
from .batch.progress import progress_for
from .batch.shard import Shard
from .batch.tasks import Failed, FileTask, Outcome
from .batch.workers import default_jobs, outcomes, worth_a_pool
from .commands import options as report_options
from .commands.rule import find as find_rule
from .compare import parse_policies
from .counts import measured_run
from .counts.coverage import CoverageError
from .diagnose import selection
from .policies import POLICIES
from .report import FORMATS, RunOptions, Totals
from .report.style import CHOICES as COLOR_CHOICES
from .rules import Severity

FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "hint": Severity.HINT,
           "none": None}
#: what ``--explain`` takes for a rule rather than a PATH (an unknown code is an error, not a missing file).
CODE = re.compile(r"^BX\d{3}$", re.IGNORECASE)
#: ``boxcheck NAME ...`` runs ``main(argv)`` of the named module.
SUBCOMMANDS: dict[str, str] = {
    "rule": "capture_analysis.commands.rule",
    "verify": "capture_analysis.commands.verify",
    "graph": "capture_analysis.commands.graph",
    "summaries": "capture_analysis.commands.summaries",
    "lsp": "capture_analysis.commands.lsp",
}
#: standard input as a PATH; it is reported under ``--stdin-filename``, else under this name.
STDIN = "-"
STDIN_NAME = "<stdin>"
EPILOG = """commands:
  boxcheck rule RULE|--all        print a rule's documentation, or every rule's (in code order)
  boxcheck graph FILE [-f NAME]   draw a file's closures and the storage of what they capture (Graphviz)
  boxcheck verify PATH...         check the //~ inline expectations of fixtures
  boxcheck summaries PATH...      what each function does with its parameters (escapes or not), as Go's -m
  boxcheck lsp                    run the language server (LSP over standard input and output)
  `boxcheck COMMAND --help` shows a command's options.

exit codes:
  0  no finding at or above --fail-on (with --fix, of those that remain; with --fix --diff: nothing to fix)
  1  a finding at or above --fail-on; with --max-warnings N, warnings fail only when there are more than N
     (with --fix --diff: something to fix)
  2  usage or I/O error: a bad option, a missing or unreadable path, a directory or glob with no file to
     analyze, a file named on the command line that is not TypeScript or JavaScript or was skipped
     (binary, larger than --max-file-size), an internal error on a file; the other files are still
     analyzed and reported; with no file left to analyze, nothing is printed on stdout, in any format
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck",
        description="Decide how each binding captured by a closure must be stored (by value, stack, box or "
                    "context) and count the heap allocations each call makes.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files, directories (recursive) or quoted glob patterns such as 'src/**/*.ts' "
                             "(default: .); '-' reads standard input (parsed as TypeScript unless "
                             "--stdin-filename names it)")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--policy", choices=tuple(POLICIES), default=None,
                        help="storage policy (default: the configuration's, else optimal)")
    parser.add_argument("--compare", type=policy_list, default=(), metavar="P1,P2[,...]",
                        help="also decide each file under these policies: a table of each function's allocations "
                             "under each one and the difference from P1, and, for legacy with optimal, the rule "
                             "report; --policy stays the analysis that is reported")
    parser.add_argument("--fail-on", choices=tuple(FAIL_ON), default=None, type=selection.level_name,
                        help="exit 1 when a finding has at least this severity (default: the configuration's, "
                             "else warning); suppressed and disabled findings never count")
    parser.add_argument("--select", type=rule_selectors, action="append", default=None, metavar="RULES",
                        help="run only these rules: codes (BX101), rule names (heap-capture), code prefixes (BX1) "
                             "or ALL, comma-separated; repeatable; replaces the configuration's selection, and "
                             "turns on rules that are off by default")
    parser.add_argument("--ignore", type=rule_selectors, action="append", default=[], metavar="RULES",
                        help="turn these rules off (named as for --select; of the two, the more specific "
                             "selector wins: --select BX101 --ignore BX1 runs BX101); repeatable")
    parser.add_argument("--severity", type=severity_override, action="append", default=[], metavar="RULE=LEVEL",
                        help="set a rule's severity (error, warning or warn, info, hint), which turns it on, or "
                             "turn it off; applies after --select and --ignore; repeatable")
    parser.add_argument("--config", metavar="FILE",
                        help="use this boxcheck.toml or pyproject.toml instead of searching above the paths")
    parser.add_argument("--show-settings", action="store_true",
                        help="print the settings of the run (for a file PATH, that file's rules) and where each "
                             "comes from, then exit")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="analyze standard input, reported as PATH (for editors); give no other PATH, or '-'")
    parser.add_argument("--show-hints", action="store_true",
                        help="text: print hints too; they are hidden by default (as tsc leaves its suggestions to "
                             "editors, which show them) and counted in the totals, and --fail-on hint shows them")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="text: print only the diagnostic lines, without source, summaries or totals")
    parser.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="text: colour severities, codes, paths and carets (default: auto, on a terminal "
                             "unless NO_COLOR is set, and also into a pipe when FORCE_COLOR is set)")
    parser.add_argument("--explain", nargs="?", const=True, default=None, metavar="RULE|PATH:LINE[:COL]",
                        help="show each step of the evidence under each diagnostic, with its source line; with a "
                             "rule (BX101 or heap-capture) and PATHs: that rule's documentation, then its findings "
                             "alone; with a rule and no PATH: the documentation only (as `boxcheck rule`); with "
                             "PATH:LINE: the findings on that line alone (PATH:LINE:COL: the one at that UTF-16 "
                             "column), and no other PATH")
    parser.add_argument("--docs-url", type=docs_url, metavar="URL",
                        help="lsp, sarif: the rules page that each diagnostic links to, a copy of docs/rules.md or "
                             "of the HTML page inside the package (default: the configuration's docs-url; else "
                             "lsp links to that page as a file:// URI, and sarif, read elsewhere, has no link)")
    parser.add_argument("--max-file-size", type=size_in_bytes, default=DEFAULT_MAX_BYTES, metavar="BYTES",
                        help="skip files larger than this, with a message (default: 20M; accepts K and M suffixes)")
    parser.add_argument("--jobs", "-j", type=positive_int, default=None, metavar="N",
                        help="analyze in N worker processes (default: one per core, once there is enough "
                             "source to be worth starting them); the output does not depend on N")
    parser.add_argument("--scheduler", type=cluster.scheduler_address, metavar="ADDRESS",
                        help="analyze on the Dask cluster of this scheduler (e.g. tcp://host:8786; needs "
                             "boxcheck[cluster]) instead of --jobs processes; the output is the same")
    parser.add_argument("--no-cache", action="store_true",
                        help=f"neither read nor write the cache (also: {DISABLE_ENV}=1 in the environment)")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help=f"where cached results live (default: {DIRECTORY}/ beside the configuration file, "
                             "else in the working directory)")
    parser.add_argument("--shard", type=shard_spec, default=None, metavar="K/N",
                        help="analyze only the K-th of N disjoint parts of the files (by a hash of each path), "
                             "to split a run across the machines of a CI matrix")
    report_options.add_options(parser)
    measured_run.add_options(parser)
    adoption.add_options(parser)
    fix_run.add_options(parser)
    parser.add_argument("--version", action="version",
                        version=f"boxcheck {__version__} ({'compiled' if compiled() else 'pure Python'})")
    return parser


def size_in_bytes(text: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmM]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (use e.g. 500K or 50M)")
    return int(match.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2).lower()]


def positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return int(text)


def policy_list(text: str) -> tuple[str, ...]:
    try:
        return parse_policies(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def shard_spec(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def docs_url(text: str) -> str:
    try:
        return configuration.parse_docs_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def rule_selectors(text: str) -> tuple[str, ...]:
    try:
        found = selection.selectors([text])
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error
    if not found:
        raise argparse.ArgumentTypeError("expected rule codes, names or code prefixes, got nothing")
    return found


def severity_override(text: str) -> tuple[str, Severity | None]:
    try:
        return configuration.parse_override(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return dispatch(argv)
    except BrokenPipeError:
        # ``boxcheck ... | head``: the reader left; that is not our error.
        sys.stderr.close()
        return 0


def dispatch(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        module = __import__(SUBCOMMANDS[args_list[0]], fromlist=["main"])
        return int(module.main(args_list[1:]))
    parser = build_parser()
    args = parser.parse_args(args_list)
    explain_chains = args.explain is not None
    args.explained = args.place = None
    if isinstance(args.explain, str):
        rule = find_rule(args.explain)
        if CODE.match(args.explain) or rule is not None:
            if rule is None or (not args.paths and args.stdin_filename is None):
                return explain_rule(args.explain)
            args.explained = rule.code  # its documentation, then its findings alone (as --select adds it)
            args.select = [*(args.select or ()), (rule.code,)]
        elif (place := Place.parse(args.explain)) is not None:  # PATH:LINE[:COL]: the findings there alone
            if (refused := place.refusal(args)) is not None:
                print(f"boxcheck: error: {refused}", file=sys.stderr)
                return 2
            args.place, args.paths = place, [place.path]
        else:
            args.paths.insert(0, args.explain)
    if args.stdin_filename is not None or STDIN in args.paths:
        if args.paths not in ([], [STDIN]):
            parser.print_usage(sys.stderr)
            print("boxcheck: error: standard input ('-' or --stdin-filename) is analyzed alone; give no other PATH",
                  file=sys.stderr)
            return 2
        if args.stdin_filename is not None and (refused := unsupported(args.stdin_filename)) is not None:
            print(f"boxcheck: {args.stdin_filename}: {refused}", file=sys.stderr)
            return 2
        args.stdin_filename = args.stdin_filename or STDIN_NAME
        args.paths = []
    elif not args.paths:
        args.paths = [os.curdir]  # as ESLint and ruff do
    refused = report_options.refusal(args) or fix_run.refusal(args, unnamed_stdin=args.stdin_filename == STDIN_NAME)
    if refused is not None:
        parser.print_usage(sys.stderr)
        print(f"boxcheck: error: {refused}", file=sys.stderr)
        return 2
    try:
        found = configuration.load(args.config, args.paths or [args.stdin_filename])
    except configuration.ConfigError as error:
        print(f"boxcheck: {error}", file=sys.stderr)
        return 2
    if args.show_settings:
        from .commands.settings import show_settings

        return show_settings(args, found.with_command_line(rule_options(args)))
    return run(args, explain_chains, configure(args, found))


def rule_options(args: argparse.Namespace) -> selection.RuleChanges:
    """``--select``, ``--ignore`` and ``--severity``: the command line's layer of the rule selection."""
    select = None if args.select is None else tuple(dict.fromkeys(s for group in args.select for s in group))
    ignore = tuple(dict.fromkeys(s for group in args.ignore for s in group))
    return dataclasses.replace(configuration.NO_RULE_OPTIONS, select=select, ignore=ignore,
                               severity=tuple(args.severity))


def configure(args: argparse.Namespace, found: configuration.Config) -> configuration.Config:
    """The configuration file, overridden by the command line; resolves ``args.policy`` and ``args.fail_on``."""
    args.policy = args.policy or found.policy or configuration.DEFAULT_POLICY
    args.fail_on = args.fail_on or found.fail_on or configuration.DEFAULT_FAIL_ON
    args.docs_url = args.docs_url or found.docs_url
    return found.with_command_line(rule_options(args))


def inputs(args: argparse.Namespace, files: list[str], settings: configuration.Config) -> list[str]:
    """The files to analyze: what was collected (or the stdin name), less what the configuration excludes."""
    named = set(args.paths)
    kept = []
    for path in files if args.stdin_filename is None else [args.stdin_filename]:
        if not settings.excludes(path):
            kept.append(path)
        elif path in named or path == args.stdin_filename:
            print(f"boxcheck: {path}: skipped: excluded by {settings.path}", file=sys.stderr)
    return kept


def explain_rule(code: str, out: TextIO | None = None) -> int:
    from .commands.rule import print_rules

    return print_rules([code], "boxcheck --explain", out)


def run(args: argparse.Namespace, explain_chains: bool, settings: configuration.Config) -> int:
    """The report goes to standard output or ``--output-file``, opened before anything is analyzed."""
    try:
        out = report_options.open_output(args.output_file)
        try:
            return report(args, explain_chains, settings, out)
        finally:
            report_options.close_output(out, args.output_file)
    except report_options.OutputError as error:
        print(f"boxcheck: error: {error}", file=sys.stderr)
        return 2


def report(args: argparse.Namespace, explain_chains: bool, settings: configuration.Config, out: TextIO) -> int:
    gc_tuning.tune_for_batch()
    collected = collect(args.paths)
    # colour only where it shows (text), links only where they are (LSP, SARIF)
    color = report_options.colored(args, out, os.environ)
    docs_url = args.docs_url if args.format in ("lsp", "sarif") else None
    options = RunOptions(policy=args.policy, quiet=args.quiet, explain=explain_chains, compare=args.compare,
                         color=color, docs_url=docs_url, statistics=args.statistics,
                         show_hints=args.show_hints or args.fail_on == "hint", place=args.place is not None)
    totals = Totals()
    io_errors = 0
    for path, message in collected.errors:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
        io_errors += 1
    for path, message in collected.notes:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
    paths = inputs(args, collected.files, settings)
    if args.shard is not None:
        paths = args.shard.select(paths)
    # no file to analyze, for an error (a missing path): the error is the whole answer, and no report of zeros
    # (a totals line, an empty JSON document, a SARIF log that would close every alert) contradicts it
    reported = bool(paths) or not io_errors
    if args.explained is not None and args.format == "text" and reported:
        explain_rule(args.explained, out)  # the rule's documentation, then its findings
        print(file=out)
    # a file the user named (or standard input) that is skipped is an error: CI must not pass without it
    named = {args.stdin_filename} if args.stdin_filename is not None else set(args.paths)
    task = FileTask.of(args.format, options, settings, args.max_file_size)
    try:
        narrowing = adoption.Adoption.of(args, tuple(settings.severities_for(None).items()))
    except adoption.AdoptionError as error:
        print(f"boxcheck: {error}", file=sys.stderr)
        return 2
    fixing = fix_run.FixRun.of(args, narrowing)
    try:
        measuring = measured_run.of(args)
    except CoverageError as error:
        print(f"boxcheck: --counts: {error}", file=sys.stderr)
        return 2
    if fixing is not None:
        task = fixing.task(task)
    progress = progress_for(sys.stderr, out, len(paths), quiet=args.quiet, environ=os.environ)
    reporter = FORMATS[args.format](progress.guard(out if fixing is None else fixing.report_stream(out)), options)
    errors = progress.guard(sys.stderr)
    with progress:
        analyzed = file_outcomes(args, paths, task, settings)
        if measuring is not None:
            analyzed = measuring.weighed(analyzed, settings, progress.advance)
        for outcome in analyzed:
            if measuring is None:
                progress.advance()
            if fixing is not None:
                fixing.take(outcome, progress.guard(out), errors)
            if narrowing is not None:
                outcome = narrowing.narrow(outcome)
            if args.place is not None:
                outcome = args.place.narrow(outcome)
            if isinstance(outcome, Failed):
                print(f"boxcheck: {outcome.path}: {outcome.message}", file=errors)
                io_errors += outcome.is_error or outcome.path in named
                totals.unreadable += 1
                reporter.failure(outcome.path, outcome.message)
                continue
            totals.count(outcome.counts, outcome.record)
            reporter.add(reporter.render(outcome.record))
    if measuring is not None:
        totals.measured = measuring.run.summary()
        totals.measured_text = measuring.run.lines()
    if narrowing is not None and not narrowing.finish(totals):
        io_errors += 1
    if reported:
        reporter.finish(totals)
    if args.place is not None:
        args.place.finish(out if args.format == "text" else sys.stderr)
    if fixing is not None:
        fixing.finish(progress.guard(out), errors)
    over = report_options.over_budget(totals, args.max_warnings)
    if over is not None:
        print(f"boxcheck: {over}", file=sys.stderr)
    if io_errors:
        return 2
    failed = totals.fails(FAIL_ON[args.fail_on], args.max_warnings)
    return int(failed) if fixing is None else fixing.exit_code(failed)


def file_outcomes(args: argparse.Namespace, paths: list[str], task: FileTask,
                  settings: configuration.Config) -> Iterator[Outcome]:
    """Standard input is analyzed here and never cached (an editor's unsaved buffer); files as ``--scheduler``
    or ``--jobs`` says."""
    if args.stdin_filename is not None:
        for path in paths:
            if task.fix is not None:
                yield stdin_outcome(path, sys.stdin.buffer, task)
                continue
            loaded = load_stream(path, sys.stdin.buffer, args.max_file_size)
            yield (Failed(path, loaded.message, loaded.is_error) if isinstance(loaded, LoadError)
                   else alone(outcome_of(loaded, task), loaded, task))
        return
    cache = None
    if paths and task.fix is None and not args.no_cache and not disabled_by_environment():
        directory = args.cache_dir or (settings.root or Path.cwd()) / DIRECTORY
        cache = Cache(directory, task).open()
    if args.scheduler is not None:
        each: Iterator[Outcome] = cluster.outcomes(args.scheduler, paths, task, cache, args.jobs)
    else:
        jobs = args.jobs if args.jobs is not None else default_jobs() if worth_a_pool(paths) else 1
        each = outcomes(paths, task, jobs, cache)
    # a file that calls another file's functions is decided with what they do with their parameters (``linking``);
    # ``--fix`` rewrites each file alone
    yield from each if task.fix is not None else linked(each, paths, task, cache)


if __name__ == "__main__":
    sys.exit(main())
