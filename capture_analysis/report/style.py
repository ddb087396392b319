"""Colour in the text format: on a terminal, off when piped, and what ``NO_COLOR`` and ``FORCE_COLOR`` ask.

Whether to colour is decided once per run, in this order (Python 3.13's own
``_colorize`` asks the same questions, in the same order):

1. ``--color always`` or ``--color never``;
2. ``NO_COLOR`` set to anything but "" (https://no-color.org): no colour;
3. ``FORCE_COLOR`` set to anything but "" (https://force-color.org): colour,
   even into a pipe (CI logs that render escapes);
4. else colour exactly when standard output is a terminal and ``TERM`` is not
   ``dumb``.

Only what a reader scans for is coloured, as compilers do: the path, the
severity with its code, the carets, the gutter, and the notes of
``--explain``.  With colour off every method returns its text unchanged, so
piped output is byte for byte what it was before colour existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from ..rules import Severity

#: ``--color``'s choices; ``auto`` is the four questions above.
CHOICES = ("auto", "always", "never")

RESET = "\x1b[0m"
BOLD = "1"
#: severities as rustc and ruff colour them: errors red, warnings yellow, the rest calmer.
SEVERITY = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFO: "1;36", Severity.HINT: "1;32"}
GUTTER = "1;34"
NOTE = "1;32"
#: the carets under a note's source line: secondary, as rustc draws the labels that are not the error itself.
NOTE_CARET = "34"


def wants_color(choice: str, stream: TextIO, environ: Mapping[str, str]) -> bool:
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", ""):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


@dataclass(frozen=True, slots=True)
class Style:
    color: bool = False

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}{RESET}" if self.color and text else text

    def path(self, text: str) -> str:
        return self.paint(text, BOLD)

    def severity(self, level: Severity, text: str) -> str:
        return self.paint(text, SEVERITY[level])

    def gutter(self, text: str) -> str:
        return self.paint(text, GUTTER)

    def note(self, text: str) -> str:
        return self.paint(text, NOTE)

    def note_caret(self, text: str) -> str:
        return self.paint(text, NOTE_CARET)


PLAIN = Style()
