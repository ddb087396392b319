"""Helpers that read like the rules they check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import jsonschema
import pytest

from capture_analysis.analyze import FileAnalysis, analyze_text

ROOT = Path(__file__).resolve().parent.parent
# Runs of the CLI in tests (in-process and in subprocesses) must not leave .boxcheck_cache/ folders behind;
# tests/test_cache.py turns the cache back on where it is the subject.
os.environ["BOXCHECK_NO_CACHE"] = "1"
# Text output is compared byte for byte: colour asked for by the environment (a CI runner's FORCE_COLOR) must
# not reach it; tests/test_cli_ergonomics.py sets these where colour is the subject.
for _colour in ("FORCE_COLOR", "NO_COLOR"):
    os.environ.pop(_colour, None)
SHARED = ROOT.parent / "shared"
SCHEMA_PATH = ROOT / "docs" / "schema" / "boxcheck-1.json"
SARIF_SCHEMA = SHARED / "schemas" / "sarif-schema-2.1.0.json"
#: issue 19's leak: `big` is kept alive by the returned arrow through `make`'s context, though only `use` reads it.
LEAK = """\
export function make() {
  const big = new Big();
  const use = () => big.data.length;
  use();
  return () => 1;
}
"""


def analyze(code: str, path: str = "test.ts") -> FileAnalysis:
    return analyze_text(path, textwrap.dedent(code))


def storage_of(analysis: FileAnalysis, name: str, occurrence: int = 0) -> str:
    """Storage of the ``occurrence``-th binding called ``name`` (in source order)."""
    found = [d for d in analysis.decisions if d.binding.name == name]
    assert found, f"no binding {name!r}"
    return found[occurrence].storage.value


def storages(code: str, path: str = "test.ts") -> dict[str, str]:
    """name -> storage for every non-module binding (the last one wins on duplicates)."""
    return {d.binding.name: d.storage.value for d in analyze(code, path).decisions
            if d.storage.value != "module"}


def allocations(analysis: FileAnalysis, function: str) -> tuple[int, int]:
    found = [f for f in analysis.functions if f.closure.name == function]
    assert found, f"no function {function!r}"
    return found[0].per_call, found[0].per_iteration


def reason_of(analysis: FileAnalysis, name: str) -> str:
    return next(d.reason for d in analysis.decisions if d.binding.name == name)


@pytest.fixture(scope="session")
def schema_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture(scope="session")
def sarif_validator() -> jsonschema.Draft4Validator:
    """The official SARIF 2.1.0 schema (tests/test_format_sarif.py, tests/test_shard.py)."""
    if not SARIF_SCHEMA.exists():
        pytest.skip(f"the official SARIF schema is not at {SARIF_SCHEMA} (it lives beside the project, in ../shared)")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


NODE = shutil.which("node")
#: for tests that run each form in Node.js first, to show what the engine does.
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: these forms are checked in Node.js")


def node_got(code: str, module: bool = False) -> str:
    """Run ``code`` (a script, or an ES module) in Node.js; it sets ``got``, whose text is returned."""
    assert NODE is not None
    kind = ["--input-type=module"] if module else []
    done = subprocess.run([NODE, *kind, "-e", code + "process.stdout.write(String(got));\n"], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout


@pytest.fixture
def start():
    """Start language servers (``tests/lsp/client.py``) for a test; each is killed when the test ends."""
    from .lsp.client import LspClient

    clients: list[LspClient] = []

    def starter(**kwargs) -> LspClient:
        client = LspClient(**kwargs)
        clients.append(client)
        return client

    yield starter
    for client in clients:
        client.kill()


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The pinned corpus: ``$BOXCHECK_CORPUS``, ``.corpus/`` or ``../corpus``, else fetched into ``.corpus/``
    with ``../shared/corpus/fetch.sh`` (about two minutes; needs npm and the npm registry); skips with the
    reason when it cannot be had."""
    from benchmarks.corpus_run import DEFAULT_CORPUS_DIRS, find_corpus

    found = find_corpus()
    if found is not None:
        return found
    fetch = SHARED / "corpus" / "fetch.sh"
    if not fetch.is_file():
        pytest.skip(f"no corpus and no {fetch} to fetch it with")
    if shutil.which("npm") is None:
        pytest.skip("no corpus, and npm is not installed to fetch it")
    target = DEFAULT_CORPUS_DIRS[0]
    done = subprocess.run(["bash", str(fetch), str(target)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800)
    found = find_corpus()
    if done.returncode != 0 or found is None:
        pytest.skip(f"the corpus could not be fetched (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return found
