"""``--format lsp``: golden outputs, the LSP 3.17 shape, and 0-based positions in each encoding."""

from __future__ import annotations

import json

import pytest
from lsprotocol import converters, types

from capture_analysis.analyze import analyze_text
from capture_analysis.report.lsp import publish_params
from capture_analysis.rules import RULES, Severity
from capture_analysis.source import PositionEncoding

from .conftest import ROOT
from .golden_outputs import INPUTS, check_golden, golden_name, run_cli, stable

CONVERTER = converters.get_converter()


def lsp_output(monkeypatch: pytest.MonkeyPatch, path: str) -> list[dict]:
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "lsp", path)
    return json.loads(out)


@pytest.mark.parametrize("path", INPUTS)
def test_golden(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "lsp", path)
    check_golden(golden_name(path, ".lsp.json"), stable(out))


@pytest.mark.parametrize("path", INPUTS)
def test_every_file_is_publish_diagnostics_params(path, monkeypatch):
    """lsprotocol's types are the LSP 3.17 metamodel: a lossless round trip means no unknown or mistyped field."""
    params = lsp_output(monkeypatch, path)
    assert [p["uri"] for p in params] == [(ROOT / path).as_uri()]
    # each diagnostic's own severity (a rule's default, or what the policy, a change or a test file makes it)
    levels = [(d["code"], Severity[d["severity"].upper()].lsp)
              for f in json.loads(run_cli("--format", "json", path)[1])["files"] for d in f["diagnostics"]]
    assert [(d["code"], d["severity"]) for entry in params for d in entry["diagnostics"]] == levels
    for entry in params:
        structured = CONVERTER.structure(entry, types.PublishDiagnosticsParams)
        assert CONVERTER.unstructure(structured, types.PublishDiagnosticsParams) == entry
        for diagnostic in entry["diagnostics"]:
            rule = RULES[diagnostic["code"]]
            assert diagnostic["source"] == "boxcheck"
            assert diagnostic["codeDescription"]["href"] == rule.href()
            assert rule.href().endswith(f"capture_analysis/docs/rules.html#{rule.anchor}")
            start, end = diagnostic["range"]["start"], diagnostic["range"]["end"]
            assert (start["line"], start["character"]) < (end["line"], end["character"])


