"""The BX107 code action: the retained binding and its users in a block of their own (docs/retention.md, fix 1)."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.fixes import own_block_fixes
from capture_analysis.parsing import parse

from .conftest import NODE, needs_node


def fixed(code: str) -> list[str]:
    """The text after each offered fix."""
    code = textwrap.dedent(code)
    analysis = analyze_text("leak.ts", code)
    out = []
    for fix in own_block_fixes(analysis, parse(analysis.source.data, "leak.ts")):
        data = analysis.source.data
        for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
            data = data[:edit.start] + edit.text.encode() + data[edit.end:]
        out.append(data.decode())
    return out


LEAK = """\
    function make() {
      const big = { data: [1, 2, 3] };
      const use = () => big.data.length;
      use();
      return () => 1;
    }
    """


def test_the_binding_and_its_users_move_into_a_block_and_the_finding_goes():
    [after] = fixed(LEAK)
    assert after == textwrap.dedent("""\
        function make() {
          {
            const big = { data: [1, 2, 3] };
            const use = () => big.data.length;
            use();
          }
          return () => 1;
        }
        """)
    assert not [d for d in analyze_text("fixed.ts", after).diagnostics if d.rule.code == "BX107"]


@pytest.mark.parametrize("code", [
    # `use` is called after the closure that keeps `big` is made: the range would swallow it
    """\
    function make() {
      const big = { n: 1 };
      const use = () => big.n;
      const keep = () => 1;
      use();
      return keep;
    }
    """,
    # `use` is needed after the range: it would go out of scope
    """\
    function make() {
      const big = { n: 1 };
      const use = () => big.n;
      setTimeout(() => 1);
      return use;
    }
    """,
    # a `var` does not move into the block's context
    """\
    function make() {
      var big = { n: 1 };
      const use = () => big.n;
      use();
      return () => 1;
    }
    """,
])
def test_not_offered_when_the_move_would_change_the_program_or_not_help(code):
    assert fixed(code) == []


@needs_node
def test_node_runs_the_fixed_code_and_collects_the_object():
    """The fix applied to the leak: V8 collects what it kept before (a WeakRef, read in a later task)."""
    assert NODE is not None

    def run(code: str) -> str:
        script = ("const refs = []; const track = (o) => (refs.push(new WeakRef(o)), o);\n"
                  + code.replace("{ data: [1, 2, 3] }", "track({ data: [1, 2, 3] })")
                  + "globalThis.kept = make();\n"
                  + "setTimeout(() => { global.gc(); process.stdout.write(refs[0].deref() ? 'kept' : 'gone'); });\n")
        return subprocess.run([NODE, "--expose-gc", "-e", script], capture_output=True, text=True, timeout=60,
                              check=True).stdout

    assert run(textwrap.dedent(LEAK)) == "kept"
    assert run(fixed(LEAK)[0]) == "gone"
