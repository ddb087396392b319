"""The on-disk cache: a re-run prints the same bytes without analyzing, and nothing stale or broken is used."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis import cli
from capture_analysis.analyze import Analyzer
from capture_analysis.batch import cache as cache_module
from capture_analysis.batch import outcome
from capture_analysis.batch import workers as parallel
from capture_analysis.batch.loading import from_bytes
from capture_analysis.config import Config
from capture_analysis.report import RunOptions

from .conftest import ROOT


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache_module.DISABLE_ENV, raising=False)


def run(*args: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "src", ignore=shutil.ignore_patterns("*.json"))
    (tmp_path / "src" / "suppressed.ts").write_text(
        "export function f() {\n  let n = 0; // boxcheck-ignore BX101 -- reviewed\n  return () => n++;\n}\n")
    shutil.copy(ROOT / "tests" / "unicode" / "non-ascii-before-token.ts", tmp_path / "src" / "unicode.ts")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def analyzed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths analyzed in this process (the CLI's analyzer, seen by --jobs 1 runs), in order."""
    seen: list[str] = []
    real = Analyzer.lean

    def counting(self, source):
        seen.append(Path(source.path).name)
        return real(self, source)

    monkeypatch.setattr(Analyzer, "lean", counting)
    return seen


def entries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.entry") if p.is_file())


@pytest.mark.parametrize("args", [
    ("--format", "text", "--explain"), ("--format", "json"), ("--format", "lsp"), ("--format", "sarif"),
    ("--format", "github"), ("--format", "json", "--policy", "v8"), ("--format", "text", "--quiet"),
], ids=" ".join)
def test_a_rerun_prints_the_same_bytes_without_analyzing(project, analyzed, args):
    uncached = run("--no-cache", "--jobs", "1", *args, "src")
    analyzed.clear()
    first = run("--jobs", "1", *args, "src")
    assert sorted(analyzed) == ["factories.ts", "loops.ts", "probes.ts", "scanner.ts", "suppressed.ts", "unicode.ts"]
    analyzed.clear()
    second = run("--jobs", "1", *args, "src")
    assert analyzed == []
    assert uncached == first == second


def test_workers_fill_the_cache_and_a_warm_run_starts_no_worker(project, monkeypatch):
    cold = run("--jobs", "2", "--format", "sarif", "src")
    assert len(entries(project / cache_module.DIRECTORY)) == 6

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker was started for a cached file")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", no_pool)
    assert run("--jobs", "2", "--format", "sarif", "src") == cold
    assert run("--jobs", "1", "--format", "sarif", "src") == cold


def test_only_the_changed_file_is_analyzed_again(project, analyzed):
    run("--jobs", "1", "src")
    probes = project / "src" / "probes.ts"
    probes.write_text(probes.read_text() + "\nexport function late() { let k = 0; return () => k++; }\n")
    analyzed.clear()
    code, out, err = run("--jobs", "1", "src")
    assert analyzed == ["probes.ts"]
    assert (code, out, err) == run("--no-cache", "--jobs", "1", "src")
    assert "late" in out


@pytest.mark.parametrize("variant", [
    ("--policy", "legacy"), ("--severity", "BX101=error"), ("--severity", "BX101=off"), ("--select", "BX003"),
    ("--ignore", "heap-capture"),
], ids=" ".join)
def test_every_option_that_changes_the_record_is_part_of_the_key(project, analyzed, variant):
    run("--jobs", "1", "src")
    analyzed.clear()
    result = run("--jobs", "1", *variant, "src")
    assert len(analyzed) == 6
    assert result == run("--no-cache", "--jobs", "1", *variant, "src")


def test_compare_is_part_of_the_key_and_the_format_is_not(project):
    def identity(form: str, **options) -> bytes:
        task = outcome.FileTask(form, RunOptions(**options), Config(), 1 << 20)
        return cache_module.Cache(project / "c", task).identity

    assert identity("text", compare=("optimal", "v8")) != identity("text")
    assert identity("json", explain=True, quiet=True, color=True, docs_url="https://example.org") == identity("text")


RENDERINGS = [("--format", "sarif"), ("--format", "lsp", "--docs-url", "https://example.org/rules.html"),
              ("--format", "github"), ("--explain",), ("--quiet",), ("--color", "always", "--explain")]


