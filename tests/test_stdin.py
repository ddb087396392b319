"""``--stdin-filename``: standard input is analyzed and reported exactly as the file on disk would be."""

from __future__ import annotations

import json

import pytest

from .conftest import ROOT
from .golden_outputs import INPUTS, run_cli


@pytest.mark.parametrize("fmt", ["json", "lsp", "sarif", "github", "text"])
@pytest.mark.parametrize("path", INPUTS)
def test_stdin_gives_the_same_output_as_the_file(path, fmt, monkeypatch):
    monkeypatch.chdir(ROOT)
    from_disk = run_cli("--format", fmt, path)
    from_stdin = run_cli("--format", fmt, "--stdin-filename", path, stdin=(ROOT / path).read_bytes())
    assert from_stdin == from_disk


def test_name_need_not_exist_and_dash_is_accepted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = run_cli("--format", "json", "--stdin-filename", "src/unsaved.ts", "-",
                        stdin=b"export function f(k: number) { for (let n = 0; n < k; n++) keep(() => n++); }\n")
    assert code == 1  # a BX102 warning: the loop copies `n`, which the closure writes, into each iteration
    (entry,) = json.loads(out)["files"]
    assert entry["path"] == "src/unsaved.ts"
    assert [d["code"] for d in entry["diagnostics"]] == ["BX102"]


def test_paths_and_stdin_together_are_a_usage_error(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code, out = run_cli("--stdin-filename", "a.ts", "examples/", stdin=b"")
    assert (code, out) == (2, "")
    assert "give no other PATH" in capsys.readouterr().err
    code, out = run_cli("-", "examples/", stdin=b"")
    assert (code, out) == (2, "")
    assert "give no other PATH" in capsys.readouterr().err


def test_binary_input_is_skipped_with_a_message_and_exit_2(tmp_path, monkeypatch, capsys):
    """Standard input is always asked for by name: not analyzing it is an error, as for a file named."""
    monkeypatch.chdir(tmp_path)
    code, _ = run_cli("--stdin-filename", "a.ts", stdin=b"\x00\x01\x02")
    assert code == 2
    assert "a.ts: skipped: binary file" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_dash_reads_standard_input_as_the_stdin_filename_does(fmt, monkeypatch):
    monkeypatch.chdir(ROOT)
    path = "examples/factories.ts"
    named = run_cli("--format", fmt, "--stdin-filename", path, stdin=(ROOT / path).read_bytes())
    code, out = run_cli("--format", fmt, "-", stdin=(ROOT / path).read_bytes())
    assert (code, out.replace("<stdin>", path)) == named


def test_a_dash_alone_is_named_stdin_and_parsed_as_tsx(monkeypatch):
    """TSX reads JavaScript, JSX and TypeScript without angle-bracket casts: the likeliest text on a pipe."""
    monkeypatch.chdir(ROOT)
    code, out = run_cli("--format", "json", "-", stdin=b"export function f(k: number) { "
                        b"for (let n = 0; n < k; n++) keep(() => <b>{n++}</b>); }\n")
    (entry,) = json.loads(out)["files"]
    assert code == 1 and entry["path"] == "<stdin>" and entry["errors"] == []
    assert [d["code"] for d in entry["diagnostics"]] == ["BX102"]


def test_configuration_is_found_from_the_stdin_name(tmp_path, monkeypatch):
    (tmp_path / "boxcheck.toml").write_text('[severity]\nBX101 = "error"\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path)
    _, out = run_cli("--format", "json", "--stdin-filename", "src/a.ts",
                     stdin=b"export function f() { let n = 0; return () => n++; }\n")
    assert [d["severity"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["error"]


def test_suppressions_apply_to_stdin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = run_cli("--format", "github", "--stdin-filename", "a.ts",
                        stdin=b"export function f() {\n  let n = 0; // boxcheck-ignore BX101\n  return () => n++;\n}\n")
    assert (code, out) == (0, "")
