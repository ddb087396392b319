"""The fixes of ``capture_analysis.fixes``, which the language server offers and ``--fix`` applies: how several
are applied at once, and the cases where moving a binding into a block of its own would change the program (or
what TypeScript accepts) and is not offered.  The language server's side is in tests/test_lsp_own_block.py and
tests/test_lsp_features.py."""

from __future__ import annotations

import textwrap

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.fixes import ActionKind, Fix, Replacement, applied, compatible, own_block_fixes


def moved(code: str, path: str = "leak.ts") -> list[str]:
    """The text after each "move into a block of its own" offered for ``code``."""
    analysis = analyze_text(path, code)
    return [applied(analysis.source.data, fix.edits).decode() for fix in own_block_fixes(analysis, analysis.file.tree)]


def fix_at(start: int, end: int) -> Fix:
    return Fix("t", ActionKind.REWRITE, start, end, (Replacement(start, end, "x"),))


def test_fixes_whose_edits_overlap_or_touch_wait_for_the_next_round():
    a, b, c, d = fix_at(0, 3), fix_at(2, 5), fix_at(3, 4), fix_at(6, 6)
    assert compatible([c, b, a, d]) == [a, d]        # b overlaps a, c starts where a ends
    assert compatible([b, c, d]) == [b, d]


def test_edits_are_applied_in_text_order_whatever_their_order():
    edits = [Replacement(4, 4, "!"), Replacement(0, 3, "const")]
    assert applied(b"let x = 1;", edits) == b"const !x = 1;"


def test_overlapping_edits_are_refused():
    with pytest.raises(AssertionError):
        applied(b"let x = 1;", [Replacement(0, 3, "a"), Replacement(2, 4, "b")])


LEAK = textwrap.dedent("""\
    function make() {
      const big = { n: 1 };
      const use = () => big.n;
      use();
      return () => 1;
    }
    """)


def test_line_breaks_are_the_file_s():
    crlf = LEAK.replace("\n", "\r\n")
    [after] = moved(crlf)
    assert after == textwrap.dedent("""\
        function make() {
          {
            const big = { n: 1 };
            const use = () => big.n;
            use();
          }
          return () => 1;
        }
        """).replace("\n", "\r\n")


def test_tabs_indent_with_a_tab():
    [after] = moved(LEAK.replace("  ", "\t"))
    assert "\t{\n\t\tconst big = { n: 1 };\n\t\tconst use = () => big.n;\n\t\tuse();\n\t}\n\treturn" in after


def test_a_template_literal_across_lines_keeps_its_text():
    code = LEAK.replace("const use = () => big.n;", "const use = () => `${big.n}\n  two`;")
    [after] = moved(code)
    assert "  { const big = { n: 1 };\n  const use = () => `${big.n}\n  two`;\n  use(); }\n" in after


def test_the_last_line_of_a_file_without_a_line_break():
    code = "function make() { const big = { n: 1 }; const use = () => big.n; use(); return () => 1; }"
    [after] = moved(code)
    assert after == ("function make() { { const big = { n: 1 }; const use = () => big.n; use(); } "
                     "return () => 1; }")


@pytest.mark.parametrize("code", [
    # `size`, declared among the moved statements, is named in a type after them
    """\
    function make() {
      const big = { n: 1 };
      const use = () => big.n;
      const size = use;
      size();
      let kept: typeof size | null = null;
      return () => kept;
    }
    """,
    # `typeof big` after them: a type query, which the scope model does not count as a reference
    """\
    function make() {
      const big = { n: 1 };
      const use = () => big.n;
      use();
      let copy: typeof big | null = null;
      return () => copy;
    }
    """,
    # a `using` among them would be disposed of at the end of the new block, before the return
    """\
    function make(open: (n: number) => Disposable) {
      const big = { n: 1 };
      using handle = open(big.n);
      const use = () => big.n;
      use();
      return () => 1;
    }
    """,
    # a type declared among them could not be named after them
    """\
    function make() {
      const big = { n: 1 };
      type Size = number;
      const use = (): Size => big.n;
      use();
      return (): Size => 1;
    }
    """,
])
def test_not_offered_where_the_block_would_hide_a_name_or_move_a_disposal(code):
    analysis = analyze_text("leak.ts", textwrap.dedent(code))
    assert [d.rule.code for d in analysis.shown] == ["BX107"], "the case must have the finding to be a test"
    assert moved(textwrap.dedent(code)) == []


def test_a_name_that_only_repeats_in_text_or_as_a_property_does_not_stop_the_move():
    code = LEAK.replace("return () => 1;", 'const label = "big use"; return () => label + ({ big: 1 }).big;')
    [after] = moved(code)
    assert after.startswith("function make() {\n  {\n    const big = { n: 1 };")
