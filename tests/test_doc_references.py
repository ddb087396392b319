"""The docs, and the package's docstrings and comments, name only files and modules that exist.

A rename leaves its old name behind in prose that no import checks: after
issue 24 moved a dozen modules, a page still sent readers to
``policies/support.py`` and a docstring to ``tests/test_node_coverage.py``.
What counts as a reference, so that prose and JavaScript are not mistaken
for one:

* anywhere, a path from the top of the repository (``tests/...``,
  ``docs/...``, ``examples/...``, ``benchmarks/...``, ``capture_analysis/...``;
  ``{a,b}`` is expanded and ``*`` globbed): it must exist;
* anywhere, ``capture_analysis.x.y``: a module, then names it defines;
* in a code span (`` `x` `` in Markdown, ````x```` in a docstring), a name
  whose first part is a top-level module or sub-package of the package:
  ``bind/flow.py``, ``batch/workers``, ``report/``, ``report.record``,
  ``analyze.Bound.file``, ``parsing.parse_source(source)``.  Its longest
  prefix that is a module must exist, and the rest be defined there: an
  attribute of the imported module, or a name ``ast`` finds at its top level
  (or in the body of the class named before it);
* in a code span, a bare ``name.py``: some Python file of the repository.

A name whose first part is no unit of the package (``binder.visit_unknown``,
``v8.getHeapSnapshot``) is not read as a reference: too many are words of
JavaScript.  A fenced block of Markdown shows a session or its output, whose
file names may be made up (``tests/fixtures/x.ts``): only the modules it names
are checked there.  A relative Markdown link must reach a file.  A code span
may wrap to the next line of its paragraph, so a page is read paragraph by
paragraph, not line by line.
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from capture_analysis.commands import architecture

from .conftest import ROOT

PACKAGE = ROOT / "capture_analysis"
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]

TOP = r"(?:tests|docs|examples|benchmarks|capture_analysis)"
REPOSITORY_PATH = re.compile(rf"(?<![\w./-])({TOP}/(?:[\w.*/-]|\{{[\w.,-]*\}})*)")
PACKAGE_NAME = re.compile(r"(?<![\w./-])(capture_analysis(?:\.[A-Za-z_]\w*)+)")
#: a code span ends in its paragraph: a blank line between two backticks is not inside one.
CODE_SPAN = re.compile(r"(`+)((?:[^`\n]|\n(?![ \t]*\n))+?)\1")
NAME = re.compile(r"([A-Za-z_]\w*(?:[./][A-Za-z_]\w*)*(?:\.py|/)?)(?:\(.*\))?")
#: a code span that names a file of another kind (``rules.md``, ``settings.json``), not a module's attribute.
OTHER_FILE = re.compile(r".*\.(?:md|json|[cm]?js|tsx?|html|toml|lark|lua|txt|svg|ya?ml|dot|sarif|lock)")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)


@functools.cache
def modules() -> dict[str, Path]:
    return architecture.module_files()


@functools.cache
def units() -> frozenset[str]:
    return frozenset(name.split(".")[1] for name in modules() if name.count(".") >= 1) - {"__main__"}


@functools.cache
def python_file_names() -> frozenset[str]:
    folders = [PACKAGE, ROOT / "tests", ROOT / "benchmarks"]
    found = {path.name for path in ROOT.glob("*.py")}
    found.update(path.name for folder in folders for path in folder.rglob("*.py") if "node_modules" not in path.parts)
    return frozenset(found)


def expand(path: str) -> list[str]:
    """``a-{before,after}.json`` -> ``a-before.json``, ``a-after.json``."""
    match = re.search(r"\{([^{}]*)\}", path)
    if match is None:
        return [path]
    return [expanded for choice in match[1].split(",")
            for expanded in expand(path[:match.start()] + choice + path[match.end():])]


def path_exists(path: str) -> bool:
    return all(any(ROOT.glob(one)) if "*" in one else (ROOT / one).exists() for one in expand(path))


def top_level_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(target.id for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
    return names


def defined_by_ast(module: str, attributes: list[str]) -> bool:
    body = ast.parse(modules()[module].read_text(encoding="utf-8")).body
    for index, attribute in enumerate(attributes):
        if attribute not in top_level_names(body):
            return False
        if index + 1 < len(attributes):
            owner = next((s for s in body if isinstance(s, ast.ClassDef) and s.name == attribute), None)
            if owner is None:
                return False
            body = owner.body
    return True


def defined(module: str, attributes: list[str]) -> bool:
    """Whether ``module`` defines ``attributes``, one inside the other; a module alone is not imported."""
    if not attributes:
        return True
    try:
        found: object = importlib.import_module(module)
        for attribute in attributes:
            found = getattr(found, attribute)
        return True
    except (ImportError, AttributeError):
        return defined_by_ast(module, attributes)


def names_something(name: str) -> bool:
    """A dotted name of the package (``capture_analysis.`` left out): a module, then what it defines."""
    parts = name.split(".")
    for length in range(len(parts), 0, -1):
        module = ".".join(["capture_analysis", *parts[:length]])
        if module in modules():
            return defined(module, parts[length:])
    return False


def package_path_exists(path: str) -> bool:
    """``bind/flow.py``, ``batch/workers`` (a module without its suffix) or ``report/`` (a sub-package)."""
    if path.endswith("/"):
        return (PACKAGE / path / "__init__.py").exists()
    if path.endswith(".py"):
        return (PACKAGE / path).exists()
    return (PACKAGE / f"{path}.py").exists() or (PACKAGE / path / "__init__.py").exists()


def code_span_problem(span: str) -> str | None:
    """What is wrong with the reference a code span makes, if it is one."""
    match = NAME.fullmatch(span.strip())
    if match is None or OTHER_FILE.fullmatch(match[1]):
        return None
    name = match[1].removeprefix("capture_analysis.").removeprefix("capture_analysis/")
    if re.fullmatch(r"\w+\.py", name):
        return None if name in python_file_names() else "no Python file of the repository has this name"
    if re.split(r"[./]", name)[0] not in units():
        return None
    if "/" in name or name.endswith(".py"):
        return None if package_path_exists(name) else "no such module or sub-package"
    return None if names_something(name) else "no such module, or the module does not define it"


def problems_in(text: str, fenced: bool = False, page: Path | None = None) -> Iterator[tuple[int, str]]:
    """The references of a text that name nothing: where each starts, and why it is wrong.  ``page``: the
    Markdown page the text is part of, whose relative links must reach a file."""
    for match in PACKAGE_NAME.finditer(text):
        if not names_something(match[1].removeprefix("capture_analysis.")):
            yield match.start(), f"{match[1]}: no such module, or the module does not define it"
    if fenced:
        return
    for match in REPOSITORY_PATH.finditer(text):
        path = match[1].rstrip(".,:;")
        if not path_exists(path):
            yield match.start(), f"{path}: no such file"
    for match in CODE_SPAN.finditer(text):
        span = " ".join(match[2].split())
        if (problem := code_span_problem(span)) is not None:
            yield match.start(), f"{span}: {problem}"
    if page is None:
        return
    for match in MARKDOWN_LINK.finditer(text):
        target = match[1].split("#")[0]
        if target and not re.match(r"[a-z]+:", target) and not (page.parent / target).exists():
            yield match.start(), f"{match[1]}: the link reaches no file"


def page_parts(page: Path) -> Iterator[tuple[int, str, bool]]:
    """A Markdown page in runs of lines outside and inside fenced blocks: the first line's number, the text,
    and whether it is fenced (a run is read whole, since a code span may wrap to the next line)."""
    run: list[str] = []
    first, fenced = 1, False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            yield first, "\n".join(run), fenced
            run, first, fenced = [], number + 1, not fenced
        else:
            run.append(line)
    yield first, "\n".join(run), fenced


def docstrings_and_comments(path: Path) -> Iterator[tuple[int, str]]:
    """A module's comments and docstrings (every string that is a statement of its own) as written, each with
    its first line's number.

    One pass of ``tokenize`` and no ``ast``: walking every node of the package as well doubled the test's time."""
    tokens = [token for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
              if token.type != tokenize.NL]
    for index, token in enumerate(tokens):
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and (
                index == 0 or tokens[index - 1].type in STATEMENT_START) \
                and tokens[index + 1].type in (tokenize.NEWLINE, tokenize.COMMENT)):
            yield token.start[0], token.string


