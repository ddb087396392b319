// Found by the soundness fuzzer (docs/fuzzing.md) on the first long run with
// unbraced loop bodies and the `stack` check; the first function is what it
// found, minimized by hand, the others are the same bug under other loops and
// other statements. Every block that a loop runs again is a fresh scope instance
// per iteration (DESIGN 2.3, issue 16), whatever statement nests it in the loop:
// `y` is one binding per iteration. `g` outlives the iteration and the next
// iteration calls the closure it holds, which must still see its own `y` (0, not
// the next iteration's 1): one frame slot would merge them, so `y` is not `stack`.
// fixed: per-iteration-block-in-unbraced-loop-body (issue 16: every block a loop runs again is a fresh instance per iteration)
declare function keep<T>(value: T): T;

export function forVarTry() {
  let g: any;
  for (var i = 0; i < 2; i++) try {
    let y = 1;
    g?.();
    g = () => y;
    y = 0;
  } finally {}
  g?.();
}
// expect: y box

export function whileIf(n: number) {
  let g: any;
  let w = 0;
  while (w++ < n) if (w > 0) {
    let a = w;
    g?.();
    g = () => a;
    a++;
  }
}
// expect: a box

export function doLabelledBlock(n: number) {
  let g: any;
  let w = 0;
  do L: {
    let b = w;
    g?.();
    g = () => b;
    b++;
    if (b > 2) break L;
  } while (w++ < n);
}
// expect: b box

export function forOfSwitch(xs: number[]) {
  let g: any;
  for (var x of xs) switch (x) {
    case 0:
      let c = x;
      g?.();
      g = () => c;
      c++;
  }
}
// expect: c box

export function innerLoopOfABracedOne(n: number) {
  for (let i = 0; i < n; i++) {
    let g: any;
    for (var j = 0; j < n; j++) if (j >= 0) {
      let d = j;
      g?.();
      g = () => d;
      d++;
    }
  }
}
// expect: d box
