"""``--format sarif``: golden outputs, the official SARIF 2.1.0 schema, and regions that match the JSON format."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from capture_analysis.report.file_record import diagnostic_record
from capture_analysis.report.json_text import JsonText
from capture_analysis.report.lsp import publish_params
from capture_analysis.report.sarif import result as sarif_result
from capture_analysis.rules import RULES

from .conftest import ROOT, analyze
from .golden_outputs import INPUTS, check_golden, golden_name, run_cli, stable

#: RFC 3986 URI-reference characters; jsonschema checks ``format: uri`` only with optional packages installed.
URI_REFERENCE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")


def validate(validator: jsonschema.Draft4Validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    for uri in re.findall(r'"uri": "([^"]*)"', json.dumps(log, ensure_ascii=False)):
        assert URI_REFERENCE.match(uri), uri


def sarif(monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "sarif", *args)
    return json.loads(out)


@pytest.mark.parametrize("path", INPUTS)
def test_golden(path, monkeypatch):
    """The rule descriptors are left out: they are the catalogue, checked below, and grow with it."""
    log = sarif(monkeypatch, path)
    log["runs"][0]["tool"]["driver"]["rules"] = "(the catalogue)"
    check_golden(golden_name(path, ".sarif.json"), stable(json.dumps(log, indent=2, ensure_ascii=False) + "\n"))


@pytest.mark.parametrize("path", INPUTS)
def test_output_validates_against_the_official_schema(path, monkeypatch, sarif_validator):
    validate(sarif_validator, sarif(monkeypatch, path))


def test_whole_run_with_an_unreadable_file_validates(monkeypatch, sarif_validator, tmp_path):
    binary = tmp_path / "blob.ts"
    binary.write_bytes(b"\x00\x01let x = 1;")
    log = sarif(monkeypatch, "examples/", "tests/unicode/", str(binary))
    validate(sarif_validator, log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": binary.as_uri()}
    assert "binary" in note["message"]["text"]


def test_driver_rules_are_the_catalogue_and_results_index_them(monkeypatch):
    run = sarif(monkeypatch, "examples/")["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for descriptor in rules:
        rule = RULES[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["defaultConfiguration"]["level"] == rule.severity.sarif
        assert descriptor["help"]["markdown"] == rule.doc()
    assert run["columnKind"] == "utf16CodeUnits"
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_help_and_descriptions_are_plain_text_beside_their_markdown(monkeypatch):
    """``text`` is for viewers without Markdown: the same words, with no markup left."""
    rules = sarif(monkeypatch, "examples/factories.ts")["runs"][0]["tool"]["driver"]["rules"]
    for descriptor in rules:
        rule = RULES[descriptor["id"]]
        for field, source in (("shortDescription", rule.summary), ("fullDescription", rule.what)):
            assert descriptor[field]["markdown"] == source
            assert descriptor[field]["text"] == source.replace("`", "")
        markdown, text = descriptor["help"]["markdown"], descriptor["help"]["text"]
        assert markdown == rule.doc()
        example = markdown.split("```ts\n")[1].split("\n```")[0]
        assert "\n".join(f"    {line}".rstrip() for line in example.split("\n")) in text
        prose = "\n".join(line for line in text.split("\n") if not line.startswith("    "))
        assert not re.search(r"^#|^\||`|\*\*", prose, re.MULTILINE), descriptor["id"]
        words = "\n".join(line for line in markdown.split("\n") if not line.startswith("```"))
        assert re.findall(r"\w+", text) == re.findall(r"\w+", words), descriptor["id"]


def test_help_uri_only_with_a_docs_url_that_is_no_file_link(monkeypatch, sarif_validator, tmp_path):
    """A log is read elsewhere (a code scanning service): the page inside the package that wrote it is no link
    there.  The LSP format, read on the same machine, keeps linking to it."""
    rules = sarif(monkeypatch, "examples/factories.ts")["runs"][0]["tool"]["driver"]["rules"]
    assert all("helpUri" not in r for r in rules)
    log = sarif(monkeypatch, "--docs-url", "https://example.org/boxcheck/rules.html", "examples/factories.ts")
    validate(sarif_validator, log)
    assert [r["helpUri"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == \
        [f"https://example.org/boxcheck/rules.html#{rule.anchor}" for rule in RULES.values()]
    page = (tmp_path / "rules.html").as_uri()
    (tmp_path / "boxcheck.toml").write_text(f'docs-url = "{page}"\n', encoding="utf-8")
    source = tmp_path / "a.ts"
    source.write_text("export function f() { let n = 0; return () => n++; }\n", encoding="utf-8")
    log = sarif(monkeypatch, str(source))
    assert all("helpUri" not in r for r in log["runs"][0]["tool"]["driver"]["rules"])
    _, out = run_cli("--format", "lsp", str(source))
    assert {d["codeDescription"]["href"].split("#")[0] for d in json.loads(out)[0]["diagnostics"]} == {page}


@pytest.mark.parametrize("path", INPUTS)
def test_regions_are_the_json_positions(path, monkeypatch):
    """1-based lines and UTF-16 columns, exclusive end columns: the same numbers as ``--format json``."""
    results = sarif(monkeypatch, path)["runs"][0]["results"]
    _, out = run_cli("--format", "json", path)
    diagnostics = json.loads(out)["files"][0]["diagnostics"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert [(g["startLine"], g["startColumn"], g["endLine"], g["endColumn"]) for g in regions] == \
        [(d["line"], d["column"], d["end_line"], d["end_column"]) for d in diagnostics]
    for result in results:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"uri": path, "uriBaseId": "%SRCROOT%"}


def test_allocation_data_is_under_result_properties(monkeypatch):
    results = sarif(monkeypatch, "examples/loops.ts")["runs"][0]["results"]
    hits = next(r for r in results if r["properties"]["binding"] == "hits")
    assert hits["ruleId"] == "BX102"
    assert hits["properties"]["storage"] == "box"
    assert hits["properties"]["multiplicity"] == "per-iteration"
    assert hits["properties"]["allocations"] == {"per_call": 0, "per_iteration": 1, "once": 0}
    messages = [r["message"]["text"] for r in hits["relatedLocations"]]
    assert messages == ["captured here", "written after capture"]


class Unsearchable(list):
    """A file's function reports that fail when searched: renderers must use ``FileAnalysis.report_of``."""

    def __iter__(self):
        raise AssertionError("the function reports were searched for one diagnostic")


def test_a_diagnostics_function_is_looked_up_not_searched():
    """A search of every function per diagnostic made SARIF and LSP output quadratic in a file's size
    (30 s for a 3 MB file of factories, twice the JSON's time)."""
    code = "".join(f"export function f{i}() {{ let n = {i}; return () => n++; }}\n" for i in range(5))
    analysis = analyze(code, "factories.ts")

    def rendered():
        records = JsonText(analysis.source)
        return ([sarif_result("factories.ts", diagnostic_record(analysis, records, d)) for d in analysis.diagnostics],
                publish_params(analysis, analysis.diagnostics))

    expected = rendered()
    assert len(analysis.diagnostics) == 5 and all("properties" in r for r in expected[0])
    analysis.functions = Unsearchable(analysis.functions)
    assert rendered() == expected
