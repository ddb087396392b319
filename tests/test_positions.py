"""Positions: byte offsets become 1-based UTF-16 columns and 0-based LSP positions in one module,
and every output format reports the same token with non-ASCII text before it on the line."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capture_analysis.source import Position, PositionEncoding, SourceFile

from .conftest import ROOT
from .golden_outputs import run_cli

UNICODE = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "unicode").glob("*.ts"))
FORMATS = ("text", "json", "lsp", "sarif", "github")


def offset_of(source: SourceFile, needle: str, occurrence: int = 0) -> int:
    index = -1
    for _ in range(occurrence + 1):
        index = source.data.index(needle.encode("utf-8"), index + 1)
    return index


@pytest.mark.parametrize(("line", "column"), [
    ('let café = 1; x', 15),           # é: 2 UTF-8 bytes, 1 UTF-16 unit
    ('const 名前 = "日本語"; x', 19),   # CJK: 3 bytes, 1 unit each
    ('const s = "😀🎉"; x', 19),        # astral: 4 bytes, 2 units each
    ('a\tb x', 5),                      # a tab is one column
])
def test_column_counts_utf16_units_before_the_token(line, column):
    source = SourceFile("t.ts", f"// first\n{line}\n")
    offset = offset_of(source, " x") + 1
    assert source.position(offset) == Position(2, column)
    assert source.lsp_position(offset) == {"line": 1, "character": column - 1}
    assert source.position(offset).lsp() == source.lsp_position(offset)


def test_bom_is_not_a_column_and_crlf_is_not_part_of_a_line():
    source = SourceFile.from_bytes("t.ts", "\ufefflet a = 1;\r\nlet b = 2;\r\n".encode("utf-8"))
    assert source.position(offset_of(source, "a")) == Position(1, 5)
    assert source.position(offset_of(source, "b")) == Position(2, 5)
    assert source.line_text(1) == "let a = 1;"


def test_end_of_file_without_newline_and_empty_file():
    source = SourceFile("t.ts", "ab\ncd")
    assert source.position(len(source.data)) == Position(2, 3)
    assert SourceFile("t.ts", "").position(0) == Position(1, 1)


def test_undecodable_bytes_become_one_replacement_character_each():
    source = SourceFile.from_bytes("t.ts", b"let s = '\xff'; x\n")
    assert source.decode_errors
    assert source.position(offset_of(source, "; x") + 2) == Position(1, 14)


TEXT = st.text(alphabet=st.sampled_from(list("ab \n\té中😀\U0001f680\u00a0")), max_size=40)


@given(TEXT)
def test_every_character_boundary_converts_in_every_encoding(text):
    source = SourceFile("t.ts", text)
    offset = 0
    for index in range(len(text) + 1):
        before = text[:index]
        line_prefix = before.rsplit("\n", 1)[-1]
        line = before.count("\n")
        assert source.position(offset) == Position(line + 1, len(line_prefix.encode("utf-16-le")) // 2 + 1)
        assert source.lsp_position(offset, PositionEncoding.UTF8) == \
            {"line": line, "character": len(line_prefix.encode("utf-8"))}
        assert source.lsp_position(offset, PositionEncoding.UTF32) == {"line": line, "character": len(line_prefix)}
        if index < len(text):
            offset += len(text[index].encode("utf-8"))


@given(TEXT, st.lists(st.integers(min_value=0, max_value=60), max_size=30))
def test_positions_in_any_order_and_in_one_sweep_are_those_of_a_fresh_file(text, asked):
    """``position`` starts from the line of its last call and ``positions`` sweeps sorted offsets line by line:
    neither may depend on what was asked before."""
    def fresh(offset: int) -> Position:
        return SourceFile("t.ts", text).position(offset)

    asked = [offset for offset in asked if offset <= len(text.encode("utf-8"))]
    source = SourceFile("t.ts", text)
    assert [source.position(offset) for offset in asked] == [fresh(offset) for offset in asked]
    assert list(source.positions(sorted(asked))) == [fresh(offset) for offset in sorted(asked)]
    assert list(source.positions(asked)) == [fresh(offset) for offset in asked]


EDIT = st.text(alphabet=st.sampled_from(list("ab \n\r\té中😀\ufeff")), max_size=30)


@given(EDIT, st.integers(min_value=0, max_value=30), st.integers(min_value=0, max_value=30), EDIT)
def test_an_edited_text_is_the_file_a_fresh_read_makes_of_it(text, first, second, inserted):
    """``edited`` (each keystroke the language server applies) makes the line index from the old one: the file
    is the one a fresh ``SourceFile`` makes of the new text, line breaks removed, inserted and moved, a BOM the
    edit brings to the front dropped, and every position alike."""
    source = SourceFile("t.ts", text)
    boundaries = [len(source.text[:index].encode("utf-8")) for index in range(len(source.text) + 1)]
    start, end = sorted((boundaries[min(first, len(boundaries) - 1)], boundaries[min(second, len(boundaries) - 1)]))
    added = inserted.encode("utf-8")
    edited = source.edited(start, end, added)
    fresh = SourceFile("t.ts", (source.data[:start] + added + source.data[end:]).decode("utf-8"))
    assert edited == fresh
    assert edited.line_count == fresh.line_count
    every = [len(fresh.text[:index].encode("utf-8")) for index in range(len(fresh.text) + 1)]
    assert list(edited.positions(every)) == list(fresh.positions(every))
    assert [edited.point(offset) for offset in every] == [fresh.point(offset) for offset in every]


def reported(fmt: str, out: str) -> list[tuple[str, int, int, str]]:
    """(code, 1-based line, 1-based UTF-16 column, message) of each diagnostic, read from one format's output."""
    if fmt == "text":
        text_line = r"^\S+:(?P<line>\d+):(?P<col>\d+): \w+\[(?P<code>BX\d+)\] (?P<message>.*)$"
        found = re.finditer(text_line, out, re.MULTILINE)
        return [(m["code"], int(m["line"]), int(m["col"]), m["message"]) for m in found]
    if fmt == "github":
        return [(m["code"], int(m["line"]), int(m["col"]), m["message"]) for m in
                re.finditer(r"^::\w+ file=[^,]*,line=(?P<line>\d+),col=(?P<col>\d+),.*?title=(?P<code>BX\d+)[^:]*"
                            r"::(?P<message>.*)$", out, re.MULTILINE)]
    doc = json.loads(out)
    if fmt == "json":
        return [(d["code"], d["line"], d["column"], d["message"]) for d in doc["files"][0]["diagnostics"]]
    if fmt == "lsp":
        return [(d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["message"])
                for d in doc[0]["diagnostics"]]
    return [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["locations"][0]["physicalLocation"]["region"]["startColumn"], r["message"]["text"])
            for r in doc["runs"][0]["results"]]


