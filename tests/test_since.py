"""``--since REF``: only the findings whose footprint touches a line changed since a git commit."""

from __future__ import annotations

import io
import json
import re
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.batch.changed_lines import changed_lines, new_path
from capture_analysis.cli import main

#: `x` is captured (line 10) and, until the change, never written: a copy.  `old` needs the heap already.  The
#: tests run under `legacy` (``run``), where each boxed binding is a warning of its own (`bump`, a closure that the
#: returned arrow refers to, is boxed too); under `optimal` a function's BX101 is one info, on its first binding.
BEFORE = """\
// padding
//
//
//
//
//
//
//
export function make() {
  let x = 0;
  let old = 0;
  const bump = () => { old++; };
  return () => {
    bump();
    return x;
  };
}
"""
#: the change: a write of `x` inside the returned closure, far from its declaration.
AFTER = BEFORE.replace("    return x;\n", "    x++;\n    return x;\n")
FRESH = "export function fresh() { let f = 0; return () => f++; }\n"


def run(*args: str, policy: str = "legacy") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--no-cache", "--policy", policy, *args])
    return code, out.getvalue(), err.getvalue()


def shown(stdout: str) -> list[tuple[str, int, str]]:
    """(path, line, the binding or function the message is about) of each diagnostic."""
    return [(f["path"], d["line"], re.search(r"(`[^`]+`) (?:needs|gets) ", d["message"]).group(1))
            for f in json.loads(stdout)["files"] for d in f["diagnostics"]]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                    *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(BEFORE)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "before")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_new_write_far_away_reports_the_unchanged_declaration(repo):
    (repo / "src" / "a.ts").write_text(AFTER)
    code, out, _ = run("--format", "json", "src")
    assert code == 1 and shown(out) == [("src/a.ts", 10, "`x`"), ("src/a.ts", 11, "`old`"), ("src/a.ts", 12, "`bump`")]
    code, out, _ = run("--format", "json", "--since", "HEAD", "src")
    assert code == 1 and shown(out) == [("src/a.ts", 10, "`x`")]
    assert json.loads(out)["summary"]["unchanged"] == 2
    code, out, _ = run("--since", "HEAD", "src")
    assert "2 in unchanged code" in out.splitlines()[-1]
    # under `optimal`, `make`'s one BX101 (an info) moves from `old` (line 11) to `x`, and x's new write keeps it
    code, out, _ = run("--format", "json", "--since", "HEAD", "src", policy="optimal")
    assert code == 0 and shown(out) == [("src/a.ts", 10, "`make`")]
    assert json.loads(out)["summary"]["unchanged"] == 0
    assert run("--format", "json", "--since", "HEAD", "--fail-on", "info", "src", policy="optimal")[0] == 1


@pytest.mark.parametrize("line", ["    old += 2;\n", "    console.log(old);\n"])
def test_another_write_or_capture_of_a_finding_counts_though_its_evidence_is_elsewhere(repo, line):
    (repo / "src" / "a.ts").write_text(BEFORE.replace("    bump();\n", "    bump();\n" + line))
    code, out, _ = run("--format", "json", "--explain", "--since", "HEAD", "src")
    assert code == 1 and shown(out) == [("src/a.ts", 11, "`old`")]
    _, text, _ = run("--explain", "src")
    assert ":15:" not in text and "  15 |" not in text  # the evidence shows neither the new write nor the read


def test_nothing_changed_reports_nothing(repo):
    code, out, _ = run("--format", "json", "--since", "HEAD", "src")
    assert code == 0 and shown(out) == []


def test_an_untracked_file_is_changed_on_every_line(repo):
    (repo / "src" / "new.ts").write_text("\n" * 5 + FRESH)
    code, out, _ = run("--format", "json", "--since", "HEAD", "src")
    assert code == 1 and shown(out) == [("src/new.ts", 6, "`f`")]


def test_an_older_ref_and_an_absolute_path(repo):
    (repo / "src" / "a.ts").write_text(AFTER)
    git(repo, "commit", "-q", "-am", "after")
    assert run("--since", "HEAD", "src")[0] == 0
    (repo / "src" / "b.ts").write_text(FRESH)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "b")
    code, out, _ = run("--format", "json", "--since", "HEAD~2", str(repo / "src"))
    assert code == 1 and [(Path(p).name, line) for p, line, _ in shown(out)] == [("a.ts", 10), ("b.ts", 1)]


def test_paths_from_a_subdirectory_map_to_the_repository(repo, monkeypatch):
    (repo / "src" / "a.ts").write_text(AFTER)
    monkeypatch.chdir(repo / "src")
    code, out, _ = run("--format", "json", "--since", "HEAD", ".")
    assert code == 1 and shown(out) == [("./a.ts", 10, "`x`")]


def test_a_staged_change_counts_as_the_working_tree(repo):
    (repo / "src" / "a.ts").write_text(AFTER)
    git(repo, "add", ".")
    code, out, _ = run("--format", "json", "--since", "HEAD", "src")
    assert code == 1 and shown(out) == [("src/a.ts", 10, "`x`")]


def test_the_baseline_and_since_together(repo):
    (repo / "src" / "b.ts").write_text(FRESH)
    run("--write-baseline", "base.json", "src")
    (repo / "src" / "a.ts").write_text(AFTER)
    code, out, _ = run("--format", "json", "--baseline", "base.json", "--since", "HEAD", "src")
    summary = json.loads(out)["summary"]
    assert code == 1 and shown(out) == [("src/a.ts", 10, "`x`")]
    assert (summary["baselined"], summary["unchanged"]) == (3, 0)  # `old`, `bump` and `f`


def test_no_repository_no_ref_no_git_exit_2(repo, tmp_path_factory, monkeypatch):
    code, _, err = run("--since", "no-such-ref", "src")
    assert code == 2 and "--since no-such-ref: not a commit of the repository" in err
    elsewhere = tmp_path_factory.mktemp("plain")
    (elsewhere / "a.ts").write_text(FRESH)
    monkeypatch.chdir(elsewhere)
    code, out, err = run("--since", "HEAD", "a.ts")
    assert code == 2 and "--since needs a git repository" in err and out == ""
    monkeypatch.setenv("PATH", str(elsewhere))
    code, _, err = run("--since", "HEAD", "a.ts")
    assert code == 2 and "--since needs git, which is not installed" in err


def test_the_diff_is_read_by_hunk_counts():
    diff = (b"diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n"
            b"@@ -3 +3,2 @@\n-old\n+++ b/y.ts\n+two\n"
            b"@@ -9,2 +10,0 @@\n-gone\n-gone\n"
            b"@@ -20 +20 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
            b'diff --git "a/caf\\303\\251 x.ts" "b/caf\\303\\251 x.ts"\n--- "a/caf\\303\\251 x.ts"\n'
            b'+++ "b/caf\\303\\251 x.ts"\n@@ -0,0 +1 @@\n+new\n'
            b"diff --git a/gone.ts b/gone.ts\n--- a/gone.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    assert dict(changed_lines(diff)) == {"x.ts": frozenset({3, 4, 20}), "café x.ts": frozenset({1})}
    assert new_path(b"b/with space.ts\t") == "with space.ts"
