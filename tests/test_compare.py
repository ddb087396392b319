"""`--compare P1,P2[,...]`: one table per file in text, a `policies` object per function in JSON."""

from __future__ import annotations

import io
import json
import textwrap
from contextlib import redirect_stdout

import pytest

from capture_analysis.cli import main
from capture_analysis.compare import (
    ComparedAnalysis,
    analyze_compared,
    headline,
    parse_policies,
    policies_json,
    render_table,
)
from capture_analysis.policies import POLICIES
from capture_analysis.source import SourceFile

from .conftest import ROOT


def compared(code: str, names: str = "legacy,optimal", primary: str = "optimal",
             path: str = "test.ts") -> ComparedAnalysis:
    return analyze_compared(SourceFile(path, textwrap.dedent(code)), POLICIES[primary], parse_policies(names))


def example(name: str, names: str = "legacy,optimal,v8") -> ComparedAnalysis:
    path = ROOT / "examples" / name
    return analyze_compared(SourceFile(f"examples/{name}", path.read_text()), POLICIES["optimal"],
                            parse_policies(names))


def run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


@pytest.mark.parametrize(("text", "expected"), [
    ("legacy,optimal", ("legacy", "optimal")),
    (" legacy , v8 ,optimal", ("legacy", "v8", "optimal")),
    ("legacy,legacy,optimal", ("legacy", "optimal")),
])
def test_policy_lists(text, expected):
    assert parse_policies(text) == expected


@pytest.mark.parametrize(("text", "error"), [
    ("legacy", "needs two or more different policies"),
    ("legacy,legacy", "needs two or more different policies"),
    ("legacy,fast", "unknown policy fast; registered: optimal, legacy, v8"),
])
def test_bad_policy_lists(text, error):
    with pytest.raises(ValueError, match=error):
        parse_policies(text)


# -- the reference shapes, side by side (POLICIES.md's expected counts) ---------------------------

REFERENCE = [
    # example, function, legacy, optimal, v8 (per call; no shape allocates per iteration)
    ("factories.ts", "makeTally", 2, 1, 1),
    ("factories.ts", "makeTallyObject", 0, 0, 1),
    ("factories.ts", "makeOps", 8, 0, 1),
    ("factories.ts", "makeOpTable", 0, 0, 1),
    ("factories.ts", "makeMachine", 16, 1, 1),
    ("probes.ts", "constNumber", 0, 0, 1),
    ("probes.ts", "constArrow", 1, 0, 1),
    ("probes.ts", "declaredFunction", 1, 0, 1),
    ("probes.ts", "siblingCall", 0, 0, 1),
]


@pytest.mark.parametrize(("name", "function", "legacy", "optimal", "v8"), REFERENCE)
def test_reference_shapes_side_by_side(name, function, legacy, optimal, v8):
    analysis = example(name)
    row = next(r for r in analysis.comparison.rows if r.closure.name == function)
    assert [(c.per_call, c.per_iteration) for c in row.counts] == [(legacy, 0), (optimal, 0), (v8, 0)]


def test_docs_table_is_boxcheck_output():
    """docs/policies.md shows POLICIES.md's expected counts next to what boxcheck prints."""
    text = (ROOT / "docs" / "policies.md").read_text()
    for _name, function, legacy, optimal, v8 in REFERENCE:
        assert f"| `{function}` | {legacy} | {optimal} | {v8} |" in text, function


def test_text_table_shows_counts_and_differences():
    analysis = example("probes.ts", "legacy,optimal")
    lines = render_table(analysis, analysis.comparison)
    assert lines == [
        "examples/probes.ts: allocations per call/per iteration under `legacy`, `optimal`, and the difference "
        "from `legacy`",
        "  function                 legacy  optimal  optimal-legacy",
        "  constArrow (10:8)           1/0      0/0            -1/0",
        "  declaredFunction (16:8)     1/0      0/0            -1/0",
        "  total                       2/0      0/0            -2/0",
    ]


def test_text_table_marks_conditional_and_unmodelled_counts():
    analysis = compared("""
        export function branch(taken: boolean) {
          if (taken) { const f = (x: number) => x + 1; return () => f(1); }
          return null;
        }
        export async function waits() { let x = 1; await null; return () => x++; }
    """)
    lines = render_table(analysis, analysis.comparison)
    assert lines[1:] == [
        "  function      legacy  optimal  optimal-legacy",
        "  branch (2:8)    1/0*      0/0            -1/0",
        "  waits (6:8)     1/0!      1/0             0/0",
        "  total           2/0*      1/0            -1/0",
        "  * includes sites made only when a branch runs (an `if` arm, a `switch` case, a `catch`)",
        "  ! not counted by `legacy`: an async function with `await` (BX105)",
    ]


