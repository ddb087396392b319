"""BX107 through the command line: the `rule` field, the retentions of JSON, and the rule turned off."""

from __future__ import annotations

import json

import capture_analysis.analyze as analyze

from .conftest import LEAK
from .golden_outputs import run_cli


def test_json_lists_the_retention_under_its_function_and_names_every_rule(tmp_path, schema_validator):
    path = tmp_path / "leak.ts"
    path.write_text(LEAK)
    code, out = run_cli("--format", "json", str(path))
    document = json.loads(out)
    schema_validator.validate(document)
    [function] = [f for f in document["files"][0]["functions"] if f["name"] == "make"]
    assert function["retentions"] == [{
        "binding": "big", "line": 2, "column": 9,
        "retained_by": [{"name": None, "line": 5, "column": 10}], "retained_by_count": 1,
        "referenced_by": [{"name": "use", "line": 3, "column": 15}],
        "context": "the function context of `make`"}]
    [diagnostic] = document["files"][0]["diagnostics"]
    assert (diagnostic["code"], diagnostic["rule"], diagnostic["severity"]) == ("BX107", "context-retention", "hint")
    assert code == 0  # a hint does not fail the run by default


def test_turned_off_the_rule_costs_nothing(tmp_path, monkeypatch):
    """``--severity BX107=off`` skips the analysis itself, not only its findings."""
    def never(*args: object) -> list:
        raise AssertionError("the retention analysis ran")

    monkeypatch.setattr(analyze, "find_retentions", never)
    path = tmp_path / "leak.ts"
    path.write_text(LEAK)
    code, out = run_cli("--format", "json", "--severity", "BX107=off", str(path))
    document = json.loads(out)
    assert document["files"][0]["errors"] == [] and code == 0
    assert document["files"][0]["diagnostics"] == []
    assert all(f["retentions"] == [] for f in document["files"][0]["functions"])


def test_explain_prints_the_chain(tmp_path):
    path = tmp_path / "leak.ts"
    path.write_text(LEAK)
    _, out = run_cli("--explain", "--show-hints", str(path))
    assert "  = note 1/4, context slot:" in out
    assert "    |               ^ `use` refers to `big`, so V8 gives it a slot in the function context of `make`" in out
    assert "  = note 3/4, escapes:" in out
    assert "    |          ^ the arrow: returned" in out
    assert "^ no durable code refers to `big`: not the arrow at 5:10, no closure nested in it" in out


def test_text_hides_hints_unless_asked_and_says_so(tmp_path):
    """Hints are counted, not printed (``tsc`` leaves its suggestions to editors); ``--show-hints`` and
    ``--fail-on hint`` print them."""
    path = tmp_path / "leak.ts"
    path.write_text(LEAK)
    code, out = run_cli(str(path))
    assert "hint[BX107]" not in out and code == 0
    assert out.endswith("0 errors, 0 warnings, 1 hint (not shown; --show-hints shows them)\n")
    code, out = run_cli("--show-hints", str(path))
    assert "hint[BX107] `big` (`new Big()`) is kept alive" in out and out.endswith("1 hint\n") and code == 0
    code, out = run_cli("--fail-on", "hint", str(path))
    assert "hint[BX107]" in out and code == 1
    code, out = run_cli("-q", str(path))
    assert out == "" and code == 0
    code, out = run_cli("--format", "json", str(path))
    assert json.loads(out)["files"][0]["diagnostics"][0]["severity"] == "hint"
