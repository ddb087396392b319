"""The diagnostic catalogue: one entry per code, codes never reused.

Each rule's doc has three sections, *What it does*, *Why is this bad?* and
*Example*, in the manner of ruff; ``docs/rules.md`` is generated from here
(``python -m capture_analysis.commands.rules_doc --write``) and a test keeps it in
step.  New rules go at the end, with a new code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

#: The generated catalogue.  Editors link each diagnostic to its section here
#: (LSP ``codeDescription.href``); the README installs boxcheck from its
#: checkout, so the page is on disk beside the package.
DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


class Severity(enum.IntEnum):
    """Ordered so that ``severity >= fail_on`` means "counts as a finding"."""

    HINT = 1
    INFO = 2
    WARNING = 3
    ERROR = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def lsp(self) -> int:
        return {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3, Severity.HINT: 4}[self]

    @property
    def sarif(self) -> str:
        return {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(self, "note")


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    what: str
    why: str
    example: str

    @property
    def anchor(self) -> str:
        return f"{self.code.lower()}-{self.name}"

    @property
    def href(self) -> str:
        """The rule's section of ``docs/rules.md``, as a URI."""
        return f"{DOCS_PAGE.as_uri()}#{self.anchor}"

    def doc(self) -> str:
        return (f"## {self.code} {self.name}\n\n{self.summary}\n\nDefault severity: {self.severity.label}.\n\n"
                f"### What it does\n{self.what}\n\n### Why is this bad?\n{self.why}\n\n"
                f"### Example\n```ts\n{self.example.strip()}\n```\n")


RULES: dict[str, Rule] = {}


def _rule(code: str, name: str, severity: Severity, summary: str, what: str, why: str, example: str) -> Rule:
    rule = Rule(code, name, severity, summary, what, why, example)
    assert code not in RULES, code
    RULES[code] = rule
    return rule


SYNTAX_ERROR = _rule(
    "BX001", "syntax-error", Severity.ERROR,
    "The parser could not read part of the file.",
    "Reports each ERROR or MISSING node of the tree-sitter parse that no repair explains, at the first "
    "offending token, naming it and the construct around it (`unexpected `)` in an argument list`). Valid "
    "TypeScript that tree-sitter-typescript 0.23 rejects (variance annotations, `export type *`, generic "
    "call signatures split over lines, `for (using x of xs)`, and the other families of docs/parsing.md) is "
    "rewritten in a copy without moving a byte and parsed again, so it is no finding. The rest of the file "
    "is still analyzed; the bindings of every function around the damaged text are decided conservatively "
    "(shared heap storage, never `value` or `local`) because a write or a capture may hide in the damage.",
    "A capture analysis that guesses through broken code could call a binding `value` although a write "
    "after its capture sits in the unreadable part: a miscompile in a compiler that trusted it.",
    """
function counter() {
  let n = 0;
  return () => { n++ ;;) };   // BX001: unexpected `)` in a block; `n` is decided conservatively
}
""")

DYNAMIC_SCOPE = _rule(
    "BX002", "dynamic-scope", Severity.WARNING,
    "A direct `eval` or a `with` statement can reach every visible binding.",
    "Reports each direct `eval(...)` call and each `with` statement. Every binding visible from it is "
    "treated as captured and written: it gets shared heap storage.",
    "Code passed to `eval` can create closures over, and assign to, any binding in scope, so nothing about "
    "those bindings can be decided statically. Engines deoptimize such functions too.",
    """
function f(src: string) {
  let x = 1;
  eval(src);        // BX002: `x` may be captured and written by the evaluated code
  return () => x;
}
// Fix: pass what the code needs explicitly, e.g. `new Function("x", src)(x)`.
""")

UNSUPPORTED_TYPE_SYNTAX = _rule(
    "BX004", "unsupported-type-syntax", Severity.HINT,
    "The parser could not read a piece of type syntax; the run-time code around it is analyzed normally.",
    "Reports an ERROR or MISSING node of the parse that no repair explains and that lies entirely inside "
    "type syntax (type parameters, annotations, type aliases, interfaces, signatures). Types have no "
    "run-time effect, so no function around the damage is made conservative. The text output shows the "
    "first of a file's BX004 findings with the count of the others; `--format json` and the editor (at "
    "hint severity) show every one.",
    "It is not: it tells you why a parse had errors and that the analysis did not degrade because of them. "
    "The constructs tree-sitter-typescript 0.23 is known to reject are repaired before they get this far "
    "(docs/parsing.md); one that still does is worth reporting.",
    """
type Check = (unknown: number) => void;   // BX004: a parameter named `unknown` in a function type
""")

UNUSED_SUPPRESSION = _rule(
    "BX003", "unused-suppression", Severity.WARNING,
    "A suppression comment suppresses nothing, or names a code that does not exist.",
    "Reports each `boxcheck-ignore`, `boxcheck-ignore-next-line` or `boxcheck-ignore-file` comment (or each "
    "code it lists) that matched no finding, and each listed code that is not in this catalogue. Findings "
    "are matched on the line where they start. Suppression comments do not apply to this rule; the "
    "configuration can lower its severity or turn it off.",
    "A suppression outlives the finding it was written for: the code was fixed, or the analysis learned "
    "that the binding needs no box. Left in place, it would silently hide a new finding on that line. "
    "(ruff reports unused `noqa` comments for the same reason.)",
    """
function counter() {
  const step = 1;   // boxcheck-ignore BX101 -- `step` is never written: nothing to suppress (BX003)
  let n = 0;        // boxcheck-ignore BX101 -- ok: this finding is suppressed
  return () => (n += step);
}
// Fix: delete the comment on the `step` line.
""")