def stale_references() -> list[str]:
    found = []
    for page in PAGES:
        for first, text, fenced in page_parts(page):
            found += [located(page, first, text, at, problem) for at, problem in problems_in(text, fenced, page)]
    for path in sorted(PACKAGE.rglob("*.py")):
        for first, text in docstrings_and_comments(path):
            found += [located(path, first, text, at, problem) for at, problem in problems_in(text)]
    return found


def located(path: Path, first: int, text: str, at: int, problem: str) -> str:
    """``docs/a.md:12: problem``, from the line where ``text`` starts and the offset of the reference in it."""
    line = first + text.count("\n", 0, at)
    return f"{path.relative_to(ROOT)}:{line}: {problem}"


def test_the_docs_and_docstrings_name_only_what_exists() -> None:
    stale = stale_references()
    assert not stale, "\n".join(["names of files or modules that do not exist:", *stale])


@pytest.mark.parametrize("text", [
    "`policies/support.py`", "``bind/flow.py``", "`report.record`", "``records.py``", "`analyze.Bound.shape`",
    "`batch/jobs`", "`lsp/nothing/`", "see tests/test_node_coverage.py.", "`python -m capture_analysis.nothing`",
    "capture_analysis/policies/support.py", "`parsing.parse_everything(data, path)`",
    "benchmarks/results/parse-judge-{before,never}.json", "`--format lsp\nFILE` prints `report.record`",
    "a stray ` alone\n\nends with its paragraph: `report.record`",
])
def test_a_name_that_exists_no_more_is_found(text: str) -> None:
    assert list(problems_in(text)) != []


@pytest.mark.parametrize("text", [
    "`analyze.Bound.file`", "``model.FlowEdge``", "``results.Site.once``", "`parsing.ParsedFile`", "`flow/`",
    "`batch/tasks`", "`diagnose/shown.py`", "``conftest.py``", "tests/test_v8.py, and tests/fixtures/",
    "`capture_analysis.commands.architecture`", "benchmarks/results/parse-judge-{before,after}.json",
    "`parsing.parse_source(source)`", "tests/fixtures/*/*.ts", "`rules.md`", "`settings.json`",
    "`v8.getHeapSnapshot`", "`binder.visit_unknown`", "`textDocument/publishDiagnostics`", "`import.meta`",
    "`--format lsp\nFILE` prints `report.file_record`",
])
def test_what_exists_or_is_no_reference_passes(text: str) -> None:
    assert list(problems_in(text)) == []


def test_a_fenced_block_may_show_a_made_up_file_but_not_a_missing_module() -> None:
    assert list(problems_in("tests/fixtures/x.ts:3:45: error: `nothing.py`", fenced=True)) == []
    assert list(problems_in("python -m capture_analysis.commands.nothing", fenced=True)) != []
