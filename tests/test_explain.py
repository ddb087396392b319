"""``--explain``: each step of a diagnostic's evidence, with its source line, a caret where it happened, and
what it means for the decision, as rustc's notes are shown.  Columns in the text stay UTF-16 code units;
carets are placed in terminal cells (wide CJK takes two, an astral letter one, a tab one)."""

from __future__ import annotations

import re
import textwrap
import unicodedata

import pytest

from capture_analysis.analyze import analyze_source
from capture_analysis.policies import POLICIES
from capture_analysis.report.evidence import meaning
from capture_analysis.report.file_record import diagnostic_record
from capture_analysis.report.json_text import JsonText
from capture_analysis.report.text import render_diagnostic
from capture_analysis.results import StepRole
from capture_analysis.source import SourceFile

from .conftest import ROOT
from .golden_outputs import INPUTS, check_golden, golden_name, run_cli

NOTE = re.compile(r"^  = note (\d+)/(\d+), ([^:]+): (.*)$")


@pytest.mark.parametrize("path", INPUTS)
def test_explain_golden(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--explain", path)
    check_golden(golden_name(path, ".explain.txt"), out)


def cells(text: str) -> int:
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def explained(code: str, policy: str = "optimal", path: str = "t.ts") -> list[tuple[object, list[str]]]:
    """(diagnostic, its rendered lines) for each diagnostic of ``code``."""
    analysis = analyze_source(SourceFile(path, textwrap.dedent(code)), POLICIES[policy])
    return [(d, render_diagnostic(path, record_of(analysis, d), explain=True)) for d in analysis.diagnostics]


def record_of(analysis, diagnostic):
    return diagnostic_record(analysis, JsonText(analysis.source), diagnostic)


UNICODE = """\
export function 工場(開始: number) {
  let 数 = 開始; const 𝒇 = () => { 数 += 1; return 数; };
\tconst t = "😀"; return { 𝒇, g: () => 数 };
}
"""


def test_every_step_has_its_line_and_a_caret_in_terminal_cells_at_its_utf16_column():
    source = SourceFile("t.ts", UNICODE)
    ((diagnostic, lines),) = explained(UNICODE)
    steps = diagnostic.decision.evidence
    notes = [index for index, line in enumerate(lines) if NOTE.match(line)]
    assert len(notes) == len(steps) == 5
    assert [NOTE.match(lines[i]).group(1, 2) for i in notes] == [(str(n), "5") for n in range(1, 6)]
    bars = {line.index("|") for line in lines[1:] if not NOTE.match(line)}
    assert len(bars) == 1, "the gutters of one diagnostic line up"
    for step, index in zip(steps, notes, strict=True):
        code_line, caret_line = lines[index + 1], lines[index + 2]
        position = source.position(step.offset)
        assert code_line.split("| ", 1)[0].strip() == str(position.line)
        text = source.line_text(position.line)
        # the step's column is in UTF-16 code units: find the character it names, independently of boxcheck
        units, before = 0, ""
        for ch in text:
            if units == position.column - 1:
                break
            units += 2 if ord(ch) > 0xFFFF else 1
            before += ch
        caret = caret_line.split("| ", 1)[1]
        assert cells(before.expandtabs(1)) == len(caret) - len(caret.lstrip(" ")), step
        assert caret.lstrip(" ").lstrip("^") == " " + step.text


def test_a_name_is_underlined_whole_whatever_its_characters():
    ((_, lines),) = explained(UNICODE)
    write = lines[lines.index(next(line for line in lines if "written after capture" in line)) + 2]
    assert "^^ reassigned at 2:34 inside `𝒇`" in write  # `数`: one UTF-16 unit, two cells
    escape = lines[-1]
    assert escape.endswith("^ `𝒇`: stored in an object literal")  # `𝒇`: two UTF-16 units, one cell


@pytest.mark.parametrize(("code", "policy", "role", "says"), [
    ("export function f() { let n = 0; return () => n++; }", "optimal", StepRole.CAPTURE,
     "this closure uses `n`, so it captures it"),
    ("export function f() { let n = 0; return () => n++; }", "optimal", StepRole.WRITE_AFTER_CAPTURE,
     "a copy taken when the closure was created would miss this write, so the closures and the function must "
     "share one `n` (not `value`)"),
    ("export function f() { let n = 0; return () => n++; }", "optimal", StepRole.ESCAPE,
     "here the arrow outlives the call of `f` that creates it"),
    ("export function f() { keep(g); function g() { return s; } const s = 1; return g; }", "optimal",
     StepRole.CAPTURE_BEFORE_INIT, "a closure captures `s` before `s` holds its first value"),
    ("function f(a) { var g = () => a; arguments[0] = 2; return g; }", "optimal", StepRole.ARGUMENTS_ALIAS,
     "writes through the sloppy-mode `arguments` object reach the parameter `a`"),
    ("export function f(src: string) { eval(src); return () => src; }", "optimal", StepRole.CONSERVATIVE,
     "nothing about `src` can be known here"),
    ("export function f(xs: number[]) { let keep; for (const x of xs) { let n = x; keep = () => n++; } "
     "return 0; }", "optimal", StepRole.OUTLIVES_ITERATION, "is kept beyond this iteration of the loop"),
    ("export function f() { const n = 0; return () => n; }", "v8", StepRole.CONTEXT_SLOT,
     "V8 keeps every binding that an inner function refers to in a slot of its scope's context"),
    ("export function f() { let n = 0; return () => n++; }", "legacy", StepRole.POLICY_RULE,
     "the rule of the legacy compiler that boxes `n`"),
])
def test_each_kind_of_step_says_what_it_means(code, policy, role, says):
    found = [(d, lines) for d, lines in explained(code, policy, "t.js" if "arguments" in code else "t.ts")
             if d.decision is not None and any(s.role is role for s in d.decision.evidence)]
    assert found, f"no {role} step"
    diagnostic, lines = found[0]
    index = next(i for i, s in enumerate(diagnostic.decision.evidence) if s.role is role)
    assert says in meaning(diagnostic.decision, index)
    assert any(line.startswith(f"  = note {index + 1}/") and f", {role.value}: " in line and says in line
               for line in lines)


def test_quiet_drops_the_notes_and_the_source():
    code = "export function f() { let n = 0; return () => n++; }\n"
    analysis = analyze_source(SourceFile("t.ts", code), POLICIES["optimal"])
    (diagnostic,) = analysis.diagnostics
    record = record_of(analysis, diagnostic)
    assert render_diagnostic("t.ts", record, show_source=False, explain=True) == \
        render_diagnostic("t.ts", record, explain=True)[:1]
