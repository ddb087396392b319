"""``--counts``: allocations weighted by V8's precise coverage of a real run (DESIGN 2.7).

Every coverage file here is made by Node in the test, from the fixtures of ``tests/counts/``: no committed
coverage JSON stands in for what V8 writes.  ``--no-opt`` makes the call counts exact (V8 loses the calls of
functions its optimizing compiler inlines).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from .conftest import NODE, SCHEMA_PATH, needs_node

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ROOT / "tests" / "counts" / "shapes.js"
SHAPES_TS = ROOT / "tests" / "counts" / "shapes.ts"
TSC = ROOT / "tests" / "v8" / "node_modules" / "typescript" / "bin" / "tsc"
REFERENCE = ROOT.parent / "shared" / "reference" / "004_932beec85475fec3.txt"

pytestmark = needs_node


def covered(script: Path, directory: Path, *args: str, flags: tuple[str, ...] = ("--no-opt",)) -> Path:
    """Run ``script`` in Node with ``NODE_V8_COVERAGE=directory``; the directory is returned."""
    assert NODE is not None
    env = {**os.environ, "NODE_V8_COVERAGE": str(directory)}
    subprocess.run([NODE, *flags, str(script), *args], env=env, check=True, capture_output=True, timeout=120)
    return directory


def boxcheck(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capture_analysis", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def measured(*args: str) -> tuple[dict[str, dict], dict]:
    """Each measured function by name (``<kind>@line`` for an anonymous one), and ``summary.measured``."""
    done = boxcheck("--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    doc = json.loads(done.stdout)
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    functions = {}
    for file in doc["files"]:
        for function in file["functions"]:
            if "measured" in function:
                functions[function["name"] or f"<{function['kind']}>@{function['line']}"] = function["measured"]
    return functions, doc["summary"]["measured"]


def test_every_kind_of_function_is_matched_and_counted(tmp_path):
    coverage = covered(SHAPES, tmp_path / "cov", "3")
    functions, summary = measured("--counts", str(coverage), str(SHAPES))
    calls = {name: m["calls"] for name, m in functions.items()}
    assert calls == {
        "declared": 3, "arrow": 3,        # a declaration, an arrow
        "<arrow>@11": 3,                  # the arrow a class field's initializer calls, once per instance
        "static": 1,                      # a static block: once, when the class is defined
        "method": 3, "made": 3,           # a method, a static method (V8 starts it at its name)
        "size": 3,                        # a getter (V8 starts it at `get`)
        "looping": 3, "branching": 3,
        "neverCalled": 0,                 # compiled lazily and never run: V8 still reports it, with 0
    }
    assert functions["looping"] == {"calls": 3, "iterations": 12, "allocations": {"optimal": 12}}
    assert functions["branching"]["allocations"] == {"optimal": 0}  # its `if` block never ran
    assert functions["declared"]["allocations"] == {"optimal": 3}
    assert summary["functions_unmatched"] == 0 and summary["files_matched"] == 1
    assert summary["coverage_files"] == 1
    assert summary["allocations"] == {"optimal": sum(m["allocations"]["optimal"] for m in functions.values())}


def test_a_run_with_more_calls_counts_more(tmp_path):
    few = measured("--counts", str(covered(SHAPES, tmp_path / "few", "2")), str(SHAPES))[0]
    many = measured("--counts", str(covered(SHAPES, tmp_path / "many", "7")), str(SHAPES))[0]
    assert (few["method"]["calls"], many["method"]["calls"]) == (2, 7)
    assert (few["looping"]["iterations"], many["looping"]["iterations"]) == (8, 28)


def test_a_branch_that_ran_counts_under_a_policy_that_allocates_there(tmp_path):
    """``legacy`` allocates a box when the declaration runs: the `if` block's count, not the calls."""
    script = tmp_path / "branch.js"
    script.write_text("const kept = [];\n"
                      "function branching(n) {\n"
                      "  if (n > 2) {\n"
                      "    let m = n;\n"
                      "    kept.push(() => m++);\n"
                      "  }\n"
                      "}\n"
                      "for (let r = 0; r < 5; r++) branching(r);\n")
    functions, summary = measured("--compare", "legacy,optimal", "--counts", str(covered(script, tmp_path / "c")),
                                  str(script))
    assert functions["branching"] == {"calls": 5, "iterations": 0, "allocations": {"optimal": 2, "legacy": 2}}
    assert summary["allocations"] == {"optimal": 2, "legacy": 2}


