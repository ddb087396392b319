// JavaScriptCore: run after cases.js (the test concatenates them); prints `case=kept|collected` for every
// case, each watched with a WeakRef.
var refs = {};
var keep = {};
for (var name in cases) {
  keep[name] = (function (n) {
    var original = Leak;
    Leak = function (label) { var object = new original(label); refs[n] = new WeakRef(object); return object; };
    try { return cases[n](); } finally { Leak = original; }
  })(name);
}
// A WeakRef keeps its target alive until the end of the job that made it: look in a later one.
setTimeout(function () {
  for (var i = 0; i < 5; i++) gc();
  var out = [];
  for (var n in refs) out.push(n + "=" + (refs[n].deref() ? "kept" : "collected"));
  print(out.join(" "));
}, 0);
