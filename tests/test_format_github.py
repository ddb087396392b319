"""``--format github``: golden outputs, the toolkit's escaping, and annotations that parse back to the positions."""

from __future__ import annotations

import json
import re

import pytest

from capture_analysis import rules
from capture_analysis.analyze import analyze_text
from capture_analysis.diagnose import Diagnostic
from capture_analysis.report.file_record import diagnostic_record
from capture_analysis.report.github import annotation, escape_data, escape_property
from capture_analysis.report.json_text import JsonText

from .conftest import ROOT
from .golden_outputs import INPUTS, check_golden, golden_name, run_cli

#: how the Actions runner reads a workflow command: ``::name key=value,...::message``.
COMMAND = re.compile(r"^::(?P<name>[a-z]+) (?P<props>[^:]*)::(?P<message>.*)$")


def unescape(text: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    props = dict(item.split("=", 1) for item in match["props"].split(","))
    return match["name"], {k: unescape(v) for k, v in props.items()}, unescape(match["message"])


@pytest.mark.parametrize("path", INPUTS)
def test_golden(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "github", path)
    check_golden(golden_name(path, ".github.txt"), out)


@pytest.mark.parametrize("path", INPUTS)
def test_annotations_carry_the_json_positions(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "github", path)
    _, doc = run_cli("--format", "json", path)
    diagnostics = json.loads(doc)["files"][0]["diagnostics"]
    parsed = [parse(line) for line in out.splitlines()]
    assert len(parsed) == len(diagnostics)
    for (name, props, message), diagnostic in zip(parsed, diagnostics, strict=True):
        assert name == {"info": "notice", "hint": "notice"}.get(diagnostic["severity"], diagnostic["severity"])
        assert props == {"file": path, "line": str(diagnostic["line"]), "col": str(diagnostic["column"]),
                         "endLine": str(diagnostic["end_line"]), "endColumn": str(diagnostic["end_column"]),
                         "title": f"{diagnostic['code']} {diagnostic['rule']}"}
        assert diagnostic["rule"] == rules.RULES[diagnostic["code"]].name
        assert message == diagnostic["message"]


def test_escaping_follows_actions_core():
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d"


def test_path_with_comma_and_colon_is_escaped(tmp_path, monkeypatch):
    odd = tmp_path / "a,b:c%.ts"
    odd.write_text("function f() { let n = 0; return () => n++; }\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, out = run_cli("--format", "github", "a,b:c%.ts")
    (line,) = out.splitlines()
    assert line.startswith("::notice file=a%2Cb%3Ac%25.ts,line=1,col=20,endLine=1,endColumn=21,")  # BX101: info
    assert parse(line)[1]["file"] == "a,b:c%.ts"


def test_multi_line_range_keeps_lines_and_drops_columns():
    analysis = analyze_text("m.ts", "let a = 1;\nlet b = 2;\n")
    diagnostic = Diagnostic(rules.SYNTAX_ERROR, 4, 15, "spans two lines\n50%")
    assert annotation("m.ts", diagnostic_record(analysis, JsonText(analysis.source), diagnostic)) == \
        "::error file=m.ts,line=1,endLine=2,title=BX001 syntax-error::spans two lines%0A50%25"


def test_unreadable_file_is_an_error_annotation(tmp_path, monkeypatch):
    (tmp_path / "blob.ts").write_bytes(b"\x00binary")
    monkeypatch.chdir(tmp_path)
    _, out = run_cli("--format", "github", "blob.ts")
    name, props, message = parse(out.strip())
    assert (name, props["file"]) == ("error", "blob.ts")
    assert "binary" in message
