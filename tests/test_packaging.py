"""boxcheck as ``pip install`` leaves it: the built wheel, installed into a fresh virtual environment, prints
its rules and links every diagnostic to a page that exists there.

The wheel is built offline from a copy of what an sdist holds (so the checkout gets no ``build/``), and
installed without its dependencies: the fresh environment finds those through a ``.pth`` file naming the
directories they are installed in here, after its own site-packages, so ``capture_analysis`` can only come
from the wheel (the test checks that it does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from html.parser import HTMLParser
from importlib import import_module
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pytest

from capture_analysis.rules import RULES

from .conftest import ROOT

DEPENDENCIES = ("tree_sitter", "tree_sitter_typescript", "networkx", "lark", "pathspec", "graphviz")


def setuptools_builds_wheels() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return tuple(int(part) for part in setuptools.__version__.split(".")[:2]) >= (70, 1)


pytestmark = pytest.mark.skipif(not setuptools_builds_wheels(),
                                reason="needs setuptools 70.1 or later (the `test` extra installs it) to build "
                                       "the wheel offline")


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def resolves(url: str, inside: Path) -> bool:
    """A ``file://`` link to a page under ``inside`` that has an element whose id is the link's fragment."""
    parts = urlsplit(url)
    page = Path(url2pathname(parts.path))
    if parts.scheme != "file" or not page.is_file() or inside not in page.parents:
        return False
    ids = Ids()
    ids.feed(page.read_text(encoding="utf-8"))
    return parts.fragment in ids.ids


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel installed; returns its ``bin`` folder."""
    work = tmp_path_factory.mktemp("wheel")
    tree = work / "source"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(ROOT / "capture_analysis", tree / "capture_analysis",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-w", str(work / "dist"), str(tree)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (work / "dist").glob("boxcheck-*.whl")
    assert "capture_analysis/docs/rules.html" in zipfile.ZipFile(wheel).namelist()
    environment = work / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", "--disable-pip-version-check", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    folders = dict.fromkeys(str(Path(import_module(name).__file__).resolve().parents[1]) for name in DEPENDENCIES)
    (site / "boxcheck-test-dependencies.pth").write_text("\n".join(folders) + "\n", encoding="utf-8")
    return environment / "bin"


def boxcheck(bin_dir: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / "boxcheck"), *args], cwd=cwd or bin_dir, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_package_comes_from_the_wheel(installed):
    """Run away from the checkout, whose folder ``python -c`` would put first on ``sys.path``."""
    where = "import capture_analysis; print(capture_analysis.__file__)"
    done = subprocess.run([str(installed / "python"), "-c", where], capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "")}, check=True, cwd=installed)
    assert Path(done.stdout.strip()).is_relative_to(installed.parent)


def test_rule_prints_the_documentation_after_pip_install(installed):
    done = boxcheck(installed, "rule", "BX101")
    assert (done.returncode, done.stdout) == (0, RULES["BX101"].doc())
    done = boxcheck(installed, "rule", "--all")
    assert done.returncode == 0 and all(f"## {code} " in done.stdout for code in RULES)
    assert "commands:" in boxcheck(installed, "--help").stdout


def test_lsp_and_sarif_links_resolve_inside_the_installed_package(installed, tmp_path):
    (tmp_path / "a.ts").write_text("export function f() { let n = 0; return () => n++; }\n"
                                   "// boxcheck-ignore BX102\n", encoding="utf-8")
    lsp = boxcheck(installed, "--format", "lsp", "a.ts", cwd=tmp_path)
    assert lsp.returncode == 1, lsp.stderr
    hrefs = [d["codeDescription"]["href"] for d in json.loads(lsp.stdout)[0]["diagnostics"]]
    assert len(hrefs) == 2 and all(resolves(href, installed.parent) for href in hrefs), hrefs
    sarif = boxcheck(installed, "--format", "sarif", "a.ts", cwd=tmp_path)
    rules = json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert all(resolves(rule["helpUri"], installed.parent) for rule in rules)
