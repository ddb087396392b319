"""Robustness fuzzing (docs/fuzzing.md): mutated fixtures and examples never crash boxcheck.

For every mutated file, ``boxcheck --format json`` must exit 0, 1 or 2,
report no internal error, print a document valid against the published
schema, and print the same bytes when run again on the same input.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import parse_judge
from capture_analysis.batch.loading import load
from capture_analysis.cli import main
from capture_analysis.parsing import parse_source
from capture_analysis.source import SourceFile

from .fuzz.budget import budget
from .fuzz.mutate import TOKEN, Mutation, Op, corpus, mutate, mutations
from .test_parse_judge import needs_typescript

CORPUS = corpus()
SUFFIXES = (".ts", ".tsx", ".js")
#: the quick profile: a few seconds on the 2-core reference machine.
QUICK_MUTANTS = 120
#: mutants TypeScript's parser judges in the quick profile (one Node process for all of them).
QUICK_JUDGED = 200


def run_json(path: str) -> tuple[int, str, str]:
    """One uncached run: with the cache, the rerun would read the first run's output back."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--format", "json", "--no-cache", path])
    return code, out.getvalue(), err.getvalue()


def test_mutations_change_what_they_say():
    source = b"let x = 1;"
    assert Mutation(Op.TRUNCATE, 32768, 0).apply(source) == b"let x"
    assert Mutation(Op.INSERT_NUL, 0, 0).apply(source) == b"\x00" + source
    assert Mutation(Op.FLIP, 0, 0).apply(source) == b"met x = 1;"
    assert Mutation(Op.DELETE_TOKEN, 0, 0).apply(source) == b" x = 1;"
    assert Mutation(Op.SWAP_TOKENS, 0, 65535).apply(source) == b"; x = 1let"
    assert b"".join(t.encode() for t in TOKEN.findall("a => `b` // c")) == b"a => `b` // c"
    assert Mutation(Op.INSERT_INVALID_UTF8, 65535, 0).apply(source) == b"let x = 1\xff;"


def test_corpus_has_the_examples():
    assert {p.name for p in CORPUS} >= {"factories.ts", "loops.ts"}


def test_mutated_sources_never_crash_and_give_stable_schema_valid_json(tmp_path_factory, schema_validator):
    folder = tmp_path_factory.mktemp("mutants")
    checked = []

    def make(settings):
        @settings
        @given(st.sampled_from(CORPUS), st.lists(mutations, min_size=1, max_size=4), st.sampled_from(SUFFIXES))
        def one(original, steps, suffix):
            data = mutate(original.read_bytes(), steps)
            path = folder / f"mutant{suffix}"
            path.write_bytes(data)
            code, out, err = run_json(str(path))
            assert code in (0, 1, 2), err
            assert "internal error" not in err, f"{original.name} {steps}: {err}"
            schema_validator.validate(json.loads(out))
            assert run_json(str(path)) == (code, out, err), f"{original.name} {steps}: output differs on a rerun"
            checked.append(original)

        return one

    budget(QUICK_MUTANTS).run(make)
    print(f"\nmutation fuzzing: {len(checked)} mutated files from a corpus of {len(CORPUS)}")
    assert checked


@needs_typescript
def test_mutated_sources_typescript_rejects_get_a_bx001(tmp_path_factory):
    """No real error goes silent, the repairs' rewrites included (docs/parsing.md): TypeScript's parser judges
    a sample of mutants, and each one it rejects gets a BX001, unless TypeScript also rejects the text as
    boxcheck's repairs rewrote it: then the grammar, not a repair, let the error through (`x++++`, `00`, a
    generic arrow `<T>(x: T) => x` in a `.tsx` file: it is more lenient than TypeScript)."""
    folder = tmp_path_factory.mktemp("judged")
    made: dict[str, str] = {}

    def make(settings):
        @settings
        @given(st.sampled_from(CORPUS), st.lists(mutations, min_size=1, max_size=3), st.sampled_from(SUFFIXES))
        def one(original, steps, suffix):
            name = f"m{len(made):05d}{suffix}"
            (folder / name).write_bytes(mutate(original.read_bytes(), steps))
            made[name] = f"{original.name} {steps}"

        return one

    budget(QUICK_JUDGED).run(make)
    result = parse_judge.judge(folder, sorted(made), None)
    rejected = [e for e in result["files"] if e["typescript"] and "error" not in e]
    silent = [e["path"] for e in rejected if not e.get("BX001")]
    repaired_folder = tmp_path_factory.mktemp("repaired")
    for name in silent:
        (repaired_folder / name).write_bytes(as_repaired(folder / name))
    still = {e["path"] for e in parse_judge.judge(repaired_folder, silent, None)["files"] if e["typescript"]}
    hidden = [f"{name} ({made[name]})" for name in silent if name not in still]
    print(f"\nparse judge: {len(made)} mutants, {len(rejected)} rejected by TypeScript, {len(silent)} of them "
          "without a BX001, each rejected by TypeScript as repaired too")
    assert rejected and not hidden, "a repair hid a syntax error:\n" + "\n".join(hidden)


def as_repaired(path) -> bytes:
    """The text the grammar read: the file, decoded as boxcheck decodes it, with the repairs' rewrites applied."""
    source = load(str(path))
    assert isinstance(source, SourceFile)
    text = bytearray(source.data)
    for rewrite in parse_source(SourceFile(str(path), source.text)).rewrites:
        text[rewrite.start:rewrite.end] = rewrite.new
    return bytes(text)


@pytest.mark.parametrize("data", [b"", b"\x00" * 64, b"\xef\xbb\xbf", b"\xff\xfe", b"(((((((((", b"}" * 1000],
                         ids=["empty", "nul", "bom", "utf16-bom", "open-parens", "close-braces"])
def test_degenerate_files(tmp_path, schema_validator, data):
    path = tmp_path / "degenerate.ts"
    path.write_bytes(data)
    code, out, err = run_json(str(path))
    assert code in (0, 1, 2) and "internal error" not in err
    schema_validator.validate(json.loads(out))
