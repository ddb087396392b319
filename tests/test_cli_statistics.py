"""`--statistics`, the JSON summary's counts by rule and severity, and the totals line that names severities as
the diagnostic lines do."""

from __future__ import annotations

import io
import json
import os
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.cli import main
from capture_analysis.report import FileCounts, Totals
from capture_analysis.report.statistics import TOP_FILES
from capture_analysis.rules import Severity

from .conftest import ROOT

#: two warnings (BX102: each loop copies its head binding, which an escaping closure writes, into each iteration)
#: in one function.
TWO_WARNINGS = ("export function f(k: number) { for (let n = 0; n < k; n++) keep(() => n++); "
                "for (let m = 0; m < k; m++) keep(() => m++); }\n")
#: one BX107 finding (`big` is kept alive by the escaping arrow through the context `use` puts it in), a hint by
#: the configuration that ``project`` writes, whatever BX107's default severity.
ONE_HINT = """export function make() {
  const big = new Array(1000);
  const use = () => big.length;
  use();
  return () => 1;
}
"""
DIAGNOSTIC_LINE = re.compile(r"^\S+:\d+:\d+: (error|warning|info|hint)\[BX\d{3}\]", re.MULTILINE)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(["--no-cache", *args])
            except SystemExit as exit_info:
                code = int(exit_info.code or 0)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "boxcheck.toml").write_text('[severity]\nBX107 = "hint"\n', encoding="utf-8")
    (tmp_path / "two.ts").write_text(TWO_WARNINGS, encoding="utf-8")
    (tmp_path / "hint.ts").write_text(ONE_HINT, encoding="utf-8")
    (tmp_path / "clean.ts").write_text("export function g() { return 1; }\n", encoding="utf-8")
    return tmp_path


def test_statistics_replace_the_findings_with_counts_by_rule_and_the_top_files(project):
    code, out, _ = run("--statistics", "two.ts", "hint.ts", "clean.ts")
    assert code == 1  # the exit code is the run's, as without --statistics
    assert not DIAGNOSTIC_LINE.search(out) and "allocations per call of each function" not in out
    assert out.splitlines() == [
        "findings by rule:",
        "  2  BX102  per-iteration-capture  warning",
        "  1  BX107  context-retention      hint",
        "files with the most findings (2 of 2):",
        "  2  two.ts   2 warnings",
        "  1  hint.ts  1 hint",
        "3 files, 7 functions: 0 allocations per call, 2 per iteration; 0 errors, 2 warnings, 1 hint",
    ]


def test_statistics_print_with_quiet_which_alone_prints_only_the_diagnostic_lines(project):
    _, statistics, _ = run("--statistics", "two.ts", "hint.ts")
    _, quiet_statistics, _ = run("-q", "--statistics", "two.ts", "hint.ts")
    _, quiet, _ = run("-q", "--show-hints", "two.ts", "hint.ts")
    assert quiet_statistics == statistics
    assert len(DIAGNOSTIC_LINE.findall(quiet)) == len(quiet.splitlines()) == 3
    _, hidden, _ = run("-q", "two.ts", "hint.ts")  # hints are counted, printed only when asked
    assert len(DIAGNOSTIC_LINE.findall(hidden)) == len(hidden.splitlines()) == 2


def test_statistics_count_what_is_shown_not_what_is_suppressed_or_turned_off(project):
    Path("two.ts").write_text("// boxcheck-ignore-next-line BX102\n"
                              + TWO_WARNINGS.replace("; for (let m", ";\nfor (let m"), encoding="utf-8")
    code, out, _ = run("--statistics", "--severity", "BX107=off", "two.ts", "hint.ts")
    assert code == 1
    assert "BX107" not in out
    assert "  1  BX102  per-iteration-capture  warning" in out
    assert out.splitlines()[-1].endswith("; 0 errors, 1 warning")


def test_statistics_count_infos_and_hints_each_under_its_severity_whatever_fail_on_says(project):
    code, out, _ = run("--statistics", "--severity", "BX102=info", "--fail-on", "error", "two.ts", "hint.ts")
    assert code == 0
    assert "  2  BX102  per-iteration-capture  info" in out
    assert "  1  BX107  context-retention      hint" in out
    assert "  2  two.ts   2 infos" in out
    assert out.splitlines()[-1].endswith("; 0 errors, 0 warnings, 2 infos, 1 hint")


def test_statistics_of_a_clean_run_say_so(project):
    code, out, _ = run("--statistics", "clean.ts")
    assert code == 0
    assert out.splitlines() == ["no findings",
                                "1 file, 1 function: 0 allocations per call, 0 per iteration; 0 errors, 0 warnings"]


