"""boxcheck as ``pip install`` leaves it: the wheel holds the license, the JSON Schema and every page the commands
name; installed into a fresh virtual environment, it prints its rules and links every LSP diagnostic to a page
that exists there.

The wheel is built offline as ``python -m build`` builds it, from the source distribution (so a file that
MANIFEST.in leaves out is missing from the wheel too), made from a copy of the checkout (which gets no
``build/``); it is installed without its dependencies: the fresh environment finds those through a ``.pth``
file naming the directories they are installed in here, after its own site-packages, so ``capture_analysis``
can only come from the wheel (the test checks that it does).
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from html.parser import HTMLParser
from importlib import import_module
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from capture_analysis import compiled
from capture_analysis.rules import RULES

from .conftest import ROOT

DEPENDENCIES = ("tree_sitter", "tree_sitter_typescript", "networkx", "lark", "pathspec", "graphviz")


def setuptools_builds_wheels() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return tuple(int(part) for part in setuptools.__version__.split(".")[:2]) >= (77, 0)


pytestmark = pytest.mark.skipif(not setuptools_builds_wheels(),
                                reason="needs setuptools 77 or later (the `test` extra installs it) to build "
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


#: what the source distribution is made from: the files of the checkout that building reads.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "capture_analysis", "docs")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    tree = work / "checkout"
    tree.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd"))
        else:
            shutil.copy2(ROOT / name, tree / name)
    build_sdist = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    name = subprocess.run([sys.executable, "-c", build_sdist, str(work / "sdist")], cwd=tree, check=True,
                          capture_output=True, text=True, timeout=300).stdout.split()[-1]
    shutil.unpack_archive(work / "sdist" / name, work / "unpacked")
    (source,) = (work / "unpacked").iterdir()
    # no C compiler: the build falls back to pure Python (compiling the core would take minutes), and says so
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "-w", str(work / "dist"), str(source)],
                          check=True, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CC": str(work / "no-such-cc"), "BOXCHECK_PURE": ""})
    said = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip().startswith("boxcheck:")]
    assert len(said) == 1 and "pure Python" in said[0] and "no C compiler" in said[0], said
    (built,) = (work / "dist").glob("boxcheck-*.whl")
    assert built.name.endswith("-py3-none-any.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel installed; returns its ``bin`` folder."""
    environment = tmp_path_factory.mktemp("installed") / "env"
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


def test_lsp_links_resolve_inside_the_installed_package_and_sarif_links_nowhere_by_default(installed, tmp_path):
    """A SARIF log is read on another machine, where the installed page is no link: it has ``help``, no
    ``helpUri``, until a ``docs-url`` is given."""
    (tmp_path / "a.ts").write_text("export function f() { let n = 0; return () => n++; }\n"
                                   "// boxcheck-ignore BX102\n", encoding="utf-8")
    lsp = boxcheck(installed, "--format", "lsp", "a.ts", cwd=tmp_path)
    assert lsp.returncode == 1, lsp.stderr
    hrefs = [d["codeDescription"]["href"] for d in json.loads(lsp.stdout)[0]["diagnostics"]]
    assert len(hrefs) == 2 and all(resolves(href, installed.parent) for href in hrefs), hrefs
    sarif = boxcheck(installed, "--format", "sarif", "a.ts", cwd=tmp_path)
    rules = json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert all("helpUri" not in rule and rule["help"]["text"] for rule in rules)


def test_the_wheel_holds_the_license_the_schema_and_every_page_the_commands_name(wheel, installed):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(re.fullmatch(r"boxcheck-[^/]+\.dist-info/(licenses/)?LICENSE", name) for name in names), names
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("capture_analysis/docs/schema/boxcheck-1.json") == \
            (ROOT / "docs" / "schema" / "boxcheck-1.json").read_bytes()
    said = "".join(boxcheck(installed, *args).stdout for args in (
        ["--help"], ["rule", "--all"], ["rule", "--help"], ["graph", "--help"], ["verify", "--help"],
        ["lsp", "--help"]))
    named = set(re.findall(r"\bdocs/[\w./-]+\.(?:md|json|html)", said))
    assert {"docs/rules.md", "docs/lsp.md", "docs/expectations.md", "docs/parsing.md"} <= named
    assert {f"capture_analysis/{page}" for page in named} <= names
    assert {f"capture_analysis/{path.relative_to(ROOT).as_posix()}" for path in (ROOT / "docs").rglob("*")
            if path.is_file()} <= names


