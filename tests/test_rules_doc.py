"""The rule catalogue, its generated page ``docs/rules.md``, and ``boxcheck --explain CODE``."""

from __future__ import annotations

import re

import pytest

from capture_analysis.commands import rules_doc
from capture_analysis.rules import RULES, Severity

from .conftest import ROOT
from .golden_outputs import run_cli

#: codes that have shipped, with their names: a code is never reused for another rule.
SHIPPED = {
    "BX001": "syntax-error",
    "BX002": "dynamic-scope",
    "BX101": "heap-capture",
    "BX102": "per-iteration-capture",
    "BX103": "captured-before-init",
}


def test_docs_rules_md_is_generated_from_the_catalogue():
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == rules_doc.render(), "docs/rules.md is stale: run `make rules`"
    assert rules_doc.main(["--check"]) == 0


def test_check_fails_on_a_stale_page(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "rules.md"
    stale.write_text(rules_doc.render().replace("BX101", "BX999", 1), encoding="utf-8")
    monkeypatch.setattr(rules_doc, "DOCS_PAGE", stale)
    assert rules_doc.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert rules_doc.main(["--write"]) == 0
    assert rules_doc.main(["--check"]) == 0


def test_shipped_codes_keep_their_names():
    for code, name in SHIPPED.items():
        assert RULES[code].name == name


def test_every_rule_is_documented_in_three_sections():
    names = [rule.name for rule in RULES.values()]
    assert len(names) == len(set(names))
    for code, rule in RULES.items():
        assert rule.code == code and re.fullmatch(r"BX\d{3}", code)
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert isinstance(rule.severity, Severity)
        assert rule.summary.strip() and rule.what.strip() and rule.why.strip() and rule.example.strip()
        doc = rule.doc()
        assert doc.index("### What it does") < doc.index("### Why is this bad?") < doc.index("### Example")


def test_examples_that_have_a_fix_show_it():
    for code in ("BX002", "BX101", "BX102", "BX103"):
        assert "Fix" in RULES[code].example, code


@pytest.mark.parametrize("argument", ["BX101", "bx101"])
def test_explain_prints_the_rule_doc(argument, capsys):
    code, out = run_cli("--explain", argument)
    assert code == 0
    assert out == RULES["BX101"].doc()


def test_explain_unknown_code_is_a_usage_error(capsys):
    code, out = run_cli("--explain", "BX999")
    assert code == 2 and out == ""
    assert "unknown rule code BX999" in capsys.readouterr().err