def test_statistics_list_only_the_files_with_the_most_findings(project):
    for index in range(TOP_FILES + 2):
        Path(f"many{index:02}.ts").write_text(TWO_WARNINGS if index % 2 else ONE_HINT, encoding="utf-8")
    _, out, _ = run("--statistics", ".")
    lines = out.splitlines()
    at = lines.index(f"files with the most findings ({TOP_FILES} of {TOP_FILES + 4}):")
    listed = lines[at + 1:at + 1 + TOP_FILES]
    # the most findings first, ties by path
    assert [line.split()[:2] for line in listed] == [
        *(["2", f"./many{index:02}.ts"] for index in (1, 3, 5, 7, 9, 11)), ["2", "./two.ts"],
        ["1", "./hint.ts"], ["1", "./many00.ts"], ["1", "./many02.ts"]]
    assert lines[at + 1 + TOP_FILES].startswith("15 files, ")


@pytest.mark.parametrize("format", ["json", "sarif", "lsp", "github"])
def test_statistics_are_refused_with_another_format(project, format):
    code, out, err = run("--statistics", "--format", format, "two.ts")
    assert code == 2 and out == ""
    assert f"boxcheck: error: --statistics prints a text overview, not --format {format}" in err
    assert ("the JSON summary holds its counts (by_rule, by_severity)" in err) == (format == "json")


def test_statistics_colour_the_severities_on_a_terminal(project):
    _, out, _ = run("--statistics", "--color", "always", "two.ts")
    assert "\x1b[1;33mwarning\x1b[0m" in out and "\x1b[1;33m2 warnings\x1b[0m" in out


def test_json_summary_counts_the_listed_findings_by_rule_and_severity(monkeypatch, schema_validator):
    monkeypatch.chdir(ROOT)
    _, out, _ = run("--format", "json", "examples/", "tests/unicode/")
    doc = json.loads(out)
    schema_validator.validate(doc)
    listed = [d for entry in doc["files"] for d in entry["diagnostics"]]
    summary = doc["summary"]
    assert summary["by_severity"] == {label: sum(d["severity"] == label for d in listed)
                                      for label in ("error", "warning", "info", "hint")}
    codes = sorted({d["code"] for d in listed})
    assert list(summary["by_rule"]) == codes
    for code in codes:
        assert summary["by_rule"][code] == {"rule": next(d["rule"] for d in listed if d["code"] == code),
                                            "count": sum(d["code"] == code for d in listed)}


def test_json_summary_of_a_clean_run_has_zero_counts(project):
    _, out, _ = run("--format", "json", "clean.ts")
    summary = json.loads(out)["summary"]
    assert summary["by_severity"] == {"error": 0, "warning": 0, "info": 0, "hint": 0}
    assert summary["by_rule"] == {}


def test_the_totals_line_names_severities_as_the_lines_do_and_counts_in_correct_plurals(project):
    Path("info.ts").write_text(TWO_WARNINGS, encoding="utf-8")
    _, out, _ = run("--show-hints", "--severity", "BX102=info", "info.ts", "hint.ts")
    labels = {match.group(1) for match in DIAGNOSTIC_LINE.finditer(out)}
    assert labels == {"info", "hint"}
    assert out.splitlines()[-1] == ("2 files, 6 functions: 0 allocations per call, 2 per iteration; 0 errors, "
                                    "0 warnings, 2 infos, 1 hint")
    _, out, _ = run("--severity", "BX102=info", "info.ts", "hint.ts")
    assert out.splitlines()[-1].endswith("2 infos, 1 hint (not shown; --show-hints shows them)")
    _, one, _ = run("clean.ts")
    assert one.splitlines()[-1].startswith("1 file, 1 function: 0 allocations per call")


def test_totals_keep_only_the_files_with_findings():
    totals = Totals()
    record = {"path": "a.ts", "diagnostics": [], "compared": [], "table": []}
    totals.count(FileCounts(1, 0, 0, ()), record)
    assert totals.by_file == {} and totals.by_rule == {} and totals.files == 1
    finding = {"json": {"code": "BX101", "rule": "heap-capture", "severity": "warning"}}
    totals.count(FileCounts(1, 1, 0, (Severity.WARNING,)),
                 {**record, "path": "b.ts", "diagnostics": [json.dumps(finding)]})
    assert totals.by_file == {"b.ts": (0, 1, 0, 0)}
    assert totals.by_rule == {("BX101", "heap-capture", "warning"): 1}
