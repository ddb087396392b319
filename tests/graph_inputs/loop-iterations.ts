// Loops: each iteration is a scope instance of its own, drawn as a stacked card;
// what a card holds is allocated once per turn of that loop.

// `hits` is one box per row; `seen` and `last` share one context per cell.
export function grid(rows: number, cols: number) {
  const cells: Array<() => number> = [];
  for (let r = 0; r < rows; r++) {
    let hits = 0;
    for (let c = 0; c < cols; c++) {
      let seen = 0,
        last = c;
      cells.push(() => {
        hits++;
        seen++;
        last = r;
        return seen + last + c;
      });
    }
  }
  return cells;
}

// `total` is written in the loop before each closure: one box per call.
export function drain(queue: number[]) {
  let total = 0;
  const handlers: Array<() => number> = [];
  while (queue.length > 0) {
    const item = queue.pop()!;
    total += item;
    handlers.push(() => item + total);
  }
  return handlers;
}
