"""Documents of the language server: LSP positions to bytes, incremental edits, and re-parsing with them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capture_analysis.analyze import analyze_text
from capture_analysis.lsp import incremental
from capture_analysis.lsp.documents import Change, Document, TextEdit, file_path, grammar_path
from capture_analysis.lsp.incremental import RevisionAnalyzed, RevisionStale, TreeKeeper
from capture_analysis.parsing import parse
from capture_analysis.source import PositionEncoding, SourceFile

from .lsp.local import DEFAULT_SETTINGS
from .lsp.text import index_of, position_of

SAMPLE = ('function f(a) {\r\n  let café = "😀";\n  const 名 = () => café;\n  café = "🎉" + a;\n'
          '  return 名;\n}\n')


@pytest.mark.parametrize("encoding", list(PositionEncoding))
def test_offset_at_inverts_lsp_position_at_every_character_boundary(encoding):
    source = SourceFile("t.ts", SAMPLE)
    boundaries = [len(SAMPLE[:i].encode()) for i in range(len(SAMPLE) + 1)
                  if not (SAMPLE[i - 1:i] == "\r" and SAMPLE[i:i + 1] == "\n")]
    for offset in boundaries:
        position = source.lsp_position(offset, encoding)
        assert source.offset_at(position["line"], position["character"], encoding) == offset


def test_offset_at_clamps_like_lsp_says():
    source = SourceFile("t.ts", "a😀b\r\nxy")
    assert source.offset_at(0, 2) == 1            # inside the surrogate pair: the emoji's start
    assert source.offset_at(0, 99) == len("a😀b".encode())   # past the line's end: before \r\n
    assert source.offset_at(7, 0) == len(source.data)        # past the last line: the end
    assert source.offset_at(0, 2, PositionEncoding.UTF8) == 1  # inside a UTF-8 sequence
    assert source.point(source.offset_at(1, 1)) == (1, 1)


def test_file_uris_and_languages_pick_the_grammar():
    assert file_path("file:///tmp/a%20b/c.ts") == "/tmp/a b/c.ts"
    assert file_path("untitled:Untitled-1") is None
    assert grammar_path("file:///x/a.tsx", "typescriptreact") == "/x/a.tsx"
    assert grammar_path("untitled:Untitled-1", "typescript") == "untitled:Untitled-1.ts"
    assert grammar_path("untitled:Untitled-2", "javascriptreact") == "untitled:Untitled-2.jsx"
    assert grammar_path("file:///x/notes.md", "markdown") is None


def lsp_change(text: str, start: int, end: int, new: str) -> Change:
    a, b = position_of(text, start), position_of(text, end)
    return Change(new, ((a["line"], a["character"]), (b["line"], b["character"])))


def test_a_change_with_astral_characters_splices_the_right_bytes():
    document = Document.open("file:///t.ts", "t.ts", 1, SAMPLE)
    text = SAMPLE
    start = text.index("🎉")
    document.apply([lsp_change(text, start, start + 1, "x😀y")], 2, PositionEncoding.UTF16)
    text = text[:start] + "x😀y" + text[start + 1:]
    assert document.source.text == text
    assert document.version == 2 and document.revision == 1
    (edit,) = document.snapshot().edits
    assert (edit.start_byte, edit.old_end_byte, edit.new_end_byte) == (
        len(SAMPLE[:start].encode()), len(SAMPLE[:start + 1].encode()), len(SAMPLE[:start].encode()) + 6)
    assert edit.start_point == (3, len('  café = "'.encode()))


def test_a_change_that_brings_a_bom_to_the_front_is_the_edit_of_the_bytes_that_went():
    """A file's leading BOM is not part of its text (``SourceFile`` drops it), so a change that deletes what
    stood before one deletes the BOM's three bytes too: that is the edit recorded (and what the maps carry
    the older findings across), and the text is the file a fresh read makes of it."""
    text = "x\ufefflet a = 1;\nlet b = 2;\n"
    document = Document.open("file:///t.ts", "t.ts", 1, text)
    document.snapshot()
    edit_map = document.track()
    document.apply([lsp_change(text, 0, 1, "")], 2, PositionEncoding.UTF16)
    snapshot = document.snapshot()
    assert snapshot.edits == (TextEdit(0, 4, 0, (0, 0), (0, 4), (0, 0)),)
    assert snapshot.source == SourceFile("t.ts", "let a = 1;\nlet b = 2;\n")
    assert edit_map.span(5, 8) == (1, 4) and edit_map.forward(3) is None
    document.apply([lsp_change("let a = 1;\nlet b = 2;\n", 0, 0, "// c\n")], 3, PositionEncoding.UTF16)
    snapshot = document.snapshot()
    assert snapshot.edits == (TextEdit(0, 0, 5, (0, 0), (0, 0), (1, 0)),)
    assert snapshot.source == SourceFile("t.ts", "// c\nlet a = 1;\nlet b = 2;\n")


def test_several_changes_of_one_notification_apply_in_order_and_a_whole_text_is_the_edit_of_what_differs():
    document = Document.open("file:///t.ts", "t.ts", 1, "let a = 1;\n")
    document.apply([Change("b", ((0, 4), (0, 5))), Change("2", ((0, 8), (0, 9)))], 2, PositionEncoding.UTF16)
    assert document.source.text == "let b = 2;\n"
    document.snapshot()
    document.apply([Change("const c = 3;\n")], 3, PositionEncoding.UTF16)
    snapshot = document.snapshot()
    assert snapshot.source.text == "const c = 3;\n"
    assert snapshot.edits == (TextEdit(0, 9, 11, (0, 0), (0, 9), (0, 11)),)    # "let b = 2" -> "const c = 3"


@pytest.mark.parametrize("before, start, end, typed", [
    ("let café = 1;", 7, 8, "ĩ"),       # é and ĩ share their last UTF-8 byte: the edit starts at their first
    ("let c = '😀';", 9, 11, "😁"),     # the emoji share their first three bytes
    ("", 0, 0, "x"),
    ("}\n\nfunction f() {}", 2, 2, "\n"),          # a line break typed on a blank line stays on it
    ("}\r\n\r\nfunction f() {}", 3, 3, "\r\n"),  # and does not cut a CRLF in two
    ("}\n\n\nfunction f() {}", 2, 3, ""),          # a blank line deleted
    ("let a  = 1;", 6, 6, " "),         # a space typed between spaces
])
def test_a_whole_text_is_recorded_as_the_ranged_change_the_editor_made(before, start, end, typed):
    """The same tree edit and the same map as the range a client would send: what differs, cut at whole
    characters, and where the edit could as well stand a few blanks earlier, between blanks (the byte next
    to an edit counts as touched)."""
    after = before[:start] + typed + before[end:]
    ranged = Document.open("file:///t.ts", "t.ts", 1, before)
    whole = Document.open("file:///t.ts", "t.ts", 1, before)
    maps = [ranged.track(), whole.track()]
    ranged.apply([lsp_change(before, start, end, typed)], 2, PositionEncoding.UTF16)
    whole.apply([Change(after)], 2, PositionEncoding.UTF16)
    assert whole.source == ranged.source == SourceFile("t.ts", after)
    assert whole.snapshot().edits == ranged.snapshot().edits
    assert maps[0].pieces == maps[1].pieces


def test_the_same_whole_text_again_moves_nothing():
    document = Document.open("file:///t.ts", "t.ts", 1, SAMPLE)
    edit_map = document.track()
    document.apply([Change(SAMPLE)], 2, PositionEncoding.UTF16)
    assert edit_map.identity and document.source == SourceFile("t.ts", SAMPLE)


ALPHABET = st.sampled_from(["a", "x", " ", "\n", "\r\n", "😀", "é", "名", "(", ")", "{", "}", ";", "=", "let ",
                            "() => ", "n++", "`", "${", '"', "//", "/*", "*/"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([SAMPLE, "function g() { let n = 0; return () => n; }\n", ""]), st.data())
def test_incremental_parse_equals_a_fresh_parse(initial, data):
    """Random edits, some per notification, some per snapshot, sent as ranges or as whole texts: the kept tree
    always matches a fresh parse of the text; it is re-parsed from the previous tree unless the old or the new
    text has a syntax error."""
    keeper = TreeKeeper()
    document = Document.open("file:///t.ts", "t.ts", 0, initial)
    keeper.update(document.snapshot())
    text = initial
    for version in range(1, data.draw(st.integers(1, 6)) + 1):
        changes = []
        for _ in range(data.draw(st.integers(1, 3))):
            cuts = [i for i in range(len(text) + 1) if not (text[i - 1:i] == "\r" and text[i:i + 1] == "\n")]
            start = data.draw(st.sampled_from(cuts))
            end = data.draw(st.sampled_from([c for c in cuts if start <= c <= start + 8]))
            inserted = "".join(data.draw(st.lists(ALPHABET, max_size=4)))
            after = text[:start] + inserted + text[end:]
            changes.append(Change(after) if data.draw(st.booleans()) else lsp_change(text, start, end, inserted))
            text = after
        document.apply(changes, version, PositionEncoding.UTF16)
        assert document.source.text == text
        if data.draw(st.booleans()):
            old = keeper.trees["file:///t.ts"]
            had_error = old.repaired or old.tree.root_node.has_error
            parsed, incremental = keeper.update(document.snapshot())
            assert incremental == (not had_error and not parsed.repaired and not parsed.tree.root_node.has_error)
            assert str(parsed.tree.root_node) == str(parse(document.source.data, "t.ts").root_node)


def test_the_job_analyzes_like_the_command_line_and_skips_stale_revisions():
    keeper = TreeKeeper()
    text = "function f() { let n = 0; return () => n++; }\n"
    document = Document.open("file:///t.ts", "t.ts", 1, text)
    first = keeper.run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(first, RevisionAnalyzed) and not first.incremental
    declared, used = text.index("n ="), text.index("n++")
    document.apply([lsp_change(text, declared, declared + 1, "m"), lsp_change(text, used, used + 1, "m")], 2,
                   PositionEncoding.UTF16)
    snapshot = document.snapshot()
    assert isinstance(keeper.run(snapshot, DEFAULT_SETTINGS, lambda: snapshot.revision + 1), RevisionStale)
    document.apply([lsp_change(text, used + 1, used + 3, "")], 3, PositionEncoding.UTF16)
    outcome = keeper.run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(outcome, RevisionAnalyzed) and outcome.incremental and outcome.version == 3
    expected = analyze_text("t.ts", "function f() { let m = 0; return () => m; }\n")
    assert document.source.text == "function f() { let m = 0; return () => m; }\n"
    assert [(d.rule.code, d.start, d.message) for d in outcome.diagnostics] == [
        (d.rule.code, d.start, d.message) for d in expected.diagnostics]
    assert [d.storage for d in outcome.analysis.decisions] == [d.storage for d in expected.decisions]


def test_index_of_agrees_with_position_of():
    for i in range(len(SAMPLE) + 1):
        p = position_of(SAMPLE, i)
        if not (SAMPLE[i - 1:i] == "\r" and SAMPLE[i:i + 1] == "\n"):
            assert index_of(SAMPLE, p["line"], p["character"]) == i


def test_a_broken_text_is_parsed_as_the_command_line_parses_it():
    """The case the random edits above found: after these edits the incremental parse recovered from the
    errors otherwise than a fresh parse, so the editor would have shown other diagnostics."""
    keeper = TreeKeeper()
    document = Document.open("file:///t.ts", "t.ts", 0, SAMPLE)
    keeper.update(document.snapshot())
    text = SAMPLE
    for version, edits in enumerate([[(11, 11, "${n++//")], [(43, 48, "aa"), (86, 94, "n++")]], start=1):
        changes = []
        for start, end, inserted in edits:
            changes.append(lsp_change(text, start, end, inserted))
            text = text[:start] + inserted + text[end:]
        document.apply(changes, version, PositionEncoding.UTF16)
    parsed, incremental = keeper.update(document.snapshot())
    assert parsed.tree.root_node.has_error and not incremental
    assert str(parsed.tree.root_node) == str(parse(document.source.data, "t.ts").root_node)


def test_a_text_that_needs_a_repair_is_analyzed_as_the_command_line_does_and_never_parsed_from_the_repair():
    """`<in T>` is valid TypeScript the grammar rejects: the editor gets the repaired tree the command line
    gets, and the next edit re-parses from scratch, since the kept tree is a parse of a rewritten copy."""
    text = "interface P<in T> { a: T }\nfunction f() { let n = 0; return () => n++; }\n"
    keeper = TreeKeeper()
    document = Document.open("file:///v.ts", "v.ts", 1, text)
    first = keeper.run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(first, RevisionAnalyzed) and keeper.trees["file:///v.ts"].repaired
    assert [d.rule.code for d in first.diagnostics] == ["BX101"]
    at = text.index("n++")
    document.apply([lsp_change(text, at, at + 3, "n")], 2, PositionEncoding.UTF16)
    parsed, incremental = keeper.update(document.snapshot())
    assert not incremental and parsed.repaired and not parsed.problems
    assert str(parsed.tree.root_node) == str(parse(document.source.data, "v.ts").root_node)


def test_code_actions_asked_after_a_later_edit_read_the_analyzed_text():
    """An analysis's fixes are made on the first request, on the event loop, after the analysis thread may have
    edited the tree in place for the next keystroke: they read a copy of the tree taken with the analysis.  From
    the edited tree itself, the `let` the edit shifted would no longer be found where the analysis saw it."""
    keeper = TreeKeeper()
    text = "function f() {\n  let a = 1;\n  let b = 2;\n  return () => a + b;\n}\n"
    document = Document.open("file:///t.ts", "t.ts", 1, text)
    first = keeper.run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(first, RevisionAnalyzed)
    at = text.index("  let a")
    document.apply([lsp_change(text, at, at, "  const pad = [0, 0, 0, 0, 0];\n")], 2, PositionEncoding.UTF16)
    second = keeper.run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(second, RevisionAnalyzed) and second.incremental
    titles = sorted(fix.title for fix in first.fixes.all())
    assert titles == ["Declare `a` as `const` (never reassigned)", "Declare `b` as `const` (never reassigned)"]
    for fix in first.fixes.all():
        (replacement,) = fix.edits
        assert text[replacement.start:replacement.end] == "let"


@pytest.mark.parametrize("slow", [False, True])
def test_a_slow_analysis_makes_its_hover_index_and_code_actions_on_the_analysis_thread(monkeypatch, slow):
    """A quick analysis leaves them to the first request (most are replaced before any); a slow one makes them
    with it, so that the first hover or code action never holds the event loop (a second each on
    ``lib/typescript.js``)."""
    made: list[int] = []
    real = incremental.declare_const_fixes
    monkeypatch.setattr(incremental, "declare_const_fixes", lambda *args: made.append(1) or real(*args))
    monkeypatch.setattr(incremental, "PREPARED_ABOVE_SECONDS", -1.0 if slow else 3600.0)
    document = Document.open("file:///t.ts", "t.ts", 1, "function f() { let a = 1; return () => a; }\n")
    outcome = TreeKeeper().run(document.snapshot(), DEFAULT_SETTINGS, lambda: document.revision)
    assert isinstance(outcome, RevisionAnalyzed)
    assert (outcome.index.starts is not None, len(made)) == ((True, 1) if slow else (False, 0))
    assert [fix.title for fix in outcome.fixes.all()][:1] == ["Declare `a` as `const` (never reassigned)"]
    assert outcome.index.at(document.source.data.index(b"a = 1")) is not None
    assert len(made) == 1
