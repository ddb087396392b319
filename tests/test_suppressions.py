"""Suppression comments: what they silence, and the BX003 report of those that silence nothing."""

from __future__ import annotations

import json
import textwrap

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.diagnose.suppressions import DirectiveKind, apply, find, parse_comment
from capture_analysis.rules import RULES

from .golden_outputs import run_cli

COUNTER = """\
export function counter() {
  let n = 0;%s
  return () => n++;
}
"""


def findings(code: str, path: str = "t.ts") -> list[tuple[str, int, str]]:
    """(code, 1-based line, message) of what is reported after suppressions."""
    analysis = analyze_text(path, textwrap.dedent(code))
    source = analysis.source
    return [(d.rule.code, source.position(d.start).line, d.message) for d in apply(analysis.file,
                                                                                   analysis.diagnostics)]


def codes(code: str, path: str = "t.ts") -> list[tuple[str, int]]:
    return [(c, line) for c, line, _ in findings(code, path)]


def test_unsuppressed_finding_is_reported():
    assert codes(COUNTER % "") == [("BX101", 2)]


@pytest.mark.parametrize("comment", [
    "  // boxcheck-ignore BX101",
    "  // boxcheck-ignore BX101 -- the counter must be shared",
    "  // boxcheck-ignore bx101, BX102 — reviewed",   # BX102 is then unused, checked below
    "  /* boxcheck-ignore */",
    "  // boxcheck-ignore",
])
def test_same_line_directive_suppresses(comment):
    assert ("BX101", 2) not in codes(COUNTER % comment)


def test_next_line_directive_suppresses_only_the_next_line():
    code = """\
    export function two() {
      // boxcheck-ignore-next-line BX101 — reviewed: cold path
      let a = 0;
      const inner = () => { let b = 0; return () => { a++; b++; }; };
      return inner;
    }
    """
    assert codes(code) == [("BX101", 4)]  # `inner`'s, for `b`; `two`'s, for `a`, is suppressed


def test_a_functions_one_heap_capture_stands_on_its_first_binding():
    """BX101 is one finding per function (on its first such binding, naming the others): a directive on the
    line of any of its bindings suppresses it, as each binding was a finding of its own before, so the
    suppressions written then keep working and none turns into an unused one (BX003)."""
    code = """\
    export function two() {
      %slet a = 0;
      %slet b = 0;
      return () => { a++; b++; };
    }
    """
    directive = "// boxcheck-ignore-next-line BX101\n      "
    assert codes(code % ("", "")) == [("BX101", 2)]
    assert codes(code % (directive, "")) == []
    assert codes(code % ("", directive)) == []
    assert codes(code % (directive, directive)) == []


def test_file_directive_with_and_without_codes():
    loop = """\
    // boxcheck-ignore-file %s
    export function f(items: number[]) {
      let total = 0;
      for (const x of items) { let hits = 0; run(() => { hits++; total += x; }); }
      return total;
    }
    """
    assert codes(loop % "") == []
    assert codes(loop % "BX102") == [("BX101", 3)]


def test_directive_text_inside_a_string_is_not_a_directive():
    code = 'export function f() {\n  let n = 0; const s = "// boxcheck-ignore BX101";\n  return () => s + n++;\n}\n'
    assert codes(code) == [("BX101", 2)]


def test_other_comments_mentioning_the_marker_are_not_directives():
    assert parse_comment("// see boxcheck-ignore in the docs") is None
    assert parse_comment("// boxcheck-ignored") is None
    assert parse_comment("// boxcheck-ignore-next-line BX101, bx102: why") == \
        (DirectiveKind.NEXT_LINE, ("BX101", "BX102"), "why")
    assert parse_comment("/* boxcheck-ignore-file BX103 */") == (DirectiveKind.FILE, ("BX103",), "")


def test_a_rule_name_stands_for_its_code_and_any_other_word_starts_the_reason():
    assert parse_comment("// boxcheck-ignore heap-capture, BX102 reviewed-by-bob") == \
        (DirectiveKind.LINE, ("BX101", "BX102"), "reviewed-by-bob")
    assert parse_comment("// boxcheck-ignore Heap-Capture") == (DirectiveKind.LINE, ("BX101",), "")
    assert parse_comment("// boxcheck-ignore heap-captures -- typo") == \
        (DirectiveKind.LINE, (), "heap-captures -- typo")
    assert codes(COUNTER % "  // boxcheck-ignore heap-capture -- reviewed") == []
    assert codes(COUNTER % "  // boxcheck-ignore per-iteration-capture") == [("BX101", 2), ("BX003", 2)]


