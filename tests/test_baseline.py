"""``--write-baseline`` and ``--baseline``: today's findings recorded, and left out of later runs by key and count."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.batch.baseline import Baseline, Key
from capture_analysis.cli import main
from capture_analysis.diagnose import footprint

#: two findings in named functions, one in an arrow passed as an argument, one in a class method.
SOURCE = """\
export function make() {
  let n = 0;
  return () => n++;
}
export const later = (xs: number[]) => xs.map(() => { let k = 0; return () => k++; });
class Tally {
  add() {
    let total = 0;
    setTimeout(() => { total++; }, 1);
  }
}
"""
EXTRA = "export function extra() { let e = 0; return () => e++; }\n"
#: a warning under the default policy (BX102): the loop copies its head binding `e` into each iteration.
LOOP = "export function extra(n: number) { for (let e = 0; e < n; e++) keep(() => e++); }\n"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--no-cache", *args])
    return code, out.getvalue(), err.getvalue()


def shown(stdout: str) -> list[tuple[str, int, str]]:
    """(path, line, code) of each diagnostic of a JSON document."""
    return [(f["path"], d["line"], d["code"]) for f in json.loads(stdout)["files"] for d in f["diagnostics"]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_enclosing_functions_are_named_without_positions():
    analysis = analyze_text("a.ts", SOURCE)
    labels = {d.decision.binding.name: footprint.enclosing(analysis.model, d) for d in analysis.shown
              if d.decision is not None}
    assert labels == {"n": "make", "k": "later > <arrow>", "total": "Tally.add"}


def test_the_baseline_file_is_sorted_pretty_and_portable(project, monkeypatch):
    code, out, err = run("--write-baseline", "boxcheck-baseline.json", "src")
    assert code == 0 and "wrote 3 findings to boxcheck-baseline.json" in err
    assert out.endswith("0 errors, 0 warnings, 3 in the baseline\n")
    text = (project / "boxcheck-baseline.json").read_text()
    assert text == """\
{
  "format": "boxcheck-baseline",
  "version": 1,
  "files": {
    "src/a.ts": [
      {"code": "BX101", "function": "Tally.add", "binding": "total", "count": 1},
      {"code": "BX101", "function": "later > <arrow>", "binding": "k", "count": 1},
      {"code": "BX101", "function": "make", "binding": "n", "count": 1}
    ]
  }
}
"""
    # the same findings, analyzed from another directory by another path, write the same file
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    code, _, _ = run("--write-baseline", "../boxcheck-baseline.json", str(project / "src" / "a.ts"))
    assert code == 0 and (project / "boxcheck-baseline.json").read_text() == text
    assert run("--baseline", "../boxcheck-baseline.json", "../src")[0] == 0


def test_a_baseline_leaves_out_what_it_records_and_reports_what_is_new(project):
    run("--write-baseline", "base.json", "src")
    assert run("--baseline", "base.json", "src")[0] == 0
    (project / "src" / "a.ts").write_text(SOURCE + LOOP)
    code, out, err = run("--format", "json", "--baseline", "base.json", "src")
    assert code == 1 and err == ""
    assert shown(out) == [("src/a.ts", 12, "BX102")]
    summary = json.loads(out)["summary"]
    assert summary["baselined"] == 3 and summary["baseline_unmatched"] == 0


def test_a_run_whose_findings_are_all_baselined_prints_one_totals_line(project):
    """The allocation summaries count the baselined findings' allocations too: only --show-allocations lists them."""
    totals = "1 file, 7 functions: 3 allocations per call, 0 per iteration; 0 errors, 0 warnings, 3 in the baseline"
    for code, out, _ in run("--write-baseline", "base.json", "src"), run("--baseline", "base.json", "src"):
        assert (code, out.splitlines()) == (0, [totals])
    plain = run("src")[1].splitlines()
    summaries = plain[plain.index("src/a.ts: allocations per call of each function"):-1]
    assert len(summaries) == 4
    assert run("--baseline", "base.json", "--show-allocations", "src")[1].splitlines() == [*summaries, totals]
    (project / "src" / "a.ts").write_text(SOURCE + EXTRA)
    _, out, _ = run("--baseline", "base.json", "src")
    assert "src/a.ts:12:" in out and "allocations per call of each function" not in out


