// Found by the soundness fuzzer (docs/fuzzing.md), minimized by hand.
// A destructuring assignment evaluates its source (and a default) before it
// writes the targets, so a closure created there is created before the write.
// fixed: write-after-operand-closure (writes take effect after the assigned value is evaluated)
declare function keep<T>(value: T): T;

export function arrayPattern(d: unknown) {
  [d] = [keep(() => d)];
}
// expect: d box

export function objectPattern(e: unknown) {
  ({ k: e } = { k: keep(() => e) });
}
// expect: e box

export function patternDefault(g: unknown) {
  [g = keep(() => g)] = [];
}
// expect: g box
