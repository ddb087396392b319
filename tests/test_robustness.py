"""Bad input never crashes the run and never loses the other files' results (issue 9)."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.analyze import Analyzer, analyze_text
from capture_analysis.batch import loading
from capture_analysis.cli import main
from capture_analysis.source import SourceFile

GOOD = "export function g() { let n = 0; return () => n++; }\n"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "broken",
    [
        "export function f() { const s = 'unterminated;\n let n = 0; return () => n++; }\n",
        "export function f() { const t = `unterminated ${1}\n let n = 0; return () => n++; }\n",
        "export function f() { /* unterminated comment\n let n = 0; return () => n++; }\n",
        "export function f() { let n = 0; return () => n++; }}}}\n",
        "export function f() { let n = 0; return (a, b) => \n",
        "export function f() { let n = 0; const g = ( => n; return g; }\n",
        "{{{{ (((( [[[[\n",
        ")))) }}}} ]]]]\n",
    ],
)
def test_syntax_errors_anywhere_give_located_diagnostics_and_keep_other_functions(broken, schema_validator):
    source = broken + GOOD
    analysis = analyze_text("broken.ts", source)
    assert any(d.rule.code == "BX001" for d in analysis.diagnostics)
    good = [d for d in analysis.decisions if d.binding.closure.name == "g"]
    # g is still analyzed; where the parser's recovery nests it inside the damage, conservatively.
    assert [d.storage.value for d in good if d.binding.name == "n"] in (["box"], ["context"])
    for decision in analysis.decisions:
        if decision.binding.closure.has_syntax_error:
            assert decision.storage.value not in ("value", "local"), decision.binding.name


def test_non_utf8_bytes_are_replaced_and_positions_stay_right(tmp_path, schema_validator):
    path = tmp_path / "latin1.ts"
    path.write_bytes(b"const label = '\xe9t\xe9'; export function f() { let n = 0; return () => n++; }\n")
    code, out, _ = run("--format", "json", str(path))
    doc = json.loads(out)
    schema_validator.validate(doc)
    binding = next(b for b in doc["files"][0]["bindings"] if b["name"] == "n")
    # "const label = '\ufffdt\ufffd'; export function f() { let " is 47 UTF-16 units before `n`.
    assert (binding["line"], binding["column"]) == (1, 48)
    assert binding["storage"] == "box"
    diagnostics = [(d["code"], d["line"], d["column"], d["severity"]) for d in doc["files"][0]["diagnostics"]]
    assert diagnostics == [("BX101", 1, 48, "info")]
    assert code == 0


def test_bom_is_not_a_column():
    source = SourceFile.from_bytes("bom.ts", b"\xef\xbb\xbflet x = 1;\n")
    assert source.position(4).column == 5
    analysis = analyze_text("bom.ts", "\ufefffunction f() { let x = 1; return () => x; }\n")
    decision = next(d for d in analysis.decisions if d.binding.name == "x")
    assert analysis.source.position(decision.binding.start).column == 20


def test_empty_and_whitespace_files(tmp_path):
    (tmp_path / "empty.ts").write_text("")
    (tmp_path / "blank.js").write_text("\n\n   \n")
    code, out, err = run("--format", "json", str(tmp_path))
    assert code == 0 and err == ""
    assert [f["bindings"] for f in json.loads(out)["files"]] == [[], []]


def test_files_over_the_size_limit_are_skipped_with_a_message(tmp_path):
    big = tmp_path / "big.ts"
    big.write_text("let x = 1;\n" * 2000)
    (tmp_path / "ok.ts").write_text(GOOD)
    code, out, err = run("--max-file-size", "10K", str(tmp_path))
    assert "big.ts: skipped: larger than 10240 bytes" in err
    assert "1 file, 2 functions" in out.splitlines()[-1]
    assert code == 0  # a file skipped while walking a folder is only reported (ok.ts's BX101 is an info)


@pytest.mark.parametrize("reported", [None, 0, 10, 100, 10_000])
def test_a_file_is_read_whole_whatever_size_fstat_reported(tmp_path, monkeypatch, reported):
    """``loading.read`` sizes its read from ``fstat``: a file that grew since (or a pipe, size 0) is still
    read to the end, and one over the limit still yields ``max_bytes + 1`` bytes for the size check."""
    data = b"let x = 1;\n" * 300
    path = tmp_path / "grows.ts"
    path.write_bytes(data)
    real = os.fstat
    monkeypatch.setattr(loading.os, "fstat", lambda fd: real(fd) if reported is None
                        else os.stat_result((0, 0, 0, 0, 0, 0, reported, 0, 0, 0)))
    assert loading.read(str(path)) == data
    assert loading.read(str(path), max_bytes=1000) == data[:1001]


def test_unreadable_file_is_an_error_naming_it_and_the_rest_is_analyzed(tmp_path, monkeypatch):
    (tmp_path / "a.ts").write_text(GOOD)
    (tmp_path / "b.ts").write_text(GOOD)
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("a.ts"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(loading, "open", fake_open, raising=False)
    code, out, err = run("--format", "json", str(tmp_path))
    assert code == 2
    assert "a.ts: cannot read: Permission denied" in err
    files = json.loads(out)["files"]
    assert [bool(f["errors"]) for f in files] == [True, False]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory_is_an_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.ts").write_text(GOOD)
    locked.chmod(0)
    try:
        code, _, err = run(str(tmp_path))
    finally:
        locked.chmod(0o755)
    assert code == 2 and "cannot read directory" in err


def test_symlink_loops_and_broken_links_do_not_trap_the_walk(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(GOOD)
    os.symlink(tmp_path / "src", tmp_path / "src" / "loop")
    os.symlink(tmp_path / "missing.ts", tmp_path / "src" / "dangling.ts")
    code, out, err = run("--format", "json", str(tmp_path))
    assert [Path(f["path"]).name for f in json.loads(out)["files"]] == ["a.ts"]
    assert "dangling.ts: broken symbolic link, skipped" in err
    assert code == 0  # reported, not a failure (a.ts's BX101 is an info)


def test_internal_error_on_one_file_is_reported_and_the_others_continue(tmp_path, monkeypatch):
    (tmp_path / "a.ts").write_text(GOOD)
    (tmp_path / "boom.ts").write_text(GOOD)
    real = Analyzer.lean

    def exploding(self, source):
        if source.path.endswith("boom.ts"):
            raise RuntimeError("simulated analyzer bug")
        return real(self, source)

    monkeypatch.setattr(Analyzer, "lean", exploding)
    code, out, err = run(str(tmp_path))
    assert code == 2
    assert "boom.ts: internal error: RuntimeError: simulated analyzer bug (please report this" in err
    assert "Traceback" not in err
    assert "1 file, 2 functions: 1 allocation per call" in out.splitlines()[-1]


def test_hundred_thousand_nested_parentheses():
    depth = 100_000
    analysis = analyze_text("parens.ts", "export function f() { let v = " + "(" * depth + "1" + ")" * depth
                            + "; return () => v; }\n")
    assert next(d for d in analysis.decisions if d.binding.name == "v").storage.value == "value"


def test_ten_thousand_nested_arrows():
    depth = 10_000
    code = "export function f() { let y = 0; return " + "() => " * depth + "y++; }\n"
    analysis = analyze_text("arrows.ts", code)
    assert len(analysis.functions) == depth + 1
    assert next(d for d in analysis.decisions if d.binding.name == "y").storage.value == "box"


def test_ten_thousand_nested_blocks_with_captures():
    depth = 10_000
    code = ("export function f() { const fs = []; " + "{ let v = 1; fs.push(() => v++); " * depth
            + "}" * depth + " return fs; }\n")
    analysis = analyze_text("blocks.ts", code)
    assert {d.storage.value for d in analysis.decisions if d.binding.name == "v"} == {"context"}
    assert [(f.per_call, f.per_iteration) for f in analysis.functions if f.closure.name == "f"] == [(1, 0)]


def test_ten_thousand_nested_blocks_declaring_functions_in_sloppy_code():
    """Each block's function also binds a function-wide ``var`` (``block_functions``)."""
    depth = 10_000
    code = ("function f() { const g = () => h1; " + "".join(f"{{ function h{i}() {{}} " for i in range(depth))
            + "}" * depth + " return [g, () => h0]; }\n")
    analysis = analyze_text("blocks.js", code)
    var = {d.binding.name: d.storage.value for d in analysis.decisions if d.binding.kind.value == "var"}
    assert len(var) == depth
    assert (var["h0"], var["h1"], var["h2"]) == ("value", "box", "local")


def test_a_hundred_thousand_statement_function():
    lines = ["export function big() {", "  let acc = 0;"]
    for i in range(50_000):
        lines.append(f"  acc += {i};")
        lines.append(f"  const c{i} = () => acc + {i};")
    lines.append("  return [acc, c0]; }")
    analysis = analyze_text("big.ts", "\n".join(lines) + "\n")
    assert next(d for d in analysis.decisions if d.binding.name == "acc").storage.value == "box"


def test_a_syntax_error_confined_to_types_is_reported_but_makes_no_function_conservative():
    """TypeScript rejects `{ a: number b: string }`: a BX001, saying it is in type syntax; the code is intact."""
    analysis = analyze_text("gap.ts", """
        type Pair = { a: number b: string }
        export function f() { let n = 1; return () => n; }
    """)
    (error,) = analysis.diagnostics
    assert error.rule.code == "BX001" and "syntax error in type syntax: unexpected `b`" in error.message
    assert next(d for d in analysis.decisions if d.binding.name == "n").storage.value == "value"
    assert not any(c.has_syntax_error for c in analysis.model.closures)
