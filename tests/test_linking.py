"""Callees in other files of the run (DESIGN 2.2.1): imports and exports, specifiers, the project's answers, and a
run's outcomes, which are the same under ``--jobs``, the cache and any order of the files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capture_analysis.analyze import bind_source
from capture_analysis.linking.interface import Interface
from capture_analysis.linking.links import DEFAULT, NAMESPACE
from capture_analysis.linking.project import Project
from capture_analysis.linking.resolve import resolve
from capture_analysis.model import Binding
from capture_analysis.source import SourceFile

from .conftest import ROOT
from .test_cli import run

FIXTURES = ROOT / "tests" / "fixtures" / "linking"


def links(text: str, path: str = "m.ts"):
    return bind_source(SourceFile(path, text)).graph.links


def interface(text: str, path: str = "m.ts") -> Interface:
    source = SourceFile(path, text)
    bound = bind_source(source)
    _ = bound.graph.graph
    return bound.graph.interface(source)


def test_every_form_of_import_binds_its_specifier_and_name():
    bound = bind_source(SourceFile("m.ts", 'import d, { a, b as c, type T, default as e } from "./x";\n'
                                           'import * as ns from "./y.js";\nimport type { U } from "./z";\n'
                                           'import "./side";\nimport q = require("./q");\n'))
    found = bound.graph.links
    assert {b.name: found.origin(b) for b in bound.model.bindings if found.origin(b) is not None} == {
        "d": ("./x", DEFAULT), "a": ("./x", "a"), "c": ("./x", "b"), "e": ("./x", DEFAULT), "ns": ("./y.js", NAMESPACE)}


def test_every_form_of_export_names_its_function_or_where_it_comes_from():
    found = links('import { g } from "./g";\nfunction f(x) {}\nexport { f as ff, g as gg };\n'
                  'export function h(x) {}\nexport const k = (x) => x, z = 1;\nexport default function (x) {}\n'
                  'export { q as r } from "./q";\nexport * from "./w";\nexport * as nn from "./v";\n'
                  'export type { T } from "./t";\n')
    assert {name: target.name if isinstance(target, Binding) else "a function" for name, target in
            found.exports.items()} == {"ff": "f", "h": "h", "k": "k", "z": "z", DEFAULT: "a function"}
    assert found.reexports == {"gg": ("./g", "g"), "r": ("./q", "q"), "nn": ("./v", NAMESPACE)}
    assert found.stars == ["./w"]


def test_a_tag_is_none_when_the_parameter_escapes_and_the_slots_it_is_handed_to_otherwise():
    found = interface('import { keep } from "./k";\nconst kept = [];\n'
                      'export function calls(f) { f(); }\nexport function stores(f) { kept.push(f); }\n'
                      'export function hands(f, g) { keep(f); g(); }\nexport async function later(f) { f(); }\n'
                      'export let swapped = (f) => f();\nswapped = null;\n')
    assert {name: f.tags for name, f in found.functions.items()} == {
        "calls": ((),), "stores": (None,), "hands": ((("./k", "keep", 0),), ())}
    assert found.others == {"later", "swapped"}
    assert Interface.from_json(json.loads(json.dumps(found.to_json()))) == found


@pytest.mark.parametrize(("specifier", "files", "expected"), [
    ("./x", ["src/x.ts"], "src/x.ts"),
    ("./x.js", ["src/x.js", "src/x.ts"], "src/x.ts"),
    ("./x.js", ["src/x.tsx"], "src/x.tsx"),
    ("./x.mjs", ["src/x.mts"], "src/x.mts"),
    ("./x.cjs", ["src/x.cts"], "src/x.cts"),
    ("./x", ["src/x/index.ts"], "src/x/index.ts"),
    ("../lib/y", ["lib/y.js"], "lib/y.js"),
    (".", ["src/index.ts"], "src/index.ts"),
    ("x", ["src/x.ts", "x.ts"], None),
    ("./x", ["src/x.d.ts"], None),
])
def test_relative_specifiers_name_the_files_typescript_would(specifier, files, expected):
    from capture_analysis.linking.resolve import key

    assert resolve("src/importer.ts", specifier, {key(f): f for f in files}) == expected


def project(**files: str) -> Project:
    made = Project(list(files))
    for path, text in files.items():
        made.add(path, interface(text, path))
    return made


def test_mutual_recursion_across_files_escapes_only_if_some_file_keeps_the_parameter():
    calling = project(**{"a.ts": 'import { b } from "./b";\nexport function a(f, n) { if (n) b(f, n - 1); else f(); }',
                         "b.ts": 'import { a } from "./a";\nexport function b(f, n) { a(f, n); }'})
    assert calling.escapes("sub/c.ts", ("./a", "a", 0)) is True  # sub/a.ts is no file of the run
    assert calling.escapes("a.ts", ("./b", "b", 0)) is False
    keeping = project(**{"a.ts": 'import { b } from "./b";\nexport function a(f, n) { if (n) b(f, n - 1); }',
                         "b.ts": 'import { a } from "./a";\nconst k = [];\nexport function b(f, n) { a(f, n); '
                                 'k.push(f); }'})
    assert keeping.escapes("a.ts", ("./b", "b", 0)) is True
    assert keeping.escapes("b.ts", ("./a", "a", 0)) is True


def test_an_ambiguous_star_a_reexport_loop_and_a_missing_name_escape():
    found = project(**{"x.ts": "export function f(g) { g(); }", "y.ts": "export function f(g) { g(); }",
                       "both.ts": 'export * from "./x";\nexport * from "./y";',
                       "loop.ts": 'export { f } from "./loop2";', "loop2.ts": 'export { f } from "./loop";',
                       "one.ts": 'export * from "./x";\nexport * from "./missing";'})
    assert found.escapes("m.ts", ("./both", "f", 0)) is True
    assert found.escapes("m.ts", ("./loop", "f", 0)) is True
    assert found.escapes("m.ts", ("./x", "nothing", 0)) is True
    assert found.escapes("m.ts", ("./one", "f", 0)) is False
    assert found.escapes("m.ts", ("./x", "f", 5)) is False  # past the last parameter: nowhere


def test_a_local_export_that_is_no_function_shadows_the_same_name_of_an_export_star():
    found = project(**{"x.ts": "export function f(g) { g(); }\nexport function h(g) { g(); }",
                       "shadow.ts": 'export * from "./x";\nexport class f { constructor(g) { keep(g); } }\n'
                                    "export interface h { }\nexport default class { }"})
    assert found.escapes("m.ts", ("./shadow", "f", 0)) is True  # `new f(g)` is the class's
    assert found.escapes("m.ts", ("./shadow", "h", 0)) is False  # an interface is no value: the star's `h`
    assert found.escapes("m.ts", ("./shadow", "default", 0)) is True


def test_an_answer_waits_for_a_file_of_the_run_that_has_not_come_in():
    found = Project(["a.ts", "b.ts"])
    found.add("a.ts", interface('import { b } from "./b";\nexport function a() { let n = 0; b(() => n++); '
                                'return n; }', "a.ts"))
    assert found.waiting_on("a.ts") == "b.ts"
    found.add("b.ts", interface("export function b(f) { f(); }", "b.ts"))
    assert found.waiting_on("a.ts") is None
    [(slot, landing)] = found.landings("a.ts").items()
    assert slot == ("./b", "b", 0) and landing[1:] == ("passed to `b` as `f`", "b.ts:1:8")


def storages(stdout: str) -> dict[tuple[str, int], str]:
    return {(Path(f["path"]).name, b["line"]): b["storage"] for f in json.loads(stdout)["files"]
            for b in f["bindings"] if b["name"] in ("n", "m")}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "linking"
    shutil.copytree(FIXTURES, copy)
    return copy


def test_a_run_decides_the_same_in_any_order_of_its_files_with_jobs_and_with_the_cache(folder, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.delenv("BOXCHECK_NO_CACHE")  # conftest turns the cache off
    files = sorted(str(p) for p in folder.glob("*.ts"))
    _, first, _ = run(*files, "--format", "json", "--no-cache", "--jobs", "1")
    assert storages(first)[("callers.ts", 11)] == "stack"
    _, backwards, _ = run(*reversed(files), "--format", "json", "--no-cache", "--jobs", "1")
    assert storages(backwards) == storages(first)
    _, jobs, _ = run(*files, "--format", "json", "--no-cache", "--jobs", "2")
    assert jobs == first
    cache = str(tmp_path / "cache")
    _, cold, _ = run(*files, "--format", "json", "--cache-dir", cache)
    stored = sorted(Path(cache).rglob("*.entry"))
    assert len(stored) > len(files)  # each file's first analysis, and the second of those analyzed again
    _, warm, _ = run(*files, "--format", "json", "--cache-dir", cache)
    assert cold == warm == first
    assert sorted(Path(cache).rglob("*.entry")) == stored


def test_editing_a_helper_re_decides_its_callers_through_the_cache(folder, tmp_path, monkeypatch):
    monkeypatch.delenv("BOXCHECK_NO_CACHE")  # conftest turns the cache off
    cache = str(tmp_path / "cache")
    _, before, _ = run(str(folder), "--format", "json", "--cache-dir", cache)
    assert storages(before)[("callers.ts", 11)] == "stack"
    helpers = folder / "helpers.ts"
    helpers.write_text(helpers.read_text().replace("for (const x of xs) f(x);", "kept.push(() => f(xs[0]));"))
    _, after, _ = run(str(folder), "--format", "json", "--cache-dir", cache)
    assert any(Path(cache).rglob("*.entry"))
    assert storages(after)[("callers.ts", 11)] == "box"
    _, fresh, _ = run(str(folder), "--format", "json", "--no-cache")
    assert after == fresh


def test_a_callee_in_a_file_outside_the_run_is_unknown(folder):
    _, alone, _ = run(str(folder / "callers.ts"), "--format", "json", "--no-cache")
    assert storages(alone)[("callers.ts", 11)] == "box"


def test_standard_input_reads_its_callees_from_the_files_beside_its_name(folder):
    text = (folder / "callers.ts").read_text()
    done = subprocess.run([sys.executable, "-m", "capture_analysis", "--stdin-filename", str(folder / "callers.ts"),
                           "--format", "json", "-"], input=text, capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert storages(done.stdout)[("callers.ts", 11)] == "stack"


def test_the_language_server_reads_the_callees_of_an_open_document_from_disk(folder):
    from capture_analysis.lsp.incremental import analyze_tree
    from capture_analysis.lsp.settings import ClientSettings, ConfigFiles
    from capture_analysis.lsp.settings import resolve as resolve_settings
    from capture_analysis.parsing import parse_source

    settings, _ = resolve_settings(None, ConfigFiles(), ClientSettings())
    path = str(folder / "callers.ts")
    analysis = analyze_tree(parse_source(SourceFile(path, (folder / "callers.ts").read_text())), settings)
    [n] = [d for d in analysis.decisions if d.binding.name == "n" and analysis.source.position(d.binding.start).line
           == 11]
    assert n.storage.value == "stack", n.reason


def test_an_outcome_crosses_processes_with_its_interface():
    """``--jobs`` and ``--scheduler`` workers pickle each outcome: a compiled frozen dataclass would not unpickle."""
    import pickle

    from capture_analysis.batch.outcome import outcome_of
    from capture_analysis.batch.tasks import FileTask
    from capture_analysis.config import Config
    from capture_analysis.report import RunOptions

    task = FileTask.of("json", RunOptions(), Config(), 1 << 20)
    outcome = outcome_of(SourceFile("m.ts", 'import { g } from "./g";\nexport function f(h) { g(h); }\n'
                                            'export function k() { let n = 0; g(() => n++); return n; }\n'), task)
    assert outcome.interface is not None and outcome.interface.functions
    again = pickle.loads(pickle.dumps(outcome))
    assert again.interface == outcome.interface


def test_a_task_crosses_to_the_workers_without_the_analyzers_the_parent_made():
    """The parent analyzes a file again with its imports resolved, which makes an analyzer in its task; the task
    then goes to the next chunk's worker, which makes its own (a compiled ``Policy`` does not unpickle)."""
    import pickle

    from capture_analysis.batch.tasks import FileTask
    from capture_analysis.config import Config
    from capture_analysis.report import RunOptions

    task = FileTask.of("json", RunOptions(), Config(), 1 << 20)
    task.analyzer("a.ts")
    assert task.analyzers
    again = pickle.loads(pickle.dumps(task))
    assert again.analyzers == {} and again == task
    assert again.analyzer("a.ts").policy == task.analyzer("a.ts").policy


def test_jobs_go_on_after_the_parent_analyzed_a_file_again(folder, tmp_path):
    """Chunks sent after a file was analyzed again in the parent still reach their workers (the compiled build's
    workers died unpickling the task that the re-analysis had given an analyzer)."""
    many = folder / "zz"
    many.mkdir()
    for index in range(300):
        (many / f"f{index}.ts").write_text(f"export function f{index}() {{ let n = 0; return () => n++; }}\n")
    code, out, err = run(str(folder), "--format", "json", "--no-cache", "--jobs", "2")
    assert code in (0, 1) and "internal error" not in err, err
    assert storages(out)[("callers.ts", 11)] == "stack"
    assert len(json.loads(out)["files"]) == 300 + len(list(FIXTURES.rglob("*.ts")))
