"""``--scheduler``: a Dask cluster changes where files are analyzed, never what a run prints or how it exits.

The tests start a ``distributed.LocalCluster``: in this process (threads,
which see the tests' monkeypatches) for the output, the order and the cache,
and with worker processes for a worker that dies.  Without ``distributed``
they are skipped with the reason, unless ``BOXCHECK_REQUIRE_DASK=1`` (set by
``.ci/run``, whose ``make`` installs the ``cluster`` extra); the message for a
missing extra is checked with or without it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.analyze import Analyzer
from capture_analysis.batch import cache as cache_module
from capture_analysis.batch import cluster, workers
from capture_analysis.batch.tasks import Analyzed, FileTask
from capture_analysis.batch.workers import CHUNK_FILES
from capture_analysis.cli import main
from capture_analysis.config import Config
from capture_analysis.report import RunOptions

from .conftest import ROOT

try:
    import distributed
except ImportError:
    if os.environ.get("BOXCHECK_REQUIRE_DASK") == "1":
        raise
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason="Dask's distributed is not installed: "
                                                            "pip install -e '.[cluster]' (CI installs it)")
FIXTURES = ROOT / "tests" / "fixtures"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """Two workers of one thread each, in this process."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several chunks of files of every kind: repaired and broken syntax, a binary, suppressions, a
    configuration, and files that call each other's functions (``linking``: analyzed again by the client)."""
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("*.json"))
    for group in ("loops", "escape", "parsing", "syntax-errors", "retention", "linking"):
        shutil.copytree(FIXTURES / group, root / group)
    shutil.copy(ROOT / "tests" / "unicode" / "non-ascii-before-token.ts", root / "unicode.ts")
    (root / "binary.ts").write_bytes(b"\x00\x01 not source")
    (root / "suppressed.ts").write_text(
        "export function f() {\n  let n = 0; // boxcheck-ignore BX101 -- reviewed\n  return () => n++;\n}\n")
    (root / "boxcheck.toml").write_text('[severity]\nBX103 = "error"\nBX003 = "info"\n')
    return root


@needs_dask
@pytest.mark.parametrize("args", [
    ("--format", "text"),
    ("--format", "text", "--explain"),
    ("--format", "json"),
    ("--format", "json", "--policy", "v8"),
    ("--format", "lsp"),
    ("--format", "sarif", "--policy", "legacy"),
    ("--format", "github", "--severity", "BX101=error"),
    ("--format", "text", "--compare", "legacy,optimal"),
], ids=" ".join)
def test_every_format_prints_what_jobs_1_prints(scheduler, tree, args):
    on_cluster = run("--no-cache", "--scheduler", scheduler, *args, str(tree))
    assert on_cluster == run("--no-cache", "--jobs", "1", *args, str(tree))
    code, out, err = on_cluster
    assert code == 1 and out
    assert "binary.ts: skipped: binary file" in err


@needs_dask
def test_files_come_out_in_input_order_when_a_later_chunk_finishes_first(scheduler, tree, monkeypatch):
    _, single, _ = run("--no-cache", "--jobs", "1", "--format", "json", str(tree))
    in_order = [entry["path"] for entry in json.loads(single)["files"] if not entry["errors"]]
    real = Analyzer.lean
    finished: list[str] = []

    def slow_first(self, source):
        if source.path == in_order[0]:  # the first file of the first chunk
            time.sleep(1.0)
        result = real(self, source)
        finished.append(source.path)
        return result

    monkeypatch.setattr(Analyzer, "lean", slow_first)
    _, out, _ = run("--no-cache", "--scheduler", scheduler, "--format", "json", str(tree))
    assert out == single
    assert len(in_order) > CHUNK_FILES * 2  # several chunks were in flight
    assert finished.index(in_order[0]) > finished.index(in_order[CHUNK_FILES])  # the second chunk was done first


@needs_dask
def test_at_most_a_window_of_chunks_is_in_flight(scheduler, tree, monkeypatch):
    """Two threads, a window of one chunk per thread, chunks of two files: the client waits for the cluster
    dozens of times, and still prints what one process prints."""
    monkeypatch.setattr(workers, "CHUNK_FILES", 2)
    monkeypatch.setattr(cluster, "WINDOW", 1)
    in_flight: list[int] = []
    real_ship = cluster.Cluster.ship

    def ship(self, paths, read):
        in_flight.append(sum(not future.done() for future in self.running))
        return real_ship(self, paths, read)

    monkeypatch.setattr(cluster.Cluster, "ship", ship)
    on_cluster = run("--no-cache", "--scheduler", scheduler, "--format", "json", str(tree))
    assert on_cluster == run("--no-cache", "--jobs", "1", "--format", "json", str(tree))
    assert len(in_flight) > 20 and max(in_flight) <= 1  # the one before it, while the other thread is free


