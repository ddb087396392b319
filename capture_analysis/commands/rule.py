"""``boxcheck rule``: print the documentation of rules, as ``ruff rule`` does.

    boxcheck rule BX101             # one rule (its code or its name, ``heap-capture``)
    boxcheck rule BX101 BX103       # several, in the order given
    boxcheck rule --all             # every rule, in code order

The text is the rule's section of ``docs/rules.md``, printed from the
catalogue inside the package, so it is there after ``pip install`` and is
always the installed version's.  ``boxcheck --explain CODE`` prints the same.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from ..diagnose.selection import known, rule_code
from ..rules import PACKAGED_PAGE, RULES, Rule


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck rule",
        description="Print the documentation of rules (Markdown): what each one reports, why it matters, an "
                    f"example and, where it is not obvious, how to fix it. The same pages, as HTML: {PACKAGED_PAGE}")
    parser.add_argument("rules", nargs="*", metavar="RULE", help="a rule's code (BX101) or name (heap-capture)")
    parser.add_argument("--all", action="store_true", help="print every rule")
    return parser


def find(name: str) -> Rule | None:
    """A rule by its code, in any case, or by its name (as everywhere a rule is named: ``selection``)."""
    try:
        return RULES[rule_code(name)]
    except ValueError:
        return None


def print_rules(names: Sequence[str], prog: str = "boxcheck rule", out: TextIO | None = None) -> int:
    """Print the rules named (to ``out``, standard output by default), or none when one is unknown (exit 2, with
    the known codes)."""
    found = [(name, find(name)) for name in names]
    unknown = [name for name, rule in found if rule is None]
    if unknown:
        print(f"{prog}: unknown rule {', '.join(unknown)}; the rules: {known()}", file=sys.stderr)
        return 2
    (out or sys.stdout).write("\n".join(rule.doc() for _, rule in found if rule is not None))
    return 0


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    if args.all == bool(args.rules):
        parser.print_usage(sys.stderr)
        print(f"boxcheck rule: error: give RULE codes or --all; the rules: {known()}", file=sys.stderr)
        return 2
    return print_rules([rule.code for rule in RULES.values()] if args.all else args.rules)
