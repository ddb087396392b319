// Found by the soundness fuzzer (docs/fuzzing.md) with the `stack` check, in
// its first minute; minimized by hand. `for (let i = 0, g; ...)` gives every
// iteration a fresh copy of `i` and `g`, initialized from the previous
// iteration's copy: the closure stored in `g` reaches the next iteration, which
// calls it. It refers to the previous iteration's `y` (Node answers 1), which
// one frame slot would merge with the current one (10): a closure that refers to
// `y` outlives the iteration (DESIGN 2.3), so `y` is not `stack`. The head
// binding `g` is the loop's, but what its copy holds is the previous iteration's.
// fixed: closure-carried-by-for-head-copy (a for-let head binding carries a closure into the next iteration: Loop.copies_head)
declare function keep<T>(value: T): T;

export function forLetHead() {
  for (let i = 0, g: any; i < 2; i++) {
    let y = i * 10;
    g?.();
    g = () => y;
    y++;
  }
}
// expect: y box

export function forLetHeadUnbraced() {
  for (let i = 0, g: any; i < 2; i++) if (i >= 0) {
    let z = i * 10;
    g?.();
    g = () => z;
    z++;
  }
}
// expect: z box
