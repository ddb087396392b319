"""``boxcheck``: the command line.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for
usage and I/O errors (a missing path, an unreadable file, an internal error
on one file).  Every other file is still analyzed and reported.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

from . import __version__, suppressions
from . import config as configuration
from .analyze import analyze_source
from .files import collect
from .loading import DEFAULT_MAX_BYTES, LoadError, load, load_stream
from .policies import POLICIES
from .report import FORMATS, RunOptions, Totals
from .rules import RULES, Severity

FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "hint": Severity.HINT,
           "none": None}
CODE = re.compile(r"^BX\d{3}$", re.IGNORECASE)
#: ``boxcheck NAME ...`` runs ``main(argv)`` of the named module.
SUBCOMMANDS: dict[str, str] = {
    "verify": "capture_analysis.expect",
    "graph": "capture_analysis.graph_cmd",
    "lsp": "capture_analysis.lsp_server",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck",
        description="Decide how each binding captured by a closure must be stored (by value, stack, box or "
                    "context) and count the heap allocations each call makes.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files, directories (recursive) or quoted glob patterns such as 'src/**/*.ts'")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--policy", choices=tuple(POLICIES), default=None,
                        help="storage policy (default: the configuration's, else optimal)")
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
                        help="text: print only the diagnostic lines, without source or summaries")
    parser.add_argument("--explain", nargs="?", const=True, default=None, metavar="CODE",
                        help="with a rule code (BX101): print that rule's documentation; "
                             "alone: print the evidence chain under each diagnostic")
    parser.add_argument("--max-file-size", type=size_in_bytes, default=DEFAULT_MAX_BYTES, metavar="BYTES",
                        help="skip files larger than this, with a message (default: 20M; accepts K and M suffixes)")
    parser.add_argument("--version", action="version", version=f"boxcheck {__version__}")
    return parser


def size_in_bytes(text: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmM]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (use e.g. 500K or 50M)")
    return int(match.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2).lower()]


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
    if args.stdin_filename is not None:
        if args.paths not in ([], ["-"]):
            parser.print_usage(sys.stderr)
            print("boxcheck: error: --stdin-filename reads standard input; give no PATH (or '-')", file=sys.stderr)
            return 2
        args.paths = []
    elif not args.paths:
        parser.print_usage(sys.stderr)
        print("boxcheck: error: no PATH given", file=sys.stderr)
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
    rule = RULES.get(code)
    if rule is None:
        print(f"boxcheck: unknown rule code {code}; known: {', '.join(RULES)}", file=sys.stderr)
        return 2
    sys.stdout.write(rule.doc())
    return 0


def run(args: argparse.Namespace, explain_chains: bool, settings: configuration.Config) -> int:
    collected = collect(args.paths)
    options = RunOptions(policy=args.policy, quiet=args.quiet, explain=explain_chains)
    reporter = FORMATS[args.format](sys.stdout, options)
    policy = POLICIES[args.policy]
    totals = Totals()
    io_errors = 0
    for path, message in collected.errors:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
        io_errors += 1
    for path, message in collected.notes:
        print(f"boxcheck: {path}: {message}", file=sys.stderr)
    fail_on = FAIL_ON[args.fail_on]
    failed = False
    for path in inputs(args, collected.files, settings):
        if args.stdin_filename is not None:
            loaded = load_stream(path, sys.stdin.buffer, args.max_file_size)
        else:
            loaded = load(path, args.max_file_size)
        if isinstance(loaded, LoadError):
            print(f"boxcheck: {path}: {loaded.message}", file=sys.stderr)
            io_errors += loaded.is_error
            totals.unreadable += 1
            reporter.failure(path, loaded.message)
            continue
        try:
            analysis = analyze_source(loaded, policy)
        except Exception as error:  # one bad file must not lose the others
            message = f"internal error: {type(error).__name__}: {error} (please report this with the file)"
            print(f"boxcheck: {path}: {message}", file=sys.stderr)
            io_errors += 1
            totals.unreadable += 1
            reporter.failure(path, message)
            continue
        shown = settings.apply(suppressions.apply(analysis.source, analysis.diagnostics))
        totals.add(analysis, shown)
        failed = failed or (fail_on is not None and any(d.level >= fail_on for d in shown))
        reporter.file(analysis, shown)
    reporter.finish(totals)
    if io_errors:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
