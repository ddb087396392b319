// Found by the soundness fuzzer (docs/fuzzing.md); hypothesis shrank it to the
// last function, the others are the same bug in each destructuring form.
// A destructuring evaluates its source first and runs its pattern after, so a
// default in the pattern that writes a binding writes it after a closure created
// in the source captured it: not `value` (DESIGN 2.1.2), although the write
// stands before that closure in the text.
// fixed: pattern-default-write-after-source (pattern defaults run after the source)
declare function keep<T>(value: T): T;

export function declarationDefault(x: unknown) {
  let { a = (x = 1) } = { b: keep(() => x) };
}
// expect: x box

export function assignmentDefault(y: unknown, a: unknown) {
  ({ a = (y = 1) } = { b: keep(() => y) });
}
// expect: y box

export function arrayDefault(z: unknown, a: unknown, b: unknown) {
  [b, a = (z = 1)] = [keep(() => z)];
}
// expect: z box

export function parameterDefault(w: unknown, { a = (w = 1) } = { b: keep(() => w) }) {}
// expect: w box

export function forOfHeadDefault(v: unknown) {
  for (const { a = (v = 1) } of [{ b: keep(() => v) }]) {}
}
// expect: v box

export function blockFunction() {
  {
    function f() {}
    let { a = (f = () => {}) } = { b: (() => f)() };
  }
}
// expect: f stack
