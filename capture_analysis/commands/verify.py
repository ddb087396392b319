"""``boxcheck verify``: check (or ``--update``) the inline expectations of fixtures; docs/expectations.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..batch.files import collect
from ..expectations.check import FileResult, Finding, verify_path
from ..expectations.update import update_path
from ..words import plural


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck verify",
        description="Check the inline expectations (`//~` comments) of fixtures against the analysis, in both "
                    "directions: every annotation must hold, and every box, context, stack and diagnostic "
                    "must be annotated on its line. See docs/expectations.md.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, directories (recursive) or quoted globs")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the annotations from the actual results (BAD: answers are kept)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only failures and errors")
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    collected = collect(args.paths)
    status = 0
    for path, message in (*collected.errors, *collected.notes):
        print(f"boxcheck verify: {path}: {message}", file=sys.stderr)
    if collected.errors or not collected.files:
        status = 2
    run_file: Callable[[str], FileResult] = update_path if args.update else verify_path
    results = [run_file(path) for path in collected.files]
    known_bad: list[Finding] = []
    for result in results:
        for error in result.errors:
            print(error, file=sys.stderr)
        if result.updated:
            print(f"boxcheck verify: updated {result.path}", file=sys.stderr)
        for finding in result.failures:
            print(finding)
        known_bad.extend(result.known_bad)
    if known_bad and not args.quiet:
        print(f"known wrong answers kept on purpose (BAD:), {len(known_bad)}:")
        for finding in known_bad:
            print(f"  {finding}")
    failures = sum(len(r.failures) for r in results)
    errors = sum(len(r.errors) for r in results)
    if not args.quiet:
        checked = sum(r.checked for r in results)
        print(f"verify: {plural(len(results), 'file')}, {plural(checked, 'expectation')} checked: {failures} failed, "
              f"{len(known_bad)} known wrong (BAD), {plural(errors, 'error')}")
    if errors:
        return 2
    return max(status, 1 if failures else 0)
