"""``--fix`` and ``--fix --diff``: the certain fixes written (or shown), then what remains reported."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import networkx as nx
import pytest

from capture_analysis.batch import fixing
from capture_analysis.batch.fix_run import NOTHING_TO_FIX
from capture_analysis.batch.tasks import FileTask, FixMode, FixRequest
from capture_analysis.cli import main
from capture_analysis.commands import architecture
from capture_analysis.config import Config
from capture_analysis.fixes import ActionKind, Fix, Replacement
from capture_analysis.report import RunOptions
from capture_analysis.source import SourceFile

from .conftest import ROOT

#: a BX107 finding (`big`, a hint) that moves into a block, and a `let` that becomes `const`.
LEAK = """\
export function make() {
  const big = { data: [1, 2, 3] };
  const use = () => big.data.length;
  use();
  let label = "x";
  return () => label;
}
"""
FIXED = """\
export function make() {
  {
    const big = { data: [1, 2, 3] };
    const use = () => big.data.length;
    use();
  }
  const label = "x";
  return () => label;
}
"""
#: a BX102 warning (the loop copies `i`, which the closure writes, into each iteration), which no fix resolves.
COUNTER = "export function counter(n: number) {\n  for (let i = 0; i < n; i++) keep(() => i++);\n}\n"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--no-cache", *args])
    return code, out.getvalue(), err.getvalue()


def codes(stdout: str) -> dict[str, list[str]]:
    return {os.path.normpath(f["path"]): [d["code"] for d in f["diagnostics"]] for f in json.loads(stdout)["files"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "a.ts").write_text(LEAK)
    (tmp_path / "b.ts").write_text(COUNTER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_writes_the_fixes_then_reports_what_remains(project):
    code, out, err = run("--fix", "--format", "json", ".")
    assert (project / "a.ts").read_text() == FIXED
    assert (project / "b.ts").read_text() == COUNTER
    assert codes(out) == {"a.ts": [], "b.ts": ["BX102"]}
    assert code == 1                                              # the warning that remains
    assert "boxcheck: fixed 1 finding and declared 1 `let` declaration `const` in 1 file" in err


def test_the_exit_code_is_that_of_what_remains(project):
    assert run("--fail-on", "hint", "a.ts")[0] == 1               # the BX107 hint
    code, _, err = run("--fix", "--fail-on", "hint", "a.ts")
    assert code == 0, err


def test_a_second_fix_changes_nothing_and_writes_nothing(project):
    run("--fix", ".")
    before = {name: (project / name).stat() for name in ("a.ts", "b.ts")}
    code, _, err = run("--fix", ".")
    assert code == 1 and "boxcheck: nothing to fix" in err
    assert (project / "a.ts").read_text() == FIXED
    for name, stat in before.items():
        now = (project / name).stat()
        assert (now.st_ino, now.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns), name


def test_diff_prints_a_unified_diff_that_git_applies_and_writes_nothing(project, tmp_path_factory):
    code, out, err = run("--fix", "--diff", "a.ts", "b.ts")
    assert code == 1
    assert (project / "a.ts").read_text() == LEAK                 # nothing written
    assert out.startswith("--- a.ts\n+++ a.ts\n@@ -1,7 +1,9 @@\n")
    assert "boxcheck: would fix 1 finding and declare 1 `let` declaration `const` in 1 file" in err
    copy = tmp_path_factory.mktemp("copy")
    (copy / "a.ts").write_text(LEAK)
    subprocess.run(["git", "apply", "-p0", "-"], input=out, text=True, cwd=copy, check=True, capture_output=True)
    assert (copy / "a.ts").read_text() == FIXED


def test_diff_exits_0_when_there_is_nothing_to_fix_whatever_the_findings(project):
    assert run("--fix", "--diff", "b.ts") == (0, "", f"boxcheck: {NOTHING_TO_FIX}\n")


@pytest.mark.parametrize("text", [LEAK.rstrip("\n"),   # the last line is context
                                  "function make() { const big = { n: 1 }; const use = () => big.n; use(); "
                                  "return () => 1; }"])   # the last line changes
def test_a_last_line_without_a_line_break_is_marked_as_git_marks_it(project, tmp_path_factory, text):
    (project / "a.ts").write_text(text)
    _, out, _ = run("--fix", "--diff", "a.ts")
    assert out.endswith("}\n\\ No newline at end of file\n")
    copy = tmp_path_factory.mktemp("copy")
    (copy / "a.ts").write_text(text)
    subprocess.run(["git", "apply", "-p0", "-"], input=out, text=True, cwd=copy, check=True, capture_output=True)
    run("--fix", "a.ts")
    assert (copy / "a.ts").read_text() == (project / "a.ts").read_text() != text


@pytest.mark.parametrize("args, message", [
    (["--diff", "a.ts"], "--diff shows what --fix would change: give both"),
    (["--fix", "-"], "--fix on standard input needs --stdin-filename PATH"),
    (["--fix", "--write-baseline", "base.json", "a.ts"], "--fix changes the files whose findings --write-baseline"),
    (["--fix", "--diff", "--format", "json", "a.ts"], "--diff prints a unified diff, not a report"),
    (["--fix", "--diff", "--statistics", "a.ts"], "--diff prints a unified diff, not a report"),
    (["--fix", "--scheduler", "tcp://127.0.0.1:8786", "a.ts"], "--fix writes the files where they are analyzed"),
])
def test_refused_combinations_exit_2_and_touch_nothing(project, args, message):
    code, out, err = run(*args)
    assert code == 2 and out == "" and f"boxcheck: error: {message}" in err
    assert (project / "a.ts").read_text() == LEAK and not (project / "base.json").exists()


def test_quiet_says_nothing_of_the_fixes(project):
    code, out, err = run("--fix", "-q", "a.ts")
    assert (code, out, err) == (0, "", "")
    assert (project / "a.ts").read_text() == FIXED


def boxcheck(*args: str, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "capture_analysis", *args], input=stdin, cwd=cwd, env=env,
                          capture_output=True, timeout=120)


def test_standard_input_gets_the_fixed_text_back_and_the_named_file_is_not_written(project):
    done = boxcheck("--fix", "--stdin-filename", "a.ts", stdin=LEAK.encode(), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FIXED.encode()
    assert b"fixed 1 finding" in done.stderr and b"1 file, 3 functions" in done.stderr   # the report
    assert (project / "a.ts").read_text() == LEAK
    done = boxcheck("--fix", "--stdin-filename", "b.ts", stdin=COUNTER.encode(), cwd=project)
    assert (done.returncode, done.stdout) == (1, COUNTER.encode())   # unchanged, and its warning counts
    done = boxcheck("--fix", "--diff", "--stdin-filename", "a.ts", stdin=LEAK.encode(), cwd=project)
    assert done.returncode == 1 and done.stdout.startswith(b"--- a.ts\n+++ a.ts\n")


def test_standard_input_that_the_configuration_excludes_comes_back_as_it_came(project):
    (project / "boxcheck.toml").write_text('exclude = ["vendor/**"]\n')
    done = boxcheck("--fix", "--stdin-filename", "vendor/v.ts", stdin=LEAK.encode(), cwd=project)
    assert (done.returncode, done.stdout) == (0, LEAK.encode()), done.stderr


def test_a_bom_and_crlf_line_breaks_are_kept(project):
    (project / "a.ts").write_bytes(b"\xef\xbb\xbf" + LEAK.replace("\n", "\r\n").encode())
    run("--fix", "a.ts")
    assert (project / "a.ts").read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()


def test_a_file_that_is_not_utf8_is_left_alone(project):
    data = LEAK.replace('"x"', '"\xe9"').encode("latin-1")
    (project / "a.ts").write_bytes(data)
    code, _, err = run("--fix", "a.ts")
    assert code == 0 and (project / "a.ts").read_bytes() == data
    assert "a.ts: not fixed: the file is not valid UTF-8" in err and "nothing to fix" in err


def test_only_the_functions_without_a_syntax_error_are_fixed(project):
    broken = "export function broken() {\n  let n = 1;\n  return n +;\n}\n"
    (project / "a.ts").write_text(broken + LEAK)
    code, out, _ = run("--fix", "--format", "json", "a.ts")
    assert (project / "a.ts").read_text() == broken + FIXED
    assert "BX001" in codes(out)["a.ts"] and "BX107" not in codes(out)["a.ts"] and code == 1


def test_suppressed_and_unselected_findings_are_not_fixed_but_const_still_is(project):
    suppressed = LEAK.replace("  const big", "  // boxcheck-ignore-next-line BX107\n  const big")
    (project / "a.ts").write_text(suppressed)
    run("--fix", "a.ts")
    assert (project / "a.ts").read_text() == suppressed.replace("let label", "const label")
    for option in (["--ignore", "context-retention"], ["--select", "BX101"]):
        (project / "a.ts").write_text(LEAK)
        run("--fix", *option, "a.ts")
        assert (project / "a.ts").read_text() == LEAK.replace("let label", "const label"), option


def test_a_baselined_finding_is_not_fixed(project):
    assert run("--write-baseline", "base.json", "a.ts")[0] == 0
    run("--fix", "--baseline", "base.json", "a.ts")
    assert (project / "a.ts").read_text() == LEAK.replace("let label", "const label")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                    *args], cwd=repo, check=True, capture_output=True)


def test_since_fixes_only_what_stands_on_changed_lines(project):
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "old")
    added = LEAK.replace("make", "added").replace("label", "tag")
    (project / "a.ts").write_text(LEAK + added)
    code, _, err = run("--fix", "--since", "HEAD", "a.ts")
    assert code == 0
    assert (project / "a.ts").read_text() == LEAK + FIXED.replace("make", "added").replace("label", "tag")
    assert "fixed 1 finding and declared 1 `let` declaration `const` in 1 file" in err


def test_files_outside_the_run_are_never_touched(project):
    (project / "vendor").mkdir()
    (project / "vendor" / "v.ts").write_text(LEAK)
    (project / "boxcheck.toml").write_text('exclude = ["vendor/**"]\n')
    run("--fix", ".")
    assert (project / "vendor" / "v.ts").read_text() == LEAK
    (project / "c.ts").write_text(LEAK)
    run("--fix", "a.ts")
    assert (project / "c.ts").read_text() == LEAK


def test_a_symbolic_link_is_followed_and_permissions_are_kept(project):
    (project / "a.ts").chmod(0o640)
    (project / "link.ts").symlink_to("a.ts")
    run("--fix", "link.ts")
    assert (project / "link.ts").is_symlink() and (project / "a.ts").read_text() == FIXED
    assert (project / "a.ts").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in project.iterdir()) == ["a.ts", "b.ts", "link.ts"]   # no temporary left


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path):
    path = tmp_path / "a.ts"
    path.write_text("changed")
    assert fixing.write_atomically(str(path), LEAK.encode(), FIXED.encode()) == \
        "changed while boxcheck analyzed it: not fixed"
    assert path.read_text() == "changed" and [p.name for p in tmp_path.iterdir()] == ["a.ts"]


def test_workers_fix_as_one_process_does(tmp_path, monkeypatch):
    results = []
    for jobs in ("1", "2"):
        tree = tmp_path / f"jobs{jobs}"
        tree.mkdir()
        for index in range(6):
            (tree / f"f{index}.ts").write_text((LEAK if index % 2 else COUNTER).replace("make", f"make{index}"))
        monkeypatch.chdir(tree)
        code, out, err = run("--fix", "--jobs", jobs, ".")
        results.append((code, out, err, {p.name: p.read_text() for p in sorted(tree.iterdir())}))
    assert results[0] == results[1]
    assert "fixed 3 findings and declared 3 `let` declarations `const` in 3 files" in results[0][2]


def test_a_fixed_file_is_analyzed_again_by_a_run_with_the_cache(project):
    def cached(*args: str) -> tuple[int, str]:
        out = io.StringIO()
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            code = main(["--cache-dir", str(project / "cache"), "--format", "json", *args])
        return code, out.getvalue()

    assert codes(cached("--fail-on", "hint", "a.ts")[1]) == {"a.ts": ["BX107"]}   # cached under the old bytes
    code, out = cached("--fix", "--fail-on", "hint", "a.ts")                     # reads no entry: still fixes
    assert (project / "a.ts").read_text() == FIXED and codes(out) == {"a.ts": []} and code == 0
    assert cached("--fail-on", "hint", "a.ts") == (0, run("--format", "json", "--fail-on", "hint", "a.ts")[1])


def fix_once(code: str, fixes: list[Fix], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """``fix_source`` on ``code`` with ``certain`` answering ``fixes`` every round; the text and the note."""
    monkeypatch.setattr(fixing, "certain", lambda analysis, request: fixes)
    task = FileTask.of("text", RunOptions(), Config(), 1 << 20)
    raw = code.encode()
    analysis, fixed = fixing.fix_source(SourceFile.from_bytes("a.ts", raw), raw, task, FixRequest(FixMode.DIFF))
    return analysis.source.data.decode(), fixed.note


def test_a_round_that_would_add_a_syntax_error_is_not_kept(monkeypatch):
    breaking = Fix("t", ActionKind.REWRITE, 0, 0, (Replacement(0, 0, "}}"),))
    text, note = fix_once(COUNTER, [breaking], monkeypatch)
    assert text == COUNTER and note.startswith("a fix would have made a syntax error")


def test_rounds_are_bounded(monkeypatch):
    endless = Fix("t", ActionKind.REWRITE, 0, 0, (Replacement(0, 0, "\n"),))
    text, note = fix_once(COUNTER, [endless], monkeypatch)
    assert text == "\n" * fixing.ROUNDS + COUNTER
    assert note == f"fixes remain after {fixing.ROUNDS} rounds: run --fix again (please report this with the file)"


def test_the_command_line_never_imports_the_language_server():
    """``--fix`` shares ``capture_analysis.fixes`` with the server; the ``lsp`` extra (pygls) stays optional."""
    imported = nx.descendants(architecture.module_graph(), "capture_analysis.cli")
    assert "capture_analysis.fixes" in imported
    assert not [name for name in imported if name.startswith("capture_analysis.lsp")]


def test_fix_runs_where_pygls_cannot_be_imported(project):
    blocker = textwrap.dedent("""\
        import sys
        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pygls", "lsprotocol"):
                    raise ImportError(f"{name} is blocked")
        sys.meta_path.insert(0, Blocker())
        from capture_analysis.cli import main
        sys.exit(main(["--no-cache", "--fix", "a.ts"]))
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", blocker], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert (project / "a.ts").read_text() == FIXED


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the examples and of the fixtures that have fixes, fixed once."""
    tree = tmp_path_factory.mktemp("bundled")
    for folder in ("examples", "tests/fixtures/retention", "tests/fixtures/fix"):
        shutil.copytree(ROOT / folder, tree / folder)
    return tree


def test_fixing_the_bundled_sources_adds_no_syntax_error_and_a_second_fix_finds_nothing(bundled, monkeypatch):
    monkeypatch.chdir(bundled)
    before = codes(run("--format", "json", ".")[1])
    assert "fixed" in run("--fix", ".")[2]
    after = codes(run("--format", "json", ".")[1])
    assert before.keys() == after.keys()
    assert all(after[path].count("BX001") == before[path].count("BX001") for path in before)
    assert sum(c == "BX107" for found in after.values() for c in found) < \
        sum(c == "BX107" for found in before.values() for c in found)
    assert run("--fix", "--diff", ".")[:2] == (0, "")