def test_lsp_without_its_extra_says_how_to_add_it_to_an_installed_boxcheck(monkeypatch, capsys):
    """From a wheel or a git URL there is no checkout: `pip install -e '.[lsp]'` would not work there."""
    from capture_analysis.commands import lsp

    # as if pygls were not installed, even after other tests ran a server in this process (a submodule left in
    # sys.modules would be imported without its package)
    for name in [name for name in sys.modules if name == "pygls" or name.startswith("pygls.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pygls", None)
    for name in [name for name in sys.modules if name.startswith("capture_analysis.lsp.")]:
        monkeypatch.delitem(sys.modules, name)
    assert lsp.main([]) == 2
    assert "install them with `pip install 'boxcheck[lsp]'`" in capsys.readouterr().err


def test_fix_runs_from_the_wheel(installed, tmp_path):
    """``--fix`` comes with the wheel (``capture_analysis.fixes``), without the ``lsp`` extra's modules."""
    (tmp_path / "a.ts").write_text("export function f() {\n  let n = 1;\n  return () => n;\n}\n", encoding="utf-8")
    done = boxcheck(installed, "--fix", "--diff", "a.ts", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "-  let n = 1;\n+  const n = 1;\n" in done.stdout


def load_setup() -> ModuleType:
    """setup.py as a module: its ``setup()`` call runs only as a script."""
    spec = importlib.util.spec_from_file_location("boxcheck_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_boxcheck_pure_asks_for_the_pure_python_build(monkeypatch):
    setup = load_setup()
    monkeypatch.setenv("BOXCHECK_PURE", "1")
    assert setup.build_problem() == "BOXCHECK_PURE is set"
    monkeypatch.setenv("BOXCHECK_PURE", "0")
    assert setup.build_problem() != "BOXCHECK_PURE is set"


def test_a_pure_build_in_place_removes_the_extension_modules_a_compiled_one_left(monkeypatch, tmp_path, capsys):
    """They would hide the sources, and import a shared module that the editable install no longer maps."""
    setup = load_setup()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    left = [tmp_path / "capture_analysis" / f"model{suffix}",
            tmp_path / "capture_analysis" / "bind" / f"binder{suffix}", tmp_path / f"{setup.GROUP}__mypyc{suffix}"]
    other_python = tmp_path / "capture_analysis" / "model.cpython-399-x86_64-linux-gnu.so"
    for path in [*left, other_python]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BOXCHECK_PURE", "1")
    assert setup.extensions(["dist_info"]) == [] and setup.extensions(["bdist_wheel"]) == []
    assert all(path.exists() for path in left), "a wheel is built elsewhere: what is in place stays"
    assert setup.extensions(["editable_wheel", "--dist-dir", "x"]) == []
    assert not any(path.exists() for path in left)
    assert other_python.exists(), "another Python's build is none of this one's business"
    said = capsys.readouterr().err.splitlines()
    assert said == ["boxcheck: building pure Python, without the compiled core (BOXCHECK_PURE is set); it takes "
                    "about a third more time"] * 2


def test_every_compiled_module_is_held_to_the_strict_typing_of_the_core():
    """mypyc compiles what mypy types; the strict settings keep implicit ``Any`` out of the compiled core, where it
    would cost speed and hide the types mypyc checks at run time."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        configuration = tomllib.load(handle)
    strict = next(o for o in configuration["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs"))
    patterns = strict["module"]
    compiled = load_setup().compiled_sources(ROOT)
    assert "capture_analysis/model.py" in compiled and "capture_analysis/parsing/rewriting.py" not in compiled
    for path in compiled:
        module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        assert any(fnmatch.fnmatchcase(module, pattern) or module == pattern.removesuffix(".*")
                   for pattern in patterns), module


def test_the_core_runs_compiled_where_the_build_must_compile_it():
    """CI builds the compiled core (.ci/run sets BOXCHECK_REQUIRE_COMPILED): a build that fell back to pure
    Python must not pass for it."""
    if os.environ.get("BOXCHECK_REQUIRE_COMPILED", "") in ("", "0"):
        pytest.skip("the build may be pure Python here (BOXCHECK_REQUIRE_COMPILED is not set)")
    assert compiled(), "the analysis core is not compiled: see setup.py's line in the install's output"
    done = subprocess.run([sys.executable, "-m", "capture_analysis", "--version"], capture_output=True, text=True,
                          check=True)
    assert done.stdout.rstrip().endswith("(compiled)")
