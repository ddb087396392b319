// Found by the soundness fuzzer (docs/fuzzing.md) with the `stack` check, after
// about 6,000 programs; the last function is what hypothesis shrank it to, the
// others are the same bug minimized by hand. `x ??= e` and `x ||= e` evaluate to
// `x`'s old value when it is not nullish (resp. truthy), and a closure always
// is: the closure held in `x` flows into what uses the expression (`keep`, a
// binding that escapes, `return`, an object literal destructured and yielded),
// so it escapes, and the binding it writes is not `stack` (DESIGN 2.2). boxcheck
// follows only `e` out of such an assignment (as it should for `x = e`).
// fixed: logical-assignment-value-is-the-old-value (the value of x ??= e / x ||= e flows from x too)
declare function keep<T>(value: T): T;

export function nullishKept(a: any) {
  let x = () => a;
  a = 1;
  keep(x ??= null);
}
// expect: a box

export function orDeclared(b: any) {
  let x = () => b;
  b = 1;
  let y: any = (x ||= null);
  keep(y);
}
// expect: b box

export function nullishReturned(c: any) {
  let x = () => c;
  c = 1;
  return x ??= null;
}
// expect: c box

export function* generatorParameters(p: any = () => (p = () => {}), { a: q } = { a: (p ??= function () {}) }) {
  yield q;
}
// expect: p box
