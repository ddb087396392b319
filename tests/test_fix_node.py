"""``--fix`` never changes what a program does: Node.js runs each program before and after, and V8's heap shows
that the bindings it moved into a block of their own are collected.

``tests/fixtures/fix/`` holds programs that print what their functions compute (closures over fixed and unfixed
declarations, loops, the dead zone, a hoisted ``var``, labels, a template literal across lines); the retention
fixtures are the BX107 cases whose objects ``tests/v8/retention.js`` watches in the heap.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.cli import main

from .conftest import NODE, ROOT, needs_node

PROGRAMS = sorted((ROOT / "tests" / "fixtures" / "fix").glob("*.mjs"))
RETENTION = sorted((ROOT / "tests" / "fixtures" / "retention").glob("*.mjs"))
HARNESS = ROOT / "tests" / "v8" / "retention.js"
CONST_ONLY = "a-let-that-nothing-reassigns-becomes-const-and-runs-the-same.mjs"


def fix(tree: Path) -> str:
    """``boxcheck --fix`` over ``tree``; what it says on standard error."""
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        main(["--no-cache", "--fix", str(tree)])
    return err.getvalue()


def run_node(*args: str, cwd: Path) -> str:
    assert NODE is not None
    return subprocess.run([NODE, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=True).stdout


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The programs and the retention fixtures as they are, and a copy fixed by ``--fix``."""
    before, after = tmp_path_factory.mktemp("before"), tmp_path_factory.mktemp("after")
    for path in [*PROGRAMS, *RETENTION]:
        shutil.copy2(path, before / path.name)
        shutil.copy2(path, after / path.name)
    assert "fixed" in fix(after)
    return before, after


@needs_node
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_the_fixed_program_prints_what_it_printed(trees, program):
    before, after = trees
    assert (before / program.name).read_text() != (after / program.name).read_text(), "nothing was fixed"
    printed = run_node(program.name, cwd=before)
    assert printed.strip() and run_node(program.name, cwd=after) == printed


def alive(tree: Path) -> dict[str, Counter[tuple[str, str]]]:
    """``file::function`` -> the watched objects alive after the call, by class and name."""
    files = sorted(path.name for path in tree.glob("*.mjs"))
    found = json.loads(run_node("--expose-gc", str(HARNESS), *files, cwd=tree))["alive"]
    return {call: Counter((o["class"], o["name"]) for o in objects) for call, objects in found.items()}


@needs_node
def test_v8_collects_what_the_moved_bindings_held_and_nothing_else_changes(trees):
    before, after = (alive(tree) for tree in trees)
    assert before.keys() == after.keys()
    moved = []
    for call, objects in before.items():
        kept = {key: count for key, count in objects.items() if key[0] == "Kept"}
        assert {key: count for key, count in after[call].items() if key[0] == "Kept"} == kept, call
        assert after[call] <= objects, f"{call}: alive after the fix, not before: {after[call] - objects}"
        if after[call] != objects:
            moved.append(call)
    fixed_text = {p.name for p in trees[1].glob("*.mjs") if p.read_text() != (trees[0] / p.name).read_text()}
    # every file whose text the fix changed, but the one whose fixes are all "declare as `const`"
    assert {call.split("::")[0] for call in moved} == fixed_text - {CONST_ONLY}
    assert "a-retained-binding-moves-into-a-block-of-its-own-and-runs-the-same.mjs::usedAfter" not in moved
    assert len(moved) >= 20
