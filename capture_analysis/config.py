"""Configuration: ``boxcheck.toml``, or ``[tool.boxcheck]`` in ``pyproject.toml``.

The file is found by walking up from the analyzed paths (``--config``
names one instead); in each directory ``boxcheck.toml`` wins over
``pyproject.toml``, and a ``pyproject.toml`` without ``[tool.boxcheck]`` is
passed over.  Command-line options override the file.  A mistake in the
file (an unknown key, a wrong type, an unknown code or policy) is an error
that names the file and the key: a misspelt ``exculde`` must not silently
analyze everything.

    policy = "optimal"
    fail-on = "warning"
    include = ["src/**/*.ts"]          # gitignore-style, relative to the file's directory
    exclude = ["src/generated/"]
    docs-url = "https://example.org/boxcheck/rules.html"   # where LSP and SARIF output link each rule
    select = ["BX"]                    # which rules run (``diagnose/selection``): codes, names, prefixes
    ignore = ["BX106"]
    [severity]                         # [tool.boxcheck.severity] in pyproject.toml
    BX103 = "info"
    dynamic-scope = "off"
    [[overrides]]                      # the files it matches: rules turned off or to another level
    files = ["tests/**"]
    ignore = ["heap-capture"]

The rules a file gets are a stack of layers: this file's, the command line's,
then those of the overrides that match the file (``Config.layers``).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import sys
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .diagnose import selection
from .diagnose.selection import LEVELS, RuleChanges, RuleSetting
from .policies import POLICIES
from .rules import Severity

if TYPE_CHECKING:
    import pathspec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, published separately for 3.10
    import tomli as tomllib

CONFIG_FILE = "boxcheck.toml"
PYPROJECT = "pyproject.toml"
DEFAULT_POLICY = "optimal"
DEFAULT_FAIL_ON = "warning"
FAIL_ON_VALUES = (*(s.label for s in sorted(Severity, reverse=True)), "none")
KEYS = ("policy", "fail-on", "include", "exclude", "select", "ignore", "severity", "overrides", "docs-url",
        "retention")
#: the keys of ``[retention]``: what a project's own calls do with the functions passed to them (BX107).
RETENTION_KEYS = ("run-and-drop", "keeps")
OVERRIDE_KEYS = ("files", "ignore", "severity")
COMMAND_LINE = "command line"
#: what the command line says when it says nothing about the rules.
NO_RULE_OPTIONS = RuleChanges(COMMAND_LINE, key_prefix="--")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Override:
    """``[[overrides]]``: rules turned off or to another level in the files that match ``files``."""

    #: gitignore-style patterns, relative to the configuration file's directory, as ``include``.
    files: tuple[str, ...]
    changes: RuleChanges


@dataclass(frozen=True, slots=True)
class Config:
    #: the file it came from; ``None`` when there is none.
    path: Path | None = None
    policy: str | None = None
    fail_on: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: code -> severity; ``None`` turns the rule off.
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    #: the page that diagnostics link to (``Rule.href``); ``None``: the page inside the package.
    docs_url: str | None = None
    #: ``[retention]``: the project's entries (``retention/callees``), added to the shipped lists.
    run_and_drop: tuple[str, ...] = ()
    keeps: tuple[str, ...] = ()
    #: selectors (``diagnose/selection``); ``None``: the rules on by default.
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    overrides: tuple[Override, ...] = ()
    #: ``--select``, ``--ignore`` and ``--severity``, which apply after the file and before its overrides.
    command_line: RuleChanges = NO_RULE_OPTIONS

    @property
    def root(self) -> Path | None:
        return Path(os.path.abspath(self.path)).parent if self.path is not None else None

    def relative(self, path: str) -> str | None:
        """``path`` relative to the configuration's directory, as patterns match it; ``None`` outside it."""
        root = self.root
        if root is None:
            return None
        relative = os.path.relpath(os.path.abspath(path), root)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return None
        return relative.replace(os.sep, "/")

    def excludes(self, path: str) -> bool:
        """Is a file outside ``include`` or inside ``exclude``?  Files outside the config's directory are kept."""
        if not (self.include or self.exclude) or (relative := self.relative(path)) is None:
            return False
        if self.include and not patterns(self.include).match_file(relative):
            return True
        return bool(self.exclude) and patterns(self.exclude).match_file(relative)

    def with_severity(self, overrides: Mapping[str, Severity | None]) -> Config:
        return dataclasses.replace(self, severity={**self.severity, **overrides})

    def with_command_line(self, changes: RuleChanges) -> Config:
        return dataclasses.replace(self, command_line=changes)

    def layers(self, path: str | None = None) -> tuple[RuleChanges, ...]:
        """What decides the rules of a file at ``path`` (of every file, for ``None``), in the order they apply."""
        own = RuleChanges(str(self.path), self.select, self.ignore, tuple(self.severity.items()), table(self.path))
        return (own, self.command_line, *(override.changes for override in self.overrides_for(path)))

    def overrides_for(self, path: str | None) -> tuple[Override, ...]:
        """The ``[[overrides]]`` whose ``files`` match ``path``, in the file's order."""
        if path is None or not self.overrides or (relative := self.relative(path)) is None:
            return ()
        return tuple(override for override in self.overrides if patterns(override.files).match_file(relative))

    def severities_for(self, path: str | None) -> Mapping[str, Severity | None]:
        """Every rule's level in the file at ``path``, ``None`` for off: what ``diagnose.shown`` applies."""
        return selection.levels(self.layers(path))

    def rules_for(self, path: str | None = None) -> dict[str, RuleSetting]:
        """As ``severities_for``, with what decided each rule (``--show-settings``)."""
        return selection.resolve(self.layers(path))

    def rules_identity(self) -> list[object]:
        """What of the configuration decides any file's findings, as JSON data for the cache key: the levels
        before any override, and the overrides with the directory their patterns are relative to."""
        levels = [[code, None if level is None else level.label] for code, level in self.severities_for(None).items()]
        overrides = [[o.files, o.changes.ignore, [[code, None if level is None else level.label]
                                                 for code, level in o.changes.severity]] for o in self.overrides]
        return [levels, str(self.root) if overrides else None, overrides]