@pytest.mark.parametrize("variant", RENDERINGS, ids=" ".join)
def test_one_analysis_serves_every_format_but_json_and_every_rendering_option(project, analyzed, variant):
    """The cache keeps each file's record, which every format renders from (issue 18, item 8): a run in
    another format, or with other rendering options, analyzes nothing and prints what an uncached run prints.
    The first run asks for the evidence (``--explain``), which a record holds only when asked (issue 42)."""
    run("--jobs", "1", "--explain", "src")
    analyzed.clear()
    result = run("--jobs", "1", *variant, "src")
    assert analyzed == []
    assert result == run("--no-cache", "--jobs", "1", *variant, "src")


def test_a_record_made_without_explain_is_a_miss_for_explain_once(project, analyzed):
    """A run without ``--explain`` keeps no evidence in its records (the memory of a file full of findings,
    issue 42): an ``--explain`` run analyzes each file again, once, and prints what an uncached run prints;
    its records then serve both."""
    run("--jobs", "1", "src")
    analyzed.clear()
    result = run("--jobs", "1", "--explain", "src")
    assert sorted(analyzed) == ["factories.ts", "loops.ts", "probes.ts", "scanner.ts", "suppressed.ts", "unicode.ts"]
    assert result == run("--no-cache", "--jobs", "1", "--explain", "src")
    assert "= note 1/" in result[1]  # the evidence, which the first run's records left out
    plain = run("--no-cache", "--jobs", "1", "src")
    analyzed.clear()
    assert run("--jobs", "1", "--explain", "src") == result
    assert run("--jobs", "1", "src") == plain
    assert analyzed == []


@pytest.mark.parametrize("variant", [(), *(v for v in RENDERINGS if "--explain" not in v)], ids=" ".join)
def test_a_json_run_serves_every_format(project, analyzed, variant):
    """Every format and rendering but ``--explain``, whose evidence a record holds only when asked for."""
    run("--jobs", "1", "--format", "json", "src")
    analyzed.clear()
    result = run("--jobs", "1", *variant, "src")
    assert analyzed == []
    assert result == run("--no-cache", "--jobs", "1", *variant, "src")


def test_a_json_run_after_a_text_run_analyzes_again_and_then_serves_both(project, analyzed):
    """A text run's records leave the bindings out (issue 28, item 4): JSON, which shows them, cannot use them."""
    run("--jobs", "1", "src")
    analyzed.clear()
    result = run("--jobs", "1", "--format", "json", "src")
    assert len(analyzed) == 6
    assert result == run("--no-cache", "--jobs", "1", "--format", "json", "src")
    uncached_text = run("--no-cache", "--jobs", "1", "src")
    analyzed.clear()
    assert run("--jobs", "1", "--format", "json", "src") == result
    assert run("--jobs", "1", "src") == uncached_text
    assert analyzed == []


def test_only_the_records_of_a_json_run_keep_the_bindings_and_the_cache_says_which(project):
    text, json_task = (outcome.FileTask(name, RunOptions(), Config(), 1 << 20) for name in ("text", "json"))
    path = str(project / "src" / "loops.ts")
    incomplete = outcome.outcome_at(path, text).record
    assert incomplete["bindings"] is None and incomplete["functions"]  # no run in this format reads them
    assert outcome.outcome_at(path, json_task).record["bindings"]
    store = cache_module.Cache(project / "c", text).open()
    assert outcome.outcome_at(path, text, store).record == incomplete
    key = store.key(path, Path(path).read_bytes())
    cached = store.get(key, path)
    assert cached is not None and cached.record == incomplete
    json_store = cache_module.Cache(project / "c", json_task).open()
    assert json_store.key(path, Path(path).read_bytes()) == key and json_store.get(key, path) is None
    assert outcome.outcome_at(path, json_task, json_store).record["bindings"]
    assert store.get(key, path).record["bindings"] == json_store.get(key, path).record["bindings"] != ""


def test_a_configuration_severity_is_part_of_the_key(project, analyzed):
    run("--jobs", "1", "src")
    (project / "boxcheck.toml").write_text('[severity]\nBX101 = "error"\n')
    analyzed.clear()
    code, out, _ = run("--jobs", "1", "src")
    assert len(analyzed) == 6
    assert "error[BX101]" in out and code == 1


