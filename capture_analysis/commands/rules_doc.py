"""``docs/rules.md`` is generated from the catalogue, never edited by hand.

    python -m capture_analysis.commands.rules_doc --write   # after changing a rule (``make rules``)
    python -m capture_analysis.commands.rules_doc --check   # exit 1 when the page is stale (the tests do this)

Each rule's section heading is ``## CODE name``, whose anchor
``code-name`` is what ``Rule.href`` and LSP ``codeDescription.href`` link to.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..rules import DOCS_PAGE, RULES

HEADER = """# Rules

Generated from `capture_analysis/rules.py` by `python -m capture_analysis.commands.rules_doc --write`
(`make rules`); do not edit by hand. `boxcheck --explain CODE` prints one section.
Codes are never reused. Severities can be changed or rules disabled per code in the
[configuration](configuration.md), and single findings silenced with
[suppression comments](configuration.md#suppressions).
"""


def render() -> str:
    out = [HEADER, "| code | name | default severity | summary |", "|---|---|---|---|"]
    out.extend(f"| [{rule.code}](#{rule.anchor}) | {rule.name} | {rule.severity.label} | {rule.summary} |"
               for rule in RULES.values())
    out.append("")
    out.extend(rule.doc() for rule in RULES.values())
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m capture_analysis.commands.rules_doc",
                                     description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"write {DOCS_PAGE}")
    action.add_argument("--check", action="store_true", help=f"exit 1 when {DOCS_PAGE} is not what --write writes")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        DOCS_PAGE.write_text(text, encoding="utf-8")
    elif args.check:
        current = DOCS_PAGE.read_text(encoding="utf-8") if DOCS_PAGE.exists() else ""
        if current != text:
            print(f"{DOCS_PAGE} is stale: run `python -m capture_analysis.commands.rules_doc --write`", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