@cache
def patterns(globs: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    import pathspec  # only for a configuration with patterns: the import costs 60 ms of a run's start

    return pathspec.GitIgnoreSpec.from_lines(globs)


def table(path: Path | None) -> str:
    """How the keys of a configuration file are named in messages: ``tool.boxcheck.`` in ``pyproject.toml``."""
    return "tool.boxcheck." if path is not None and path.name == PYPROJECT else ""


def parse_level(code: str, value: object, where: str) -> tuple[str, Severity | None]:
    """One ``CODE = "level"`` of a severity table: the code (a rule name is accepted too) and the level."""
    try:
        rule = selection.rule_code(code)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from error
    if not isinstance(value, str) or selection.level_name(value) not in LEVELS:
        raise ConfigError(f"{where}.{code}: {value!r} is not one of {', '.join(LEVELS)}")
    return rule, LEVELS[selection.level_name(value)]


def parse_severity_table(value: object, where: str) -> dict[str, Severity | None]:
    """``[severity]``, an override's ``severity``, or the editor's ``severity`` object."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a table of CODE = \"{'|'.join(LEVELS)}\"")
    return dict(parse_level(code, level, where) for code, level in value.items())


def parse_selectors(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of rule codes, names or prefixes, got {value!r}")
    try:
        return selection.selectors(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from error


def parse_overrides(value: object, path: Path, prefix: str) -> tuple[Override, ...]:
    """``[[overrides]]``: each needs ``files``; each says ``ignore`` or ``severity`` (or both)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{path}: {prefix}overrides: expected an array of tables ([[overrides]])")
    found = []
    for index, entry in enumerate(value):
        name = f"{prefix}overrides[{index}]."
        where = f"{path}: {name}"
        unknown = [key for key in entry if key not in OVERRIDE_KEYS]
        if unknown:
            raise ConfigError(f"{where}{unknown[0]}: unknown key; known keys: {', '.join(OVERRIDE_KEYS)}")
        files = entry.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            raise ConfigError(f"{where}files: expected a non-empty list of glob strings, got {files!r}")
        changes = RuleChanges(str(path), None, parse_selectors(entry.get("ignore", []), f"{where}ignore"),
                              tuple(parse_severity_table(entry.get("severity", {}), f"{where}severity").items()),
                              name)
        if not changes.says_something():
            raise ConfigError(f"{where[:-1]}: says nothing: give ignore or severity")
        found.append(Override(tuple(files), changes))
    return tuple(found)


def from_table(table: Mapping[str, Any], path: Path, prefix: str) -> Config:
    """Validate one ``[tool.boxcheck]`` table (``prefix`` is how its keys are named in messages)."""
    where = f"{path}: {prefix}"

    def strings(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}{key}: expected a list of glob strings, got {value!r}")
        return tuple(value)

    def choice(key: str, allowed: Iterable[str]) -> str | None:
        value = table.get(key)
        allowed = tuple(allowed)
        if key == "fail-on" and isinstance(value, str) and selection.level_name(value) in allowed:
            return selection.level_name(value)  # ``warn``, as ESLint writes it
        if value is not None and value not in allowed:
            raise ConfigError(f"{where}{key}: {value!r} is not one of {', '.join(allowed)}")
        return value

    unknown = [key for key in table if key not in KEYS]
    if unknown:
        raise ConfigError(f"{where}{unknown[0]}: unknown key; known keys: {', '.join(KEYS)}")
    severity = parse_severity_table(table.get("severity", {}), f"{where}severity")
    select = parse_selectors(table["select"], f"{where}select") if "select" in table else None
    ignore = parse_selectors(table.get("ignore", []), f"{where}ignore")
    overrides = parse_overrides(table.get("overrides", []), path, prefix)
    docs_url = table.get("docs-url")
    if docs_url is not None:
        try:
            docs_url = parse_docs_url(docs_url)
        except ValueError as error:
            raise ConfigError(f"{where}docs-url: {error}") from error
    run_and_drop, keeps = retention_lists(table.get("retention", {}), f"{where}retention")
    return Config(path, choice("policy", POLICIES), choice("fail-on", FAIL_ON_VALUES),
                  strings("include"), strings("exclude"), severity, docs_url, run_and_drop, keeps, select, ignore,
                  overrides)


def retention_lists(table: object, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``[retention] run-and-drop = [...]``, ``keeps = [...]``: entries as ``retention/callees`` reads them."""
    from .retention.callees import valid_entry

    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table with {' and '.join(RETENTION_KEYS)}")
    unknown = [key for key in table if key not in RETENTION_KEYS]
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}: unknown key; known keys: {', '.join(RETENTION_KEYS)}")
    lists = []
    for key in RETENTION_KEYS:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and valid_entry(v) for v in value):
            raise ConfigError(f"{where}.{key}: expected a list of calls such as \"forEach\", \".each\", "
                              f"\"ts.map\" or \"new Worker\", got {value!r}")
        lists.append(tuple(value))
    return lists[0], lists[1]


def parse_docs_url(value: object) -> str:
    """An absolute URL without a fragment: each rule's link is the URL and ``#`` and the rule's anchor."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a URL, got {value!r}")
    parts = urllib.parse.urlsplit(value.strip())
    if not parts.scheme or not (parts.netloc or parts.path):
        raise ValueError(f"{value!r} is not an absolute URL (such as https://example.org/boxcheck/rules.html)")
    if parts.fragment:
        raise ValueError(f"{value!r} has a fragment; give the page, each rule's link adds #code-name to it")
    return value.strip()


def read(path: Path) -> Config | None:
    """The configuration in ``path``; ``None`` for a ``pyproject.toml`` without ``[tool.boxcheck]``."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    if path.name == PYPROJECT:
        tool = document.get("tool", {})
        if not isinstance(tool, dict) or "boxcheck" not in tool:
            return None
        if not isinstance(tool["boxcheck"], dict):
            raise ConfigError(f"{path}: tool.boxcheck: expected a table")
        return from_table(tool["boxcheck"], path, "tool.boxcheck.")
    return from_table(document, path, "")


def start_directory(argument: str) -> Path:
    """Where the walk up starts for one PATH argument (a glob starts at its fixed prefix)."""
    if glob.has_magic(argument):
        fixed = []
        for part in Path(argument).parts:
            if glob.has_magic(part):
                break
            fixed.append(part)
        argument = os.path.join(*fixed) if fixed else os.curdir
        return Path(os.path.abspath(argument))
    absolute = Path(os.path.abspath(argument))
    return absolute if absolute.is_dir() else absolute.parent


def nearest(directory: Path, cache: dict[Path, Config | None]) -> Config | None:
    visited = []
    config = None
    for candidate in (directory, *directory.parents):
        if candidate in cache:
            config = cache[candidate]
            break
        visited.append(candidate)
        found = None
        for name in (CONFIG_FILE, PYPROJECT):
            if (candidate / name).is_file():
                found = read(candidate / name)
                if found is not None:
                    break
        if found is not None:
            config = found
            break
    for candidate in visited:
        cache[candidate] = config
    return config


def discover(arguments: Iterable[str]) -> Config:
    """The one configuration of a run: every argument must lead to the same file (or to none)."""
    cache: dict[Path, Config | None] = {}
    found: dict[Path, Config] = {}
    for argument in arguments:
        config = nearest(start_directory(argument), cache)
        if config is not None and config.path is not None:
            found.setdefault(config.path, config)
    if len(found) > 1:
        raise ConfigError("the paths are governed by different configuration files ("
                          f"{', '.join(str(p) for p in found)}); analyze them in separate runs, or choose one "
                          "with --config")
    return next(iter(found.values()), Config())


def load(explicit: str | None, arguments: Iterable[str]) -> Config:
    """``--config FILE`` if given, else the file found above the arguments."""
    if explicit is None:
        return discover(arguments)
    path = Path(explicit)
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    config = read(path)
    if config is None:
        raise ConfigError(f"{path}: has no [tool.boxcheck] table")
    return config


def parse_override(text: str) -> tuple[str, Severity | None]:
    """``--severity BX103=info`` (or ``heap-capture=off``): one rule's level from the command line."""
    code, sep, value = text.partition("=")
    try:
        rule = selection.rule_code(code) if sep else None
    except ValueError:
        rule = None
    if rule is None or selection.level_name(value) not in LEVELS:
        raise ValueError(f"expected RULE=LEVEL with RULE a code or name ({selection.known()}) and LEVEL one of "
                         f"{', '.join(LEVELS)}, got {text!r}")
    return rule, LEVELS[selection.level_name(value)]