@needs_dask
def test_the_cache_stays_with_the_client_and_a_hit_is_never_shipped(scheduler, tree, tmp_path, monkeypatch):
    monkeypatch.delenv(cache_module.DISABLE_ENV, raising=False)
    expected = {format: run("--no-cache", "--jobs", "1", "--format", format, str(tree)) for format in ("text", "json")}

    def cached(format: str) -> tuple[int, str, str]:
        return run("--scheduler", scheduler, "--cache-dir", str(tmp_path / "cache"), "--format", format, str(tree))

    stored_in: list[str] = []
    real_put = cache_module.Cache.put

    def put(self, key, outcome):
        stored_in.append(threading.current_thread().name)
        real_put(self, key, outcome)

    monkeypatch.setattr(cache_module.Cache, "put", put)
    assert cached("json") == expected["json"]
    assert stored_in and set(stored_in) == {threading.main_thread().name}  # not a worker's thread
    assert len(list((tmp_path / "cache").rglob("*.entry"))) == len(stored_in)

    shipped: list[object] = []
    real_submit = distributed.Client.submit

    def submit(self, *args, **kwargs):
        shipped.append(args)
        return real_submit(self, *args, **kwargs)

    def nothing_analyzed(self, source):
        raise AssertionError(f"{source.path} analyzed again")

    monkeypatch.setattr(distributed.Client, "submit", submit)
    monkeypatch.setattr(Analyzer, "lean", nothing_analyzed)
    assert cached("json") == expected["json"]
    assert cached("text") == expected["text"]  # the JSON run's records serve every format
    assert not shipped


@needs_dask
@pytest.mark.parametrize("shard", ["1/2", "2/2"])
def test_a_shard_on_the_cluster_is_the_same_shard_as_in_one_process(scheduler, tree, shard):
    on_cluster = run("--no-cache", "--scheduler", scheduler, "--shard", shard, "--format", "json", str(tree))
    single = run("--no-cache", "--jobs", "1", "--shard", shard, "--format", "json", str(tree))
    assert on_cluster == single
    whole = json.loads(run("--no-cache", "--jobs", "1", "--format", "json", str(tree))[1])["files"]
    assert 0 < len(json.loads(on_cluster[1])["files"]) < len(whole)


@needs_dask
def test_jobs_is_ignored_with_a_note(scheduler, tree):
    code, out, err = run("--no-cache", "--scheduler", scheduler, "--jobs", "3", "--format", "json", str(tree))
    assert "boxcheck: note: --jobs is ignored with --scheduler" in err
    assert (code, out) == run("--no-cache", "--jobs", "1", "--format", "json", str(tree))[:2]
    assert "--jobs is ignored" not in run("--no-cache", "--scheduler", scheduler, str(tree / "suppressed.ts"))[2]


@needs_dask
def test_a_worker_needs_the_bytes_only_not_the_file():
    source = b"export function f() { let n = 0; return () => n++; }\n"
    task = FileTask("json", RunOptions(), Config(), 1 << 20)
    levels = tuple(Config().severities_for("a.ts").items())
    digest, (outcome,) = cluster.analyze_shipped(["/no/such/folder/a.ts"], [source], [levels], task, True)
    assert digest == cache_module.code_digest()
    assert isinstance(outcome, Analyzed) and outcome.path == "/no/such/folder/a.ts"
    assert outcome.counts.per_call == 1 and outcome.record["bindings"] is not None


