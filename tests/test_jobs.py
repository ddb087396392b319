"""``--jobs``: worker processes change how fast a run is, never what it prints or how it exits."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import pickle
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.analyze import Analyzer, analyze_source
from capture_analysis.batch import outcome
from capture_analysis.batch import workers as parallel
from capture_analysis.batch.loading import load
from capture_analysis.batch.tasks import Analyzed, FileTask
from capture_analysis.cli import main
from capture_analysis.config import Config
from capture_analysis.report import FORMATS, RunOptions

from .conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--no-cache", *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def mixed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough files of every kind that output order, failures and configuration all show."""
    root = tmp_path_factory.mktemp("mixed")
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("*.json"))
    for group in ("loops", "hoisting", "escape", "classes"):
        shutil.copytree(FIXTURES / group, root / group)
    shutil.copy(ROOT / "tests" / "unicode" / "non-ascii-before-token.ts", root / "unicode.ts")
    (root / "broken.ts").write_text("export function f() { let n = 0; return () => { n++ ; \n")
    (root / "binary.ts").write_bytes(b"\x00\x01 not source")
    (root / "suppressed.ts").write_text(
        "export function f() {\n  let n = 0; // boxcheck-ignore BX101 -- reviewed\n  return () => n++;\n}\n"
        "// boxcheck-ignore BX999\n")
    (root / "boxcheck.toml").write_text('[severity]\nBX103 = "error"\nBX003 = "info"\n')
    return root


def outputs(tree: Path, *args: str) -> dict[str, tuple[int, str, str]]:
    return {jobs: run("--jobs", jobs, *args, str(tree)) for jobs in ("1", "2", "3")}


@pytest.mark.parametrize("args", [
    ("--format", "text"),
    ("--format", "text", "--explain"),
    ("--format", "text", "--quiet"),
    ("--format", "json"),
    ("--format", "json", "--policy", "v8"),
    ("--format", "lsp"),
    ("--format", "sarif", "--policy", "legacy"),
    ("--format", "github", "--severity", "BX101=error"),
], ids=" ".join)
def test_every_format_prints_the_same_bytes_and_exits_the_same_with_any_number_of_jobs(mixed_tree, args):
    by_jobs = outputs(mixed_tree, *args)
    assert by_jobs["1"] == by_jobs["2"] == by_jobs["3"]
    code, out, err = by_jobs["1"]
    assert code == 1
    assert "binary.ts: skipped: binary file" in err
    assert out


def test_files_come_out_in_input_order_with_workers(mixed_tree):
    _, out, _ = run("--jobs", "2", "--format", "json", str(mixed_tree))
    paths = [entry["path"] for entry in json.loads(out)["files"]]
    _, single, _ = run("--jobs", "1", "--format", "json", str(mixed_tree))
    assert paths == [entry["path"] for entry in json.loads(single)["files"]]
    assert len(paths) > parallel.CHUNK_FILES * 2  # several chunks were in flight


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers forked from this process see the test's monkeypatches."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    monkeypatch.setattr(parallel, "start_method", lambda: multiprocessing.get_context("fork"))


def small_tree(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name).write_text("export function f() { let n = 0; return () => n++; }\n")
    return root


def test_an_internal_error_in_a_worker_costs_only_its_file(tmp_path, monkeypatch, forking):
    small_tree(tmp_path, ["a.ts", "boom.ts", "c.ts"])
    real = Analyzer.lean

    def exploding(self, source):
        if source.path.endswith("boom.ts"):
            raise RuntimeError("simulated analyzer bug")
        return real(self, source)

    monkeypatch.setattr(Analyzer, "lean", exploding)
    code, out, err = run("--jobs", "2", str(tmp_path))
    assert code == 2
    assert "boom.ts: internal error: RuntimeError: simulated analyzer bug (please report this" in err
    assert "Traceback" not in err
    assert out.splitlines()[-1].startswith("2 files, 4 functions: 2 allocations per call")


def test_a_worker_that_dies_costs_only_the_file_that_kills_it(tmp_path, monkeypatch, forking):
    small_tree(tmp_path, [f"{name}.ts" for name in "abcdefgh"])
    (tmp_path / "d.ts").write_text("export const crash = 1;\n")
    real = Analyzer.lean

    def dying(self, source):
        if source.path.endswith("d.ts"):
            os._exit(3)  # as a segfault in native code or the out-of-memory killer would end it
        return real(self, source)

    monkeypatch.setattr(Analyzer, "lean", dying)
    code, out, err = run("--jobs", "2", "--format", "json", str(tmp_path))
    assert code == 2
    assert "d.ts: internal error: the process analyzing this file died" in err
    files = json.loads(out)["files"]
    assert [Path(f["path"]).name for f in files] == [f"{name}.ts" for name in "abcdefgh"]
    assert [bool(f["errors"]) for f in files] == [name == "d" for name in "abcdefgh"]


def test_default_jobs_is_the_cores_this_process_may_use():
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert parallel.default_jobs() == expected


def test_by_default_a_small_run_stays_in_process_and_a_large_one_uses_workers(tmp_path):
    small = small_tree(tmp_path, ["a.ts", "b.ts"])
    assert not parallel.worth_a_pool([str(p) for p in small.iterdir()])
    big = tmp_path / "big.ts"
    big.write_text("export const x = 1;\n" * (parallel.POOL_MIN_BYTES // 20 + 1))
    assert parallel.worth_a_pool([str(big), str(tmp_path / "a.ts")])
    assert not parallel.worth_a_pool([str(big)])  # one file: nothing to share


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_number(value, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--jobs", value, "x.ts"])
    assert exit_info.value.code == 2
    assert "expected a positive number" in capsys.readouterr().err


def plain(value: object) -> bool:
    if isinstance(value, (str, int, bool)) or value is None:
        return True
    if isinstance(value, list):
        return all(plain(item) for item in value)
    return isinstance(value, dict) and all(isinstance(k, str) and plain(v) for k, v in value.items())


@pytest.mark.parametrize("format", sorted(FORMATS))
def test_what_crosses_the_process_boundary_is_plain_data_not_the_analysis(format):
    task = FileTask(format, RunOptions(explain=True), Config(), 1 << 20)
    loaded = load(str(ROOT / "examples" / "factories.ts"))
    result = outcome.outcome_of(loaded, task)
    assert isinstance(result, Analyzed)
    assert plain(result.record)
    analysis = analyze_source(loaded)
    assert result.counts.functions == len(analysis.functions)
    assert result.counts.levels == tuple(d.level for d in analysis.diagnostics)
    assert pickle.loads(pickle.dumps(result)) == result


@pytest.mark.parametrize("format", ["json", "sarif", "lsp", "text", "github"])
def test_every_format_writes_a_file_before_the_next_ones_are_analyzed(tmp_path, monkeypatch, format):
    """Streaming: a run over a repository never keeps the output of every file until the end."""
    small_tree(tmp_path, ["a.ts", "b.ts", "c.ts"])
    out = io.StringIO()
    written_before: dict[str, str] = {}
    real = Analyzer.lean

    def watching(self, source):
        written_before[Path(source.path).name] = out.getvalue()
        return real(self, source)

    monkeypatch.setattr(Analyzer, "lean", watching)
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        main(["--no-cache", "--jobs", "1", "--format", format, str(tmp_path)])
    assert "a.ts" not in written_before["a.ts"]
    assert "a.ts" in written_before["c.ts"] and "b.ts" in written_before["c.ts"]
