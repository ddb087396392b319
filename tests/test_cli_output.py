"""`--max-warnings N` (ESLint's), with `--fail-on`; `-o/--output-file FILE` in every format."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis import cli
from capture_analysis.cli import main
from capture_analysis.report import Totals
from capture_analysis.rules import Severity

#: two BX102 warnings: each loop copies its head binding, which its closure writes, into each iteration.
TWO_WARNINGS = ("export function f(k: number) { for (let n = 0; n < k; n++) keep(() => n++); "
                "for (let m = 0; m < k; m++) keep(() => m++); }\n")
#: one BX001 error (and nothing else).
SYNTAX_ERROR = "export function g( { return 1; }\n"


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
    (tmp_path / "two.ts").write_text(TWO_WARNINGS, encoding="utf-8")
    (tmp_path / "broken.ts").write_text(SYNTAX_ERROR, encoding="utf-8")
    return tmp_path


# -- --max-warnings ------------------------------------------------------------------------------


@pytest.mark.parametrize(("budget", "code"), [("2", 0), ("5", 0), ("1", 1), ("0", 1)])
def test_more_warnings_than_the_budget_fail_the_run_and_no_more_pass_it(project, budget, code):
    got, out, err = run("--max-warnings", budget, "two.ts")
    assert got == code
    assert out.count("warning[BX102]") == 2  # the report is the same either way
    assert ("boxcheck: 2 warnings, more than --max-warnings" in err) == (code == 1)


def test_an_error_still_fails_within_the_warning_budget(project):
    code, _, err = run("--max-warnings", "10", "two.ts", "broken.ts")
    assert code == 1
    assert "more than --max-warnings" not in err


def test_the_budget_applies_even_when_fail_on_counts_nothing(project):
    assert run("--fail-on", "none", "--max-warnings", "1", "two.ts")[0] == 1
    assert run("--fail-on", "none", "--max-warnings", "2", "two.ts", "broken.ts")[0] == 0


def test_hints_and_infos_still_follow_fail_on_within_the_budget(project):
    Path("two.ts").write_text(TWO_WARNINGS, encoding="utf-8")
    assert run("--severity", "BX102=hint", "--fail-on", "hint", "--max-warnings", "9", "two.ts")[0] == 1
    assert run("--severity", "BX102=hint", "--max-warnings", "9", "two.ts")[0] == 0


def test_suppressed_warnings_are_not_counted(project):
    Path("two.ts").write_text("// boxcheck-ignore-file\n" + TWO_WARNINGS, encoding="utf-8")
    assert run("--max-warnings", "0", "two.ts")[0] == 0


@pytest.mark.parametrize("value", ["-1", "many", "1.5"])
def test_a_budget_that_is_not_a_count_is_a_usage_error(project, value):
    code, _, err = run("--max-warnings", value, "two.ts")
    assert code == 2
    assert "--max-warnings: expected a number of warnings (0 or more)" in err


@pytest.mark.parametrize(("levels", "fail_on", "budget", "fails"), [
    ({Severity.WARNING: 3}, Severity.WARNING, None, True),
    ({Severity.WARNING: 3}, Severity.WARNING, 3, False),
    ({Severity.WARNING: 3}, Severity.WARNING, 2, True),
    ({Severity.WARNING: 3}, Severity.ERROR, None, False),
    ({Severity.WARNING: 3}, None, 2, True),
    ({Severity.ERROR: 1}, Severity.WARNING, 5, True),
    ({Severity.ERROR: 1}, None, 5, False),
    ({Severity.INFO: 4}, Severity.INFO, 5, True),
    ({Severity.HINT: 4}, Severity.INFO, 0, False),
])
def test_what_fails_a_run(levels, fail_on, budget, fails):
    totals = Totals()
    totals.by_severity.update(levels)
    assert totals.fails(fail_on, budget) is fails


# -- -o/--output-file ---------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["text", "json", "sarif", "lsp", "github"])
def test_the_report_goes_to_the_file_and_nothing_to_standard_output(project, format):
    _, expected, _ = run("--format", format, "two.ts")
    code, out, err = run("--format", format, "-o", "report.out", "two.ts")
    assert code == 1 and out == "" and err == ""
    assert Path("report.out").read_text(encoding="utf-8") == expected
    if format in ("json", "sarif", "lsp"):
        json.loads(expected)


def test_messages_stay_on_standard_error(project):
    code, out, err = run("--output-file", "report.txt", "two.ts", "missing.ts")
    assert code == 2 and out == ""
    assert "boxcheck: missing.ts:" in err
    assert "warning[BX102]" in Path("report.txt").read_text(encoding="utf-8")


def test_an_existing_file_is_replaced(project):
    Path("report.txt").write_text("old report\n" * 1000, encoding="utf-8")
    run("-o", "report.txt", "two.ts")
    assert not Path("report.txt").read_text(encoding="utf-8").startswith("old report")


@pytest.mark.parametrize("target", ["no/such/folder/report.txt", "."])
def test_a_file_that_cannot_be_written_is_exit_2_before_any_analysis(project, target, monkeypatch):
    def collect(paths):
        raise AssertionError(f"{paths} collected, though the report cannot be written")

    monkeypatch.setattr(cli, "collect", collect)
    code, out, err = run("-o", target, "two.ts")
    assert code == 2 and out == ""
    assert err.startswith(f"boxcheck: error: cannot write the report to {target}: ")


def test_no_colour_in_the_file_unless_asked_for(project):
    run("-o", "auto.txt", "two.ts", env={"FORCE_COLOR": "1"})
    run("-o", "always.txt", "--color", "always", "two.ts")
    assert "\x1b[" not in Path("auto.txt").read_text(encoding="utf-8")
    assert "\x1b[1;33mwarning[BX102]\x1b[0m" in Path("always.txt").read_text(encoding="utf-8")


def test_statistics_into_a_file(project):
    code, out, _ = run("--statistics", "-o", "stats.txt", "two.ts")
    assert code == 1 and out == ""
    assert Path("stats.txt").read_text(encoding="utf-8").startswith(
        "findings by rule:\n  2  BX102  per-iteration-capture")
