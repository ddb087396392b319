// Found by the soundness fuzzer's function-declaration families (docs/fuzzing.md).
// Under `optimal` a function declaration is created at its first possible read
// (DESIGN 2.1.1), but boxcheck took that to be its textually first reference,
// which need not run first: in `branches` the first reference is in the `if`
// arm, and a run through the `else` arm reads `f` there and then writes `x`
// (a copy of `x` made at `f`'s creation would be stale); in `leaves` the first
// reference is in an arm that throws, so the write after the other reference
// seems unreachable; in `sourceFirst` the pattern's default is printed before
// the source, but the source runs first and reads `g` while `b` is in its TDZ.
// Each binding escapes with `f`/`g` (kept), so it needs a box.
// fixed: first-read-in-text-order (every possible read of a declaration is a possible creation point: creation.Created.points)
declare function keep<T>(value: T): T;

export function branches(c: number) {
  let x = 0;
  if (c) { f(); } else { keep(f); x = 1; }
  function f() { return x; }
}
// expect: x box

export function leaves(c: number) {
  let y = 0;
  if (c) throw g();
  keep(g);
  y = 1;
  function g() { return y; }
}
// expect: y box

export function sourceFirst() {
  const { b = 1, a = h } = { c: keep(h) };
  function h() { return b; }
}
// expect: b box