def test_tsx_comment_in_jsx_is_a_directive():
    code = """\
    export function View() {
      let clicks = 0; {/* no directive here */}
      return <button onClick={() => { clicks++; }}>{clicks}</button>;
    }
    export function Badge() {
      // boxcheck-ignore-next-line BX101
      let shown = 0;
      return <b onClick={() => { shown++; }}>{shown}</b>;
    }
    """
    assert codes(code, "t.tsx") == [("BX101", 2)]


def test_unused_code_is_reported_on_the_comment():
    (unused,) = [f for f in findings(COUNTER % "  // boxcheck-ignore BX101, BX102") if f[0] == "BX003"]
    assert unused == ("BX003", 2, "unused suppression: no BX102 finding on line 2")


def test_unused_bare_and_file_directives_are_reported():
    code = """\
    // boxcheck-ignore-file
    export function f() {
      const k = 1; // boxcheck-ignore
      return () => k;
    }
    """
    assert findings(code) == [
        ("BX003", 1, "unused suppression: nothing in this file for it to suppress"),
        ("BX003", 3, "unused suppression: nothing on line 3 for it to suppress"),
    ]


def test_file_directive_that_only_repeats_a_line_directive_is_unused():
    """There is a BX101 finding in the file: the message must not say there is none."""
    code = "// boxcheck-ignore-file BX101\n" + COUNTER % "  // boxcheck-ignore BX101"
    assert findings(code) == [("BX003", 1, "unused suppression: another comment already suppresses BX101 in "
                                           "this file")]


def test_a_second_directive_for_the_same_line_is_told_the_first_one_has_it():
    code = COUNTER % "  // boxcheck-ignore BX101"
    code = code.replace("  let n = 0;", "  // boxcheck-ignore-next-line\n  let n = 0;")
    assert findings(code) == [("BX003", 3, "unused suppression: another comment already suppresses BX101 on "
                                           "line 3")]
    bare = code.replace("// boxcheck-ignore BX101", "// boxcheck-ignore").replace("-next-line", "-next-line BX101")
    assert findings(bare) == [("BX003", 3, "unused suppression: another comment already suppresses every "
                                           "finding on line 3")]


def test_unknown_code_is_reported_with_the_command_that_lists_the_known_ones():
    found = findings(COUNTER % "  // boxcheck-ignore BX101, BX999")
    message = "`boxcheck-ignore` names unknown code BX999; `boxcheck rule --all` lists the known codes"
    assert found == [("BX003", 2, message)]
    code, out = run_cli("rule", "--all")
    assert code == 0 and all(f"## {rule} " in out for rule in RULES)


def test_bx003_named_in_a_comment_is_told_that_no_comment_can_suppress_it():
    """A BX003 on the next line is not suppressed by it, so "no BX003 finding on line 3" would be false."""
    code = COUNTER % "  // boxcheck-ignore BX999"
    code = code.replace("  let n = 0;", "  // boxcheck-ignore-next-line BX003\n  let n = 0;")
    assert [(c, line, message) for c, line, message in findings(code) if c == "BX003"] == [
        ("BX003", 2, "`boxcheck-ignore-next-line` cannot suppress BX003: no comment can; the configuration can "
                     "lower its severity or turn it off"),
        ("BX003", 3, "`boxcheck-ignore` names unknown code BX999; `boxcheck rule --all` lists the known codes"),
    ]


def test_file_without_marker_is_not_searched():
    analysis = analyze_text("t.ts", COUNTER % "  // an ordinary comment")
    assert find(analysis.file) == []
    assert apply(analysis.file, analysis.diagnostics) is analysis.diagnostics


def write(tmp_path, text: str) -> str:
    (tmp_path / "a.ts").write_text(text, encoding="utf-8")
    return "a.ts"


def test_fail_on_ignores_suppressed_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, COUNTER % "  // boxcheck-ignore BX101 -- reviewed")
    assert run_cli("--fail-on", "warning", path)[0] == 0
    _, out = run_cli("--format", "json", path)
    assert json.loads(out)["files"][0]["diagnostics"] == []


def test_unused_suppression_fails_like_any_warning_unless_turned_down(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, COUNTER % "  // boxcheck-ignore BX101, BX103")
    code, out = run_cli("--format", "github", path)
    assert code == 1
    assert out.startswith("::warning file=a.ts,line=2,col=15,endLine=2,endColumn=46,title=BX003 unused-suppression::")
    assert run_cli("--severity", "BX003=info", path)[0] == 0
    assert run_cli("--format", "github", "--severity", "BX003=off", path) == (0, "")
