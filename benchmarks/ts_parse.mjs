// TypeScript's own parser over a list of files: the judge of what is valid syntax (benchmarks/parse_judge.py).
//
//   node benchmarks/ts_parse.mjs ROOT LIST   # one JSON object per file on stdout
//
// Each object is {"path", "diagnostics": [[line, column, code, message], ...]}: the parse diagnostics of
// ts.createSourceFile (syntax only, as `tsc` reports them before any type checking), with 1-based lines and
// 1-based columns in UTF-16 code units, as boxcheck reports positions.  The script kind follows the file's
// suffix, as tsc's does; a byte-order mark is dropped first, as boxcheck drops it, so columns agree.
// TypeScript is the version pinned in benchmarks/package-lock.json (`cd benchmarks && npm ci`).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, resolve } from "node:path";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const KINDS = {
  ".ts": ts.ScriptKind.TS, ".mts": ts.ScriptKind.TS, ".cts": ts.ScriptKind.TS, ".tsx": ts.ScriptKind.TSX,
  ".js": ts.ScriptKind.JS, ".mjs": ts.ScriptKind.JS, ".cjs": ts.ScriptKind.JS, ".jsx": ts.ScriptKind.JSX,
};

const [root, list] = process.argv.slice(2);
if (!root || !list) {
  process.stderr.write("usage: node benchmarks/ts_parse.mjs ROOT LIST\n");
  process.exit(2);
}
const out = [];
for (const path of readFileSync(list, "utf8").split("\n").filter(Boolean)) {
  let text;
  try {
    text = readFileSync(resolve(root, path), "utf8");
  } catch (error) {
    out.push(JSON.stringify({ path, error: String(error.message) }));
    continue;
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const kind = KINDS[extname(path).toLowerCase()] ?? ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const diagnostics = file.parseDiagnostics.map((d) => {
    const { line, character } = file.getLineAndCharacterOfPosition(d.start);
    return [line + 1, character + 1, d.code, ts.flattenDiagnosticMessageText(d.messageText, "\n")];
  });
  out.push(JSON.stringify({ path, diagnostics }));
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