def test_href_names_a_heading_of_the_generated_docs():
    """The anchor is GitHub's slug of the Markdown heading too, so ``docs-url`` may name a copy of either page."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"\n## {rule.code} {rule.name}\n" in text
        assert rule.href().startswith("file://") and rule.href().endswith(f"#{rule.code.lower()}-{rule.name}")


def test_docs_url_from_the_command_line_or_the_configuration_is_every_href(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.ts").write_text("export function f() { let n = 0; return () => n++; }\n", encoding="utf-8")
    base = "https://example.org/boxcheck/0.1/rules.md"
    _, out = run_cli("--format", "lsp", "--docs-url", base, "a.ts")
    assert [d["codeDescription"]["href"] for d in json.loads(out)[0]["diagnostics"]] == [f"{base}#bx101-heap-capture"]
    (tmp_path / "boxcheck.toml").write_text(f'docs-url = "{base}"\n', encoding="utf-8")
    _, out = run_cli("--format", "lsp", "a.ts")
    assert [d["codeDescription"]["href"] for d in json.loads(out)[0]["diagnostics"]] == [f"{base}#bx101-heap-capture"]


@pytest.mark.parametrize("url", ["rules.html", "https://example.org/rules.html#bx101-heap-capture", ""])
def test_a_docs_url_that_cannot_take_an_anchor_is_refused(url, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.ts").write_text("export const x = 1;\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        run_cli("--format", "lsp", "--docs-url", url, "a.ts")
    assert exit_info.value.code == 2 and "--docs-url" in capsys.readouterr().err
    (tmp_path / "boxcheck.toml").write_text(f'docs-url = "{url}"\n', encoding="utf-8")
    assert run_cli("--format", "lsp", "a.ts") == (2, "")
    assert "boxcheck.toml: docs-url:" in capsys.readouterr().err


def test_related_information_and_data_of_a_heap_capture(monkeypatch):
    params = lsp_output(monkeypatch, "examples/factories.ts")
    total = next(d for d in params[0]["diagnostics"] if d["data"]["binding"] == "total")
    assert total["range"] == {"start": {"line": 5, "character": 6}, "end": {"line": 5, "character": 11}}
    assert total["data"] == {
        "binding": "total", "storage": "context", "site": total["data"]["site"], "multiplicity": "per-call",
        "function": "makeTally", "allocations": {"per_call": 1, "per_iteration": 0, "once": 0},
    }
    related = [(r["message"], r["location"]["range"]["start"]) for r in total["relatedInformation"]]
    assert related == [
        ("captured here", {"line": 8, "character": 4}),            # `add` at 9:5
        ("captured here", {"line": 13, "character": 4}),           # `delta` at 14:5
        ("written after capture", {"line": 10, "character": 6}),   # `total += n` at 11:7
        # BX101 is one finding per function: the binding that shares the context, with its reason
        ("`previous` shares it: reassigned at 10:7 inside `add`, and `add` escapes (stored in an object literal at "
         "9:5)", {"line": 6, "character": 4}),
    ]
    assert total["severity"] == Severity.INFO.lsp
    assert "`makeTally` needs 1 heap context per call for `total`, `previous`" in total["message"]
    assert not [d for d in params[0]["diagnostics"] if d["data"]["binding"] == "previous"]


SOURCE = 'function f() {\n  const s = "é😀中"; let café = 0;\n  return () => { café++; };\n}\n'


@pytest.mark.parametrize(("encoding", "unit"), [
    (PositionEncoding.UTF16, "utf-16-le"), (PositionEncoding.UTF8, "utf-8"), (PositionEncoding.UTF32, "utf-32-le"),
])
def test_characters_count_the_negotiated_encoding(encoding, unit):
    analysis = analyze_text("t.ts", SOURCE)
    params = publish_params(analysis, analysis.diagnostics, encoding.value)
    (diagnostic,) = params["diagnostics"]
    start, end = diagnostic["range"]["start"], diagnostic["range"]["end"]
    assert start["line"] == end["line"] == 1
    width = {"utf-16-le": 2, "utf-8": 1, "utf-32-le": 4}[unit]
    line = SOURCE.splitlines()[1].encode(unit)
    assert line[start["character"] * width:end["character"] * width].decode(unit) == "café"
    expected = {"utf-16-le": 24, "utf-8": 29, "utf-32-le": 23}[unit]
    assert start["character"] == expected


def test_default_encoding_is_utf16():
    analysis = analyze_text("t.ts", SOURCE)
    assert publish_params(analysis, analysis.diagnostics) == publish_params(analysis, analysis.diagnostics, "utf-16")


@pytest.mark.parametrize("path", [ROOT / "tests" / "unicode" / "non-ascii-before-token.ts",
                                  ROOT / "tests" / "unicode" / "bom-and-crlf-line-ends.ts",
                                  ROOT / "examples" / "factories.ts"], ids=lambda p: p.name)
def test_the_command_line_and_the_server_publish_the_same_diagnostics(path, tmp_path, monkeypatch):
    """`--format lsp` renders each finding from its record (positions resolved once, in UTF-16); the language
    server measures the ranges in the encoding it negotiated. In UTF-16 the two must agree exactly, related
    places, data and links included, with astral and non-ASCII characters before the findings."""
    monkeypatch.chdir(path.parent)
    _, out = run_cli("--format", "lsp", path.name)
    (published,) = json.loads(out)
    analysis = analyze_text(path.name, path.read_text(encoding="utf-8"))
    assert published == publish_params(analysis, analysis.diagnostics)
    assert published["diagnostics"] and any("relatedInformation" in d for d in published["diagnostics"])
