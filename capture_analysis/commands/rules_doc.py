"""The rule pages are generated from the catalogue, never edited by hand.

    python -m capture_analysis.commands.rules_doc --write   # after changing a rule (``make rules``)
    python -m capture_analysis.commands.rules_doc --check   # exit 1 when a page is stale (the tests do this)

Two pages: ``docs/rules.md`` in the source tree, and ``capture_analysis/docs/rules.html``, package data that
every installed copy has.  Each rule's section is ``## CODE name`` in Markdown (GitHub's heading anchor is
``code-name``) and has the id ``code-name`` in HTML, so ``Rule.href`` finds it in either page, and in a copy
of either published under ``docs-url``.

The HTML is written from the same Markdown as ``boxcheck rule`` prints, by a converter for exactly what the
catalogue uses: headings, paragraphs, ``- `` lists, tables, fenced code and inline code.  A page of plain
HTML with no script or stylesheet to fetch opens from ``file://`` in any browser.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..rules import DOCS_PAGE, PACKAGED_PAGE, RULES, Rule

HEADER = """# Rules

Generated from `capture_analysis/rules.py` by `python -m capture_analysis.commands.rules_doc --write`
(`make rules`); do not edit by hand. `boxcheck rule CODE` prints one section, `boxcheck rule --all` all of
them, in code order. Codes are never reused. Rules can be selected, turned off or given another
severity by code, name or code prefix in the [configuration](configuration.md#choosing-the-rules) and on
the command line (`--select`, `--ignore`, `--severity`), and single findings silenced with
[suppression comments](configuration.md#suppressions).
"""

HTML_INTRO = """Every diagnostic code of boxcheck, generated from its catalogue (`capture_analysis/rules.py`).
`boxcheck rule CODE` prints one section, `boxcheck rule --all` all of them, in code order. Codes are never
reused. Rules can be selected, turned off or given another severity by code, name or code prefix in
`boxcheck.toml` or `[tool.boxcheck]` of `pyproject.toml` and on the command line (`--select`, `--ignore`,
`--severity`), and single findings silenced with `// boxcheck-ignore CODE -- reason` comments (the
project's `docs/configuration.md`)."""

INLINE_CODE = re.compile(r"`([^`]+)`")


def default(rule: Rule) -> str:
    """The table's default severity: ``off`` for a rule that runs only when selected, with its level then."""
    return rule.severity.label if rule.enabled else f"off (selecting it reports at {rule.severity.label})"


def render() -> str:
    """``docs/rules.md``."""
    out = [HEADER, "| code | name | default severity | summary |", "|---|---|---|---|"]
    out.extend(f"| [{rule.code}](#{rule.anchor}) | {rule.name} | {default(rule)} | {rule.summary} |"
               for rule in RULES.values())
    out.append("")
    out.extend(rule.doc() for rule in RULES.values())
    return "\n".join(out)


def render_html() -> str:
    """``capture_analysis/docs/rules.html``: the same sections, each with the id ``Rule.href`` points at."""
    rows = "\n".join(f'<tr><td><a href="#{rule.anchor}">{rule.code}</a></td><td>{rule.name}</td>'
                     f"<td>{default(rule)}</td><td>{inline(rule.summary)}</td></tr>"
                     for rule in RULES.values())
    sections = "\n".join(f'<section id="{rule.anchor}">\n{markdown_to_html(rule.doc())}</section>'
                         for rule in RULES.values())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>boxcheck {__version__}: rules</title>
</head>
<body>
<h1>boxcheck {__version__}: rules</h1>
<p>{inline(HTML_INTRO)}</p>
<table>
<tr><th>code</th><th>name</th><th>default severity</th><th>summary</th></tr>
{rows}
</table>
{sections}
</body>
</html>
"""


def inline(text: str) -> str:
    """Escaped text with `code` spans; line breaks inside a paragraph are spaces."""
    parts = INLINE_CODE.split(" ".join(text.split("\n")))
    return "".join(f"<code>{html.escape(part)}</code>" if index % 2 else html.escape(part)
                   for index, part in enumerate(parts))


def markdown_to_html(text: str) -> str:
    """The Markdown of one ``Rule.doc()``: the ``##`` heading, ``###`` headings, fenced code, lists, tables."""
    out: list[str] = []
    lines = text.strip("\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
        elif line.startswith("```"):
            end = lines.index("```", index + 1)
            out.append(f"<pre><code>{html.escape(chr(10).join(lines[index + 1:end]))}</code></pre>")
            index = end + 1
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")
            index += 1
        else:
            block = []
            while index < len(lines) and lines[index].strip() and not lines[index].startswith(("```", "#")):
                block.append(lines[index])
                index += 1
            out.append(block_to_html(block))
    return "\n".join(out) + "\n"


def block_to_html(block: list[str]) -> str:
    if block[0].startswith("- "):
        items: list[list[str]] = []
        for line in block:
            if line.startswith("- "):
                items.append([line[2:]])
            else:
                items[-1].append(line.strip())
        return "<ul>\n" + "\n".join(f"<li>{inline(chr(10).join(item))}</li>" for item in items) + "\n</ul>"
    if block[0].startswith("|"):
        rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block]
        head, body = rows[0], rows[2:]
        return ("<table>\n<tr>" + "".join(f"<th>{inline(cell)}</th>" for cell in head) + "</tr>\n"
                + "\n".join("<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in row) + "</tr>" for row in body)
                + "\n</table>")
    return f"<p>{inline(chr(10).join(block))}</p>"


PAGES = {DOCS_PAGE: render, PACKAGED_PAGE: render_html}


def stale() -> list[Path]:
    return [page for page, make in PAGES.items()
            if (page.read_text(encoding="utf-8") if page.exists() else "") != make()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m capture_analysis.commands.rules_doc",
                                     description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    pages = " and ".join(str(page) for page in PAGES)
    action.add_argument("--write", action="store_true", help=f"write {pages}")
    action.add_argument("--check", action="store_true", help=f"exit 1 when {pages} are not what --write writes")
    args = parser.parse_args(argv)
    if args.write:
        for page, make in PAGES.items():
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(make(), encoding="utf-8")
    elif args.check:
        for page in stale():
            print(f"{page} is stale: run `python -m capture_analysis.commands.rules_doc --write`", file=sys.stderr)
        return 1 if stale() else 0
    else:
        sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
