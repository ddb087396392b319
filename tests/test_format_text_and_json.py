"""``--format text`` and ``--format json``: golden outputs.

The examples' JSON is already committed beside them (``examples/*.json``,
checked by ``test_examples``); here JSON is checked on the non-ASCII fixtures.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from capture_analysis.report.json_text import COMPACT, JsonText

from .conftest import ROOT, analyze
from .golden_outputs import INPUTS, check_golden, golden_name, run_cli


@pytest.mark.parametrize("path", INPUTS)
def test_text_golden(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "text", path)
    check_golden(golden_name(path, ".txt"), out)


@pytest.mark.parametrize("path", [p for p in INPUTS if p.startswith("tests/unicode/")])
def test_json_golden_and_schema(path, monkeypatch, schema_validator):
    monkeypatch.chdir(ROOT)
    _, out = run_cli("--format", "json", path)
    schema_validator.validate(json.loads(out))
    check_golden(golden_name(path, ".json"), out)


def test_binding_records_are_what_the_compact_encoder_writes():
    """``JsonText.binding`` writes JSON text by hand: it must be exactly the C encoder's text of the
    same value, with names, reasons and evidence that need escaping (quotes, backslashes, control
    characters, line separators, astral characters)."""
    code = textwrap.dedent('''
        export function f\\u0061ctory(n: number) {
          let q = "\\"\\\\\\u2028\\t";
          let 𝑥 = 1, café = 2;
          function g() { return q + 𝑥 + café; }
          keep(g);
          𝑥++;
          const h = () => { café = 3; };
          for (let i = 0; i < n; i++) { keep(() => i); i++; }
          const c = n;
          return [g, h, () => c];
        }
        const m = 1;
        export const k = () => m;
        export function outer(n: number) {
          let z = n;
          class Weird {
            "say \\"hi\\"\\\\\u2028"() { let w = z; const r = () => w; w++; return r; }
          }
          z++;
          return Weird;
        }
    ''')
    analysis = analyze(code, "records.ts")
    records = JsonText(analysis.source)
    texts = records.bindings(analysis.decisions).split("\n")
    assert {d.storage.value for d in analysis.decisions} >= {"module", "box", "context", "value"}
    assert any(d.site is not None for d in analysis.decisions)
    for text in texts:
        assert text == COMPACT(json.loads(text))
    assert any('"in_closure": true' in t for t in texts) and any('"in_closure": false' in t for t in texts)
    records_of = {json.loads(t)["name"]: json.loads(t) for t in texts}
    z, w = records_of["z"], records_of["w"]
    assert all('\\"hi\\"' in text for text in (z["reason"], z["evidence"][0]["text"], w["site"]))
    functions = [records.function_text(report) for report in analysis.functions]
    assert functions == [COMPACT(records.function(report)) for report in analysis.functions]
    assert any(report.sites for report in analysis.functions) and any(not report.sites and not report.retentions
                                                                      for report in analysis.functions)
    assert any(json.loads(text)["name"] is None for text in functions)
