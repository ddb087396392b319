// Closures handed to functions of this file (DESIGN 2.2.1): the green edges of `boxcheck graph`.

// Only calls `g`: a closure handed to it stays in the call.
function inner(g: () => void) {
  g();
}

// Calls `f`, and hands a closure that captures it to `inner`.
function each(xs: number[], f: (x: number) => void) {
  for (const x of xs) f(x);
  inner(() => f(0));
}

// Hands `h` on: a chain `forward` -> `inner`.
function forward(h: () => void) {
  inner(h);
}

// Keeps `k`: a closure handed to it escapes, and only its escape edge is drawn.
function keep(k: () => void) {
  saved.push(k);
}
const saved: Array<() => void> = [];

export function run(xs: number[]) {
  let a = 0, b = 0, c = 0;
  each(xs, (x) => { a += x; });
  forward(() => { b++; });
  keep(() => { c++; });
  const cb = () => { a++; };
  // `inner` receives `wrap`, not `cb`: the edge starts at `wrap`
  const wrap = () => cb();
  inner(wrap);
  each(xs, cb);
  return a + b + c;
}