@needs_dask
def test_per_file_overrides_apply_on_workers_whose_working_directory_is_elsewhere(tmp_path, monkeypatch):
    """The overrides match paths relative to the client's working directory and configuration: the client
    resolves each file's rules, so a worker started elsewhere (as on another machine) applies them too."""
    project = tmp_path / "project"
    (project / "generated").mkdir(parents=True)
    for folder in ("generated", "."):
        (project / folder / "a.ts").write_text("export function f() { let n = 0; return () => n++; }\n")
    (project / "boxcheck.toml").write_text('[[overrides]]\nfiles = ["generated/**"]\nignore = ["BX101"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the worker processes start here, and stay
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local:
        monkeypatch.chdir(project)
        on_cluster = run("--no-cache", "--scheduler", local.scheduler_address, "--format", "json", ".")
    single = run("--no-cache", "--jobs", "1", "--format", "json", ".")
    assert on_cluster == single
    codes = {f["path"]: [d["code"] for d in f["diagnostics"]] for f in json.loads(single[1])["files"]}
    assert codes == {"./a.ts": ["BX101"], "./generated/a.ts": []}


@needs_dask
def test_a_worker_with_other_code_analyzes_nothing_that_is_reported(scheduler, tree, monkeypatch):
    real = cluster.analyze_shipped
    monkeypatch.setattr(cluster, "analyze_shipped", lambda *args: ("another boxcheck", real(*args)[1]))
    code, out, err = run("--no-cache", "--scheduler", scheduler, "--format", "json", str(tree / "examples"))
    assert code == 2
    files = json.loads(out)["files"]
    assert files and all(f["errors"] == [cluster.OTHER_CODE] for f in files)
    assert err.count("runs another boxcheck") == len(files)


def test_without_the_extra_the_run_stops_with_the_command_that_installs_it(monkeypatch, capsys):
    for name in [name for name in sys.modules if name.split(".")[0] == "distributed"] + ["distributed"]:
        monkeypatch.setitem(sys.modules, name, None)  # an import of it raises ImportError
    with pytest.raises(SystemExit) as stopped:
        main(["--scheduler", "tcp://127.0.0.1:8786", str(ROOT / "examples")])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert "pip install 'boxcheck[cluster]'" in captured.err and not captured.out


@needs_dask
@pytest.mark.parametrize("address", ["not an address", "tcp://127.0.0.1", "nosuchscheme://host:1"])
def test_an_address_dask_cannot_read_is_a_usage_error(address, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--scheduler", address, str(ROOT / "examples")])
    assert stopped.value.code == 2
    assert "argument --scheduler: not a Dask scheduler's address" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@needs_dask
def test_a_scheduler_that_cannot_be_reached_stops_the_run_before_any_output(tree, capsys):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), pytest.raises(SystemExit) as stopped:
        main(["--no-cache", "--scheduler", f"tcp://127.0.0.1:{free_port()}", "--format", "json", str(tree)])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert "boxcheck: cannot connect to the Dask scheduler at tcp://127.0.0.1:" in captured.err
    assert not captured.out


#: run by each worker process as it starts: the analyzer ends the process on ``d.ts``, as a segfault in native
#: code or the out-of-memory killer would.
DYING = """
import os
from capture_analysis.analyze import Analyzer

def dying(self, source, real=Analyzer.lean):
    if source.path.endswith("d.ts"):
        os._exit(3)
    return real(self, source)

if not hasattr(Analyzer, "real_call"):  # a worker may run its preload twice
    Analyzer.real_call = Analyzer.lean
    Analyzer.lean = dying
"""


@needs_dask
def test_a_worker_that_dies_costs_only_the_file_that_kills_it(tmp_path):
    """The scheduler gives a task up after its first lost worker here (``allowed-failures`` 0): the chunk's
    files are sent again one per task, and ``d.ts`` kills a second worker before it is reported."""
    import dask

    for name in "abcdefgh":
        (tmp_path / f"{name}.ts").write_text("export function f() { let n = 0; return () => n++; }\n")
    (tmp_path / "d.ts").write_text("export const crash = 1;\n")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                     preload=[DYING]) as local:
        code, out, err = run("--no-cache", "--scheduler", local.scheduler_address, "--format", "json",
                             str(tmp_path))
    assert code == 2
    assert "d.ts: internal error: the worker analyzing this file died" in err
    files = json.loads(out)["files"]
    assert [Path(f["path"]).name for f in files] == [f"{name}.ts" for name in "abcdefgh"]
    assert [bool(f["errors"]) for f in files] == [name == "d" for name in "abcdefgh"]
    single = json.loads(run("--no-cache", "--jobs", "1", "--format", "json", str(tmp_path))[1])["files"]
    assert [f for f in files if not f["errors"]] == [f for f in single if not f["path"].endswith("d.ts")]


@needs_dask
def test_a_call_of_another_files_function_is_followed_on_the_cluster(scheduler, tree):
    """The client resolves what the workers' interfaces say (DESIGN 2.2.1), as ``--jobs`` does."""
    _, out, _ = run("--no-cache", "--scheduler", scheduler, "--format", "json", str(tree / "linking"))
    [callers] = [f for f in json.loads(out)["files"] if f["path"].endswith("callers.ts")]
    [n] = [b for b in callers["bindings"] if b["name"] == "n" and b["line"] == 11]
    assert n["storage"] == "stack", n["reason"]
