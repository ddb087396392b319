// The TypeScript side of tests/test_counts.py: compiled by tsc with source maps, run in Node, and weighted
// back onto this file through the maps.
const kept: Array<() => number> = [];

export function declared(n: number): void { let a = n, b = 0; kept.push(() => a++ + b++); }

export const arrow = (n: number): void => { let c: number = n; kept.push(() => c++); };

export class Shapes {
  static made(n: number): void { let g: number = n; kept.push(() => g++); }
  method(n: number): void { let f: number = n; kept.push(() => f++); }
  get size(): number { let h = 0; kept.push(() => h++); return 1; }
}

export function looping(n: number): void {
  for (let i = 0; i < n; i++) {
    let k: number = i;
    kept.push(() => k++);
  }
}

for (let r = 0; r < 5; r++) {
  declared(r);
  arrow(r);
  Shapes.made(r);
  const s = new Shapes();
  s.method(r);
  void s.size;
  looping(2);
}
