"""JavaScriptCore and SpiderMonkey share one environment per scope instance too (docs/retention.md).

BX107 says it is about engines that do; these tests run the shapes of the
docs' table in each engine whose shell is installed (``jsc`` from WebKitGTK,
``gjs`` for SpiderMonkey), and are skipped, with the reason, where none is.
The V8 side of the same table is ``tests/test_retention_v8.py``.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from .conftest import ROOT

ENGINES = ROOT / "tests" / "v8" / "other-engines"
#: what each engine does with each case: the catch parameter is V8's alone.
EXPECTED = {"basic": "kept", "uncaptured": "collected", "cleared": "collected", "innerBlock": "collected",
            "catchParameter": "collected", "usedItself": "kept"}


def script(tmp_path, driver: str) -> str:
    path = tmp_path / f"{driver}-all.js"
    path.write_text((ENGINES / "cases.js").read_text() + (ENGINES / driver).read_text())
    return str(path)


@pytest.mark.skipif(shutil.which("jsc") is None, reason="`jsc` (JavaScriptCore's shell) is not installed")
def test_javascriptcore_keeps_what_a_sibling_put_in_the_shared_environment(tmp_path):
    done = subprocess.run(["jsc", script(tmp_path, "jsc.js")], capture_output=True, text=True, timeout=120,
                          check=True)
    got = dict(part.split("=") for part in done.stdout.split())
    assert got == EXPECTED


@pytest.mark.skipif(shutil.which("gjs") is None, reason="`gjs` (SpiderMonkey's GNOME shell) is not installed")
def test_spidermonkey_keeps_what_a_sibling_put_in_the_shared_environment(tmp_path):
    path = script(tmp_path, "gjs.js")
    megabytes = {}
    for case in EXPECTED:
        done = subprocess.run(["gjs", path, case], capture_output=True, text=True, timeout=120, check=True)
        name, size = re.fullmatch(r"(\w+) (\d+)\s*", done.stdout).groups()
        megabytes[name] = int(size)
    floor = min(megabytes.values())
    got = {case: "kept" if size > floor + 48 else "collected" for case, size in megabytes.items()}
    assert got == EXPECTED