def test_the_same_file_under_another_path_is_another_entry(project, analyzed):
    run("--jobs", "1", "--format", "lsp", "src/loops.ts")
    shutil.copy(project / "src" / "loops.ts", project / "copy.ts")
    analyzed.clear()
    _, out, _ = run("--jobs", "1", "--format", "lsp", "copy.ts")
    assert analyzed == ["copy.ts"]
    assert json.loads(out)[0]["uri"].endswith("/copy.ts")


def test_a_new_version_of_the_code_misses_and_removes_the_old_entries(project, analyzed, monkeypatch):
    run("--jobs", "1", "src")
    old = [p.parent.parent for p in entries(project / cache_module.DIRECTORY)]
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "f" * 64)
    analyzed.clear()
    run("--jobs", "1", "src")
    assert len(analyzed) == 6
    assert not any(directory.exists() for directory in old)


@pytest.mark.parametrize("damage", ["truncate", "garble", "empty", "valid-json-of-another-shape"])
def test_a_damaged_entry_is_a_miss_never_a_crash(project, analyzed, damage):
    expected = run("--jobs", "1", "--format", "json", "src")
    for entry in entries(project / cache_module.DIRECTORY):
        if damage == "truncate":
            entry.write_bytes(entry.read_bytes()[:-7])
        elif damage == "garble":
            data = bytearray(entry.read_bytes())
            data[len(data) // 2] ^= 0x20
            entry.write_bytes(bytes(data))
        elif damage == "empty":
            entry.write_bytes(b"")
        elif damage == "valid-json-of-another-shape":
            body = b'{"piece": 3, "counts": [1, 2]}'
            entry.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        else:
            entry.unlink()
            entry.mkdir()
    analyzed.clear()
    assert run("--jobs", "1", "--format", "json", "src") == expected
    assert len(analyzed) == 6


def test_an_unwritable_cache_directory_is_one_message_and_the_run_goes_on(project):
    (project / "blocked").write_text("a file where the cache directory should be\n")
    code, out, err = run("--jobs", "1", "--cache-dir", "blocked/cache", "src")
    assert (code, out) == run("--no-cache", "--jobs", "1", "src")[:2]
    assert err.count("cache not written to blocked/cache") == 1


def test_no_cache_and_the_environment_variable_write_nothing(project, monkeypatch):
    run("--no-cache", "src")
    assert not (project / cache_module.DIRECTORY).exists()
    monkeypatch.setenv(cache_module.DISABLE_ENV, "1")
    run("src")
    assert not (project / cache_module.DIRECTORY).exists()


def test_standard_input_is_never_cached(project, monkeypatch):
    warning = "export function f(n: number) { for (let i = 0; i < n; i++) keep(() => i++); }\n"  # BX102
    code, out, _ = run("--stdin-filename", "src/x.ts", stdin=warning, monkeypatch=monkeypatch)
    assert code == 1 and "x.ts" in out
    assert not (project / cache_module.DIRECTORY).exists()


def test_the_cache_lives_beside_the_configuration_and_is_tagged_and_ignored(project):
    (project / "pkg").mkdir()
    (project / "pkg" / "boxcheck.toml").write_text('policy = "optimal"\n')
    shutil.copy(project / "src" / "loops.ts", project / "pkg" / "loops.ts")
    run("pkg/loops.ts")
    directory = project / "pkg" / cache_module.DIRECTORY
    assert len(entries(directory)) == 1
    assert (directory / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    run("--cache-dir", "elsewhere", "src/loops.ts")
    assert len(entries(project / "elsewhere")) == 1
    assert not (project / cache_module.DIRECTORY).exists()


def test_a_run_without_files_makes_no_cache(project):
    (project / "empty").mkdir()
    run("empty")
    assert not (project / cache_module.DIRECTORY).exists()


def test_the_outcome_a_worker_would_send_is_what_the_cache_returns(project):
    task = outcome.FileTask("sarif", RunOptions(), Config(), 1 << 20)
    store = cache_module.Cache(project / "c", task).open()
    loaded = from_bytes("src/loops.ts", (project / "src" / "loops.ts").read_bytes())
    fresh = outcome.outcome_of(loaded, task, store)
    assert store.get(store.key(loaded.path, loaded.data), loaded.path) == fresh
