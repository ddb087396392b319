"""``--shard K/N``: N disjoint parts that together are the whole run, the same on every machine."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capture_analysis.batch.shard import Shard, part_of
from capture_analysis.cli import main

from .conftest import ROOT
from .test_format_sarif import validate

NAMES = [f"packages/p{i % 7}/src/module_{i}.ts" for i in range(400)]


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--jobs", "1", *args])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("count", [1, 2, 3, 5, 16])
def test_the_shards_are_disjoint_and_cover_every_file(count):
    parts = [Shard(index, count).select(NAMES) for index in range(1, count + 1)]
    assert sorted(path for part in parts for path in part) == sorted(NAMES)
    assert sum(len(part) for part in parts) == len(NAMES)


def test_the_shards_are_balanced_by_file_count():
    sizes = [len(Shard(index, 4).select(NAMES)) for index in range(1, 5)]
    assert all(70 <= size <= 130 for size in sizes), sizes


def test_a_files_shard_depends_on_its_path_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for count in (2, 3, 7):
        for name in NAMES[:50]:
            spellings = {name, f"./{name}", str(tmp_path / name), name.replace("/src/", "/src/./")}
            assert len({part_of(spelling, count) for spelling in spellings}) == 1
    shard = Shard(2, 3)
    assert shard.select(NAMES[:10]) == [n for n in shard.select(NAMES) if n in NAMES[:10]]
    assert shard.select(list(reversed(NAMES))) == list(reversed(shard.select(NAMES)))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for group in ("loops", "escape", "hoisting"):
        shutil.copytree(ROOT / "tests" / "fixtures" / group, tmp_path / "src" / group)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_shards_of_a_run_report_exactly_its_files(repo):
    _, whole, _ = run("--format", "json", "src")
    every = list(json.loads(whole)["files"])
    seen = []
    for index in (1, 2, 3):
        _, out, _ = run("--format", "json", "--shard", f"{index}/3", "src")
        part = json.loads(out)["files"]
        assert part, "each of 3 shards of this tree has files"
        seen.extend(part)
    assert sorted(seen, key=lambda entry: entry["path"]) == sorted(every, key=lambda entry: entry["path"])


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1/0", "a/b", "2", "-1/2"])
def test_a_bad_shard_is_a_usage_error(spec, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--shard", spec, "src"])
    assert exit_info.value.code == 2
    assert "K/N" in capsys.readouterr().err


def merge_command() -> str:
    """The command docs/performance.md gives for merging the shards' SARIF logs."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    commands = re.findall(r"^jq -s .*$", text, re.MULTILINE)
    assert len(commands) == 1, "docs/performance.md shows one jq merge command"
    assert text.count(commands[0]) == 2, "the workflow example runs the same command"
    return commands[0]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the documented SARIF merge uses jq")
def test_the_documented_sarif_merge_gives_the_whole_runs_results(repo, sarif_validator):
    def location(result: dict) -> tuple:
        physical = result["locations"][0]["physicalLocation"]
        region = physical["region"]
        return physical["artifactLocation"]["uri"], region["startLine"], region["startColumn"], result["ruleId"]

    _, whole, _ = run("--format", "sarif", "src")
    for index in (1, 2, 3):
        _, out, _ = run("--format", "sarif", "--shard", f"{index}/3", "src")
        (repo / f"boxcheck-{index}.sarif").write_text(out)
    subprocess.run(["bash", "-c", merge_command()], cwd=repo, check=True, env={**os.environ})
    merged = json.loads((repo / "boxcheck.sarif").read_text())
    validate(sarif_validator, merged)
    expected = json.loads(whole)
    assert len(merged["runs"]) == 1
    assert merged["runs"][0]["tool"] == expected["runs"][0]["tool"]
    assert sorted(map(location, merged["runs"][0]["results"])) == sorted(map(location, expected["runs"][0]["results"]))
    assert len(merged["runs"][0]["results"]) == len(expected["runs"][0]["results"]) > 0
