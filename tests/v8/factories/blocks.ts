// Blocks: V8 gives every block scope with a captured binding a context of its
// own, made when the block is entered, chained to the enclosing one.

// A captured `let` in the function body and one in a block: two contexts.
export function blockBesideFunction() {
  let outer = 1;
  let out: () => number;
  {
    let inner = 2;
    out = () => outer + inner;
  }
  return out;
}

// Only the block's binding is captured: the block's context alone.
export function onlyTheBlock() {
  let out: () => number;
  {
    const inner = 2;
    out = () => inner;
  }
  return out;
}

// Two nested blocks, each with a captured binding: a context for each.
export function nestedBlocks() {
  const out: Array<() => number> = [];
  {
    const a = 1;
    {
      const b = 2;
      out.push(() => a + b);
    }
  }
  return out;
}

// A block whose binding is not captured makes no context.
// v8-args: [5]
export function uncapturedBlock(seed: number) {
  {
    const doubled = seed * 2;
    seed = doubled;
  }
  return () => seed;
}

// Only the branch taken is entered.
// v8-args: [true]
export function branchTaken(flag: boolean) {
  let out = () => 0;
  if (flag) {
    const yes = 1;
    out = () => yes;
  } else {
    const no = 2;
    out = () => no;
  }
  return out;
}

// A function declaration in a block is scoped to the block.
export function functionInBlock() {
  let out: () => number;
  {
    function helper() {
      return 7;
    }
    out = () => helper();
  }
  return out;
}

// A class declared in a block and used by a closure.
export function classInBlock() {
  let out: () => object;
  {
    class Point {
      x = 1;
    }
    out = () => new Point();
  }
  return out;
}

// Blocks side by side: one context each, not merged.
export function siblingBlocks() {
  const out: Array<() => number> = [];
  {
    const first = 1;
    out.push(() => first);
  }
  {
    const second = 2;
    out.push(() => second);
  }
  return out;
}

// A never-reassigned `const` gets a slot all the same: no copy by value.
// v8-args: [3]
export function constStillInContext(n: number) {
  const square = n * n;
  return () => square;
}
