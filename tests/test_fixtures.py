"""The behaviour suite: every fixture and example checked by ``boxcheck verify``, one test per file.

A fixture states its expected storages, allocations and diagnostics inline
(docs/expectations.md); a failure here names the file and prints each
mismatching line.  Known-wrong answers (``BAD:``) do not fail, but a marker
that the tool has outgrown does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from capture_analysis.batch.files import collect
from capture_analysis.batch.loading import load
from capture_analysis.expectations.check import verify_path
from capture_analysis.expectations.reader import parse_annotations
from capture_analysis.source import SourceFile

from .conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
SUITE = [Path(p) for p in collect([str(FIXTURES)]).files]


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SUITE, ids=relative)
def test_fixture(path: Path):
    result = verify_path(str(path))
    problems = [*result.errors, *map(str, result.failures)]
    assert not problems, "boxcheck verify " + relative(path) + ":\n" + "\n".join(problems)


@pytest.mark.parametrize("path", SUITE, ids=relative)
def test_fixture_states_something(path: Path):
    """A file without annotations would only check the reverse direction: say what it is about."""
    source = load(str(path))
    assert isinstance(source, SourceFile)
    assert parse_annotations(source).annotations, f"{relative(path)} has no //~ annotation"


def test_the_suite_covers_every_feature_with_many_behaviours():
    features = {p.parent.name for p in SUITE if FIXTURES in p.parents}
    assert {"writes", "loops", "hoisting", "shadowing", "types", "classes", "objects", "catch", "async",
            "nesting", "module", "eval", "escape", "grouping", "params"} <= features
    assert sum(1 for p in SUITE if FIXTURES in p.parents) >= 60


def test_the_annotations_quoted_in_the_docs_are_taken_from_real_fixtures():
    docs = (ROOT / "docs" / "expectations.md").read_text()
    quoted = [line.strip() for block in docs.split("```ts\n")[1:] for line in block.split("```")[0].splitlines()
              if "//~" in line]
    assert quoted
    suite = "\n".join(path.read_text() for path in SUITE)
    missing = [line for line in quoted if line not in suite]
    assert not missing, f"docs/expectations.md quotes annotations that no fixture has: {missing}"
