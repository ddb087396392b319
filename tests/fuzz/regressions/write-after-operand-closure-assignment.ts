// Found by the soundness fuzzer (docs/fuzzing.md), minimized by hand.
// An assignment evaluates its right-hand side first and writes its target last,
// so a closure created in the right-hand side exists before the write: the
// binding is written after capture and cannot be copied by value (DESIGN 2.1.2).
// The closures escape (passed to `keep`), so each binding needs a box.
// fixed: write-after-operand-closure (writes take effect after the assigned value is evaluated)
declare function keep<T>(value: T): T;

export function assign(a: unknown) {
  a = keep(() => a);
}
// expect: a box

export function compound(b: unknown) {
  b += keep(() => b);
}
// expect: b box

export function logical(c: unknown) {
  c ||= keep(() => c);
}
// expect: c box
