"""Snapshots of ``boxcheck graph``: the DOT for each input is byte-identical to the committed one.

After an intended change, regenerate and review the diff::

    BOXCHECK_UPDATE_SNAPSHOTS=1 python3 -m pytest -q tests/test_graph_snapshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from capture_analysis.analyze import apply_policy, bind_source
from capture_analysis.batch.loading import load
from capture_analysis.commands import graph as graph_cmd
from capture_analysis.policies import OPTIMAL
from capture_analysis.report.dot import build_graph
from capture_analysis.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots" / "graph"
UPDATE = os.environ.get("BOXCHECK_UPDATE_SNAPSHOTS") == "1"

#: (snapshot name, arguments of ``boxcheck graph`` run from the project root)
CASES = [
    ("hostile-names", ["tests/graph_inputs/hostile-names.ts"]),
    ("loop-iterations", ["tests/graph_inputs/loop-iterations.ts"]),
    ("nested-escapes", ["tests/graph_inputs/nested-escapes.ts"]),
    ("nested-escapes--function-middle", ["tests/graph_inputs/nested-escapes.ts", "--function", "middle"]),
    ("nested-escapes--all", ["tests/graph_inputs/nested-escapes.ts", "--all"]),
    ("loop-iterations--line-12", ["tests/graph_inputs/loop-iterations.ts", "--function", "12"]),
    ("known-callees", ["tests/graph_inputs/known-callees.ts"]),
    ("known-callees--function-run", ["tests/graph_inputs/known-callees.ts", "--function", "run"]),
]


def dot_of(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out.dot"
    assert graph_cmd.main([*args, "-o", str(out)]) == 0
    return out.read_bytes()


def check(name: str, produced: bytes, what: str) -> None:
    snapshot = SNAPSHOTS / f"{name}.dot"
    if UPDATE:
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_bytes(produced)
    assert snapshot.exists(), f"no snapshot {snapshot}; run with BOXCHECK_UPDATE_SNAPSHOTS=1 and review it"
    assert produced == snapshot.read_bytes(), (
        f"DOT for {what} differs from {snapshot.relative_to(ROOT)}; "
        "if the change is intended, regenerate with BOXCHECK_UPDATE_SNAPSHOTS=1 and review the diff")


@pytest.mark.parametrize("name,args", CASES, ids=[name for name, _ in CASES])
def test_dot_matches_snapshot(name: str, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check(name, dot_of(args, tmp_path, monkeypatch), " ".join(args))


def test_compared_policies_match_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Panels side by side, in policy order (pinned with one policy twice: the registry changes)."""
    monkeypatch.chdir(ROOT)
    loaded = load("tests/graph_inputs/nested-escapes.ts")
    assert isinstance(loaded, SourceFile)
    bound = bind_source(loaded)
    graph = build_graph([apply_policy(bound, OPTIMAL), apply_policy(bound, OPTIMAL)])
    check("nested-escapes--compare", graph.source.encode("utf-8"), "two panels of nested-escapes.ts")


def test_dot_is_identical_across_processes_with_different_hash_seeds() -> None:
    """Node ids and statement order must not depend on set/dict order of hashed objects."""
    outputs = []
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "capture_analysis", "graph",
                               "tests/graph_inputs/nested-escapes.ts", "--all"],
                              cwd=ROOT, env=env, capture_output=True, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0] == (SNAPSHOTS / "nested-escapes--all.dot").read_bytes()