def test_two_coverage_files_add_up(tmp_path):
    coverage = tmp_path / "cov"
    covered(SHAPES, coverage, "3")
    covered(SHAPES, coverage, "4")
    assert len(list(coverage.glob("coverage-*.json"))) == 2
    functions, summary = measured("--counts", str(coverage), str(SHAPES))
    assert functions["method"]["calls"] == 7
    assert functions["static"]["calls"] == 2  # the class was defined once in each process
    assert summary["coverage_files"] == 2
    one = next(coverage.glob("coverage-*.json"))
    alone, _ = measured("--counts", str(one), str(SHAPES))  # a single coverage file
    assert alone["method"]["calls"] in (3, 4)


def test_a_file_that_did_not_run_is_reported_not_guessed(tmp_path):
    other = tmp_path / "other.js"
    other.write_text("function f(n) { let a = n; return () => a++; }\nmodule.exports = f;\n")
    functions, summary = measured("--counts", str(covered(SHAPES, tmp_path / "cov")), str(SHAPES), str(other))
    assert "f" not in functions
    assert [entry["path"] for entry in summary["files_unmatched"]] == [str(other)]
    assert "did not run" in summary["files_unmatched"][0]["reason"]
    text = boxcheck("--counts", str(tmp_path / "cov"), str(other)).stdout
    assert f"not matched: {other}: did not run" in text


def test_coverage_of_another_version_of_the_file_is_reported_as_not_matching(tmp_path):
    copy = tmp_path / "shapes.js"
    shutil.copy(SHAPES, copy)
    coverage = covered(copy, tmp_path / "cov")
    copy.write_text(copy.read_text() + "function added(n) { let q = n; return () => q++; }\n")
    functions, summary = measured("--counts", str(coverage), str(copy))
    assert functions == {}
    assert summary["files_matched"] == 0
    assert "another version of the file" in summary["files_unmatched"][0]["reason"]


def test_the_inspector_result_is_read_as_well(tmp_path):
    """``Profiler.takePreciseCoverage``'s reply, as a program or a tool gets it over the inspector."""
    out = tmp_path / "precise.json"
    runner = tmp_path / "runner.js"
    runner.write_text(f"""
const inspector = require('inspector');
const fs = require('fs');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () => {{
  session.post('Profiler.startPreciseCoverage', {{callCount: true, detailed: true}}, () => {{
    process.argv[2] = '5';
    require({json.dumps(str(SHAPES))});
    session.post('Profiler.takePreciseCoverage', (error, reply) => {{
      fs.writeFileSync({json.dumps(str(out))}, JSON.stringify(reply));
    }});
  }});
}});
""")
    assert NODE is not None
    subprocess.run([NODE, "--no-opt", str(runner)], check=True, capture_output=True, timeout=120)
    functions, _ = measured("--counts", str(out), str(SHAPES))
    assert functions["made"]["calls"] == 5 and functions["looping"]["iterations"] == 20


def compile_ts(tmp_path: Path, *flags: str) -> Path:
    if not TSC.is_file():
        pytest.skip(f"TypeScript is not installed at {TSC} (`npm ci` in tests/v8)")
    assert NODE is not None
    subprocess.run([NODE, str(TSC), "--target", "es2022", "--module", "commonjs", *flags, "--outDir",
                    str(tmp_path / "out"), "--rootDir", str(SHAPES_TS.parent), str(SHAPES_TS)],
                   check=True, capture_output=True, timeout=300)
    return tmp_path / "out" / "shapes.js"


