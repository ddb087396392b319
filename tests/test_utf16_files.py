"""UTF-16 files are text, not binary: decoded by their byte order mark or their NUL pattern and analyzed, with the
positions a UTF-8 copy of the same text has; one that does not decode is named as UTF-16."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capture_analysis.batch import utf16

from .test_cli import run

#: an astral name (two UTF-16 units) and a CJK one before the finding's columns.
TEXT = "export function 工場(s: number) {\n  let 𝒇数 = s; return () => 𝒇数++;\n}\n"


@pytest.mark.parametrize(("name", "data"), [
    ("marked little-endian", b"\xff\xfe" + TEXT.encode("utf-16-le")),
    ("marked big-endian", b"\xfe\xff" + TEXT.encode("utf-16-be")),
    ("unmarked little-endian", TEXT.encode("utf-16-le")),
    ("unmarked big-endian", TEXT.encode("utf-16-be")),
])
def test_a_utf16_file_is_analyzed_with_the_positions_of_its_utf8_copy(tmp_path: Path, monkeypatch, name, data):
    monkeypatch.chdir(tmp_path)
    Path("wide.ts").write_bytes(data)
    Path("narrow.ts").write_text(TEXT, encoding="utf-8")
    code, out, err = run("--no-cache", "--format", "json", "wide.ts", "narrow.ts")
    assert code == 0, err  # the finding, BX101, is an info (design 2.7)
    assert err == ""
    wide, narrow = json.loads(out)["files"]
    assert wide["errors"] == []
    assert wide["diagnostics"] == narrow["diagnostics"] != []
    assert wide["bindings"] == narrow["bindings"]
    (finding,) = wide["diagnostics"]
    assert (finding["line"], finding["column"], finding["end_column"]) == (2, 7, 10)  # `𝒇数`: three UTF-16 units


def test_utf16_that_does_not_decode_is_named_as_utf16(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("cut.ts").write_bytes(b"\xff\xfe" + TEXT.encode("utf-16-le") + b"\x00\xd8")  # a lone high surrogate
    code, _, err = run("--no-cache", "cut.ts")
    assert code == 2
    assert "cut.ts: skipped: UTF-16 (little-endian) text that does not decode" in err
    assert "binary" not in err


def test_bytes_with_nul_bytes_that_are_not_utf16_stay_binary(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("blob.js").write_bytes(bytes(range(256)) * 4)
    code, _, err = run("--no-cache", "blob.js")
    assert code == 2
    assert "blob.js: skipped: binary file (NUL bytes)" in err
    assert utf16.encoding(b"let x = 1;\n", 8192) is None
    assert utf16.encoding(b"\xff\xfe\x00\x00l\x00\x00\x00", 8192) is None  # UTF-32's mark
    assert utf16.encoding(b"\x00\x01\x02x", 8192) is None  # NUL beside a byte that is no ASCII text
    assert utf16.encoding(b"\x00binary", 8192) is None  # an odd number of bytes
    assert utf16.encoding(b"\x00bin\x00ary!!", 8192) is None  # two of the five high bytes NUL


@pytest.mark.parametrize("data", [b"\x00/\x00/", b"\x00 of", b"\x00\n", b"\x00o", b"\x00/" * 7])
def test_a_few_bytes_with_a_nul_are_not_utf16_without_a_mark(tmp_path: Path, monkeypatch, data):
    """Cut files with a NUL inserted (the mutation fuzzer's): as UTF-16 they read as a comment or a name, where
    TypeScript and Node, reading them as UTF-8, reject an invalid character; they are not analyzed, and said so."""
    monkeypatch.chdir(tmp_path)
    Path("cut.ts").write_bytes(data)
    code, _, err = run("--no-cache", "cut.ts")
    assert code == 2
    assert "cut.ts: skipped: binary file (NUL bytes)" in err
    assert utf16.encoding(b"\x00/" * 8, 8192) == "utf-16-be"  # eight code units: the pattern is evidence


def test_fix_leaves_a_utf16_file_as_it_is_and_says_why(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = b"\xff\xfe" + "export function f() { let n = 1; return () => n; }\n".encode("utf-16-le")
    Path("wide.ts").write_bytes(data)
    code, _, err = run("--no-cache", "--fix", "wide.ts")
    assert Path("wide.ts").read_bytes() == data
    assert "wide.ts: not fixed: the file is UTF-16 (little-endian), and boxcheck writes back only UTF-8" in err
    assert code == 0
