// Loops: the per-iteration `for (let ...)` head and the loop body are scopes
// of their own, each with a context per iteration when it has a slot.

// The head binding captured: a context per iteration.
// v8-args: [3]
export function forLetHead(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    out.push(() => i);
  }
  return out;
}

// Head and body bindings captured: two contexts per iteration.
// v8-args: [3]
export function forLetHeadAndBody(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    const twice = i * 2;
    out.push(() => i + twice);
  }
  return out;
}

// Only the body's binding captured: the head needs no context.
// v8-args: [3]
export function forLetBodyOnly(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    const copy = i;
    out.push(() => copy);
  }
  return out;
}

// A loop body that is a single statement.
// v8-args: [2]
export function forLetStatementBody(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) out.push(() => i * 3);
  return out;
}

// `for (const x of ...)`: a context per element.
// v8-args: [[4, 5, 6]]
export function forOfConst(items: number[]) {
  const out: Array<() => number> = [];
  for (const item of items) {
    out.push(() => item);
  }
  return out;
}

// `for (const k in ...)`: a context per key.
// v8-args: [{"a": 1, "b": 2}]
export function forInConst(record: Record<string, number>) {
  const out: Array<() => string> = [];
  for (const key in record) {
    out.push(() => key);
  }
  return out;
}

// A `while` body with a captured `const`: a context per iteration.
// v8-args: [3]
export function whileBody(n: number) {
  const out: Array<() => number> = [];
  let i = 0;
  while (i < n) {
    const value = i;
    out.push(() => value);
    i++;
  }
  return out;
}

// A `do ... while` body.
// v8-args: [2]
export function doWhileBody(n: number) {
  const out: Array<() => number> = [];
  let i = 0;
  do {
    const value = i * 10;
    out.push(() => value);
    i++;
  } while (i < n);
  return out;
}

// A `var` head is one binding for the whole call: the function's context.
// v8-args: [3]
export function forVarHead(n: number) {
  const out: Array<() => number> = [];
  for (var i = 0; i < n; i++) {
    out.push(() => i);
  }
  return out;
}

// Nested loops: the inner loop's contexts are made on each inner iteration.
// v8-args: [2, 3]
export function nestedLoops(rows: number, columns: number) {
  const out: Array<() => number> = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      out.push(() => row * columns + column);
    }
  }
  return out;
}

// Leaving by `break`: no context for a test that never runs.
// v8-args: [5]
export function forLetBreak(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    if (i === 2) break;
    out.push(() => i);
  }
  return out;
}

// No test: the loop ends by `break` inside the body.
// v8-args: [2]
export function forLetWithoutTest(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; ; i++) {
    if (i >= n) break;
    out.push(() => i);
  }
  return out;
}

// An outer `let` written in the loop: one binding, the function's context.
// v8-args: [[1, 2]]
export function outerLetWrittenInLoop(items: number[]) {
  let last = 0;
  const out: Array<() => number> = [];
  for (const item of items) {
    last = item;
    out.push(() => last);
  }
  return out;
}