@pytest.mark.parametrize(("flags", "node_flags"), [
    (("--sourceMap",), ("--no-opt", "--enable-source-maps")),   # Node's source-map-cache in the coverage
    (("--sourceMap",), ("--no-opt",)),                          # the script's sourceMappingURL file
    (("--inlineSourceMap",), ("--no-opt",)),                    # an inline (data:) map
])
def test_typescript_is_weighted_by_the_run_of_its_compiled_javascript(tmp_path, flags, node_flags):
    compiled = compile_ts(tmp_path, *flags)
    coverage = covered(compiled, tmp_path / "cov", flags=node_flags)
    functions, summary = measured("--counts", str(coverage), str(SHAPES_TS))
    assert {name: m["calls"] for name, m in functions.items()} == {
        "declared": 5, "arrow": 5, "made": 5, "method": 5, "size": 5, "looping": 5}
    assert functions["looping"]["iterations"] == 10
    assert summary["functions_unmatched"] == 0 and summary["allocations"] == {"optimal": 35}


def seed_bench(tmp_path: Path) -> Path:
    """The reference case's ``bench.ts``, taken from the reference text (it is not copied into the project)."""
    if not REFERENCE.is_file():
        pytest.skip(f"the reference case is not at {REFERENCE} (it lives beside the project, in ../shared)")
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index("bench.ts:\n\n") + len("bench.ts:\n\n")
    bench = tmp_path / "bench.ts"
    bench.write_text(text[start:text.index("\n\nPERRY_NO_AUTO_OPTIMIZE", start)] + "\n")
    return bench


def test_the_seed_bench_box8_run_is_what_the_reference_compiler_counted(tmp_path):
    """``box8 1000``: 1.2 x N factory calls (warm-up and timed), 16 boxes each under ``legacy``, one context."""
    if not TSC.is_file():
        pytest.skip(f"TypeScript is not installed at {TSC} (`npm ci` in tests/v8)")
    bench = seed_bench(tmp_path)
    assert NODE is not None
    # the seed does not type-check without @types/node (`process`); tsc still writes the JavaScript
    subprocess.run([NODE, str(TSC), "--target", "es2022", "--module", "commonjs", "--sourceMap", "--outDir",
                    str(tmp_path / "out"), str(bench)], capture_output=True, timeout=300)
    coverage = covered(tmp_path / "out" / "bench.js", tmp_path / "cov", "box8", "1000",
                       flags=("--no-opt", "--enable-source-maps"))
    functions, summary = measured("--compare", "legacy,optimal", "--counts", str(coverage), str(bench))
    assert functions["box8"] == {"calls": 1200, "iterations": 0, "allocations": {"optimal": 1200, "legacy": 19200}}
    assert {name for name, m in functions.items() if m["calls"]} == {"box8"}  # the other variants did not run
    assert summary["allocations"] == {"optimal": 1200, "legacy": 19200}
    text = boxcheck("--compare", "legacy,optimal", "--counts", str(coverage), str(bench)).stdout
    assert "this run: `legacy` 19,200, `optimal` 1,200 (-94%) allocations" in text


def test_a_function_that_makes_most_of_the_run_is_a_warning_ranked_by_share(tmp_path):
    coverage = covered(SHAPES, tmp_path / "cov", "50")
    done = boxcheck("--counts", str(coverage), "--hot-min", "40", "--hot-share", "20", "--ignore", "BX102",
                    str(SHAPES))
    assert done.returncode == 1, done.stdout + done.stderr  # BX109 is a warning
    hot = [line for line in done.stdout.splitlines() if "[BX109]" in line]
    assert len(hot) == 1 and "`looping` made 200 allocations under `optimal`" in hot[0]
    assert "40% of the run's 501" in hot[0] and "50 calls and 200 loop iterations" in hot[0]
    ranking = done.stdout[done.stdout.index("functions that allocated most"):].splitlines()
    assert "looping" in ranking[1] and "200" in ranking[1]
    quiet = boxcheck("--counts", str(coverage), "--ignore", "BX102", str(SHAPES))  # default: 1,000 at least
    assert quiet.returncode == 0 and "BX109" not in quiet.stdout
    off = boxcheck("--counts", str(coverage), "--hot-min", "40", "--ignore", "BX102,BX109", str(SHAPES))
    assert off.returncode == 0 and "BX109" not in off.stdout


