// Found by the soundness fuzzer (docs/fuzzing.md), minimized by hand.
// `for (x of e)` and `for (x in e)` evaluate `e` once, then write `x` on every
// iteration: a closure created in `e` exists before the first write. A `var`
// (or an existing binding) in the head is one binding for all iterations.
// fixed: write-after-operand-closure (writes take effect after the assigned value is evaluated)
declare function keep<T>(value: T): T;

export function forOfVar() {
  for (var i of [keep(() => i)]) {}
}
// expect: i box

export function forOfExisting(j: unknown) {
  for (j of [keep(() => j)]) {}
}
// expect: j box

export function forInVar() {
  for (var k in { a: keep(() => k) }) {}
}
// expect: k box
