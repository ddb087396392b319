"""BX107's two tiers, BX108 off by default, and what a project says about its own calls (``[retention]``).

The V8 check of which objects are kept is ``test_retention_v8.py``; here, what the findings say of them: a
warning when the object is made by the call and large, or kept by a closure that lives for the program, or
the Meteor chain (DESIGN 2.6); a hint otherwise.
"""

from __future__ import annotations

import json

import pytest

from capture_analysis.analyze import Analyzer
from capture_analysis.config import ConfigError, load
from capture_analysis.diagnose import Diagnostic
from capture_analysis.retention.callees import configured
from capture_analysis.rules import Severity
from capture_analysis.source import SourceFile

from .conftest import ROOT
from .golden_outputs import run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "retention"


def findings(path: str, analyzer: Analyzer | None = None) -> dict[str, Diagnostic]:
    text = (FIXTURES / path).read_text(encoding="utf-8")
    analysis = (analyzer or Analyzer())(SourceFile(path, text))
    return {f"{d.retention.binding.closure.name}:{d.retention.binding.name}": d for d in analysis.shown
            if d.retention is not None}


def levels(path: str) -> dict[str, str]:
    return {key: d.level.label for key, d in findings(path).items()}


def test_kept_for_the_programs_life_or_made_large_here_is_a_warning():
    assert levels("promise-callbacks-live-until-the-promise-settles.mjs") == {
        "awaitedThen:big": "hint",          # returned: the caller decides how long it lives
        "start:service": "warning",         # Apollo: a dispose callback in `this`'s state
        "executorWrapper:big": "hint"}
    assert levels("timers-and-listeners-keep-their-callbacks-until-cleared.mjs") == {
        "clearedTimeout:big": "hint", "clearedInterval:big": "hint", "listenedThenRemoved:big": "hint",
        "registeredRetainer:big": "warning"}  # a listener that is never removed
    assert levels("constructor-arrows-hold-the-constructor-context-field-arrows-do-not.mjs") == {
        "constructor:big": "warning"}       # stored in `this`
    assert levels("the-meteor-chain-grows-with-each-call.mjs") == {"replaceThing:originalThing": "warning"}


def test_a_parameter_or_an_alias_is_a_hint_however_it_is_kept():
    assert levels("primitives-and-parameters.mjs") == {"parameter:options": "hint"}


@pytest.mark.parametrize(("initializer", "level"), [
    ("new Uint32Array(n)", "warning"), ("new ArrayBuffer(n)", "warning"), ("new Array(n)", "warning"),
    ("new Map()", "warning"), ("JSON.parse(text)", "warning"), ("parseDocument(text)", "warning"),
    ("fs.readFileSync(text)", "warning"), ("loadConfig()", "warning"),
    ("new Widget()", "hint"), ("{ n }", "hint"), ("text", "hint"), ("this.cache", "hint"), ("options.big", "hint"),
])
def test_large_objects_made_here_are_warnings(initializer, level):
    text = (f"declare const fs: any; declare function parseDocument(t: string): object;\n"
            f"declare function loadConfig(): object; declare class Widget {{}}\n"
            f"export function make(this: any, n: number, text: string, options: any) {{\n"
            f"  const held = {initializer};\n"
            f"  [0].forEach(() => held);\n"
            f"  return () => 1;\n"
            f"}}\n")
    [diagnostic] = [d for d in Analyzer()(SourceFile("a.ts", text)).shown if d.retention is not None]
    assert diagnostic.level.label == level
    assert f"`held` (`{initializer}`) is kept alive by the arrow at 6:10 (returned at 6:10)" in diagnostic.message


def test_an_array_built_in_a_loop_is_large():
    text = ("export function make(items: number[]) {\n  const seen = [];\n  for (const i of items) seen.push(i);\n"
            "  [0].forEach(() => seen);\n  return () => 1;\n}\n")
    [diagnostic] = [d for d in Analyzer()(SourceFile("a.ts", text)).shown if d.retention is not None]
    assert diagnostic.level is Severity.WARNING


CAUGHT = "export function f(run: () => void) {\n  try { run(); } catch (error) { return () => 1; }\n}\n"


def test_the_catch_parameter_rule_is_off_unless_selected(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.ts").write_text(CAUGHT, encoding="utf-8")
    code, out = run_cli("--format", "json", "a.ts")
    assert json.loads(out)["files"][0]["diagnostics"] == [] and code == 0
    code, out = run_cli("--format", "json", "--severity", "BX108=warning", "a.ts")
    [diagnostic] = json.loads(out)["files"][0]["diagnostics"]
    assert (diagnostic["code"], diagnostic["rule"], diagnostic["severity"]) == \
        ("BX108", "catch-parameter-retention", "warning")
    assert code == 1


HELPER = ("import { each } from './lib';\n"
          "export function f() {\n  const big = new Map();\n  each([1], () => big.size);\n  return () => 1;\n}\n")


def test_a_projects_helpers_extend_the_shipped_lists(tmp_path):
    """Unknown, `each` may keep the callback: `big` is used by durable code. Listed as run-and-drop, it is not."""
    assert not [d for d in Analyzer()(SourceFile("a.ts", HELPER)).shown if d.retention is not None]
    dropping = Analyzer(callees=configured(("each",), ()))
    [diagnostic] = [d for d in dropping(SourceFile("a.ts", HELPER)).shown if d.retention is not None]
    assert "only the arrow at 4:13, which runs during the call, refers to it" in diagnostic.message
    keeping = Analyzer(callees=configured((), (".map",)))
    mapped = HELPER.replace("each([1], () => big.size)", "items.map(() => big.size)")
    assert not [d for d in keeping(SourceFile("a.ts", mapped)).shown if d.retention is not None]


def test_the_configuration_reads_and_checks_the_lists(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.ts").write_text(HELPER, encoding="utf-8")
    (tmp_path / "boxcheck.toml").write_text('[retention]\nrun-and-drop = ["each", ".each", "ts.map", "new W"]\n',
                                            encoding="utf-8")
    config = load(None, ["a.ts"])
    assert config.run_and_drop == ("each", ".each", "ts.map", "new W") and config.keeps == ()
    code, out = run_cli("--format", "json", "a.ts")
    [diagnostic] = json.loads(out)["files"][0]["diagnostics"]
    assert (diagnostic["code"], diagnostic["severity"], code) == ("BX107", "warning", 1)  # a Map made here
    (tmp_path / "boxcheck.toml").write_text('[retention]\nkeeps = ["a b"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"retention\.keeps: expected a list of calls"):
        load(None, ["a.ts"])
    (tmp_path / "boxcheck.toml").write_text('[retention]\ndrops = ["x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"retention\.drops: unknown key"):
        load(None, ["a.ts"])
