"""The bundled examples: the reference shapes give the counts of the acceptance table,
and their committed JSON output is what boxcheck prints today."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.cli import main

from .conftest import ROOT, allocations

EXAMPLES = sorted((ROOT / "examples").glob("*.ts"))


def run_json(*args: str) -> tuple[int, dict]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["--format", "json", *args])
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_committed_json_is_current(example, monkeypatch, schema_validator):
    monkeypatch.chdir(ROOT)
    _, doc = run_json(f"examples/{example.name}")
    schema_validator.validate(doc)
    committed = json.loads(example.with_suffix(".json").read_text())
    assert doc == committed, f"run `make examples` if the change to {example.name}'s output is intended"


def counts(name: str, function: str) -> tuple[int, int]:
    path = ROOT / "examples" / name
    return allocations(analyze_text(str(path), path.read_text()), function)


@pytest.mark.parametrize(
    ("example", "function", "expected"),
    [
        ("factories.ts", "makeTally", (1, 0)),
        ("factories.ts", "makeTallyObject", (0, 0)),
        ("factories.ts", "makeOps", (0, 0)),
        ("factories.ts", "makeOpTable", (0, 0)),
        ("factories.ts", "makeMachine", (1, 0)),
        ("probes.ts", "constNumber", (0, 0)),
        ("probes.ts", "constArrow", (0, 0)),
        ("probes.ts", "declaredFunction", (0, 0)),
        ("probes.ts", "siblingCall", (0, 0)),
        ("loops.ts", "perIterationLet", (0, 0)),
        ("loops.ts", "sharedVar", (1, 0)),
        ("loops.ts", "counterPerIteration", (0, 1)),
        ("loops.ts", "writeThenCaptureInLoop", (1, 0)),
        ("loops.ts", "sumWithHelper", (0, 0)),
        ("scanner.ts", "createScanner", (1, 0)),
    ],
)
def test_reference_shape_counts(example, function, expected):
    assert counts(example, function) == expected


def test_machine_vars_share_one_context_and_declarations_are_values():
    path = ROOT / "examples" / "factories.ts"
    analysis = analyze_text(str(path), path.read_text())
    by_name = {d.binding.name: d for d in analysis.decisions if d.binding.closure.name == "makeMachine"}
    assert {by_name[f"r{i}"].storage.value for i in range(8)} == {"context"}
    assert {by_name[f"s{i}"].storage.value for i in range(8)} == {"value"}
    sites = {by_name[f"r{i}"].site.id for i in range(8)}
    assert len(sites) == 1
