"""docs/github-workflow.yml, the README's GitHub Actions workflow: the README shows it as it is, it installs
boxcheck from its git repository, keeps the cache outside the checkout and uploads the SARIF it writes; and its
commands, run here as the runner would run them, install boxcheck and write a valid SARIF log."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import ROOT

WORKFLOW = ROOT / "docs" / "github-workflow.yml"
#: the `${{ ... }}` expressions of the workflow, as the runner's environment variables name them.
RUNNER_VARIABLES = {"runner.temp": "RUNNER_TEMP"}


def workflow() -> dict[Any, Any]:
    document = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def steps() -> list[dict[str, Any]]:
    (job,) = workflow()["jobs"].values()
    return list(job["steps"])


def step(uses: str = "", name: str = "") -> dict[str, Any]:
    (found,) = [s for s in steps() if (uses and s.get("uses", "").startswith(uses)) or (name and s.get("name") == name)]
    return found


def as_shell(value: str) -> str:
    """``${{ runner.temp }}/x`` as the run steps write it, ``$RUNNER_TEMP/x``."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: "$" + RUNNER_VARIABLES[m.group(1)], value)


def test_the_readme_shows_the_workflow_file_as_it_is():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```yaml\n{WORKFLOW.read_text(encoding='utf-8')}```\n" in readme


def test_it_runs_on_pushes_and_pull_requests_and_may_upload_code_scanning_results():
    document = workflow()
    triggers = document.get("on", document.get(True))  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"push", "pull_request"}
    assert document["permissions"] == {"contents": "read", "security-events": "write"}
    assert [s.get("uses", "").split("@")[0] for s in steps()][:2] == ["actions/checkout", "actions/setup-python"]


def test_boxcheck_comes_from_its_git_repository_and_the_cache_from_outside_the_checkout():
    install = step(name="Install boxcheck")["run"]
    assert install == 'python -m pip install "boxcheck @ git+${BOXCHECK_GIT}@${BOXCHECK_REV}"'
    assert set(workflow()["env"]) == {"BOXCHECK_GIT", "BOXCHECK_REV"}
    cache = step(uses="actions/cache")["with"]
    assert cache["path"].startswith("${{ runner.temp }}/")  # not under the checkout (GITHUB_WORKSPACE)
    analyze = step(name="Analyze")["run"]
    assert f'--cache-dir "{as_shell(cache["path"])}"' in analyze
    upload = step(uses="github/codeql-action/upload-sarif")["with"]
    assert f'> "{as_shell(upload["sarif_file"])}"' in analyze
    assert all("${{" not in s.get("run", "") for s in steps()), "run steps use environment variables only"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to install boxcheck from its repository")
def test_its_commands_install_boxcheck_and_write_a_valid_sarif_log(tmp_path: Path, sarif_validator):
    """The two `run` steps as written, in a fresh environment: `BOXCHECK_GIT` is this repository (its committed
    HEAD, as pip clones it), the checkout a folder with one file that has a finding."""
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    checkout, runner_temp = tmp_path / "checkout", tmp_path / "runner"
    checkout.mkdir()
    runner_temp.mkdir()
    shutil.copy2(ROOT / "examples" / "factories.ts", checkout / "factories.ts")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "BOXCHECK_NO_CACHE")}
    env.update(PATH=f"{environment / 'bin'}{os.pathsep}{env.get('PATH', '')}", RUNNER_TEMP=str(runner_temp),
               BOXCHECK_GIT=f"file://localhost{ROOT}", BOXCHECK_REV=head)  # a host, as a real URL has
    for name in ("Install boxcheck", "Analyze"):
        done = subprocess.run(["bash", "-e", "-c", step(name=name)["run"]], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
    where = subprocess.run([str(environment / "bin" / "python"), "-c",
                            "import capture_analysis; print(capture_analysis.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).is_relative_to(environment)
    log = json.loads((runner_temp / "boxcheck.sarif").read_text(encoding="utf-8"))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    run = log["runs"][0]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == \
        {"factories.ts"}
    assert all("helpUri" not in rule for rule in run["tool"]["driver"]["rules"])
    assert any((runner_temp / "boxcheck-cache").rglob("*")) and not (checkout / ".boxcheck_cache").exists()
