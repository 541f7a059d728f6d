#!/usr/bin/env node
// Size of the source: files over 600 lines and functions over 80 lines (a function's lines from its
// first to its last, nested functions counted on their own too), in the packages' `src/` and in
// `scripts/`; tests, generated files and build output are not counted. Prints the counts, then each
// offender, largest first. `--json` prints the same as JSON. `--max-functions N` / `--max-files N`
// exit 1 when the counts pass them (for a CI bound).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const PACKAGES = [
  'grammar',
  'compiler',
  'machine',
  'runtime',
  'lsp',
  'panel',
  'playground',
  'cli',
  'vscode-extension',
];
const FILE_LIMIT = 600;
const FUNCTION_LIMIT = 80;
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const SKIP = /(^|\/)(node_modules|dist|out|generated|test|__snapshots__)(\/|$)|\.d\.ts$|\.generated\./;

function walk(dir, found = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (SKIP.test(relative(ROOT, path))) continue;
    if (statSync(path).isDirectory()) walk(path, found);
    else if (SOURCE.test(name)) found.push(path);
  }
  return found;
}

function functionName(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

function measure(path) {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  const functions = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      if (lines > FUNCTION_LIMIT)
        functions.push({ file: relative(ROOT, path), name: functionName(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return { lines, functions };
}

const files = [...PACKAGES.flatMap((pkg) => walk(join(ROOT, pkg, 'src'))), ...walk(join(ROOT, 'scripts'))];
const bigFiles = [];
const bigFunctions = [];
for (const path of files) {
  const { lines, functions } = measure(path);
  if (lines > FILE_LIMIT) bigFiles.push({ file: relative(ROOT, path), lines });
  bigFunctions.push(...functions);
}
bigFiles.sort((a, b) => b.lines - a.lines);
bigFunctions.sort((a, b) => b.lines - a.lines);

const args = process.argv.slice(2);
const limit = (flag) => {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : Number(args[at + 1]);
};
if (args.includes('--json')) {
  console.log(JSON.stringify({ files: files.length, bigFiles, bigFunctions }, null, 2));
} else {
  console.log(
    `${files.length} source files; ${bigFiles.length} over ${FILE_LIMIT} lines; ${bigFunctions.length} functions over ${FUNCTION_LIMIT} lines`,
  );
  if (bigFiles.length) console.log(`\nfiles over ${FILE_LIMIT} lines:`);
  for (const f of bigFiles) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}`);
  if (bigFunctions.length) console.log(`\nfunctions over ${FUNCTION_LIMIT} lines:`);
  for (const f of bigFunctions) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}  ${f.name}`);
}
const maxFunctions = limit('--max-functions');
const maxFiles = limit('--max-files');
if (
  (maxFunctions !== undefined && bigFunctions.length > maxFunctions) ||
  (maxFiles !== undefined && bigFiles.length > maxFiles)
)
  process.exitCode = 1;
