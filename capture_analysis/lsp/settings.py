"""The server's settings: the project's configuration file, then what the editor says.

For each document, the configuration is the one the command line would use
for that file (``config.nearest``: ``boxcheck.toml`` or ``[tool.boxcheck]``
in ``pyproject.toml``, found by walking up from the file), so the editor
shows the same diagnostics as ``boxcheck FILE``.  The editor's settings
(``initializationOptions``, then ``workspace/didChangeConfiguration`` or
``workspace/configuration`` under the section ``boxcheck``) override the
file, key by key::

    {"policy": "optimal", "severity": {"BX103": "off"}, "debounceMs": 200, "maxFileSize": 20971520,
     "onSaveAboveMs": 1000, "counts": "/tmp/coverage"}

``counts`` is the editor's only: coverage of a run, as ``--counts`` takes it, shown in the hover.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import config as configuration
from ..batch.loading import DEFAULT_MAX_BYTES
from ..policies import POLICIES
from ..rules import Severity

SECTION = "boxcheck"
DEFAULT_DEBOUNCE_MS = 200
#: a debounce longer than this is a mistake, not a wish.
MAX_DEBOUNCE_MS = 10_000
#: a document whose analysis takes longer is analyzed on open and save, not on change: about the longest
#: wait after a pause in typing that still feels like "as you type".
DEFAULT_ON_SAVE_ABOVE_MS = 1000
#: an hour: in effect, "always on change".
MAX_ON_SAVE_ABOVE_MS = 3_600_000


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """What the editor set; ``None`` leaves the decision to the configuration file."""

    policy: str | None = None
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    max_file_size: int = DEFAULT_MAX_BYTES
    on_save_above_ms: int = DEFAULT_ON_SAVE_ABOVE_MS
    #: ``--counts`` for the hover: a V8 coverage directory or file (``lsp/measured``).
    counts: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything one analysis of one document depends on."""

    policy: str
    config: configuration.Config
    max_file_size: int
    #: the file is outside the configuration's ``include`` or inside its ``exclude``.
    excluded: bool = False
    #: when the document's analysis takes longer, it is analyzed on save only (``scheduler``).
    on_save_above_ms: int = DEFAULT_ON_SAVE_ABOVE_MS


def client_settings(raw: Any, previous: ClientSettings) -> tuple[ClientSettings, list[str]]:
    """Read the editor's ``boxcheck`` settings; a wrong value is reported and the previous one kept.

    ``raw`` may be the section itself or an object holding it under ``boxcheck``
    (``didChangeConfiguration`` sends either, depending on the editor).
    """
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        raw = raw[SECTION]
    if raw is None:
        return previous, []
    if not isinstance(raw, Mapping):
        return previous, [f"settings: expected an object, got {raw!r}"]
    problems: list[str] = []
    changes: dict[str, Any] = {}
    if "policy" in raw:
        policy = raw["policy"]
        if policy is None or policy in POLICIES:
            changes["policy"] = policy
        else:
            problems.append(f"settings: policy {policy!r} is not one of {', '.join(POLICIES)}")
    if "severity" in raw:
        try:
            table = raw["severity"] or {}
            if not isinstance(table, Mapping):
                raise configuration.ConfigError(f"settings: severity: expected an object, got {table!r}")
            changes["severity"] = configuration.parse_severity_table(table, "settings: severity")
        except configuration.ConfigError as error:
            problems.append(str(error))
    if "counts" in raw:
        counts = raw["counts"]
        if counts is None or (isinstance(counts, str) and counts):
            changes["counts"] = os.path.expanduser(counts) if counts else None
        else:
            problems.append(f"settings: counts must be the path of V8 coverage (a directory or a file), got {counts!r}")
    for key, name, low, high in (("debounceMs", "debounce_ms", 0, MAX_DEBOUNCE_MS),
                                 ("maxFileSize", "max_file_size", 1, None),
                                 ("onSaveAboveMs", "on_save_above_ms", 0, MAX_ON_SAVE_ABOVE_MS)):
        if key in raw:
            value = raw[key]
            whole = isinstance(value, int) and not isinstance(value, bool)
            if whole and value >= low and (high is None or value <= high):
                changes[name] = value
            else:
                bound = f"from {low} to {high}" if high is not None else f"at least {low}"
                problems.append(f"settings: {key} must be an integer {bound}, got {value!r}")
    return dataclasses.replace(previous, **changes), problems


class ConfigFiles:
    """The configuration file that governs each directory, cached until a configuration file changes."""

    def __init__(self) -> None:
        self.cache: dict[Path, configuration.Config | None] = {}

    def clear(self) -> None:
        self.cache.clear()

    def for_path(self, path: str) -> configuration.Config:
        """The configuration for a file; raises ``ConfigError`` for a broken file."""
        found = configuration.nearest(Path(os.path.abspath(path)).parent, self.cache)
        return found if found is not None else configuration.Config()


def resolve(path: str | None, files: ConfigFiles, client: ClientSettings) -> tuple[Settings, list[str]]:
    """The settings of one document (``path`` is None for an unsaved buffer: no file governs it)."""
    problems: list[str] = []
    found = configuration.Config()
    if path is not None:
        try:
            found = files.for_path(path)
        except configuration.ConfigError as error:
            problems.append(str(error))
    policy = client.policy or found.policy or "optimal"
    config = found.with_severity(client.severity)
    excluded = path is not None and config.excludes(path)
    return Settings(policy, config, client.max_file_size, excluded, client.on_save_above_ms), problems
