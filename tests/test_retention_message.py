"""Which holder a BX107 message names: one that can keep what the binding holds.

A closure made before the binding is declared may be handed out on a path that returns before the binding
holds anything (effect's Graph.ts: an early ``return { next() {...} }`` for one case of a walker, the
binding and another ``next`` after it); V8 keeps the context for both, but the early one keeps only an empty
slot, so naming it sent the reader to code that never sees the object.
"""

from __future__ import annotations

from capture_analysis.analyze import Analyzer
from capture_analysis.source import SourceFile

WALKER = """\
export function walker(n: number, deep: boolean) {
  const yielded = new Uint8Array(n);
  if (!deep) {
    return { next() { return yielded[0]; } };
  }
  const queue = new Uint32Array(n);
  const enqueue = (i: number) => { queue[i] = 1; };
  enqueue(0);
  return { next() { return yielded[1]; } };
}
"""


def retentions(text: str) -> dict[str, str]:
    analysis = Analyzer()(SourceFile("walker.ts", text))
    return {d.retention.binding.name: d.message for d in analysis.shown if d.retention is not None}


def test_the_holder_named_is_one_made_after_the_binding_is_declared():
    message = retentions(WALKER)["queue"]
    assert "is kept alive by `next` (returned at 9:12) and 1 other durable closure" in message


def test_with_no_holder_made_after_it_the_first_is_named():
    text = WALKER.replace("  return { next() { return yielded[1]; } };\n", "  return 0;\n")
    text = text.replace("    return { next() { return yielded[0]; } };\n",
                        "    globalThis.keep = { next() { return yielded[0]; } };\n")
    message = retentions(text)["queue"]
    assert "is kept alive by `next` (" in message and "4:" in message.split("through")[0]
