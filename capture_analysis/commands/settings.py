"""``boxcheck --show-settings``: the settings a run would use, and where each comes from, as ruff prints them.

Each setting is a line of the configuration file's own syntax, with a
comment that names its source: ``default``, the configuration file, or the
command line.  The rules are shown resolved (``diagnose/selection``), one
``[severity]`` line per rule with ``off`` for a rule that does not run, and
the statement that decided it: so the output, pasted into ``boxcheck.toml``,
configures the same run.  With one file as the PATH, the rules are that
file's, its ``[[overrides]]`` applied; otherwise they are every file's before
the overrides, which are listed after them.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from urllib.parse import urlsplit

from .. import __version__
from ..batch.cache import DIRECTORY, disabled_by_environment
from ..config import DEFAULT_FAIL_ON, DEFAULT_POLICY, Config, Override
from ..rules import RULES

#: where the comments start, so that they line up.
COMMENT_COLUMN = 36


def line(text: str, comment: str) -> str:
    return f"{text.ljust(COMMENT_COLUMN - 1)} # {comment}"


def toml(value: object) -> str:
    """A string, or a list of strings, in TOML (JSON's quoting is TOML's for these)."""
    return json.dumps(value) if not isinstance(value, tuple) else json.dumps(list(value))


def source(settings: Config, on_command_line: object, in_file: object, option: str) -> str:
    if on_command_line is not None:
        return f"command line ({option})"
    return str(settings.path) if in_file is not None else "default"


def the_file(args: argparse.Namespace) -> str | None:
    """The one file whose rules are shown, with its overrides: the stdin name, or the only PATH if a file."""
    if args.stdin_filename is not None:
        return str(args.stdin_filename)
    if len(args.paths) == 1 and os.path.isfile(args.paths[0]):
        return str(args.paths[0])
    return None


def show_settings(args: argparse.Namespace, settings: Config) -> int:
    """Print; exit 0.  ``args`` are the command line as parsed; ``settings`` the configuration found, with the
    command line's rule options."""
    file = the_file(args)
    above = f"above {', '.join(args.paths) or args.stdin_filename}"
    where = "given by --config" if args.config is not None else f"found {above}"
    out = [f"# boxcheck {__version__}: the settings of this run, and where each comes from",
           f"# configuration file: {settings.path} ({where})" if settings.path is not None else
           f"# configuration file: none found {above}",
           line(f"policy = {toml(args.policy or settings.policy or DEFAULT_POLICY)}",
                source(settings, args.policy, settings.policy, "--policy")),
           line(f"fail-on = {toml(args.fail_on or settings.fail_on or DEFAULT_FAIL_ON)}",
                source(settings, args.fail_on, settings.fail_on, "--fail-on")),
           line(f"include = {toml(settings.include)}", source(settings, None, settings.include or None, "")),
           line(f"exclude = {toml(settings.exclude)}", source(settings, None, settings.exclude or None, "")),
           docs_url(args, settings),
           cache(args, settings),
           "",
           f"# each rule's level in {file} (off: it does not run), and what decided it" if file is not None else
           "# each rule's level (off: it does not run), and what decided it"
           + ("; then [[overrides]]" if settings.overrides else ""),
           "[severity]"]
    for code, setting in settings.rules_for(file).items():
        level = "off" if setting.level is None else setting.level.label
        out.append(line(f"{code} = {toml(level)}", f"{RULES[code].name}: {setting.why()}"))
    out.extend(["", *retention(settings)])
    for override in settings.overrides:
        applied = file is not None and override in settings.overrides_for(file)
        out.extend(["", line("[[overrides]]", f"{settings.path}" + (f": applied above, to {file}" if applied else ""))])
        out.extend(override_lines(override))
    print("\n".join(out))
    return 0


def retention(settings: Config) -> list[str]:
    """``[retention]``: the project's entries, on top of the lists shipped with boxcheck."""
    if not (settings.run_and_drop or settings.keeps):
        return ["# [retention]: no entries of the project's; the lists shipped with boxcheck (default)"]
    return ["[retention]", line(f"run-and-drop = {toml(settings.run_and_drop)}", str(settings.path)),
            line(f"keeps = {toml(settings.keeps)}", str(settings.path))]


def docs_url(args: argparse.Namespace, settings: Config) -> str:
    """What the outputs link, as ``report/sarif`` and ``report/lsp`` decide it: a SARIF log is read on another
    machine (a code-scanning page), so it links no page of this one."""
    url = args.docs_url or settings.docs_url
    if url is None:
        return ("# docs-url: not set: lsp output links the rules page inside the package (a file:// URI); sarif "
                "output links no page, with no helpUri (default)")
    where = source(settings, args.docs_url, settings.docs_url, "--docs-url")
    if urlsplit(url).scheme == "file":
        where += "; lsp output links it, sarif output links no page (a file: URL), with no helpUri"
    return line(f"docs-url = {toml(url)}", where)


def cache(args: argparse.Namespace, settings: Config) -> str:
    """Where the cache is, which follows from the configuration file's place (not a key of the file)."""
    if args.no_cache or disabled_by_environment():
        return "# cache: off (--no-cache, or BOXCHECK_NO_CACHE in the environment)"
    if args.cache_dir is not None:
        return f"# cache: {args.cache_dir} (command line (--cache-dir))"
    beside = "beside the configuration file" if settings.root is not None else "in the working directory"
    return f"# cache: {(settings.root or Path.cwd()) / DIRECTORY} (default: {beside})"


def override_lines(override: Override) -> list[str]:
    out = [f"files = {toml(override.files)}"]
    if override.changes.ignore:
        out.append(f"ignore = {toml(override.changes.ignore)}")
    if override.changes.severity:
        levels = ", ".join(f"{code} = {toml('off' if level is None else level.label)}"
                           for code, level in override.changes.severity)
        out.append(f"severity = {{ {levels} }}")
    return out
