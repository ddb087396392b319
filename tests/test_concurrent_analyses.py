"""Two files analyzed at once, on two threads, each get their own answers (issue 24).

The language server analyzes on a thread of its own while a command may
run beside it in the same process; nothing of one file's analysis may be
found in shared state by the other's: its tree travels with it
(``parsing.ParsedFile``), and each parse has a parser of its own.
"""

from __future__ import annotations

import threading
from pathlib import Path

import tree_sitter

from capture_analysis import analyze
from capture_analysis.analyze import Analyzer, Bound, FileAnalysis, bind_source
from capture_analysis.parsing import ParsedFile, parse_source
from capture_analysis.policies import POLICIES
from capture_analysis.report.file_record import file_record
from capture_analysis.source import SourceFile

from .conftest import ROOT

#: two files whose answers differ everywhere: ``legacy`` and ``v8`` ask the tree about sites and scopes.
FILES = [ROOT / "examples" / "factories.ts", ROOT / "examples" / "loops.ts"]
ROUNDS = 6


def answers(analysis: FileAnalysis) -> object:
    """Everything a format shows of the analysis."""
    return file_record(analysis, analysis.shown)


def alone(path: Path, policy: str) -> object:
    return answers(Analyzer(POLICIES[policy])(SourceFile(str(path), path.read_text(encoding="utf-8"))))


def test_analyses_interleaved_on_threads_give_each_file_its_own_answers(monkeypatch):
    """Each thread stops after its parse until the other has parsed too, so that both trees exist at once and
    the policies of each file run while the other file's tree is the newest; then they race freely.  No
    analysis parses its file twice (a tree kept in shared state, replaced by the other thread's, would have to
    be parsed again): every parse makes a parser, and the parsers made are counted where the compiled core
    (setup.py) looks them up too, in ``tree_sitter``."""
    expected = {(path, policy): alone(path, policy) for path in FILES for policy in POLICIES}
    both_parsed = threading.Barrier(len(FILES))
    real_bind, real_parser = analyze.bind_parsed, tree_sitter.Parser
    parses: list[str] = []
    parsers: list[tree_sitter.Language] = []

    def wait_then_bind(file: ParsedFile, imported=None) -> Bound:
        parses.append(file.path)
        both_parsed.wait(timeout=30)
        return real_bind(file, imported)

    def counted_parser(language: tree_sitter.Language) -> tree_sitter.Parser:
        parsers.append(language)
        return real_parser(language)

    monkeypatch.setattr(analyze, "bind_parsed", wait_then_bind)
    monkeypatch.setattr(tree_sitter, "Parser", counted_parser)
    got: dict[tuple[Path, str], list[object]] = {key: [] for key in expected}
    errors: list[BaseException] = []

    def work(path: Path) -> None:
        try:
            for _ in range(ROUNDS):
                for policy in POLICIES:
                    got[(path, policy)].append(alone(path, policy))
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(path,)) for path in FILES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    for key, records in got.items():
        assert len(records) == ROUNDS and all(record == expected[key] for record in records), key
    assert sorted(parses) == sorted(str(path) for path in FILES for _ in range(ROUNDS * len(POLICIES)))
    assert len(parsers) == len(parses)


def test_every_phase_asks_the_tree_it_was_given():
    """A bound file decided under every policy after another file was parsed: its own tree answers."""
    first, second = (SourceFile(str(path), path.read_text(encoding="utf-8")) for path in FILES)
    bound = bind_source(first)
    parse_source(second)
    for name, policy in POLICIES.items():
        analysis = Analyzer(policy).decide(bound, policy, {})
        assert answers(analysis) == alone(FILES[0], name)
