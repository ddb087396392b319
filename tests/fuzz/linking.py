"""A generated program split into files (DESIGN 2.2.1): its helpers exported by one module, imported by the other.

Node runs the one-file print (``Program.render``): an import binds the very
function the module declares, so splitting changes what boxcheck must read
(the helpers' summaries, across files), not what the program does.  The
helpers reach the program four ways: imported from their module, through
an ``export *`` of another, renamed by an ``export { ... as ... } from``,
and as members of a namespace import (``h.hKeep(...)``), which calls each
helper with the namespace as ``this``: no helper reads ``this``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

from capture_analysis.cli import main

from .helpers import prelude
from .model import TS
from .program import Program

SHAPES = ("direct", "star", "renamed", "namespace")
DECLARED = re.compile(r"^(?:async )?(?:function\*? |let |const )(\w+)", re.MULTILINE)


def split(program: Program, shape: str) -> dict[str, str]:
    """The files of ``program`` (``main.ts`` holds its own functions), by name."""
    helpers = "\n".join(prelude(program.helpers))
    names = DECLARED.findall(helpers)
    saved = program.helpers
    program.helpers = set()
    try:
        body = program.render(TS).removeprefix('"use strict";\n')
    finally:
        program.helpers = saved
    files = {"helpers.ts": DECLARED.sub(lambda m: "export " + m.group(0), helpers) + "\n"}
    if shape == "namespace":
        files["main.ts"] = 'import * as h from "./helpers";\n' + re.sub(
            rf"(?<![\w$.])({'|'.join(names)})(?![\w$])", r"h.\1", body) if names else body
        return files
    if shape == "direct":
        specifier, imported = "./helpers", ", ".join(names)
    elif shape == "star":
        files["index.ts"] = 'export * from "./helpers";\n'
        specifier, imported = "./index", ", ".join(names)
    else:
        files["index.ts"] = f'export {{ {", ".join(f"{n} as {n}_" for n in names)} }} from "./helpers";\n'
        specifier, imported = "./index", ", ".join(f"{n}_ as {n}" for n in names)
    files["main.ts"] = (f'import {{ {imported} }} from "{specifier}";\n' if names else "") + body
    return files


def storages(folder: Path, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    """``main.ts``'s bindings, name -> (storage, reason), as ``boxcheck FOLDER --format json`` decides them."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main([str(folder), "--format", "json", "--no-cache", "--quiet", "--jobs", "1"])
    assert status in (0, 1), out.getvalue()
    report = json.loads(out.getvalue())
    [record] = [f for f in report["files"] if f["path"].endswith("main.ts")]
    return {b["name"]: (b["storage"], b["reason"]) for b in record["bindings"]}
