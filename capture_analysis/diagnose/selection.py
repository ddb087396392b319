"""Which rules run, and at what severity: the catalogue's defaults changed by layers of settings, as ruff does.

A *selector* names rules: a code (``BX101``), a rule name (``heap-capture``),
a code prefix (``BX1``: every BX1xx rule) or ``ALL``.  A *layer* is what one
source says about the rules: the configuration file, the command line, a
per-file override.  Layers apply in that order, each on what the one before
left:

- ``select`` starts the layer over: only the rules it names are on (a rule
  that is off by default, too, when named);
- ``ignore`` turns rules off;
- ``severity`` sets one rule's level, which also turns it on; ``off`` turns
  it off.

Within a layer, ``select`` and ``ignore`` apply from the least specific
selector to the most specific (``ALL``, then ``BX``, ``BX1``, then a whole
code or name), ``ignore`` after ``select`` at the same specificity, and
``severity`` last: so ``select = ["BX1"]`` with ``ignore = ["BX1"]`` runs
nothing, and ``ignore = ["BX1"]`` with ``select = ["BX101"]`` runs BX101.
A rule's level stays what the last layer that set it said, whichever layer
turned the rule on: ``--select BX1`` does not undo the file's ``BX101 = "info"``.

``levels`` is what ``shown`` applies: code -> level, or ``None`` for off,
for the rules whose level a layer set, those turned off, and those off by
default that a selection turned on.  A rule the map does not name is as
the catalogue says (on or off), and each of its findings keeps the
severity it was made with (BX107 makes some at a higher tier than its
default).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from ..rules import RULES, Severity

ALL = "ALL"
PREFIX = re.compile(r"^BX\d{0,2}$")
DEFAULT = "default"
#: how a level may be written: the severities, ``off``, and ``warn`` for ``warning`` (as ESLint writes it).
OFF = "off"
LEVELS: dict[str, Severity | None] = {**{s.label: s for s in sorted(Severity, reverse=True)}, OFF: None}
ALIASES = {"warn": "warning"}


def level_name(text: str) -> str:
    """A level as written (any case, ``warn``) -> its name in ``LEVELS``; unknown text comes back lower-cased."""
    lower = text.strip().lower()
    return ALIASES.get(lower, lower)


def rule_code(text: str) -> str:
    """A rule's code from its code (any case) or its name; ``ValueError`` for anything else."""
    wanted = text.strip()
    if wanted.upper() in RULES:
        return wanted.upper()
    for rule in RULES.values():
        if rule.name == wanted.lower():
            return rule.code
    raise ValueError(f"unknown rule {text!r}; the rules: {known()}")


def known() -> str:
    return ", ".join(f"{rule.code} {rule.name}" for rule in RULES.values())


def selector(text: str) -> str:
    """A selector, normalized (codes and prefixes upper-case, names lower-case); ``ValueError`` if it names
    no rule, so that a typo is an error, not a selection of nothing."""
    wanted = text.strip()
    if wanted.upper() == ALL:
        return ALL
    if PREFIX.match(wanted.upper()):
        if not any(code.startswith(wanted.upper()) for code in RULES):
            raise ValueError(f"the prefix {text!r} matches no rule; the rules: {known()}")
        return wanted.upper()
    try:
        code = rule_code(wanted)
    except ValueError:
        raise ValueError(f"{text!r} is not a rule code (BX101), a code prefix (BX1), a rule name (heap-capture) "
                         f"or ALL; the rules: {known()}") from None
    return wanted.upper() if wanted.upper() == code else wanted.lower()


def selectors(texts: Iterable[str]) -> tuple[str, ...]:
    """Selectors from comma-separated lists (``--select BX1,BX002``), normalized, each once, in order."""
    found = [selector(part) for text in texts for part in text.split(",") if part.strip()]
    return tuple(dict.fromkeys(found))


def codes(selected: str) -> list[str]:
    if selected == ALL:
        return list(RULES)
    if PREFIX.match(selected):
        return [code for code in RULES if code.startswith(selected)]
    return [rule_code(selected)]


def specificity(selected: str) -> int:
    """``ALL`` < ``BX`` < ``BX1`` < ``BX10`` < a whole code or a name."""
    if selected == ALL:
        return 0
    return len(selected) if PREFIX.match(selected) else len("BX000")


@dataclass(frozen=True, slots=True)
class RuleChanges:
    """What one source says about the rules (a layer)."""

    #: where it comes from, as ``--show-settings`` names it: a file (and its table), or the command line.
    source: str
    #: ``None``: this source selects nothing, and the rules on before it stay on.
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    #: (code, level), ``None`` for ``off``; applied after ``select`` and ``ignore``.
    severity: tuple[tuple[str, Severity | None], ...] = ()
    #: how the keys are spelt in this source: ``--`` on the command line, nothing in a file.
    key_prefix: str = ""

    def says_something(self) -> bool:
        return self.select is not None or bool(self.ignore) or bool(self.severity)

    def statement(self, key: str, what: str) -> str:
        return f"{self.source}: {self.key_prefix}{key} {what}"


@dataclass(frozen=True, slots=True)
class RuleSetting:
    """One rule's resolution, and which statement decided each half of it (for ``--show-settings``)."""

    level: Severity | None
    #: the statement that turned it on or off (``default`` when none did).
    switched_by: str
    #: the statement that set its level (``default`` when none did).
    level_by: str

    def why(self) -> str:
        if self.level is None or self.switched_by == self.level_by or self.level_by == DEFAULT:
            return self.switched_by
        if self.switched_by == DEFAULT:
            return f"level: {self.level_by}"
        return f"{self.switched_by}; level: {self.level_by}"


def resolve(layers: Sequence[RuleChanges]) -> dict[str, RuleSetting]:
    """Every rule, in code order, after the layers in order."""
    on = {code: rule.enabled for code, rule in RULES.items()}
    switched_by = dict.fromkeys(RULES, DEFAULT)
    level = {code: rule.severity for code, rule in RULES.items()}
    level_by = dict.fromkeys(RULES, DEFAULT)
    for layer in layers:
        steps = [(specificity(s), 0, True, s) for s in layer.select or ()]
        steps += [(specificity(s), 1, False, s) for s in layer.ignore]
        if layer.select is not None:
            for code in on:
                on[code] = False
                switched_by[code] = layer.statement("select", "(not named)")
        for _, _, selecting, selected in sorted(steps):
            for code in codes(selected):
                on[code] = selecting
                switched_by[code] = layer.statement("select" if selecting else "ignore", selected)
        for code, value in layer.severity:
            statement = layer.statement("severity", f"{code}={OFF if value is None else value.label}")
            on[code] = value is not None
            switched_by[code] = statement
            if value is not None:
                level[code], level_by[code] = value, statement
    return {code: RuleSetting(level[code] if on[code] else None, switched_by[code], level_by[code])
            for code in sorted(RULES)}


@cache
def levels(layers: tuple[RuleChanges, ...]) -> dict[str, Severity | None]:
    """The map ``shown`` applies (see above); the same few layer tuples recur for every file of a run, hence
    the cache (callers must not change the map)."""
    out: dict[str, Severity | None] = {}
    for code, setting in resolve(layers).items():
        enabled = RULES[code].enabled
        if (setting.level is None and enabled) or (setting.level is not None and
                                                   (setting.level_by != DEFAULT or not enabled)):
            out[code] = setting.level
    return out