def test_sarif_carries_the_measured_counts(tmp_path):
    coverage = covered(SHAPES, tmp_path / "cov", "6")
    done = boxcheck("--format", "sarif", "--counts", str(coverage), "--hot-min", "1", "--hot-share", "30",
                    str(SHAPES))
    results = json.loads(done.stdout)["runs"][0]["results"]
    hot = [r for r in results if r["ruleId"] == "BX109"]
    assert [r["properties"]["measured"]["calls"] for r in hot] == [6]
    inside = [r for r in results if r["ruleId"] == "BX101" and "`method`" in r["message"]["text"]]
    assert inside and inside[0]["properties"]["measured"] == {"calls": 6, "iterations": 0,
                                                              "allocations": {"optimal": 6}}


def test_the_weights_are_the_same_from_workers_and_from_the_cache(tmp_path):
    """The coverage is read in the parent, over the records: ``--jobs`` workers and the cache hand back records
    whose probes weigh the same as the file analyzed here."""
    coverage = str(covered(SHAPES, tmp_path / "cov", "3"))
    args = ("--format", "json", "--counts", coverage, str(SHAPES), str(SHAPES_TS))
    alone = boxcheck(*args).stdout
    assert json.loads(alone)["summary"]["measured"]["functions_matched"] > 0
    assert boxcheck("--jobs", "2", *args).stdout == alone
    cached = ("--cache-dir", str(tmp_path / "cache"))
    with_cache = {k: v for k, v in os.environ.items() if k != "BOXCHECK_NO_CACHE"}  # conftest turns it off
    for _ in range(2):  # the first run fills the cache, the second reads it
        run = subprocess.run([sys.executable, "-m", "capture_analysis", *cached, *args], cwd=ROOT, env=with_cache,
                             capture_output=True, text=True, timeout=300)
        assert run.stdout == alone
    assert any((tmp_path / "cache").rglob("*")), "the second run had a cache to read"


def test_a_path_that_is_not_coverage_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "coverage"}')
    done = boxcheck("--counts", str(bad), str(SHAPES))
    assert done.returncode == 2 and "not V8 coverage" in done.stderr and done.stdout == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = boxcheck("--counts", str(empty), str(SHAPES))
    assert done.returncode == 2 and "no coverage files" in done.stderr
    missing = boxcheck("--counts", str(tmp_path / "missing.json"), str(SHAPES))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_the_language_server_shows_the_measured_counts_in_a_hover(start, tmp_path):
    """``boxcheck.counts``: the hover of a binding gives what the run made in its function; a buffer edited
    since the run is a version it did not see."""
    copy = tmp_path / "shapes.js"
    shutil.copy(SHAPES, copy)
    coverage = covered(copy, tmp_path / "cov", "4")
    text = copy.read_text()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"counts": str(coverage)})
    uri = copy.as_uri()
    client.open(uri, text)
    client.diagnostics(uri, version=1)
    line = text.splitlines().index(next(x for x in text.splitlines() if x.startswith("function looping")))
    column = text.splitlines()[line + 2].index("k = i")
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line + 2, "character": column}})
    value = hover["contents"]["value"]
    assert "Measured run (`boxcheck.counts`): **4** calls and **16** loop iterations, **16** allocations under " \
           "`optimal`" in value
    client.change(uri, 2, [{"text": text + "\n// edited\n"}])
    client.diagnostics(uri, version=2)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line + 2, "character": column}})
    assert "this file is not matched: the coverage in" in hover["contents"]["value"]
    assert "another version of the file" in hover["contents"]["value"]
