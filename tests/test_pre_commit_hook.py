"""``.pre-commit-hooks.yaml``: the hook runs the installed command on the files pre-commit selects."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capture_analysis.config import tomllib

from .conftest import ROOT
from .golden_outputs import run_cli

#: a warning (BX102): the loop copies `i`, which the closure writes, into each iteration.
BOXED = "export function f(n: number) { for (let i = 0; i < n; i++) keep(() => i++); }\n"


def hook() -> dict[str, str]:
    """The one hook's ``key: value`` lines (the file is a single flat mapping, kept so on purpose)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert text.count("- id:") == 1
    return dict(re.findall(r"^(?:- |  )(\w+): (.*)$", text, re.MULTILINE))


def test_entry_is_the_console_script():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    fields = hook()
    assert fields["id"] == "boxcheck" and fields["language"] == "python"
    assert fields["entry"] in declared


@pytest.mark.parametrize(("name", "selected"), [
    ("src/a.ts", True), ("a.mts", True), ("a.cts", True), ("ui/App.tsx", True), ("a.js", True),
    ("a.mjs", True), ("a.cjs", True), ("a.jsx", True),
    ("types/a.d.ts", False), ("a.d.mts", False), ("README.md", False), ("a.tsx.snap", False),
])
def test_file_patterns_select_sources_and_skip_declarations(name, selected):
    fields = hook()
    assert bool(re.search(fields["files"], name) and not re.search(fields["exclude"], name)) is selected


def test_staged_file_names_are_what_the_command_accepts(tmp_path, monkeypatch):
    """pre-commit runs ``entry FILE...``: a clean file passes, a finding fails the commit."""
    (tmp_path / "ok.ts").write_text("export const f = (n: number) => () => n;\n", encoding="utf-8")
    (tmp_path / "boxed.ts").write_text(BOXED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run_cli("ok.ts")[0] == 0
    assert run_cli("ok.ts", "boxed.ts")[0] == 1


def documented_commands() -> str:
    """The shell commands of docs/configuration.md that write the pre-commit configuration and run it."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = text.split("<!-- pre-commit:begin -->\n", 1)[1].split("<!-- pre-commit:end -->", 1)[0]
    assert block.startswith("```sh\n") and block.endswith("```\n")
    return block[len("```sh\n"):-len("```\n")]


def test_the_documented_set_up_installs_the_hook_from_a_clone_and_fails_a_finding(tmp_path):
    """As written: boxcheck cloned beside the repository to check (its committed HEAD), pre-commit given its
    path and commit, building the hook's environment from it; `run --all-files` fails on the finding."""
    git = shutil.which("git")
    assert git is not None
    subprocess.run([git, "clone", "--quiet", str(ROOT), str(tmp_path / "boxcheck")], check=True, timeout=120)
    project = tmp_path / "project"
    project.mkdir()
    (project / "ok.ts").write_text("export const f = (n: number) => () => n;\n", encoding="utf-8")
    (project / "boxed.ts").write_text(BOXED, encoding="utf-8")
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "BOXCHECK_NO_CACHE")}
    # pre-commit as the test extra installs it, beside this Python; its store and git's identity in tmp_path
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit"), HOME=str(tmp_path))
    subprocess.run([git, "init", "--quiet"], cwd=project, check=True, env=env)
    subprocess.run([git, "add", "ok.ts", "boxed.ts"], cwd=project, check=True, env=env)
    done = subprocess.run(["bash", "-e", "-c", documented_commands()], cwd=project, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "boxed.ts:1:41: warning[BX102]" in done.stdout and "ok.ts:" not in done.stdout, done.stdout
    assert (project / ".git" / "hooks" / "pre-commit").is_file()
