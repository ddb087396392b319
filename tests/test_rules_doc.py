"""The rule catalogue, its generated pages (``docs/rules.md``, the HTML inside the package), ``boxcheck rule``
and ``boxcheck --explain CODE``, and the truth of the advice the docs give."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pytest

from capture_analysis.analyze import analyze_source
from capture_analysis.commands import rules_doc
from capture_analysis.policies import POLICIES
from capture_analysis.rules import PACKAGED_PAGE, RULES, Severity
from capture_analysis.source import SourceFile

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
    assert PACKAGED_PAGE.read_text(encoding="utf-8") == rules_doc.render_html(), \
        "capture_analysis/docs/rules.html is stale: run `make rules`"
    assert rules_doc.main(["--check"]) == 0


@pytest.mark.parametrize("which", [0, 1])
def test_check_fails_on_a_stale_page(which, tmp_path, monkeypatch, capsys):
    pages = {tmp_path / "rules.md": rules_doc.render, tmp_path / "docs" / "rules.html": rules_doc.render_html}
    monkeypatch.setattr(rules_doc, "PAGES", pages)
    assert rules_doc.main(["--write"]) == 0
    stale = list(pages)[which]
    stale.write_text(stale.read_text(encoding="utf-8").replace("BX101", "BX999", 1), encoding="utf-8")
    assert rules_doc.main(["--check"]) == 1
    assert f"{stale} is stale" in capsys.readouterr().err
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
    for code in ("BX002", "BX102", "BX103"):
        assert "Fix" in RULES[code].example, code
    assert "### How to fix" in RULES["BX101"].doc()


@pytest.mark.parametrize("argument", ["BX101", "bx101"])
def test_explain_prints_the_rule_doc(argument, capsys):
    code, out = run_cli("--explain", argument)
    assert code == 0
    assert out == RULES["BX101"].doc()


def test_explain_unknown_code_is_a_usage_error(capsys):
    code, out = run_cli("--explain", "BX999")
    assert code == 2 and out == ""
    assert "unknown rule BX999; the rules: BX001 syntax-error" in capsys.readouterr().err


@pytest.mark.parametrize("argument", ["BX101", "bx101", "heap-capture"])
def test_rule_prints_one_rule_by_code_or_name(argument):
    assert run_cli("rule", argument) == (0, RULES["BX101"].doc())


def test_rule_all_prints_every_rule_in_code_order():
    code, out = run_cli("rule", "--all")
    assert code == 0
    assert out == "\n".join(rule.doc() for rule in RULES.values())
    assert re.findall(r"^## (BX\d{3}) ", out, re.MULTILINE) == sorted(RULES)
    assert re.findall(r"^\| \[(BX\d{3})\]", rules_doc.render(), re.MULTILINE) == sorted(RULES)


def test_a_rule_off_by_default_says_so_in_its_doc_and_the_table():
    off = [rule for rule in RULES.values() if not rule.enabled]
    assert off, "the catalogue has a rule that is off by default (BX108)"
    for rule in off:
        assert f"\nDefault severity: off (selecting it reports at {rule.severity.label}).\n" in rule.doc()
        assert f"| {rule.name} | off (selecting it reports at {rule.severity.label}) |" in rules_doc.render()


@pytest.mark.parametrize("args", [(), ("BX999",), ("BX101", "--all"), ("no-such-rule",)])
def test_rule_without_a_known_rule_is_a_usage_error_that_lists_the_rules(args, capsys):
    assert run_cli("rule", *args) == (2, "")
    assert "the rules: BX001 syntax-error, BX002 dynamic-scope" in capsys.readouterr().err


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.extend(value for name, value in attrs if name == "id" and value)


def test_every_rule_link_opens_its_section_of_the_page_inside_the_package():
    for rule in RULES.values():
        parts = urlsplit(rule.href())
        assert parts.scheme == "file"
        page = url2pathname(parts.path)
        assert page == str(PACKAGED_PAGE) and PACKAGED_PAGE.is_file()
        ids = Ids()
        ids.feed(PACKAGED_PAGE.read_text(encoding="utf-8"))
        assert parts.fragment in ids.ids, rule.code
    assert RULES["BX101"].href("https://example.org/b/rules.html") == \
        "https://example.org/b/rules.html#bx101-heap-capture"


def test_the_html_page_has_every_section_of_the_markdown():
    page = PACKAGED_PAGE.read_text(encoding="utf-8")
    for rule in RULES.values():
        section = page[page.index(f'<section id="{rule.anchor}">'):]
        section = section[:section.index("</section>")]
        for heading in re.findall(r"^###? (.*)$", rule.doc(), re.MULTILINE):
            assert rules_doc.inline(heading) in section, (rule.code, heading)
        assert "<pre><code>" in section
        assert ("<table>" in section) == ("\n|" in rule.fix)


#: the rows of BX101's table, in order, and the function of tests/v8/factories/advice.ts each one is about.
ADVICE = ROOT / "tests" / "v8" / "factories" / "advice.ts"
ADVICE_ROWS = ["counter", "counterInAnObject", "computedFirst", "onlyCalled"]


def counted(cell: str) -> Counter[str]:
    """``1 box``, ``1 context, 1 object``, ``none`` -> what boxcheck counts (objects a program makes it does not)."""
    found: Counter[str] = Counter()
    for number, kind in re.findall(r"(\d+) (box|context|object)", cell):
        if kind != "object":
            found[kind] += int(number)
    return found


def test_bx101_fix_says_what_each_version_allocates_under_each_policy():
    """The table of "How to fix" is what boxcheck finds for each version; tests/test_v8.py checks the same
    file's `v8` column against V8 itself."""
    rows = [line for line in RULES["BX101"].fix.splitlines() if line.startswith("| `")]
    header = next(line for line in RULES["BX101"].fix.splitlines() if line.startswith("| version"))
    policies = [cell.strip().strip("`") for cell in header.strip("|").split("|")[1:]]
    assert policies == ["optimal", "legacy", "v8"] and len(rows) == len(ADVICE_ROWS)
    source = SourceFile.from_bytes(str(ADVICE), ADVICE.read_bytes())
    for function, row in zip(ADVICE_ROWS, rows, strict=True):
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")[1:]]
        for policy, cell in zip(policies, cells, strict=True):
            analysis = analyze_source(source, POLICIES[policy])
            (report,) = [f for f in analysis.functions if f.closure.name == function]
            assert Counter(site.kind.value for site in report.sites) == counted(cell), (function, policy, cell)
