"""Answers from an older analysis: offsets carried through edits, and findings kept while the text is broken.

The edit map is checked against a brute force that follows every byte of the
old text through random edits; the kept findings against the command line's
analysis of the texts before and after the edit.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture_analysis.analyze import analyze_text
from capture_analysis.lsp.carry import Carried, Entry, Moves, entry_lines, moved_positions, relocated, shown
from capture_analysis.lsp.documents import Change, Document
from capture_analysis.lsp.edit_map import EditMap
from capture_analysis.report.lsp import lsp_diagnostic
from capture_analysis.source import PositionEncoding

from .lsp.text import TWO, position_of
from .test_lsp_documents import lsp_change

UTF16 = PositionEncoding.UTF16
URI = "file:///t.ts"

edit_lists = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.integers(0, 3)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(length=st.integers(0, 12), edits=edit_lists)
def test_the_edit_map_follows_every_byte_through_random_edits(length, edits):
    origins: list[int | None] = list(range(length))    # where each byte of the current text came from
    edit_map = EditMap(length)
    for a, b, inserted in edits:
        start = int(a * len(origins))
        end = start + int(b * (len(origins) - start))
        edit_map.apply(start, end, start + inserted)
        origins[start:end] = [None] * inserted
    for old in range(length):
        assert edit_map.forward(old) == (origins.index(old) if old in origins else None)
    for new, origin in enumerate(origins):
        assert edit_map.backward(new) == origin
    # a span is untouched when it and the byte on each side (or the text's edge) are still side by side
    ext = [-1, *origins, length]
    for start in range(length + 1):
        for end in range(start, length + 1):
            wanted = list(range(start - 1, end + 1))
            at = next((i for i in range(len(ext) - len(wanted) + 1) if ext[i:i + len(wanted)] == wanted), None)
            expected = None if at is None else (at, at + end - start)
            assert edit_map.span(start, end) == expected, (start, end)
    assert edit_map.identity == (origins == list(range(length)) and not any(n for _, _, n in edits))


def carried_through(text: str, at: int, typed: str, full: bool = False) -> tuple[list[dict], str]:
    """What the server publishes for ``text`` with ``typed`` inserted at ``at``, after publishing ``text``; the
    change is sent as its range, or as the whole new text."""
    document = Document.open(URI, "t.ts", 1, text)
    before = analyze_text("t.ts", text)
    kept = Carried(before, before.diagnostics, URI, UTF16, document.track())
    after_text = text[:at] + typed + text[at:]
    document.apply([Change(after_text) if full else lsp_change(text, at, at, typed)], 2, UTF16)
    after = analyze_text("t.ts", after_text)
    published, still = shown(after, after.diagnostics, URI, UTF16, document.track(), kept, document.source)
    assert still is kept
    return published, after_text


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_a_syntax_error_keeps_the_findings_of_the_other_functions_moved_with_the_lines(full):
    at = TWO.index("\n", TWO.index("let count")) + 1
    published, text = carried_through(TWO, at, "  let z=0;\n  x(()=>z\n", full)
    after = analyze_text("t.ts", text)
    codes = [d.rule.code for d in after.diagnostics]
    assert "BX001" in codes and any("syntax error" in d.message for d in after.diagnostics if d.rule.code != "BX001")
    # the syntax errors as the command line has them; `total` of `second`, two lines down, as it was before
    cli = [lsp_diagnostic(after, d, URI) for d in after.diagnostics]
    assert [d for d in published if d["code"] == "BX001"] == [d for d in cli if d["code"] == "BX001"]
    (total,) = [d for d in published if d["code"] != "BX001"]
    assert total["range"] == {"start": position_of(text, text.index("total")),
                              "end": position_of(text, text.index("total") + len("total"))}
    assert total["message"] == ("`second` needs 1 heap box per call for `total`: state that closures write and that "
                                "outlives the call, which any compiler must keep on the heap, once per call at least "
                                "(`total`: reassigned at 10:20 inside `add`, and `add` escapes (stored in an object "
                                "literal at 10:12))")  # the positions in it moved by the two new lines too
    assert TWO.splitlines()[7].startswith("  return { add() { total +=")      # 8:20 before the edit
    assert [r["location"]["range"]["start"] for r in total["relatedInformation"]] == [
        position_of(text, text.index("add()")), position_of(text, text.index("total +="))]


def test_an_edit_in_the_function_drops_its_findings_until_the_text_parses():
    at = TWO.index("return { add()")
    published, _ = carried_through(TWO, at, "if (")
    assert [d["code"] for d in published if d["code"] != "BX001"] == ["BX101"]
    assert "`count`" in next(d["message"] for d in published if d["code"] == "BX101")
    assert "BX001" in [d["code"] for d in published]


def test_without_an_error_the_new_findings_are_published_and_kept():
    document = Document.open(URI, "t.ts", 1, TWO)
    analysis = analyze_text("t.ts", TWO)
    published, kept = shown(analysis, analysis.diagnostics, URI, UTF16, document.track(), None, document.source)
    assert published == [lsp_diagnostic(analysis, d, URI) for d in analysis.diagnostics]
    assert kept is not None and [e.lsp for e in kept.entries] == published


def test_positions_in_text_move_with_the_lines_and_edited_ones_stay():
    old_text = "let a = 1;\nlet b = 2;\n"
    document = Document.open(URI, "t.ts", 1, old_text)
    edits = document.track()
    document.apply([lsp_change(old_text, 0, 0, "// 😀\n")], 2, UTF16)
    old = analyze_text("t.ts", old_text).source
    assert moved_positions("at 2:5 and 1:1, site f@1:5#0, 9:9", old, edits, document.source) == (
        "at 3:5 and 2:1, site f@2:5#0, 9:9")


#: a BX107 finding (its data names closures by line and column) and a BX101 one (a site id, `f@line:column#n`).
RETAINS_AND_BOXES = """export function makeRetaining() {
  const big = new Map<string, number>();
  const use = () => big.size;
  use();
  return () => 1;
}
export function counter() {
  let total = 0;
  return { add() { total += 1; } };
}
"""


def test_a_kept_findings_data_moves_with_the_lines():
    """Lines typed above two functions, the last one broken: their findings are kept, and every position in a
    finding's message and data (a site id, the closures a retention names, at any depth) is where the command
    line puts it in the same text with that line whole."""
    published, _ = carried_through(RETAINS_AND_BOXES, 0, "// one\n// two\nx(\n")
    whole = analyze_text("t.ts", "// one\n// two\nx;\n" + RETAINS_AND_BOXES)
    expected = {d["code"]: d for d in (lsp_diagnostic(whole, d, URI) for d in whole.diagnostics)}
    kept = {d["code"]: d for d in published if d["code"] != "BX001"}
    assert sorted(kept) == ["BX101", "BX107"]
    assert kept["BX101"]["data"]["site"] == "counter@10:8#0"
    assert kept["BX107"]["data"]["retained_by"] == [{"name": None, "line": 8, "column": 10}]
    for code, finding in kept.items():
        assert (finding["range"], finding["message"], finding["data"]) == \
            (expected[code]["range"], expected[code]["message"], expected[code]["data"])


#: findings of three kinds on lines of their own and sharing lines, some after astral characters: typing within a
#: line moves the columns after it, in UTF-16, and nothing on the other lines.
MANY = """const café = "😀"; export function counter() { let total = 0; return { add() { total += 1; } }; }
export function makeRetaining() {
  const big = new Map<string, number>();
  const use = () => big.size;
  use();
  return () => 1;
}
""" + TWO.replace("}\n\nfunction", "}\nfunction")


def relocated_one_by_one(kept: Carried, source) -> list[dict]:
    """What ``Carried.placed`` makes of every kept finding, without its short way for the untyped lines."""
    moves = Moves(kept.source, kept.edits, source)
    placed = (relocated(entry, moves, UTF16) for entry in kept.entries if kept.edits.span(*entry.owner) is not None)
    return [each for each in placed if each is not None]


@settings(max_examples=150, deadline=None)
@given(edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.sampled_from(["x", "é😀", "", " (", "\n", "}"])),
                      min_size=1, max_size=4))
def test_kept_findings_are_placed_as_each_would_be_moved_alone(edits):
    """The short way for findings on lines no edit typed in gives what moving each finding gives, whatever the
    edits (within a line, across lines, line breaks typed or deleted)."""
    document = Document.open(URI, "t.ts", 1, MANY)
    analysis = analyze_text("t.ts", MANY)
    kept = Carried(analysis, analysis.diagnostics, URI, UTF16, document.track())
    text = MANY
    for version, (where, length, typed) in enumerate(edits, start=2):
        start = int(where * len(text))
        end = min(len(text), start + length)
        document.apply([lsp_change(text, start, end, typed)], version, UTF16)
        text = text[:start] + typed + text[end:]
    assert document.source.text == text
    assert kept.placed(document.source) == relocated_one_by_one(kept, document.source)


def test_typing_within_a_line_leaves_the_findings_of_the_other_lines_as_they_were():
    """Only the findings that name the typed line are worked out again: the others are the very entries kept."""
    document = Document.open(URI, "t.ts", 1, MANY)
    analysis = analyze_text("t.ts", MANY)
    kept = Carried(analysis, analysis.diagnostics, URI, UTF16, document.track())
    at = MANY.index(" export function counter")
    document.apply([lsp_change(MANY, at, at, "é😀(")], 2, UTF16)      # four UTF-16 units
    placed = kept.placed(document.source)
    assert placed == relocated_one_by_one(kept, document.source)
    moved = [each for each in placed if not any(entry.lsp is each for entry in kept.entries)]
    assert len(placed) == 4 and len(moved) == 1
    (total,) = moved                   # `total` of `counter`, on the typed line
    assert total["range"]["start"] == {"line": 0, "character": 55}
    assert "reassigned at 1:84 inside `add`" in total["message"] and "object literal at 1:76" in total["message"]
    assert total["data"]["site"] == "counter@1:31#0"


def test_a_line_break_typed_leaves_the_findings_above_it_as_they_were_and_moves_those_below():
    document = Document.open(URI, "t.ts", 1, MANY)
    analysis = analyze_text("t.ts", MANY)
    kept = Carried(analysis, analysis.diagnostics, URI, UTF16, document.track())
    at = MANY.index("  let count")     # in `first`, whose finding goes until the text parses
    document.apply([lsp_change(MANY, at, at, "x(\n")], 2, UTF16)
    placed = kept.placed(document.source)
    assert placed == relocated_one_by_one(kept, document.source)
    as_was = [each for each in placed if any(entry.lsp is each for entry in kept.entries)]
    assert [d["range"]["start"]["line"] for d in as_was] == [0, 2]
    (total,) = [each for each in placed if each not in as_was]     # `total` of `second`, a line down
    assert total["range"]["start"]["line"] == 13 and total["data"]["site"] == "second@13:1#0"


def test_the_lines_a_kept_finding_names_are_those_of_its_ranges_messages_and_data():
    """Each place a finding's placement reads: a line named only in a related message, only in a site id or only
    in a closure its data names is one the short way must not skip."""
    lsp = {"range": {"start": {"line": 4, "character": 1}, "end": {"line": 6, "character": 0}},
           "message": "at 12:3, not 7 or 8:x",
           "relatedInformation": [{"location": {"range": {"start": {"line": 20, "character": 0},
                                                          "end": {"line": 20, "character": 2}}},
                                   "message": "written at 31:4"}],
           "data": {"site": "f@41:1#0", "retained_by": [{"name": None, "line": 51, "column": 2}], "count": 60}}
    assert entry_lines(Entry(lsp, ((0, 1),), (0, 1))) == {4, 6, 11, 20, 30, 40, 50}
