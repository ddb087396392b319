"""``--statistics``: the overview of a run, for the first look at a large repository.

As ``ruff check --statistics`` does, it replaces the findings (a first run on
rxjs prints hundreds of them); what it prints instead, before the totals line
(which counts the findings by severity):

    findings by rule:
      133  BX101  heap-capture           warning
      117  BX107  context-retention      hint
       16  BX103  captured-before-init   warning
        1  BX102  per-iteration-capture  warning
    files with the most findings (10 of 80):
      14  src/internal/operators/groupBy.ts         6 warnings, 8 hints
      13  src/internal/operators/mergeInternals.ts  5 warnings, 8 hints
      ...

Findings count as the other formats show them (``reporter.Totals``):
suppressed findings and rules turned ``off`` are not counted, and hints and
infos are, each under its own severity, whatever ``--fail-on`` says.  A rule
that shows at two severities (a configuration that changes it for some
files) has a row for each.
"""

from __future__ import annotations

from ..words import plural
from .file_record import LEVELS
from .reporter import SEVERITIES, Totals
from .style import PLAIN, Style

#: the files ``--statistics`` lists, those with the most findings first.
TOP_FILES = 10


def statistics(totals: Totals, style: Style = PLAIN) -> list[str]:
    if not totals.by_rule:
        return ["no findings"]
    return by_rule(totals, style) + top_files(totals, style)


def by_rule(totals: Totals, style: Style) -> list[str]:
    """One row per rule and severity, the most frequent first (then by code), in aligned columns."""
    rows = sorted(totals.by_rule.items(), key=lambda item: (-item[1], item[0][0], -LEVELS[item[0][2]]))
    count_width = len(str(rows[0][1]))
    name_width = max(len(name) for (_, name, _), _ in rows)
    out = ["findings by rule:"]
    for (code, name, label), count in rows:
        level = LEVELS[label]
        out.append(f"  {str(count).rjust(count_width)}  {code}  {name.ljust(name_width)}  "
                   f"{style.severity(level, label)}")
    return out


def top_files(totals: Totals, style: Style) -> list[str]:
    """The ``TOP_FILES`` files with the most findings, each with its count per severity."""
    ranked = sorted(totals.by_file.items(), key=lambda item: (-sum(item[1]), item[0]))[:TOP_FILES]
    count_width = len(str(sum(ranked[0][1])))
    path_width = max(len(path) for path, _ in ranked)
    out = [f"files with the most findings ({len(ranked)} of {len(totals.by_file)}):"]
    for path, counts in ranked:
        split = ", ".join(style.severity(level, plural(count, level.label))
                          for level, count in zip(SEVERITIES, counts, strict=True) if count)
        out.append(f"  {str(sum(counts)).rjust(count_width)}  {style.path(path.ljust(path_width))}  {split}")
    return out
