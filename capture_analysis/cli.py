"""``boxcheck``: the command line.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for
usage and I/O errors (a missing path, an unreadable file, a file named on
the command line that was skipped, an internal error on one file).  Every
other file is still analyzed and reported.

Files are analyzed by ``--jobs`` worker processes (``batch/workers``) or through
the cache (``batch/cache``); either way the reporter receives their outcomes
(``batch/tasks``) in input order, so the output does not depend on either.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import __version__
from . import config as configuration
from .batch import adoption, gc_tuning
from .batch.cache import DIRECTORY, DISABLE_ENV, Cache, disabled_by_environment
from .batch.files import collect
from .batch.loading import DEFAULT_MAX_BYTES, LoadError, load_stream
from .batch.outcome import outcome_of
from .batch.shard import Shard
from .batch.tasks import Failed, FileTask, Outcome
from .batch.workers import default_jobs, outcomes, worth_a_pool
from .compare import parse_policies
from .policies import POLICIES
from .report import FORMATS, RunOptions, Totals
from .report.style import CHOICES as COLOR_CHOICES
from .report.style import wants_color
from .rules import Severity

FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "hint": Severity.HINT,
           "none": None}
CODE = re.compile(r"^BX\d{3}$", re.IGNORECASE)
#: ``boxcheck NAME ...`` runs ``main(argv)`` of the named module.
SUBCOMMANDS: dict[str, str] = {
    "rule": "capture_analysis.commands.rule",
    "verify": "capture_analysis.commands.verify",
    "graph": "capture_analysis.commands.graph",
    "lsp": "capture_analysis.commands.lsp",
}
#: standard input as a PATH; it is reported under ``--stdin-filename``, else under this name.
STDIN = "-"
STDIN_NAME = "<stdin>"
EPILOG = """commands:
  boxcheck rule CODE|--all        print a rule's documentation, or every rule's
  boxcheck graph FILE [-f NAME]   draw a file's closures and the storage of what they capture (Graphviz)
  boxcheck verify PATH...         check the //~ inline expectations of fixtures
  boxcheck lsp                    run the language server (LSP over standard input and output)
  `boxcheck COMMAND --help` shows a command's options.

exit codes:
  0  no finding at or above --fail-on
  1  a finding at or above --fail-on
  2  usage or I/O error: a bad option, a missing or unreadable path, a file named on the command line that
     was skipped (binary, larger than --max-file-size), an internal error on a file; the other files are
     still analyzed and reported
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck",
        description="Decide how each binding captured by a closure must be stored (by value, stack, box or "
                    "context) and count the heap allocations each call makes.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files, directories (recursive) or quoted glob patterns such as 'src/**/*.ts'; "
                             "'-' reads standard input (parsed as TypeScript unless --stdin-filename names it)")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--policy", choices=tuple(POLICIES), default=None,
                        help="storage policy (default: the configuration's, else optimal)")
    parser.add_argument("--compare", type=policy_list, default=(), metavar="P1,P2[,...]",
                        help="also decide each file under these policies: a table of each function's allocations "
                             "under each one and the difference from P1, and, for legacy with optimal, the rule "
                             "report; --policy stays the analysis that is reported")
    parser.add_argument("--fail-on", choices=tuple(FAIL_ON), default=None,
                        help="exit 1 when a finding has at least this severity (default: the configuration's, "
                             "else warning); suppressed and disabled findings never count")
    parser.add_argument("--severity", type=severity_override, action="append", default=[], metavar="CODE=LEVEL",
                        help="set a rule's severity (error, warning, info, hint) or turn it off; overrides the "
                             "configuration; repeatable")
    parser.add_argument("--config", metavar="FILE",
                        help="use this boxcheck.toml or pyproject.toml instead of searching above the paths")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="analyze standard input, reported as PATH (for editors); give no other PATH, or '-'")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="text: print only the diagnostic lines, without source, summaries or totals")
    parser.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="text: colour severities, codes, paths and carets (default: auto, on a terminal "
                             "unless NO_COLOR is set, and also into a pipe when FORCE_COLOR is set)")
    parser.add_argument("--explain", nargs="?", const=True, default=None, metavar="CODE",
                        help="with a rule code (BX101): print that rule's documentation (as `boxcheck rule`); "
                             "alone: show each step of the evidence under each diagnostic, with its source line")
    parser.add_argument("--docs-url", type=docs_url, metavar="URL",
                        help="lsp, sarif: the rules page that each diagnostic links to, a copy of docs/rules.md or "
                             "of the HTML page inside the package (default: the configuration's docs-url, else "
                             "that page, as a file:// URI)")
    parser.add_argument("--max-file-size", type=size_in_bytes, default=DEFAULT_MAX_BYTES, metavar="BYTES",
                        help="skip files larger than this, with a message (default: 20M; accepts K and M suffixes)")
    parser.add_argument("--jobs", "-j", type=positive_int, default=None, metavar="N",
                        help="analyze in N worker processes (default: one per core, once there is enough "
                             "source to be worth starting them); the output does not depend on N")
    parser.add_argument("--no-cache", action="store_true",
                        help=f"neither read nor write the cache (also: {DISABLE_ENV}=1 in the environment)")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help=f"where cached results live (default: {DIRECTORY}/ beside the configuration file, "
                             "else in the working directory)")
    parser.add_argument("--shard", type=shard_spec, default=None, metavar="K/N",
                        help="analyze only the K-th of N disjoint parts of the files (by a hash of each path), "
                             "to split a run across the machines of a CI matrix")
    adoption.add_options(parser)
    parser.add_argument("--version", action="version", version=f"boxcheck {__version__}")
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
    explain_chains = False
    if isinstance(args.explain, str):
        if CODE.match(args.explain):
            return explain_rule(args.explain.upper())
        args.paths.insert(0, args.explain)
        explain_chains = True
    elif args.explain is True:
        explain_chains = True
    if args.stdin_filename is not None or STDIN in args.paths:
        if args.paths not in ([], [STDIN]):
            parser.print_usage(sys.stderr)
            print("boxcheck: error: standard input ('-' or --stdin-filename) is analyzed alone; give no other PATH",
                  file=sys.stderr)
            return 2
        args.stdin_filename = args.stdin_filename or STDIN_NAME
        args.paths = []
    elif not args.paths:
        parser.print_usage(sys.stderr)
        print("boxcheck: error: no PATH given ('-' reads standard input)", file=sys.stderr)
        return 2
    try:
        settings = configure(args)
    except configuration.ConfigError as error:
        print(f"boxcheck: {error}", file=sys.stderr)
        return 2
    return run(args, explain_chains, settings)