def named_binding(message: str) -> str:
    """The binding a message stands on: the first it names, or, for a function's one BX101 ("`f` needs 1 heap
    box per call for `a`, `b`: ..."), the first binding after the function's name."""
    per_function = re.match(r"(?:under `[^`]+`, )?`[^`]+` (?:needs|gets) [^:`]* per call for `([^`]+)`", message)
    return per_function[1] if per_function else re.match(r"`([^`]+)`", message)[1]


def test_the_named_binding_of_a_per_function_message_is_its_first_binding():
    assert named_binding("`café` needs 1 heap context per call for `count`, `x`: state that ...") == "count"
    assert named_binding("under `v8`, `f` gets 1 heap context per call for `n`: state") == "n"
    assert named_binding("`n` needs a heap box, per call: reassigned at 1:2") == "n"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", UNICODE)
def test_every_format_points_at_the_named_binding(path, fmt, monkeypatch):
    """The binding a message names is exactly what sits at the reported UTF-16 column of the line."""
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", fmt, path)
    found = reported(fmt, out)
    assert found, out
    lines = (ROOT / path).read_text(encoding="utf-8-sig").splitlines()
    for code, line, column, message in found:
        name = named_binding(message)
        units = lines[line - 1].encode("utf-16-le")
        at = units[(column - 1) * 2:(column - 1 + len(name.encode("utf-16-le")) // 2) * 2].decode("utf-16-le")
        assert at == name, (code, line, column)


@pytest.mark.parametrize("path", UNICODE)
def test_formats_agree(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    results = {fmt: reported(fmt, run_cli("--format", fmt, path)[1]) for fmt in FORMATS}
    assert len({json.dumps(r) for r in results.values()}) == 1, results
