"""The last stage of a file's analysis: what is shown of its findings.

The suppression comments of the file (``suppressions``) drop what they
cover and report what they cover for nothing (BX003); then the rules the
run selects and their levels (``selection``: the catalogue's defaults, the
configuration, the command line, per-file overrides) change a finding's
level or drop it.  The command
line and the language server both finish an analysis here, so an editor
shows what CI reports.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from ..parsing import ParsedFile
from ..rules import Severity
from . import suppressions
from .findings import Diagnostic


def shown(file: ParsedFile, diagnostics: list[Diagnostic], severity: Mapping[str, Severity | None],
          directives: list[suppressions.Suppression] | None = None) -> list[Diagnostic]:
    """``directives``: the file's suppression comments, when they were read before its tree was let go."""
    return with_severities(suppressions.apply(file, diagnostics, directives), severity)


def with_severities(diagnostics: Iterable[Diagnostic], severity: Mapping[str, Severity | None]) -> list[Diagnostic]:
    """Findings at their configured severities (by rule code); a rule set to ``None`` (``off``) is dropped, and so
    is a rule that is off by default (``Rule.enabled``) unless a severity is configured for it."""
    out = []
    for diagnostic in diagnostics:
        code = diagnostic.rule.code
        if code not in severity:
            if diagnostic.rule.enabled:
                out.append(diagnostic)
        elif (level := severity[code]) is not None:
            out.append(dataclasses.replace(diagnostic, severity=level))
    return out
