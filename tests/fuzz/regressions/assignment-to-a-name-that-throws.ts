// Found by the soundness fuzzer's try family (generate_try.py, docs/fuzzing.md).
// DESIGN 2.1.2: the `catch` follows only the points of the `try` block after
// which something may throw.  boxcheck (flow/throws.py) took an assignment to
// a name never to throw, but assigning a `const` throws a TypeError (in any
// mode), and assigning a `let` in its TDZ a ReferenceError: the `catch` then
// runs after `g` captured `y` (`z`), and its write is one that `g` sees (Node:
// `constant()()` and `tdz()()` return 2).  `g` escapes, so each needs a box.
// fixed: assignment-to-a-name-that-throws (the binder tells the control-flow builder which assignments to names may throw)
declare function keep<T>(value: T): T;

export function constant() {
  let y = 1;
  const c = 0;
  let g: any;
  try {
    g = () => y;
    // @ts-ignore: assigning a const (it throws)
    c = 1;
  } catch { y = 2; }
  return g;
}
// expect: y box

export function tdz() {
  let z = 1;
  let g: any;
  try {
    g = () => z;
    h = 1;
  } catch { z = 2; }
  let h = 0;
  return g;
}
// expect: z box