def test_a_file_without_allocations_has_no_table_and_is_counted(monkeypatch, tmp_path):
    analysis = compared("export function f(i: number) { return i; }")
    assert render_table(analysis, analysis.comparison) == []
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain.ts").write_text("export function f(i: number) { return i; }\n")
    (tmp_path / "boxed.ts").write_text("export function g() { const f = () => 1; return () => f(); }\n")
    _, out = run("--no-cache", "--compare", "legacy,optimal", "plain.ts", "boxed.ts")
    assert "plain.ts" not in out and "no allocations" not in out
    assert "boxed.ts: allocations per call/per iteration under `legacy`, `optimal`" in out
    assert "allocations of the 2 files compared, by policy (1 of them allocates nothing under any policy and is not " \
           "listed above):" in out


def test_the_headline_gives_each_policy_total_and_the_difference_from_the_first():
    assert headline(("legacy", "optimal", "v8"), [[412, 37, 0], [79, 37, 0], [100, 40, 0]], 963, 171) == [
        "allocations of the 963 files compared, by policy (171 of them allocate nothing under any policy and are "
        "not listed above):",
        "  `legacy`:  412 per call, 37 per iteration",
        "  `optimal`: 79 per call, 37 per iteration; from `legacy`: -333 per call (-81%), ±0 per iteration",
        "  `v8`:      100 per call, 40 per iteration; from `legacy`: -312 per call (-76%), +3 per iteration (+8%)",
    ]


def test_the_headline_counts_once_per_program_only_when_something_is_made_once():
    lines = headline(("legacy", "optimal"), [[0, 0, 2], [1, 0, 0]], 1, 0, listed=False)
    assert lines == [
        "allocations of the 1 file compared, by policy:",
        "  `legacy`:  0 per call, 0 per iteration, 2 once per program",
        "  `optimal`: 1 per call, 0 per iteration, 0 once per program; from `legacy`: +1 per call, ±0 per iteration, "
        "-2 once per program (-100%)",
    ]
    assert headline(("legacy", "optimal"), [[0, 0, 0], [0, 0, 0]], 3, 3, listed=False)[0] == \
        "allocations of the 3 files compared, by policy (all 3 allocate nothing under any policy):"


def test_cli_compare_headline_sums_the_tables_of_the_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run("--no-cache", "--compare", "legacy,optimal", "examples/")
    tables = [line.split() for line in out.splitlines() if line.startswith("  total ")]
    legacy = sum(int(cells[1].split("/")[0]) for cells in tables)
    optimal = sum(int(cells[2].split("/")[0]) for cells in tables)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("allocations of the 4 files compared"))
    assert lines[at + 1].startswith(f"  `legacy`:  {legacy} per call, ")
    assert lines[at + 2].startswith(f"  `optimal`: {optimal} per call, ")
    assert f"from `legacy`: {optimal - legacy:+d} per call (" in lines[at + 2]
    assert lines[at + 3].startswith("4 files, ")  # the totals line closes the run, after the headline


def test_policies_object_per_function():
    analysis = compared("""
        export function constArrow(i: number) {
          const f = (x: number) => x + i;
          return () => f(1);
        }
    """, "legacy,optimal,v8")
    report = next(f for f in analysis.functions if f.closure.name == "constArrow")
    assert policies_json(analysis.comparison, report.closure) == {
        "legacy": {"per_call": 1, "per_iteration": 0, "once": 0, "conditional": 0, "unmodelled": None,
                   "difference": {"per_call": 0, "per_iteration": 0, "once": 0}},
        "optimal": {"per_call": 0, "per_iteration": 0, "once": 0, "conditional": 0, "unmodelled": None,
                    "difference": {"per_call": -1, "per_iteration": 0, "once": 0}},
        "v8": {"per_call": 1, "per_iteration": 0, "once": 0, "conditional": 0, "unmodelled": None,
               "difference": {"per_call": 0, "per_iteration": 0, "once": 0}},
    }


def test_primary_analysis_is_the_policy_option():
    analysis = compared("""
        export function f(i: number) {
          let n = i;
          return () => n++;
        }
    """, "legacy,v8", primary="optimal")
    assert analysis.policy.name == "optimal"
    assert [d.storage.value for d in analysis.decisions if d.binding.name == "n"] == ["box"]
    assert analysis.comparison.policies == ("legacy", "v8")


# -- the command line ---------------------------------------------------------------------------


