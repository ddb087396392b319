"""V8 itself as the oracle of ``--policy v8`` (docs/v8.md).

``tests/v8/harness.js`` loads every example and every factory of
``tests/v8/factories/`` in Node, calls each exported function once, and reads
from a heap snapshot which contexts the call created, which V8 scope each
belongs to and which slots it holds.  These tests compare that with what
``boxcheck --policy v8 --format json`` says of the same sources: for every
scope the call entered, the same bindings in a context and the same number of
contexts.  What V8 does for reasons of its own (slots for ``this``,
``arguments``, ``new.target`` and private names; one more copy of a
``for (let ...)`` head for the test that ends the loop) is taken out and
named in ``differences``; docs/v8.md lists each kind.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from capture_analysis.cli import main as boxcheck
from capture_analysis.model import BindingKind, Storage
from capture_analysis.policies import POLICIES

from .conftest import ROOT

HARNESS = ROOT / "tests" / "v8"
FACTORIES = sorted((HARNESS / "factories").glob("*.ts"))
EXAMPLES = sorted((ROOT / "examples").glob("*.ts"))
SOURCES = [p.relative_to(ROOT).as_posix() for p in EXAMPLES + FACTORIES]
EXPORTED_FUNCTION = re.compile(r"^export function (\w+)", re.MULTILINE)
#: slots V8 gives to what is not a binding: `this`, `arguments`, `.new.target`, `.catch`, `#private` ...
INTERNAL_SLOT = re.compile(r"^[.#]|^(this|arguments)$")
INNER_NAME_KINDS = frozenset({"class-name", "function-name"})


def exported(path: str) -> list[str]:
    return EXPORTED_FUNCTION.findall((ROOT / path).read_text(encoding="utf-8"))


CALLS = [(path, name) for path in SOURCES for name in exported(path)]
CALL_IDS = [f"{path}::{name}" for path, name in CALLS]


def typescript_installed() -> None:
    """``npm ci`` once when ``tests/v8/node_modules`` is missing; skip if that fails (offline)."""
    if (HARNESS / "node_modules" / "typescript" / "package.json").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: it installs the pinned `typescript` the V8 harness needs")
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=HARNESS,
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("`npm ci` in tests/v8 took more than 300 s")
    if done.returncode != 0:
        pytest.skip(f"`npm ci` in tests/v8 failed, so `typescript` is missing: {done.stderr.strip()[-500:]}")


@pytest.fixture(scope="session")
def measured() -> dict[str, dict]:
    """path -> the harness's report of that file (scopes, declarations, cases)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("`node` is not on PATH: the V8 check runs the factories in Node.js")
    typescript_installed()
    done = subprocess.run([node, str(HARNESS / "harness.js"), "--args", str(HARNESS / "example-args.json"), *SOURCES],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.stdout, f"the harness printed nothing: {done.stderr}"
    report = json.loads(done.stdout)
    return {f["path"]: f for f in report["files"]}


def boxcheck_json(*args: str, paths: list[str]) -> dict[str, dict]:
    """path (relative to the project) -> boxcheck's JSON report of that file, whatever the working directory."""
    out = io.StringIO()
    with redirect_stdout(out):
        boxcheck(["--format", "json", *args, *(str(ROOT / p) for p in paths)])
    return {Path(f["path"]).relative_to(ROOT).as_posix(): f for f in json.loads(out.getvalue())["files"]}


def policy_report(paths: list[str]) -> dict[str, dict]:
    return boxcheck_json("--policy", "v8", paths=paths)


@pytest.fixture(scope="session")
def reported() -> dict[str, dict]:
    """path -> the ``--policy v8`` JSON of that file."""
    if "v8" not in POLICIES:
        pytest.skip("the `v8` policy is not registered in capture_analysis.policies.POLICIES yet")
    return policy_report(SOURCES)


def case_of(measured: dict[str, dict], path: str, name: str) -> tuple[dict, dict]:
    file = measured[path]
    assert not file.get("error"), f"{path}: {file['error']}"
    [call] = [c for c in file["cases"] if c["name"] == name]
    return file, call


@dataclass(frozen=True, slots=True)
class Verdict:
    #: where the policy and V8 disagree.
    mismatches: tuple[str, ...]
    #: what V8 does for reasons of its own, taken out before comparing (docs/v8.md).
    differences: tuple[str, ...]


class Call:
    """One measured call: the scopes of its file, how often it entered each, and where each binding lives."""

    def __init__(self, file: dict, call: dict):
        self.scopes = file["scopes"]
        self.declarations = file["declarations"]
        self.contexts = call["contexts"]
        self.entries = Counter({int(k): v for k, v in call["entries"].items()})
        self.tests = Counter({int(k): v for k, v in call["tests"].items()})
        self.scope_of = {(d["name"], d["line"], d["column"], d["inner"]): d["scope"] for d in self.declarations}

    def where(self, scope: int) -> str:
        s = self.scopes[scope]
        name = f" `{s['name']}`" if s["name"] else ""
        return f"{s['kind']}{name} at {s['line']}:{s['column']}"


def binding_key(binding: dict) -> tuple[str, int, int, bool]:
    return binding["name"], binding["line"], binding["column"], binding["kind"] in INNER_NAME_KINDS


def v8_contexts(call: Call, differences: list[str]) -> tuple[Counter[int], defaultdict[int, set[str]]]:
    """Per scope, how many contexts V8 made and the bindings they hold, V8's own slots taken out."""
    count: Counter[int] = Counter()
    names: defaultdict[int, set[str]] = defaultdict(set)
    for context in call.contexts:
        scope = context["scope"]
        internal = [s for s in context["slots"] if INTERNAL_SLOT.match(s)]
        real = [s for s in context["slots"] if not INTERNAL_SLOT.match(s)]
        if internal:
            differences.append(f"{call.where(scope)}: V8 slots {internal} are not bindings")
        if not real:
            differences.append(f"{call.where(scope)}: a context that holds no binding")
            continue
        count[scope] += 1
        names[scope].update(real)
    for scope, evaluated in call.tests.items():
        extra = evaluated - call.entries[scope]
        if count[scope] and extra:
            count[scope] -= extra
            differences.append(f"{call.where(scope)}: {extra} more copy of the loop head "
                               "for the test that ended the loop")
    return count, names


def policy_contexts(call: Call, report: dict, mismatches: list[str]) -> tuple[Counter[int], defaultdict[int, set[str]]]:
    """Per scope the call entered, how many contexts the policy's sites stand for and the bindings they hold."""
    count: Counter[int] = Counter()
    names: defaultdict[int, set[str]] = defaultdict(set)
    for function in report["functions"]:
        for site in function["allocations"]["sites"]:
            in_scope: defaultdict[int | None, list[str]] = defaultdict(list)
            for binding in report["bindings"]:
                if binding["site"] == site["id"]:
                    in_scope[call.scope_of.get(binding_key(binding))].append(binding["name"])
            unknown = in_scope.pop(None, None)
            if not any(call.entries[scope] for scope in in_scope):
                continue  # another function's site, or a scope this call never entered
            if unknown:
                mismatches.append(f"site {site['id']}: the harness knows no declaration of {unknown}")
            if len(in_scope) > 1:
                mismatches.append(f"site {site['id']} puts bindings of {len(in_scope)} V8 scopes in one context: "
                                  + "; ".join(f"{call.where(s)}: {names}" for s, names in in_scope.items()))
            for scope, members in in_scope.items():
                assert scope is not None
                if not call.entries[scope]:
                    continue  # a branch not taken made no context
                runs = call.entries[call.scopes[scope]["function"]]
                count[scope] += call.entries[scope] if site["multiplicity"] == "per-iteration" else runs
                names[scope].update(members)
    return count, names


def compare(file: dict, measured_call: dict, report: dict) -> Verdict:
    """Per scope the call entered: the bindings V8 put in a context, and how many contexts, against the policy."""
    call = Call(file, measured_call)
    mismatches: list[str] = []
    differences: list[str] = []
    v8_count, v8_names = v8_contexts(call, differences)
    policy_count, policy_names = policy_contexts(call, report, mismatches)
    for scope in sorted(set(policy_count) | set(v8_count)):
        if policy_count[scope] != v8_count[scope] or policy_names[scope] != v8_names[scope]:
            mismatches.append(
                f"{call.where(scope)}: V8 made {v8_count[scope]} context(s) holding {sorted(v8_names[scope])}, "
                f"the policy {policy_count[scope]} holding {sorted(policy_names[scope])}")
    bindings = {binding_key(b): b for b in report["bindings"]}
    for key, scope in call.scope_of.items():
        binding = bindings.get(key)
        if not call.entries[scope] or binding is None:
            continue
        in_v8 = binding["name"] in v8_names[scope]
        if in_v8 != (binding["storage"] == "context"):
            mismatches.append(f"`{binding['name']}` at {binding['line']}:{binding['column']}: "
                              f"{'in' if in_v8 else 'not in'} a V8 context, `{binding['storage']}` in the policy")
    return Verdict(tuple(mismatches), tuple(dict.fromkeys(differences)))


def verdicts(measured: dict[str, dict], reported: dict[str, dict]) -> dict[str, Verdict]:
    return {f"{path}::{name}": compare(*case_of(measured, path, name), reported[path]) for path, name in CALLS}


def test_the_factory_set_covers_each_topic_with_at_least_30_factories():
    topics = {p.stem: len(exported(p.relative_to(ROOT).as_posix())) for p in FACTORIES}
    assert {"blocks", "loops", "catch", "classes", "nested", "defaults", "eval"} <= set(topics)
    assert all(topics.values()), topics
    assert sum(topics.values()) >= 30, topics


@pytest.mark.parametrize("path", SOURCES)
def test_the_harness_and_boxcheck_see_the_same_bindings(measured, path):
    """Else a binding could fall out of the comparison unnoticed."""
    report = boxcheck_json(paths=[path])[path]
    seen_by_boxcheck = sorted(binding_key(b) for b in report["bindings"])
    declared = sorted((d["name"], d["line"], d["column"], d["inner"]) for d in measured[path]["declarations"])
    assert declared == seen_by_boxcheck


@pytest.mark.parametrize(("path", "name"), CALLS, ids=CALL_IDS)
def test_v8_measures_the_call_and_the_probes_change_no_context(measured, path, name):
    _, call = case_of(measured, path, name)
    assert call["errors"] == []
    # the contexts reachable from the result are the same with and without the harness's probes
    assert call["reachable"]["probed"] == call["reachable"]["plain"]


@pytest.mark.parametrize(("path", "name"), CALLS, ids=CALL_IDS)
def test_v8_policy_names_the_contexts_v8_creates(measured, reported, path, name):
    verdict = compare(*case_of(measured, path, name), reported[path])
    assert verdict.mismatches == (), "\n".join(verdict.mismatches)


def test_every_difference_v8_shows_is_documented(measured, reported):
    docs = (ROOT / "docs" / "v8.md").read_text(encoding="utf-8")
    shown = {difference for verdict in verdicts(measured, reported).values() for difference in verdict.differences}
    slots = {slot for d in shown for slot in re.findall(r"'([^']+)'", d)}
    assert slots, "the factories show no internal slot: the internals factories no longer exercise them"
    assert {slot for slot in slots if f"`{slot}`" not in docs and not slot.startswith("#")} == set()
    assert "private name" in docs and "test that ends the loop" in docs
    assert any("test that ended the loop" in d for d in shown)


def value_for_unwritten(policy):
    """Breaks the rule "a slot whether or not it is ever written": never-written captured bindings by value."""
    def decide(model, source, graph):
        decisions = policy.decide(model, source, graph)
        for decision in decisions:
            written = any(r.is_write and not r.is_declaration_write for r in decision.binding.references)
            if decision.storage is Storage.CONTEXT and not written and decision.binding.kind is BindingKind.CONST:
                decision.storage = Storage.VALUE
        return decisions
    return dataclasses.replace(policy, decide=decide)


def one_site_per_function(policy):
    """Breaks "no merging": every function gets one context for all its per-call slots."""
    def allocate(model, source, decisions):
        reports = policy.allocate(model, source, decisions)
        for report in reports:
            first = None
            for site in list(report.sites):
                if site.per_iteration:
                    continue
                if first is None:
                    first = site
                    continue
                first.decisions.extend(site.decisions)
                for decision in site.decisions:
                    decision.site = first
                report.sites.remove(site)
        return reports
    return dataclasses.replace(policy, allocate=allocate)


def per_call_loops(policy):
    """Breaks "a context in a loop body is one per iteration": loop sites counted once per call."""
    def allocate(model, source, decisions):
        reports = policy.allocate(model, source, decisions)
        for report in reports:
            for site in report.sites:
                site.per_iteration = False
        return reports
    return dataclasses.replace(policy, allocate=allocate)


@pytest.mark.parametrize("break_rule", [value_for_unwritten, one_site_per_function, per_call_loops],
                         ids=lambda f: f.__name__)
def test_a_broken_rule_fails_the_comparison(measured, reported, monkeypatch, break_rule):
    assert all(not v.mismatches for v in verdicts(measured, reported).values())
    monkeypatch.setitem(POLICIES, "v8", break_rule(POLICIES["v8"]))
    broken = verdicts(measured, policy_report(SOURCES))
    assert [call for call, verdict in broken.items() if verdict.mismatches]


def test_the_harness_says_why_it_cannot_measure_a_file(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("`node` is not on PATH: the V8 check runs the factories in Node.js")
    typescript_installed()
    source = tmp_path / "enum.ts"
    source.write_text("enum Color { Red }\nexport function f(x: number) { return () => x; }\n")
    done = subprocess.run([node, str(HARNESS / "harness.js"), str(source)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    [file] = json.loads(done.stdout)["files"]
    assert "EnumDeclaration" in file["error"]


def test_examples_have_arguments_for_every_exported_function():
    table = json.loads((HARNESS / "example-args.json").read_text(encoding="utf-8"))
    for example in EXAMPLES:
        path = example.relative_to(ROOT).as_posix()
        assert sorted(table.get(path, {})) == sorted(exported(path)), path
