// typescript-eslint's parse + scope analysis over a file list: the peer boxcheck is measured against.
//
//   node benchmarks/eslint_scope.mjs --root CORPUS --list FILES.txt [--passes N]
//
// Each pass parses every file with @typescript-eslint/typescript-estree (range and loc on, as ESLint
// asks; no tokens or comments, which scope analysis does not need) and runs
// @typescript-eslint/scope-manager's analyze() on the tree. The first pass is "cold": its time counts
// from the process start (Node bootstrap, module loading, a JIT that has not seen the code yet). Later
// passes over the same files are "warm". Each in wall time and in CPU time of the process (boxcheck is
// compared in CPU time). One JSON object goes to stdout.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const options = { root: ".", list: null, passes: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, "");
  if (!(key in options) || argv[i + 1] === undefined) {
    process.stderr.write(`usage: node eslint_scope.mjs --root DIR --list FILE [--passes N]; bad option ${argv[i]}\n`);
    process.exit(2);
  }
  options[key] = key === "passes" ? Number(argv[i + 1]) : argv[i + 1];
}
if (options.list === null || !(options.passes >= 1)) {
  process.stderr.write("usage: node eslint_scope.mjs --root DIR --list FILE [--passes N]\n");
  process.exit(2);
}

const { parse } = await import("@typescript-eslint/typescript-estree");
const { analyze } = await import("@typescript-eslint/scope-manager");
const loaded = performance.now();

const names = readFileSync(options.list, "utf8").split("\n").map((line) => line.trim()).filter(Boolean);
const SCRIPT = /\.(c?js)$/i;

// CPU time of the whole process (every thread: the JIT's and the collector's too), in seconds.
function cpuSeconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function pass() {
  const started = performance.now();
  const startedCpu = cpuSeconds();
  let bytes = 0;
  let scopes = 0;
  const failures = [];
  for (const name of names) {
    const text = readFileSync(join(options.root, name), "utf8");
    try {
      const ast = parse(text, { jsx: /\.tsx$/i.test(name), range: true, loc: true, comment: false, tokens: false });
      const manager = analyze(ast, { sourceType: SCRIPT.test(name) ? "script" : "module" });
      scopes += manager.scopes.length;
      bytes += Buffer.byteLength(text, "utf8");
    } catch (error) {
      failures.push(`${name}: ${String(error.message).split("\n")[0]}`);
    }
  }
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds() - startedCpu, bytes, scopes,
    failures };
}

// VmHWM counts from this process's exec; getrusage's maxRSS starts at the harness's RSS (see measure.py).
function peakRssMb() {
  try {
    const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
    if (line) return Number(line.split(/\s+/)[1]) / 1024;
  } catch {}
  return process.resourceUsage().maxRSS / 1024;
}

const passes = [pass()];
const coldEnd = performance.now();
const coldCpu = cpuSeconds();
while (passes.length < options.passes) passes.push(pass());
const first = passes[0];
process.stdout.write(JSON.stringify({
  tool: "typescript-eslint",
  node: process.version,
  files: names.length,
  bytes: first.bytes,
  scopes: first.scopes,
  failures: first.failures,
  module_load_seconds: loaded / 1000,
  // from the process start to the end of the first pass
  cold_seconds: coldEnd / 1000,
  pass_seconds: passes.map((p) => p.seconds),
  // the same in CPU time of the process, which boxcheck is compared with
  cold_cpu_seconds: coldCpu,
  pass_cpu_seconds: passes.map((p) => p.cpuSeconds),
  peak_rss_mb: peakRssMb(),
}) + "\n");
