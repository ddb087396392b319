"""V8's heap as the oracle of BX107 context-retention (docs/retention.md).

``tests/v8/retention.js`` calls every exported function of the fixtures of
``tests/fixtures/retention/`` once in Node, keeps only what it hands out (the
escaping closures), collects, and reads a heap snapshot: which watched objects
are still alive, and whether a context retains each.  A fixture makes every
watched object with ``new Leak(name)`` (no closure that is kept uses it) or
``new Kept(name)`` (one does), ``name`` being the binding that holds it.

The check, per function: boxcheck reports a binding exactly when V8 keeps its
``Leak`` object alive; every watched object alive is retained by a context;
and no ``Kept`` object is reported.  The same fixtures carry inline
expectations, which ``tests/test_fixtures.py`` checks as usual.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.model import Closure

from .conftest import NODE, ROOT, needs_node

HARNESS = ROOT / "tests" / "v8" / "retention.js"
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "retention").glob("*.mjs"))
EXPORTED = re.compile(r"^export (?:async )?function\*? ?(\w+)", re.MULTILINE)
CALLS = [(path, name) for path in FIXTURES for name in EXPORTED.findall(path.read_text(encoding="utf-8"))]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.fixture(scope="module")
def alive() -> dict[str, list[dict]]:
    """``path::function`` -> the watched objects alive after the call, as V8's heap shows them."""
    assert NODE is not None
    done = subprocess.run([NODE, "--expose-gc", str(HARNESS), *map(relative, FIXTURES)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)["alive"]


def reported(path: Path, function: str) -> set[str]:
    """The bindings reported in the exported function and the functions nested in it (a constructor or a
    method of a class it defines): the objects its call makes."""
    analysis = analyze_text(relative(path), path.read_text(encoding="utf-8"))
    return {retention.binding.name for report in analysis.functions if within(report.closure, function)
            for retention in report.retentions}


def within(closure: Closure | None, function: str) -> bool:
    while closure is not None and not closure.is_module:
        if closure.name == function and closure.parent is not None and closure.parent.is_module:
            return True
        closure = closure.parent
    return False


@needs_node
@pytest.mark.parametrize(("path", "function"), CALLS, ids=[f"{p.name}::{f}" for p, f in CALLS])
def test_a_binding_is_reported_exactly_when_v8_keeps_its_object_for_nothing(alive, path, function):
    objects = alive[f"{relative(path)}::{function}"]
    assert all(o["context"] for o in objects), f"alive, but not through a context: {objects}"
    leaking = {o["name"] for o in objects if o["class"] == "Leak"}
    assert reported(path, function) == leaking


@needs_node
def test_the_oracle_sees_both_sides(alive):
    """A harness that saw nothing alive (or everything) would pass the test above for the wrong reason."""
    classes = [(o["class"], bool(o["context"])) for objects in alive.values() for o in objects]
    assert ("Leak", True) in classes and ("Kept", True) in classes
    assert any(not objects for objects in alive.values())
    assert {f"{relative(path)}::{name}" for path, name in CALLS} <= set(alive)


def test_the_fixtures_cover_the_cases_of_the_issue():
    names = {name for _, name in CALLS}
    assert {"make", "notCaptured", "usesItItself", "innerBlockOuterClosure", "outerBindingInnerClosure",
            "loopIteration", "grand", "classMethod", "classField", "objectMethod", "asyncFactory",
            "generatorFactory", "clearedBeforeReturn", "siblingEscapesToo", "caught"} <= names


FIXES = ROOT / "tests" / "fixtures" / "retention" / "each-documented-fix-lets-the-object-be-collected.mjs"
LEAK = ROOT / "tests" / "fixtures" / "retention" / \
    "a-sibling-closure-puts-a-binding-in-the-context-the-escaping-closure-holds.mjs"


@needs_node
@pytest.mark.parametrize("function", EXPORTED.findall(FIXES.read_text(encoding="utf-8")))
def test_each_documented_fix_lets_v8_collect_the_object(alive, function):
    """The fixes of docs/retention.md, each applied to the leak of ``make``: V8 collects ``big``."""
    assert alive[f"{relative(LEAK)}::make"], "the unfixed leak must be alive, or the fixes prove nothing"
    assert "big" not in {o["name"] for o in alive[f"{relative(FIXES)}::{function}"]}
    assert "big" not in reported(FIXES, function)


@needs_node
@pytest.mark.parametrize("flags", [["--always-sparkplug"], ["--maglev", "--always-osr"], ["--always-turbofan"],
                                   ["--jitless"]], ids=" ".join)
def test_v8s_tiers_keep_the_same_objects(alive, flags):
    """Compiled by another tier from the first call on, every factory keeps exactly what the interpreter
    keeps (docs/retention.md): the context layout is fixed by the scope analysis, not by the compiler."""
    assert NODE is not None
    done = subprocess.run([NODE, "--expose-gc", *flags, str(HARNESS), *map(relative, FIXTURES)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(done.stdout)["alive"] == alive
