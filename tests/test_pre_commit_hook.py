"""``.pre-commit-hooks.yaml``: the hook runs the installed command on the files pre-commit selects."""

from __future__ import annotations

import re

import pytest

from capture_analysis.config import tomllib

from .conftest import ROOT
from .golden_outputs import run_cli


def hook() -> dict[str, str]:
    """The one hook's ``key: value`` lines (the file is a single flat mapping, kept so on purpose)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert text.count("- id:") == 1
    return dict(re.findall(r"^(?:- |  )(\w+): (.*)$", text, re.MULTILINE))


def test_entry_is_the_console_script():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    fields = hook()
    assert fields["id"] == "boxcheck" and fields["language"] == "python"
    assert fields["entry"] in declared


@pytest.mark.parametrize(("name", "selected"), [
    ("src/a.ts", True), ("a.mts", True), ("a.cts", True), ("ui/App.tsx", True), ("a.js", True),
    ("a.mjs", True), ("a.cjs", True), ("a.jsx", True),
    ("types/a.d.ts", False), ("a.d.mts", False), ("README.md", False), ("a.tsx.snap", False),
])
def test_file_patterns_select_sources_and_skip_declarations(name, selected):
    fields = hook()
    assert bool(re.search(fields["files"], name) and not re.search(fields["exclude"], name)) is selected


def test_staged_file_names_are_what_the_command_accepts(tmp_path, monkeypatch):
    """pre-commit runs ``entry FILE...``: a clean file passes, a finding fails the commit."""
    (tmp_path / "ok.ts").write_text("export const f = (n: number) => () => n;\n", encoding="utf-8")
    (tmp_path / "boxed.ts").write_text("export function f() { let n = 0; return () => n++; }\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run_cli("ok.ts")[0] == 0
    assert run_cli("ok.ts", "boxed.ts")[0] == 1
