"""``--format text`` and ``--format json``: golden outputs.

The examples' JSON is already committed beside them (``examples/*.json``,
checked by ``test_examples``); here JSON is checked on the non-ASCII fixtures.
"""

from __future__ import annotations

import json

import pytest

from .conftest import ROOT
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