def test_cli_compare_text_on_the_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = run("--compare", "legacy,optimal", "examples/")
    assert code == 0  # optimal's findings on the examples are infos (design 2.7); the comparison does not fail
    assert ("examples/factories.ts: allocations per call/per iteration under `legacy`, `optimal`, and the "
            "difference from `legacy`") in out
    for function, legacy, optimal in [("makeTally (5:8)", 2, 1), ("makeOps (36:8)", 8, 0),
                                      ("makeMachine (73:8)", 16, 1), ("constArrow (10:8)", 1, 0),
                                      ("declaredFunction (16:8)", 1, 0)]:
        line = next(line for line in out.splitlines() if line.startswith(f"  {function} "))
        assert line.split()[2:] == [f"{legacy}/0", f"{optimal}/0", f"{optimal - legacy:+d}/0"]
    # shapes where neither policy allocates are not rows of the table
    assert "  makeOpTable (" not in out and "  constNumber (" not in out and "  siblingCall (" not in out


def test_cli_compare_json_validates(monkeypatch, schema_validator):
    monkeypatch.chdir(ROOT)
    _, out = run("--format", "json", "--compare", "legacy,optimal,v8", "examples/")
    doc = json.loads(out)
    schema_validator.validate(doc)
    assert doc["policy"] == "optimal"
    # every example allocates under some policy
    assert doc["compare"] == {"policies": ["legacy", "optimal", "v8"], "baseline": "legacy",
                              "files_without_allocations": 0}
    functions = {f["name"]: f for entry in doc["files"] for f in entry["functions"]}
    assert functions["makeOps"]["policies"]["legacy"]["per_call"] == 8
    assert functions["makeOps"]["policies"]["optimal"]["difference"] == {"per_call": -8, "per_iteration": 0, "once": 0}
    assert functions["makeOps"]["allocations"]["per_call"] == 0  # the primary policy's counts are unchanged
    summary = doc["summary"]["policies"]
    legacy = summary["legacy"]
    assert {key: summary["optimal"][key] for key in ("per_call", "per_iteration", "once")} == {
        "per_call": doc["summary"]["per_call"], "per_iteration": doc["summary"]["per_iteration"],
        "once": doc["summary"]["once"]}
    assert legacy["per_call"] > summary["optimal"]["per_call"]
    assert legacy["difference"] == {"per_call": 0, "per_iteration": 0, "once": 0}
    for name in ("optimal", "v8"):
        assert summary[name]["difference"] == {key: summary[name][key] - legacy[key]
                                               for key in ("per_call", "per_iteration", "once")}
    # each policy's total is the sum of its functions' counts
    compared = [f["policies"] for entry in doc["files"] for f in entry["functions"] if f.get("policies")]
    assert legacy["per_call"] == sum(p["legacy"]["per_call"] for p in compared)
    codes = {d["code"] for entry in doc["files"] for d in entry["diagnostics"]}
    assert {"BX104"} <= codes


def test_cli_without_compare_has_no_policies_fields(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run("--format", "json", "examples/probes.ts")
    doc = json.loads(out)
    assert "compare" not in doc and "policies" not in doc["summary"]
    assert all("policies" not in f for entry in doc["files"] for f in entry["functions"])


@pytest.mark.parametrize(("value", "message"), [
    ("legacy", "--compare: needs two or more different policies"),
    ("legacy,turbo", "--compare: unknown policy turbo"),
])
def test_cli_compare_usage_errors(monkeypatch, capsys, value, message):
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as exit_info:
        main(["--compare", value, "examples/probes.ts"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_quiet_compare_prints_only_diagnostics(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run("-q", "--compare", "legacy,optimal", "examples/probes.ts")
    assert "allocations per call/per iteration" not in out and "compared, by policy" not in out
    assert "[BX104]" in out


def test_cli_compare_statistics_prints_the_headline_without_the_tables(monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run("--statistics", "--compare", "legacy,optimal", "examples/")
    assert "allocations per call/per iteration under" not in out
    assert "allocations of the 4 files compared, by policy:" in out
    assert "`optimal`: 5 per call, 1 per iteration; from `legacy`: -36 per call (-88%)" in out


def test_workers_and_the_cache_give_the_same_comparison(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    _, alone = run("--no-cache", "--jobs", "1", "--compare", "legacy,optimal,v8", "examples/")
    _, workers = run("--no-cache", "--jobs", "2", "--compare", "legacy,optimal,v8", "examples/")
    cache = ["--cache-dir", str(tmp_path), "--compare", "legacy,optimal,v8", "--format", "json", "examples/"]
    _, first = run(*cache)
    _, cached = run(*cache)
    _, plain = run("--cache-dir", str(tmp_path), "--format", "json", "examples/")
    assert "under `legacy`, `optimal`, `v8`" in alone
    assert workers == alone
    assert cached == first
    assert "policies" in first and "policies" not in plain  # the cache keys on --compare