def test_moved_lines_are_still_matched(project):
    run("--write-baseline", "base.json", "src")
    (project / "src" / "a.ts").write_text("// a comment\n\n\n" + SOURCE.replace("  let n = 0;", "\n\n  let n = 0;"))
    code, out, _ = run("--format", "json", "--baseline", "base.json", "src")
    assert code == 0 and shown(out) == []


def test_duplicates_match_by_number_in_source_order(project):
    loop = "  for (let n = 0; n < 9; n++) keep(() => n++);\n"
    twice = "export function make() {\n" + loop * 2 + "}\n"
    (project / "src" / "a.ts").write_text(twice)
    run("--write-baseline", "base.json", "src")
    assert json.loads((project / "base.json").read_text())["files"]["src/a.ts"] == [
        {"code": "BX102", "function": "make", "binding": "n", "count": 2}]
    (project / "src" / "a.ts").write_text("export function make() {\n" + loop * 3 + "}\n")
    code, out, _ = run("--format", "json", "--baseline", "base.json", "src")
    assert code == 1 and shown(out) == [("src/a.ts", 4, "BX102")]
    (project / "src" / "a.ts").write_text("export function make() {\n" + loop + "}\n")
    code, out, err = run("--format", "json", "--baseline", "base.json", "src")
    assert code == 0 and shown(out) == []
    assert json.loads(out)["summary"]["baseline_unmatched"] == 1
    assert "src/a.ts: BX102 `n` in make (recorded 2, found 1)" in err


def test_unmatched_entries_are_a_note_that_leaves_the_exit_code(project):
    (project / "src" / "b.ts").write_text(EXTRA)
    run("--write-baseline", "base.json", "src")
    (project / "src" / "a.ts").write_text(SOURCE.replace("n++", "n"))
    (project / "src" / "b.ts").unlink()
    code, out, err = run("--baseline", "base.json", "src")
    assert code == 0
    assert err == ("boxcheck: note: 2 findings recorded in base.json no longer occur (--write-baseline base.json "
                   "drops them):\n"
                   "  src/a.ts: BX101 `n` in make (recorded 1, found 0)\n"
                   "  src/b.ts: BX101 `e` in extra (the file no longer exists)\n")
    assert out.endswith("0 errors, 0 warnings, 2 in the baseline\n")


def test_rewriting_prunes_what_no_longer_occurs_and_keeps_files_not_analyzed(project):
    (project / "lib").mkdir()
    (project / "lib" / "c.ts").write_text(EXTRA)
    (project / "src" / "gone.ts").write_text(EXTRA)
    run("--write-baseline", "base.json", "src", "lib")
    (project / "src" / "gone.ts").unlink()
    (project / "src" / "a.ts").write_text(SOURCE.replace("n++", "n"))
    code, _, err = run("--write-baseline", "base.json", "src")
    assert code == 0
    assert err == "boxcheck: wrote 2 findings to base.json; kept the entries of 1 file this run did not analyze\n"
    files = json.loads((project / "base.json").read_text())["files"]
    assert sorted(files) == ["lib/c.ts", "src/a.ts"]
    assert [entry["binding"] for entry in files["src/a.ts"]] == ["total", "k"]


def test_a_rule_turned_off_keeps_its_entries_and_is_not_unmatched(project):
    run("--write-baseline", "base.json", "src")
    code, _, err = run("--severity", "BX101=off", "--baseline", "base.json", "src")
    assert code == 0 and err == ""
    run("--severity", "BX101=off", "--write-baseline", "base.json", "src")
    assert len(json.loads((project / "base.json").read_text())["files"]["src/a.ts"]) == 3