def configure(args: argparse.Namespace) -> configuration.Config:
    """The configuration file, overridden by the command line; resolves ``args.policy`` and ``args.fail_on``."""
    found = configuration.load(args.config, args.paths or [args.stdin_filename])
    args.policy = args.policy or found.policy or "optimal"
    args.fail_on = args.fail_on or found.fail_on or "warning"
    args.docs_url = args.docs_url or found.docs_url
    return found.with_severity(dict(args.severity))


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


def explain_rule(code: str) -> int:
    from .commands.rule import print_rules

    return print_rules([code], "boxcheck --explain")


def run(args: argparse.Namespace, explain_chains: bool, settings: configuration.Config) -> int:
    gc_tuning.tune_for_batch()
    collected = collect(args.paths)
    # colour only where it shows (text), links only where they are (LSP, SARIF)
    color = args.format == "text" and wants_color(args.color, sys.stdout, os.environ)
    docs_url = args.docs_url if args.format in ("lsp", "sarif") else None
    options = RunOptions(policy=args.policy, quiet=args.quiet, explain=explain_chains, compare=args.compare,
                         color=color, docs_url=docs_url)
    reporter = FORMATS[args.format](sys.stdout, options)
    totals = Totals()
    io_errors = 0
    for path, message in collected.errors:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
        io_errors += 1
    for path, message in collected.notes:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
    fail_on = FAIL_ON[args.fail_on]
    failed = False
    paths = inputs(args, collected.files, settings)
    if args.shard is not None:
        paths = args.shard.select(paths)
    # a file the user named (or standard input) that is skipped is an error: CI must not pass without it
    named = {args.stdin_filename} if args.stdin_filename is not None else set(args.paths)
    task = FileTask.of(args.format, options, settings, args.max_file_size)
    try:
        narrowing = adoption.Adoption.of(args, task.severities)
    except adoption.AdoptionError as error:
        print(f"boxcheck: {error}", file=sys.stderr)
        return 2
    for outcome in file_outcomes(args, paths, task, settings):
        if narrowing is not None:
            outcome = narrowing.narrow(outcome)
        if isinstance(outcome, Failed):
            print(f"boxcheck: {outcome.path}: {outcome.message}", file=sys.stderr)
            io_errors += outcome.is_error or outcome.path in named
            totals.unreadable += 1
            reporter.failure(outcome.path, outcome.message)
            continue
        totals.count(outcome.counts)
        failed = failed or (fail_on is not None and any(level >= fail_on for level in outcome.counts.levels))
        reporter.add(reporter.render(outcome.record))
    if narrowing is not None and not narrowing.finish(totals):
        io_errors += 1
    reporter.finish(totals)
    if io_errors:
        return 2
    return 1 if failed else 0


def file_outcomes(args: argparse.Namespace, paths: list[str], task: FileTask,
                  settings: configuration.Config) -> Iterator[Outcome]:
    """Standard input is analyzed here and never cached (an editor's unsaved buffer); files as ``--jobs`` says."""
    if args.stdin_filename is not None:
        for path in paths:
            loaded = load_stream(path, sys.stdin.buffer, args.max_file_size)
            yield (Failed(path, loaded.message, loaded.is_error) if isinstance(loaded, LoadError)
                   else outcome_of(loaded, task))
        return
    cache = None
    if paths and not args.no_cache and not disabled_by_environment():
        directory = args.cache_dir or (settings.root or Path.cwd()) / DIRECTORY
        cache = Cache(directory, task).open()
    if args.jobs is not None:
        jobs = args.jobs
    else:
        jobs = default_jobs() if worth_a_pool(paths) else 1
    yield from outcomes(paths, task, jobs, cache)


if __name__ == "__main__":
    sys.exit(main())
