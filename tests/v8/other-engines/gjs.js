// SpiderMonkey through gjs, run after cases.js (the test concatenates them) as `gjs SCRIPT CASE`, one case per
// process: gjs never clears its WeakRefs, so the resident size after full collections tells (`CASE MB`).
var CASE = ARGV[0];
globalThis.kept = cases[CASE]();
for (var i = 0; i < 5; i++) imports.system.gc();
var status = new TextDecoder().decode(imports.gi.GLib.file_get_contents("/proc/self/status")[1]);
print(CASE + " " + Math.round(/VmRSS:\s+(\d+)/.exec(status)[1] / 1024));
