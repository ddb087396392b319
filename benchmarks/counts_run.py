"""``--counts`` on the reference case's own workload: typescript 5.8.2, 200 ``transpileModule`` calls.

The audit of ``../shared/reference/004_*.txt`` counted 741,555 box cells allocated by the legacy compiler
in 200 ``transpileModule`` calls of TypeScript 5.8.2.  This part fetches that TypeScript from npm, runs the
same 200 calls on a one-line module under ``NODE_V8_COVERAGE`` with ``node --no-opt`` (exact call counts),
and asks boxcheck for the run's allocations under ``legacy`` and ``optimal`` from ``lib/typescript.js``
and that coverage: the prediction beside the audit's count.  ``target: ES2020`` is the compiler options
that reproduce the audit: with ``transpileModule``'s default target (ES5) the down-level transforms run
too and the prediction is 845,856.  It also times the analysis with and without ``--counts``, alternated,
so that the cost of reading the coverage is a measured share of the analysis.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .measure import Code, measure, median

VERSION = "5.8.2"
CALLS = 200
AUDIT = 741_555
WORKLOAD = ("const ts = require('typescript');\n"
            f"for (let i = 0; i < {CALLS}; i++) ts.transpileModule('export const x = 1;', "
            "{ compilerOptions: { target: ts.ScriptTarget.ES2020 } });\n")


def fetch(scratch: Path) -> Path:
    """``typescript@5.8.2`` installed from npm into ``scratch``; its ``lib/typescript.js``."""
    scratch.mkdir(parents=True, exist_ok=True)
    library = scratch / "node_modules" / "typescript" / "lib" / "typescript.js"
    if not library.is_file():
        (scratch / "package.json").write_text('{"name": "counts-bench", "private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", f"typescript@{VERSION}"],
                       cwd=scratch, check=True, capture_output=True, timeout=600)
    return library


def covered(scratch: Path) -> Path:
    coverage = scratch / "coverage"
    shutil.rmtree(coverage, ignore_errors=True)
    (scratch / "workload.js").write_text(WORKLOAD)
    subprocess.run(["node", "--no-opt", "workload.js"], cwd=scratch, check=True, capture_output=True, timeout=600,
                   env={**os.environ, "NODE_V8_COVERAGE": str(coverage)})
    return coverage


def run(scratch: Path, rounds: int, code: Code, log: Callable[[str], None]) -> dict[str, Any]:
    library = fetch(scratch)
    coverage = covered(scratch)
    base = [sys.executable, "-m", "capture_analysis", "--no-cache", "--format", "json", "--compare",
            "legacy,optimal", str(library)]
    times: dict[str, list[float]] = {"without": [], "with": []}
    measured: dict[str, Any] = {}
    for round_index in range(rounds):
        for name, argv in (("without", base), ("with", [*base, "--counts", str(coverage)])):
            result = measure(argv, cwd=code.root, capture=True, env=code.env)
            if result.returncode not in (0, 1):
                raise RuntimeError(f"boxcheck --counts failed:\n{result.stderr_tail}")
            times[name].append(result.cpu_seconds)
            if name == "with":
                measured = json.loads(result.stdout)["summary"]["measured"]
        log(f"counts: round {round_index + 1}: {times['without'][-1]:.1f} s without, {times['with'][-1]:.1f} s with")
    without, with_counts = median(times["without"]), median(times["with"])
    legacy, optimal = measured["allocations"]["legacy"], measured["allocations"]["optimal"]
    return {"typescript": VERSION, "calls": CALLS, "audit": AUDIT, "legacy": legacy, "optimal": optimal,
            "legacy_over_audit": legacy / AUDIT, "optimal_over_audit": optimal / AUDIT,
            "functions_matched": measured["functions_matched"],
            "functions_unmatched": measured["functions_unmatched"],
            "cpu_seconds": {"without": without, "with": with_counts},
            "counts_share": (with_counts - without) / without}
