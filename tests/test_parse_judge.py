"""The parse judge over the fixtures and examples: TypeScript's own parser decides what is valid syntax.

Every fixture TypeScript parses without a diagnostic gets no BX001 and no
BX004 (the constructs of tests/fixtures/parsing/ included), and every one it
rejects (tests/fixtures/syntax-errors/) gets a BX001 on TypeScript's first
error line.  TypeScript is the version pinned in benchmarks/package-lock.json
(`cd benchmarks && npm ci`; `.ci/run` installs it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import parse_judge
from capture_analysis.batch.files import collect

from .conftest import NODE, ROOT

TYPESCRIPT = ROOT / "benchmarks" / "node_modules" / "typescript"
needs_typescript = pytest.mark.skipif(NODE is None or not TYPESCRIPT.is_dir(),
                                      reason="TypeScript's parser is not installed: cd benchmarks && npm ci")


@needs_typescript
def test_typescript_and_boxcheck_agree_on_which_fixtures_are_valid_syntax():
    found = collect([str(ROOT / "tests" / "fixtures"), str(ROOT / "examples")]).files
    names = sorted(str(Path(p).relative_to(ROOT)) for p in found)
    result = parse_judge.judge(ROOT, names, None)
    totals = result["totals"]
    assert totals["files"] == len(names) > 150
    rejected = sorted(e["path"] for e in result["files"] if e["typescript"])
    assert rejected == sorted(n for n in names if "/syntax-errors/" in n)
    assert totals["BX001 in files TypeScript accepts"] == 0, parse_judge.report(result)
    assert totals["BX004"] == 0, parse_judge.report(result)
    assert totals["files TypeScript rejects without BX001"] == 0
    assert totals["files whose first BX001 is on TypeScript's first error line"] == len(rejected), \
        parse_judge.report(result)
    assert totals["constructs the repairs find"] >= len(list((ROOT / "tests" / "fixtures" / "parsing").iterdir()))
