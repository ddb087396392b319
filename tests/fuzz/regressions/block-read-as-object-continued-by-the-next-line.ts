// Found by the soundness fuzzer (docs/fuzzing.md) in a 150 s run; the first
// function is what it found, minimized by hand, the others the same misreading
// under a call and a template. A block that starts a statement, `{ L7: {} }`,
// then on the next line `[v4, r3] = [r3, v4]`: JavaScript reads a block, then
// a destructuring assignment that writes `r3`; tree-sitter read an object
// literal subscripted by `[v4, r3]`, one expression statement, so the write was
// lost and `r3` was `value`, which Node refuted (the closure saw the old array).
// The repair (docs/parsing.md, `block-read-as-object`) ends the braces' statement.
// fixed: block-read-as-object (no expression statement starts with `{`: the line break after the block becomes a `;`)
declare function keep<T>(value: T): T;
declare let v4: any;

export function destructured(...r3: number[]) {
  if (keep(() => r3)) { L7: {} }
  [v4, r3] = [r3, v4];
}
// expect: r3 box

export function called(r4: number) {
  keep(() => r4);
  { L7: {} }
  (r4 = 2);
}
// expect: r4 box

export function tagged(r5: number) {
  keep(() => r5);
  { a: 1 }
  `${r5 = 1}`;
}
// expect: r5 box

export function initializer(r6: number[]) {
  keep(() => r6);
  const o: any = { L7: {} }
  [r6] = [1];
  return o;
}
// expect: r6 value
