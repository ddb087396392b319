"""The command line: paths, globs, .gitignore, exit codes, errors that name the file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.cli import main

MUTATED = "export function f() { let n = 0; return () => n++; }\n"
CLEAN = "export function g() { const n = 1; return () => n; }\n"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def json_paths(stdout: str) -> list[str]:
    return [f["path"] for f in json.loads(stdout)["files"]]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "a.ts").write_text(MUTATED)
    (tmp_path / "src" / "deep" / "b.tsx").write_text(CLEAN)
    (tmp_path / "src" / "types.d.ts").write_text("declare const x: number;\n")
    (tmp_path / "src" / "notes.md").write_text("not code\n")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "index.js").write_text(MUTATED)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.js").write_text(MUTATED)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_directory_walk_skips_node_modules_gitignored_and_declaration_files(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, _ = run("--format", "json", ".")
    assert sorted(json_paths(out)) == ["./src/a.ts", "./src/deep/b.tsx"]
    found = {f["path"]: [d["code"] for d in f["diagnostics"]] for f in json.loads(out)["files"]}
    assert found == {"./src/a.ts": ["BX101"], "./src/deep/b.tsx": []}
    assert code == 0  # a.ts's BX101 is an info under the default policy


def test_globs_with_double_star_are_expanded_by_boxcheck(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, _ = run("--format", "json", "src/**/*.tsx")
    assert json_paths(out) == ["src/deep/b.tsx"]
    assert code == 0


def test_same_file_named_twice_is_analyzed_once(tree, monkeypatch):
    monkeypatch.chdir(tree)
    _, out, _ = run("--format", "json", "src/a.ts", "./src/a.ts", "src")
    assert json_paths(out) == ["src/a.ts", "src/deep/b.tsx"]


def test_exit_codes(tree, monkeypatch):
    monkeypatch.chdir(tree)
    assert run("src/deep/b.tsx")[0] == 0
    assert run("src/a.ts")[0] == 0  # its BX101 is an info under `optimal`
    assert run("--fail-on", "info", "src/a.ts")[0] == 1
    assert run("--policy", "legacy", "src/a.ts")[0] == 1  # and a warning under `legacy`
    assert run("--policy", "legacy", "--fail-on", "error", "src/a.ts")[0] == 0
    assert run("--policy", "legacy", "--fail-on", "none", "src/a.ts")[0] == 0


def test_missing_path_is_named_and_the_rest_is_still_analyzed(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, err = run("--format", "json", "nope.ts", "src/a.ts", "no/**/*.ts")
    assert code == 2
    assert "nope.ts: no such file or directory" in err
    assert "no/**/*.ts: no TypeScript or JavaScript file matches" in err
    assert json_paths(out) == ["src/a.ts"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files without read permission")
def test_unreadable_file_is_an_error_naming_it(tree, monkeypatch):
    monkeypatch.chdir(tree)
    locked = tree / "src" / "locked.ts"
    locked.write_text(CLEAN)
    locked.chmod(0)
    code, _, err = run("src")
    assert code == 2 and "locked.ts: cannot read" in err


def test_binary_file_is_skipped_with_a_message(tree, monkeypatch):
    """Named on the command line, it was asked for and not analyzed: exit 2, or CI passes without it."""
    monkeypatch.chdir(tree)
    (tree / "src" / "blob.js").write_bytes(b"\x00\x01\x02binary")
    code, out, err = run("--format", "json", "src/blob.js", "src/deep/b.tsx")
    assert "blob.js: skipped: binary file" in err
    assert code == 2
    assert json.loads(out)["files"][0]["errors"] == ["skipped: binary file (NUL bytes)"]
    assert json.loads(out)["files"][1]["path"] == "src/deep/b.tsx"


def test_a_skipped_file_found_by_walking_a_directory_is_no_error(tree, monkeypatch):
    monkeypatch.chdir(tree)
    (tree / "src" / "deep" / "blob.js").write_bytes(b"\x00\x01\x02binary")
    code, _, err = run("src/deep")
    assert "blob.js: skipped: binary file" in err
    assert code == 0


def test_a_file_named_over_the_size_limit_exits_2(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, _, err = run("--max-file-size", "10", "src/deep/b.tsx")
    assert "b.tsx: skipped: larger than 10 bytes" in err
    assert code == 2


def test_no_path_analyzes_the_working_directory(tree, monkeypatch):
    monkeypatch.chdir(tree)
    assert run("--format", "json", "--no-cache") == run("--format", "json", "--no-cache", ".")
    assert sorted(json_paths(run("--format", "json", "--no-cache")[1])) == ["./src/a.ts", "./src/deep/b.tsx"]


def test_no_path_with_standard_input_reads_only_standard_input(tree, monkeypatch):
    monkeypatch.chdir(tree)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CLEAN.encode())))
    code, out, _ = run("--format", "json", "--stdin-filename", "src/x.ts")
    assert (code, json_paths(out)) == (0, ["src/x.ts"])


@pytest.mark.parametrize("name", ["App.vue", "tool.py", "README"])
def test_a_named_file_of_an_unsupported_type_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(MUTATED)
    Path("ok.ts").write_text(CLEAN)
    code, out, err = run("--format", "json", "--no-cache", name, "ok.ts")
    assert code == 2
    assert f"boxcheck: {name}: not a TypeScript or JavaScript file (boxcheck reads .cjs, .cts, .js" in err
    assert json_paths(out) == ["ok.ts"]  # the other files are still analyzed


def test_a_named_declaration_file_is_analyzed(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, _ = run("--format", "json", "--no-cache", "src/types.d.ts")
    assert (code, json_paths(out)) == (0, ["src/types.d.ts"])


def test_stdin_filename_of_an_unsupported_type_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MUTATED.encode())))
    code, out, err = run("--stdin-filename", "src/App.vue")
    assert (code, out) == (2, "")
    assert "boxcheck: src/App.vue: not a TypeScript or JavaScript file" in err


def test_a_directory_with_nothing_to_analyze_is_an_error(tree, monkeypatch):
    monkeypatch.chdir(tree)
    (tree / "empty").mkdir()
    (tree / "docs").mkdir()
    (tree / "docs" / "x.d.ts").write_text("declare const x: number;\n")
    code, out, err = run("--format", "json", "--no-cache", "empty", "docs", "build", "src/deep")
    assert code == 2
    for path in ("empty", "docs", "build"):
        assert f"boxcheck: {path}: no TypeScript or JavaScript file in this directory" in err
    assert json_paths(out) == ["src/deep/b.tsx"]


def test_the_working_directory_with_nothing_to_analyze_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run("--no-cache")
    assert code == 2 and "boxcheck: .: no TypeScript or JavaScript file in this directory" in err


def test_unknown_option_is_a_usage_error():
    with pytest.raises(SystemExit) as exit_info, redirect_stderr(io.StringIO()):
        main(["--bogus"])
    assert exit_info.value.code == 2


def test_explain_code_prints_the_rule_doc():
    code, out, _ = run("--explain", "BX101")
    assert code == 0
    assert "### What it does" in out and "### Why is this bad?" in out and "### Example" in out


SUPPRESSED_AND_BOXED = ("// boxcheck-ignore-next-line BX102\n" + MUTATED)


@pytest.mark.parametrize("rule", ["BX101", "bx101", "heap-capture"])
def test_explain_rule_with_a_path_prints_the_doc_then_that_rules_findings_explained(tmp_path, monkeypatch, rule):
    from capture_analysis.rules import RULES

    monkeypatch.chdir(tmp_path)
    Path("a.ts").write_text(SUPPRESSED_AND_BOXED)  # a BX101 (info) and an unused suppression (BX003, a warning)
    code, out, _ = run("--no-cache", "--explain", rule, "a.ts")
    assert code == 0  # only the explained rule's findings count, and this one is an info
    doc = RULES["BX101"].doc()
    assert out.startswith(doc + "\na.ts:2:27: info[BX101] `f` needs 1 heap box per call for `n`")  # a blank line
    assert run("--no-cache", "--explain", rule, "--policy", "legacy", "a.ts")[0] == 1  # a warning there
    assert "^ reassigned at 2:47 inside the arrow at 2:41" in out  # the evidence chain
    assert "BX003" not in out.removeprefix(doc)  # only the explained rule's findings
    assert "BX003" in run("--no-cache", "--explain", "a.ts")[1]


def test_explain_rule_with_a_path_in_json_is_that_rules_findings_without_the_doc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a.ts").write_text(SUPPRESSED_AND_BOXED)
    code, out, _ = run("--no-cache", "--format", "json", "--explain", "BX003", "a.ts")
    assert code == 1
    (record,) = json.loads(out)["files"]
    assert [d["code"] for d in record["diagnostics"]] == ["BX003"]


def test_explain_unknown_rule_with_a_path_is_a_usage_error(tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, err = run("--explain", "BX999", "src/a.ts")
    assert (code, out) == (2, "") and "unknown rule BX999" in err


def test_explain_prints_evidence_chains(tree, monkeypatch):
    monkeypatch.chdir(tree)
    _, out, _ = run("--explain", "src/a.ts")
    assert "^ captured by the arrow at 1:41" in out
    assert "^ reassigned at 1:47 inside the arrow at 1:41" in out
    assert "^ the arrow: returned" in out


def test_text_output_has_location_caret_and_totals(tree, monkeypatch):
    monkeypatch.chdir(tree)
    _, out, _ = run("src/a.ts")
    lines = out.splitlines()
    assert lines[0].startswith("src/a.ts:1:27: info[BX101] `f` needs 1 heap box per call for `n`: state that")
    assert lines[1] == "  1 | export function f() { let n = 0; return () => n++; }"
    assert lines[2] == "    |                           ^"
    assert lines[-1] == "1 file, 2 functions: 1 allocation per call, 0 per iteration; 0 errors, 0 warnings, 1 info"
    _, out, _ = run("--policy", "legacy", "src/a.ts")
    assert out.splitlines()[0].startswith(
        "src/a.ts:1:27: warning[BX101] under `legacy`, `n` gets a heap box, per call:")
    assert out.splitlines()[-1] == "1 file, 2 functions: 1 allocation per call, 0 per iteration; 0 errors, 1 warning"


def test_syntax_errors_are_located_and_other_functions_are_still_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("broken.ts").write_text(
        "export function ok() { let n = 0; return () => n++; }\n"
        "export function broken() { const k = 1; return () => { k + ; ) }; }\n"
        "export function fine() { const v = 1; return () => v; }\n"
    )
    code, out, _ = run("--format", "json", "broken.ts")
    doc = json.loads(out)
    file = doc["files"][0]
    syntax = [d for d in file["diagnostics"] if d["code"] == "BX001"]
    assert syntax and all(d["line"] == 2 for d in syntax)
    storage = {b["name"]: b["storage"] for b in file["bindings"]}
    assert storage["n"] == "box"
    assert storage["v"] == "value"
    assert storage["k"] in ("box", "context")
    assert "syntax error" in next(b["reason"] for b in file["bindings"] if b["name"] == "k")
    assert code == 1


def test_console_script_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "capture_analysis", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("boxcheck ")


@pytest.mark.parametrize("form", ["text", "json", "sarif", "lsp", "github"])
def test_a_run_with_no_file_to_analyze_for_an_error_prints_only_the_error(tree, monkeypatch, form):
    """No totals of zeros, no empty document: a SARIF log without results would close every alert it is
    uploaded over, and a JSON summary of zeros reads as a clean run."""
    monkeypatch.chdir(tree)
    for paths in (["missing.ts"], ["missing.ts", "src/*.vue"], ["src/*.vue"]):
        code, out, err = run("--no-cache", "--format", form, *paths)
        assert (code, out) == (2, ""), paths
        assert err.startswith(f"boxcheck: {paths[0]}: ")
    code, out, err = run("--no-cache", "--format", form, "-o", "report.out", "--explain", "BX101", "missing.ts")
    assert (code, out, (tree / "report.out").read_text()) == (2, "", "")
    code, out, _ = run("--no-cache", "--format", form, "missing.ts", "src/a.ts")
    assert code == 2 and "a.ts" in out, "a file was analyzed: its report is printed"


@pytest.mark.parametrize("form", ["json", "sarif", "github"])
def test_a_file_that_could_not_be_analyzed_is_in_the_report(tree, monkeypatch, form):
    """Unlike a missing path, a file that was found and not analyzed is the report's to name, in the formats that
    have a place for it: JSON's ``errors``, SARIF's notifications, GitHub's error annotations."""
    monkeypatch.chdir(tree)
    (tree / "src" / "blob.js").write_bytes(b"\x00\x01\x02binary")
    code, out, _ = run("--no-cache", "--format", form, "missing.ts", "src/blob.js")
    assert code == 2
    assert "src/blob.js" in out and "skipped: binary file (NUL bytes)" in out
