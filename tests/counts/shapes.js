// Every kind of function V8 reports, each allocating one heap context per run: tests/test_counts.py runs
// this file under NODE_V8_COVERAGE and checks the counts boxcheck --counts reads back.
"use strict";
const kept = [];

function declared(n) { let a = n, b = 0; kept.push(() => a++ + b++); }  //~ allocates 1 per call

const arrow = (n) => { let c = n; kept.push(() => c++); };  //~ allocates 1 per call

class Shapes {
  field = (() => { let d = 0; return () => d++; })();
  static { let e = 0; kept.push(() => e++); }
  method(n) { let f = n; kept.push(() => f++); }  //~ allocates 1 per call
  static made(n) { let g = n; kept.push(() => g++); }  //~ allocates 1 per call
  get size() { let h = 0; kept.push(() => h++); return 1; }  //~ allocates 1 per call
}

function looping(n) {
  for (let i = 0; i < n; i++) {
    let k = i;  //~ k: box
    kept.push(() => k++);
  }
}

function branching(n) {
  if (n > 100) {
    let m = n;
    kept.push(() => m++);
  }
  return n;
}

function neverCalled() { let z = 0; kept.push(() => z++); }

const runs = Number(process.argv[2] || "3");
for (let r = 0; r < runs; r++) {
  declared(r);
  arrow(r);
  const s = new Shapes();
  s.method(r);
  Shapes.made(r);
  void s.size;
  looping(4);
  branching(r);
}