def test_findings_without_a_binding_are_keyed_by_message_without_positions(project):
    suppressed = "// boxcheck-ignore-next-line BX102\nexport const x = 1;\n"
    (project / "src" / "a.ts").write_text(suppressed)
    run("--write-baseline", "base.json", "src")
    [entry] = json.loads((project / "base.json").read_text())["files"]["src/a.ts"]
    assert entry["code"] == "BX003" and entry["function"] == "<module>"
    assert "line _" in entry["message"] and "line 2" not in entry["message"]
    (project / "src" / "a.ts").write_text("\n\n" + suppressed)
    assert run("--baseline", "base.json", "src")[0] == 0


FINDINGS = {
    "text": lambda out: [line for line in out.splitlines() if "warning[BX" in line],
    "json": lambda out: [d for f in json.loads(out)["files"] for d in f["diagnostics"]],
    "sarif": lambda out: json.loads(out)["runs"][0]["results"],
    "github": lambda out: [line for line in out.splitlines() if line.startswith("::")],
    "lsp": lambda out: [d for f in json.loads(out) for d in f["diagnostics"]],
}


@pytest.mark.parametrize("format", sorted(FINDINGS))
def test_no_format_shows_a_baselined_finding(project, format):
    # under `legacy` each of SOURCE's three boxes is a warning of its own
    code, out, _ = run("--policy", "legacy", "--format", format, "src")
    assert code == 1 and len(FINDINGS[format](out)) == 3
    run("--policy", "legacy", "--write-baseline", "base.json", "src")
    code, out, _ = run("--policy", "legacy", "--format", format, "--baseline", "base.json", "src")
    assert code == 0 and FINDINGS[format](out) == []


def test_the_summary_validates_against_the_schema(project, schema_validator):
    run("--write-baseline", "base.json", "src")
    _, out, _ = run("--format", "json", "--baseline", "base.json", "src")
    schema_validator.validate(json.loads(out))


def test_the_baseline_applies_to_cached_results_and_to_workers(project):
    (project / "src" / "b.ts").write_text(LOOP)
    run("--write-baseline", "base.json", "src")
    (project / "src" / "b.ts").write_text(LOOP + LOOP.replace("extra", "more"))
    runs = []
    for jobs in ("1", "2", "2"):  # the second run with two workers reads the cache the first one wrote
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["--jobs", jobs, "--cache-dir", str(project / "cache"), "--format", "json", "--baseline",
                         "base.json", "src"])
        runs.append((code, shown(out.getvalue())))
    assert runs == [(1, [("src/b.ts", 2, "BX102")])] * 3


def test_bad_baselines_are_usage_errors(project):
    code, _, err = run("--baseline", "missing.json", "src")
    assert code == 2 and "cannot read the baseline missing.json" in err
    (project / "bad.json").write_text("{}")
    code, _, err = run("--baseline", "bad.json", "src")
    assert code == 2 and 'bad.json is not a baseline: no "format": "boxcheck-baseline"' in err
    (project / "new.json").write_text('{"format": "boxcheck-baseline", "version": 9, "files": {}}')
    code, _, err = run("--baseline", "new.json", "src")
    assert code == 2 and "baseline version 9 is not known" in err
    with pytest.raises(SystemExit), redirect_stderr(io.StringIO()):
        main(["--baseline", "a.json", "--write-baseline", "b.json", "src"])
    code, _, err = run("--write-baseline", "b.json", "--since", "HEAD", "src")
    assert code == 2 and "give it without --since" in err


def test_a_baseline_that_cannot_be_written_exits_2(project):
    code, _, err = run("--write-baseline", str(project / "no" / "such" / "dir" / "base.json"), "src")
    assert code == 2 and "cannot write the baseline" in err


def test_the_file_reads_back_what_was_written(tmp_path):
    written = Baseline(tmp_path)
    written.files["a.ts"] = Counter({Key("BX101", "f", binding="x"): 2, Key("BX002", "<module>", message="m"): 1})
    written.write(str(tmp_path / "base.json"))
    assert written.text().index("BX002") < written.text().index("BX101")
    read = Baseline.read(str(tmp_path / "base.json"))
    assert read.files == written.files and read.directory == tmp_path
