"""Options of the main command that shape a run's report and say where it goes, kept out of ``cli.py``.

``--statistics``
    The overview instead of the findings, as ``ruff check --statistics``
    prints it (``report.statistics``); a text report only: the JSON
    ``summary`` holds the same counts (``by_rule``, ``by_severity``), and
    SARIF, LSP and GitHub's annotations have no place for them, so another
    ``--format`` is refused (exit 2) rather than ignored.
``--max-warnings N``
    ESLint's: more than ``N`` warnings make the exit code 1.  The warnings
    are then out of ``--fail-on``'s hands (``Totals.fails``), so that
    ``--max-warnings 150`` passes with today's 150 warnings under the
    default ``--fail-on warning``; the other severities still follow
    ``--fail-on`` (an error fails the run).
``--output-file FILE``, ``-o FILE``
    The report, in any format, into ``FILE`` instead of standard output;
    messages stay on standard error.  ``FILE`` is opened before anything
    is analyzed, so a path that cannot be written is an error at once
    (exit 2), and the text is not coloured unless ``--color always`` asks:
    ``NO_COLOR``/``FORCE_COLOR`` speak of terminals and CI logs, not of
    files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TextIO

from ..report import Totals
from ..report.style import wants_color
from ..rules import Severity
from ..words import plural


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--statistics", action="store_true",
                        help="text: instead of the findings, count them by rule and list the files with the most "
                             "(also with -q); the JSON summary has the same counts (by_rule, by_severity)")
    parser.add_argument("--max-warnings", type=warning_budget, default=None, metavar="N",
                        help="exit 1 when more than N warnings are shown (as ESLint's option); warnings then fail "
                             "the run only over N, whatever --fail-on says, and the other severities follow "
                             "--fail-on")
    parser.add_argument("--output-file", "-o", metavar="FILE",
                        help="write the report (any --format) to FILE instead of standard output, uncoloured "
                             "unless --color always; messages stay on standard error")


def warning_budget(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of warnings (0 or more), got {text!r}")
    return int(text)


def refusal(args: argparse.Namespace) -> str | None:
    """Why these options cannot run together, if they cannot."""
    if args.statistics and args.format != "text":
        return (f"--statistics prints a text overview, not --format {args.format}"
                + ("; the JSON summary holds its counts (by_rule, by_severity)" if args.format == "json" else ""))
    return None


class OutputError(Exception):
    """``--output-file`` cannot be written: exit 2, with this message."""


def open_output(path: str | None) -> TextIO:
    """Standard output, or ``path`` opened for the report (the caller closes it with ``close_output``)."""
    if path is None:
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise OutputError(f"cannot write the report to {path}: {error.strerror or error}") from error


def close_output(stream: TextIO, path: str | None) -> None:
    if stream is sys.stdout:
        return
    try:
        stream.close()
    except OSError as error:  # the disk filled up under the last buffered write
        raise OutputError(f"cannot write the report to {path}: {error.strerror or error}") from error


def colored(args: argparse.Namespace, stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Colour only where it shows (text), and into ``--output-file`` only when ``--color always`` asks."""
    if args.format != "text":
        return False
    if args.output_file is not None:
        return bool(args.color == "always")
    return wants_color(args.color, stream, environ)


def over_budget(totals: Totals, max_warnings: int | None) -> str | None:
    """The message when ``--max-warnings`` fails the run."""
    warnings = totals.by_severity[Severity.WARNING]
    if max_warnings is None or warnings <= max_warnings:
        return None
    return f"{plural(warnings, 'warning')}, more than --max-warnings {max_warnings}"
