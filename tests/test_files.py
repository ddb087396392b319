"""Collecting the files of a run: nested ``.gitignore`` files, the repository root, and files named twice."""

from __future__ import annotations

import os
from pathlib import Path

from capture_analysis.batch.files import collect

CODE = "export const x = 1;\n"


def names(root: Path, files: list[str]) -> list[str]:
    return sorted(Path(f).relative_to(root).as_posix() for f in files)


def test_a_nested_gitignore_applies_to_its_own_subtree_only_and_nothing_above_the_repository_applies(tmp_path):
    outside = tmp_path / "outside"
    repo = outside / "repo"
    for path in ("a/gen.ts", "a/keep.ts", "a/deep/gen.ts", "b/gen.ts", "b/local.ts", "top.ts", "a/deep/x.ts"):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(CODE)
    (repo / ".git").mkdir()
    (outside / ".gitignore").write_text("top.ts\n")  # above the repository root: not the repository's
    (repo / ".gitignore").write_text("local.ts\n")
    (repo / "a" / ".gitignore").write_text("gen.ts\n")
    (repo / "a" / "deep" / ".gitignore").write_text("x.ts\n")
    found = collect([str(repo)])
    assert names(repo, found.files) == ["a/keep.ts", "b/gen.ts", "top.ts"]


def test_the_same_file_under_a_link_or_named_twice_is_analyzed_once(tmp_path):
    (tmp_path / "a.ts").write_text(CODE)
    os.symlink(tmp_path / "a.ts", tmp_path / "link.ts")
    os.link(tmp_path / "a.ts", tmp_path / "hard.ts")
    (tmp_path / "b.ts").write_text(CODE)
    found = collect([str(tmp_path / "a.ts"), str(tmp_path / "link.ts"), str(tmp_path / "hard.ts"),
                     str(tmp_path / "b.ts"), str(tmp_path / "." / "b.ts")])
    assert names(tmp_path, found.files) == ["a.ts", "b.ts"]
