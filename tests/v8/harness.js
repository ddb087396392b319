'use strict';
// Asks V8 which bindings of each factory it stores in heap contexts and how
// many contexts one call creates.  docs/v8.md explains the method.
//
// Usage: node harness.js [--args TABLE.json] FILE.ts...
//
// Every exported function declaration of each file is a factory and is called
// once.  Its arguments come from a `// v8-args: [...]` comment on the line
// above it, else from TABLE.json ({"path as given": {"name": [...]}}); a
// factory without required parameters is called with none.  Prints one JSON document:
//   {node, v8, typescript, files: [{path, error, scopes, declarations,
//    cases: [{name, line, column, args, entries, tests, contexts, reachable, errors}]}]}
// Exit status: 0 when every file was measured, 1 when one was not (its
// `error` says why), 2 on bad usage.

const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { instrument, Unsupported, typescriptVersion } = require('./instrument');

function parseArguments(argv) {
  const files = [];
  let table = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--args') table = JSON.parse(fs.readFileSync(argv[++i], 'utf8'));
    else files.push(argv[i]);
  }
  return { files, table };
}

function argumentsFor(factory, file, table) {
  if (factory.args !== null) return factory.args;
  const listed = (table[file] || {})[factory.name];
  if (listed !== undefined) return listed;
  if (factory.required === 0) return [];
  throw new Unsupported(`no arguments for \`${factory.name}\`: add a \`// v8-args: [...]\` comment above it `
    + 'or an entry in the --args table');
}

function prepare(file, table, workDir, index) {
  const source = fs.readFileSync(file, 'utf8');
  const { plain, probed, scopes, declarations, factories } = instrument(source, path.basename(file));
  const plainJs = path.join(workDir, `${index}.plain.js`);
  const probedJs = path.join(workDir, `${index}.probed.js`);
  fs.writeFileSync(plainJs, plain);
  fs.writeFileSync(probedJs, probed);
  const cases = factories.map((f) => ({ ...f, args: argumentsFor(f, file, table) }));
  return { path: file, plainJs, probedJs, scopes, declarations, cases };
}

function main() {
  const { files, table } = parseArguments(process.argv.slice(2));
  if (files.length === 0) {
    process.stderr.write('usage: node harness.js [--args TABLE.json] FILE.ts...\n');
    return 2;
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxcheck-v8-'));
  try {
    const prepared = files.map((file, index) => {
      try {
        return prepare(file, table, workDir, index);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        return { path: file, error: error.message };
      }
    });
    const measurable = prepared.filter((f) => !f.error);
    const planPath = path.join(workDir, 'plan.json');
    fs.writeFileSync(planPath, JSON.stringify({ files: measurable }));
    const child = childProcess.spawnSync(process.execPath, [path.join(__dirname, 'measure.js'), planPath], {
      encoding: 'utf8', maxBuffer: 256 * 1024 * 1024,
    });
    if (child.status !== 0) {
      process.stderr.write(child.stderr);
      throw new Error(`measure.js exited with ${child.status}`);
    }
    const measured = JSON.parse(child.stdout);
    measurable.forEach((file, index) => {
      file.cases = file.cases.map((call, caseIndex) => ({ ...call, ...measured.files[index].cases[caseIndex] }));
      for (const failure of measured.failures.filter((f) => f.file === index)) {
        if (failure.case === null) file.error = failure.message;
        else file.cases[failure.case].errors = [failure.message];
      }
      delete file.plainJs;
      delete file.probedJs;
    });
    const report = {
      node: process.version, v8: process.versions.v8, typescript: typescriptVersion, files: prepared,
    };
    process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
    return prepared.some((f) => f.error) ? 1 : 0;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

process.exitCode = main();
