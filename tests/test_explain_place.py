"""``--explain PATH:LINE[:COL]``: the findings at one place, explained, as the whole file's ``--explain`` explains
them, and nothing else; columns count UTF-16 code units, as every position boxcheck prints."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .conftest import ROOT
from .golden_outputs import run_cli

UNICODE = "tests/unicode/non-ascii-before-token.ts"
#: a diagnostic's first line, ``path:line:col: severity[CODE] message``.
HEAD = re.compile(r"^(?P<path>\S+?):(?P<line>\d+):(?P<column>\d+): \w+\[BX\d{3}\] ")


def blocks(text: str) -> dict[tuple[int, int], list[str]]:
    """Each diagnostic of a text report, by its position, with the lines under it (source, notes)."""
    found: dict[tuple[int, int], list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        head = HEAD.match(line)
        if head:
            current = found.setdefault((int(head["line"]), int(head["column"])), [])
        elif not line.startswith("  ") or not found:
            current = []
            continue
        current.append(line)
    return found


#: under ``legacy`` each boxed binding is a warning of its own (design 2.7): a line with several findings.
@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_a_line_explains_the_findings_on_it_as_the_whole_file_does():
    _, whole = run_cli("--no-cache", "--policy", "legacy", "--explain", "examples/factories.ts")
    code, out = run_cli("--no-cache", "--policy", "legacy", "--explain", "examples/factories.ts:74")
    assert code == 1
    explained = blocks(out)
    assert sorted(explained) == [(74, column) for column in (7, 16, 24, 32, 40, 48, 56, 64)]
    assert explained == {at: lines for at, lines in blocks(whole).items() if at[0] == 74}
    assert all(any("= note 1/" in line for line in lines) for lines in explained.values())
    assert out == "\n".join(line for at in sorted(explained) for line in explained[at]) + "\n", \
        "no allocation summary, no totals line"


def utf16_column(text: str, token: str) -> int:
    """The 1-based UTF-16 column of ``token`` in ``text``, worked out here rather than by boxcheck."""
    return len(text[:text.index(token)].encode("utf-16-le")) // 2 + 1


#: Latin-1, CJK, and astral characters (two UTF-16 units each) before the token.
@pytest.mark.parametrize(("line", "token"), [(5, "count"), (11, "total"), (17, "hits")])
def test_a_column_counts_utf16_code_units_after_non_ascii_and_astral_characters(line, token):
    text = (ROOT / UNICODE).read_text(encoding="utf-8").splitlines()[line - 1]
    column = utf16_column(text, token)
    for inside in range(column, column + len(token)):
        code, out = run_cli("--no-cache", "--policy", "legacy", "--explain", f"{UNICODE}:{line}:{inside}")
        assert code == 1
        assert list(blocks(out)) == [(line, column)], inside
        assert f"`{token}`" in out.splitlines()[0]
    for outside in (column - 1, column + len(token)):
        code, out = run_cli("--no-cache", "--policy", "legacy", "--explain", f"{UNICODE}:{line}:{outside}")
        assert (code, out) == (0, f"boxcheck: no finding at {UNICODE}:{line}:{outside} (line {line} has the "
                                  f"finding at {line}:{column})\n")


def test_a_place_with_no_finding_says_so_and_where_the_nearest_are():
    assert run_cli("--no-cache", "--policy", "legacy", "--explain", "examples/factories.ts:10") == (
        0, "boxcheck: no finding at examples/factories.ts:10 (the evidence of the findings at 6:7, 7:5 passes "
           "through line 10)\n")
    assert run_cli("--no-cache", "--policy", "legacy", "--explain", "examples/factories.ts:3") == (
        0, "boxcheck: no finding at examples/factories.ts:3 (the file has the findings at 6:7, 7:5, 38:9, 39:9 "
           "and 22 more)\n")


def test_a_place_outside_its_file_or_beside_other_paths_is_a_usage_error(capsys):
    for place, says in [("examples/factories.ts:89", "examples/factories.ts has 88 lines"),
                        ("examples/factories.ts:6:22", "line 6 of examples/factories.ts has 20 columns"),
                        ("examples:3", "examples is a directory")]:
        assert run_cli("--no-cache", "--policy", "legacy", "--explain", place) == (2, "")
        assert says in capsys.readouterr().err
    assert run_cli("--no-cache", "--policy", "legacy", "--explain", "examples/factories.ts:6",
                   "examples/loops.ts") == (2, "")
    assert "explains one place: give no other PATH" in capsys.readouterr().err
    assert run_cli("--no-cache", "--policy", "legacy", "--explain", "missing.ts:3") == (2, "")
    assert capsys.readouterr().err == "boxcheck: missing.ts: no such file or directory\n"


def test_json_lists_the_findings_and_bindings_at_the_place_and_counts_only_them():
    code, out = run_cli("--no-cache", "--policy", "legacy", "--format", "json", "--explain",
                        "examples/factories.ts:74:16")
    assert code == 1
    (entry,) = json.loads(out)["files"]
    assert [(d["line"], d["column"], d["code"]) for d in entry["diagnostics"]] == [(74, 16, "BX101")]
    assert [b["name"] for b in entry["bindings"]] == ["r1"]
    assert entry["bindings"][0]["evidence"], "the binding's record carries the evidence"
    assert [f["name"] for f in entry["functions"]] == ["makeMachine"]
    summary = json.loads(out)["summary"]
    # under legacy each of makeMachine's 16 bindings has a box of its own
    assert (summary["functions"], summary["per_call"], summary["by_severity"]["warning"]) == (1, 16, 1)
    code, out = run_cli("--no-cache", "--policy", "legacy", "--format", "json", "--explain", "examples/factories.ts:74")
    (entry,) = json.loads(out)["files"]
    assert [b["name"] for b in entry["bindings"]] == [f"r{n}" for n in range(8)]


def test_a_path_with_a_colon_is_still_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("v:3").mkdir()
    shutil.copy(ROOT / "examples" / "factories.ts", "v:3/a.ts")
    code, out = run_cli("--no-cache", "--policy", "legacy", "--explain", "v:3")
    assert code == 1 and len(blocks(out)) == 26, "the directory, explained whole"
    shutil.copy(ROOT / "examples" / "factories.ts", "v:2.ts")
    code, out = run_cli("--no-cache", "--policy", "legacy", "--explain", "v:2.ts:7")
    assert code == 1 and list(blocks(out)) == [(7, 5)], "line 7 of the file v:2.ts"