HEAP_CAPTURE = _rule(
    "BX101", "heap-capture", Severity.WARNING,
    "A captured binding needs a heap box or a slot in a heap context, once per call.",
    "Reports a binding that a closure captures and that must live in shared heap storage: it is written "
    "after a capturing closure was created (directly, or, for a parameter, possibly through its function's "
    "sloppy-mode `arguments` object), or captured before it is initialized, and a closure that "
    "refers to it outlives the activation. The message names the capturing closure, the write or early "
    "capture that rules out a by-value copy, and how the closure escapes.",
    "Each such binding costs a heap allocation per call (a box, or a share of a context object) and an "
    "indirection on every access. In a factory called in a hot loop this dominates: the reference case "
    "measured factories 115-260x slower than Node because of it.",
    """
function counter(start: number) {
  let count = start;            // BX101: reassigned inside `inc`, which escapes
  return { inc() { count++; return count; } };
}
// Fix, when the state need not be a binding: keep it in an object the closures share,
//   const state = { count: start };  return { inc() { return ++state.count; } };
""")

LOOP_CAPTURE = _rule(
    "BX102", "per-iteration-capture", Severity.WARNING,
    "A captured binding needs a heap box or context on every loop iteration.",
    "Reports a binding declared inside a loop body (or a per-iteration `for` head) that must live in shared "
    "heap storage: one allocation per iteration, not per call.",
    "The allocation is multiplied by the trip count of the loop; it is the most expensive kind of capture.",
    """
for (const item of items) {
  let tries = 0;                   // BX102: reassigned inside the arrow, which is passed to `retry`
  retry(() => { tries++; return send(item); });
}
// Fix: hoist the closure out of the loop, or move the write before the closure is created.
""")

CAPTURED_BEFORE_INIT = _rule(
    "BX103", "captured-before-init", Severity.WARNING,
    "A never-reassigned binding still needs shared storage because a closure captures it before it is initialized.",
    "Reports a binding that is never written after its initialization but that a closure captures before "
    "the initialization runs: a hoisted function declaration that refers to a `const` of its own scope, "
    "a closure created earlier in the code, a default parameter that refers to a later parameter, a "
    "closure inside the binding's own initializer that is not the initializer itself, or a closure in a later "
    "`case` clause of the `switch` whose clause declares the binding (a run that enters at that clause skips "
    "the declaration), or a closure in a class's computed key or `extends` clause that refers to the class's "
    "own name (bound only once the class is defined). A by-value copy made "
    "when the closure is created would miss the initialization, so the binding needs a shared slot. The "
    "message names that closure and says why it runs first.",
    "This is the one case where the rule \"never-reassigned bindings need no box\" does not apply (the other "
    "side is BX104, the boxes the rule removes); it is usually accidental and cheap to fix by reordering.",
    """
function make(i: number) {
  function get() { return s.v; }   // created when `make` is entered ...
  const s = { v: i };              // BX103: ... before `s` is initialized
  return get;
}
// Fix: declare `s` before a closure that is an expression: `const get = () => s.v;` after `s`.
""")


NEVER_REASSIGNED_BOXED = _rule(
    "BX104", "never-reassigned-boxed", Severity.INFO,
    "The legacy rule boxes a captured binding that is never reassigned and needs no heap storage.",
    "Reported by `--compare` when it compares `legacy` with `optimal`: a binding that nothing reassigns "
    "(a closure-valued `const`, a function declaration, a `const` a function declaration reads, an array "
    "whose `push` legacy counts as a write) that `legacy` puts in a box of its own, while `optimal` needs no "
    "heap storage for it (it is `value`, `stack` or `local`). The message names the legacy rule that boxed "
    "it and why `optimal` does not need to.",
    "This is the overboxing that the rule \"a captured binding that is never reassigned needs no box\" "
    "removes. In the reference case it is 8 boxes per call of a factory of eight `const` arrows, which ran "
    "3.6x slower than the same closures held in an array. The other side of the rule is BX103: the "
    "never-reassigned bindings that do need shared storage.",
    """
function arrowConst(i: number) {
  const f = (x: number) => x + i;   // BX104: legacy boxes `f` (fallback arm); optimal copies it by value
  return () => f(1);
}
""")

UNMODELLED_FUNCTION = _rule(
    "BX105", "unmodelled-function", Severity.INFO,
    "The selected policy does not count all of this function's allocations.",
    "Reported under a policy (`--policy`, or one of `--compare`) that knows it leaves some allocations of a "
    "function out: under `legacy`, an async function with `await` and a generator, which the compiler of the "
    "reference case rewrites into a state machine with cells for its control state and every local.",
    "The function's count under that policy is a lower bound: compare it with measurements of the compiler, "
    "not with the other policies.",
    """
async function load(i: number) {   // BX105 under legacy: the state machine's cells are not counted
  let x = i;
  await null;
  return x + 1;
}
""")
