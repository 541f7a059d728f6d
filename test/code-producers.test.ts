// Every diagnostic code has one producer: the one file that makes diagnostics with it, whose name says what
// it checks. This test reads the sources (the TypeScript syntax, not text patterns), finds every place a
// diagnostic is made and the codes it may have there, and holds docs/diagnostics.md's table to what it finds.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CODES } from '@kairoku-playbook/compiler';

const ROOT = new URL('../', import.meta.url).pathname;
const CODE = /^PB\d{3}$/;

/**
 * Producers outside the compiler. The machine's explorer makes PB310 and PB311 (`check --explore`). No
 * edge writes out a PB100 of its own: a file refused unread gets the compiler's (`refusalDiagnostic`, in
 * the workspace loader's read). Kept exact: a producer appearing or disappearing out there changes it.
 */
const OUTSIDE_THE_COMPILER: Record<string, string[]> = {
  'machine/src/explore/diagnostics.ts': ['PB310', 'PB311', 'PB312'],
};

/** The edges that write out a compiler PB100 rather than decide one: not the code's producer. */
const RELAYS = new Set(Object.keys(OUTSIDE_THE_COMPILER).filter((file) => !file.includes('/explore/')));

function sources(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'generated' && name !== 'node_modules') found.push(...sources(path));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

interface Site {
  file: string;
  line: number;
  /** the codes a diagnostic made here may have; undefined when they cannot be read off the source */
  codes: string[] | undefined;
  how: string;
}

/** The string literals an expression can be: a literal, or a conditional between such expressions. */
function literals(expr: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
  if (ts.isParenthesizedExpression(expr)) return literals(expr.expression);
  if (ts.isConditionalExpression(expr)) {
    const a = literals(expr.whenTrue);
    const b = literals(expr.whenFalse);
    return a && b ? [...a, ...b] : undefined;
  }
  return undefined;
}

/**
 * Where a file makes diagnostics: `createDiagnostic(file, CODE, …)`, `context.report(CODE, …)`, or an
 * object literal with `code` and `severity` (a diagnostic written out by hand).
 */
function sitesOf(path: string): Site[] {
  const file = relative(ROOT, path);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const sites: Site[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : undefined;
      const argument =
        name === 'createDiagnostic' ? node.arguments[1] : name === 'report' ? node.arguments[0] : undefined;
      if (argument) sites.push({ file, line: line(node), codes: literals(argument), how: `${name}(…)` });
    }
    if (ts.isObjectLiteralExpression(node)) {
      const names = node.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : ''));
      if (names.includes('code') && names.includes('severity')) {
        const code = node.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'code');
        const codes = code && ts.isPropertyAssignment(code) ? literals(code.initializer) : undefined;
        sites.push({ file, line: line(node), codes, how: 'an object literal' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

const compilerSites = sources(join(ROOT, 'compiler/src')).flatMap(sitesOf);

const otherSites = ['cli/src', 'lsp/src', 'machine/src', 'runtime/src', 'vscode-extension/src', 'grammar/src']
  .flatMap((folder) => sources(join(ROOT, folder)))
  .flatMap(sitesOf);

/** Code → its producer files, from the sites. */
function producers(sites: readonly Site[]): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const site of sites) {
    for (const code of site.codes ?? []) {
      if (!table.has(code)) table.set(code, new Set());
      table.get(code)!.add(site.file);
    }
  }
  return table;
}

/** The producer of each code: the compiler's, else the one outside it (relays left out). */
function producerTable(): Map<string, string> {
  const table = new Map<string, string>();
  const inside = producers(compilerSites);
  const outside = producers(otherSites.filter((site) => !RELAYS.has(site.file)));
  for (const code of Object.keys(CODES)) {
    const files = [...(inside.get(code) ?? outside.get(code) ?? [])];
    if (files.length === 1) table.set(code, files[0]!);
  }
  return table;
}

describe('every code has one producer', () => {
  it('the compiler makes every diagnostic with createDiagnostic or report, with its code written out', () => {
    // Those that pass a code through: createDiagnostic's own object, CheckContext.report's call of it (and
    // TestCheckContext.report's, for playbook tests), and the JSON form of a diagnostic.
    const forwarders = compilerSites.filter((s) => s.codes === undefined).map((s) => `${s.file} ${s.how}`);
    expect(forwarders).toEqual([
      'compiler/src/check-context.ts createDiagnostic(…)',
      'compiler/src/diagnostic.ts an object literal',
      'compiler/src/json-diagnostic.ts an object literal',
      'compiler/src/playbook-tests/test-context.ts createDiagnostic(…)',
    ]);
    for (const site of compilerSites)
      for (const code of site.codes ?? []) expect(CODE.test(code), code).toBe(true);
  });

  it('each code of the compiler is made in exactly one file', () => {
    const table = producers(compilerSites);
    const shared = [...table]
      .filter(([, files]) => files.size > 1)
      .map(([code, files]) => `${code}: ${[...files].join(', ')}`);
    expect(shared).toEqual([]);
    const unknown = [...table.keys()].filter((code) => !(code in CODES));
    expect(unknown).toEqual([]);
  });

  it('every code has a producer, and the producers outside the compiler are the known ones', () => {
    const inside = producers(compilerSites);
    const outside = producers(otherSites);
    const found: Record<string, string[]> = {};
    for (const [code, files] of outside) for (const file of files) (found[file] ??= []).push(code);
    for (const codes of Object.values(found)) codes.sort();
    expect(found).toEqual(OUTSIDE_THE_COMPILER);
    const orphans = Object.keys(CODES).filter((code) => !inside.has(code) && !outside.has(code));
    expect(orphans).toEqual([]);
    // a code is the compiler's or the explorer's, never both
    const both = [...outside.keys()].filter((code) => inside.has(code) && code !== 'PB100');
    expect(both).toEqual([]);
  });

  it('the surface schema names only codes a check turns into diagnostics', () => {
    const schema = readFileSync(join(ROOT, 'grammar/schema/playbook.schema.json'), 'utf8');
    const named = new Set(
      [...schema.matchAll(/"x-(?:unknown-key-)?code":\s*"(PB\d{3})"/g)].map((m) => m[1]!),
    );
    const surface = readFileSync(join(ROOT, 'compiler/src/schema/validate-surface.ts'), 'utf8');
    const list = /export const SURFACE_CODES = \[([^\]]*)\]/.exec(surface)![1]!;
    const surfaceCodes = new Set([...list.matchAll(/'(PB\d{3})'/g)].map((m) => m[1]!));
    expect([...named].filter((code) => !surfaceCodes.has(code))).toEqual([]);
    const table = producers(compilerSites);
    for (const code of surfaceCodes) expect(table.get(code)?.size, code).toBe(1);
  });

  it("docs/diagnostics.md links each code's section, and its table, to the code's producer", () => {
    const markdown = readFileSync(join(ROOT, 'docs/diagnostics.md'), 'utf8');
    const table = producerTable();
    expect(table.size).toBe(Object.keys(CODES).length);
    const sections = markdown.split(/^(?=<a id="pb\d{3}"><\/a>)/m).slice(1);
    const problems: string[] = [];
    for (const section of sections) {
      const code = /^## (PB\d{3}) /m.exec(section)?.[1];
      if (!code) continue;
      const producer = table.get(code)!;
      const line = `Produced by [\`${producer}\`](../${producer}).`;
      if (!section.includes(line)) problems.push(`${code}: section lacks "${line}"`);
      if ((section.match(/^Produced by /gm) ?? []).length !== 1)
        problems.push(`${code}: one "Produced by" line`);
      const row = `| [${code}](#${code.toLowerCase()}) | [\`${producer}\`](../${producer}) |`;
      if (!markdown.includes(row)) problems.push(`${code}: table lacks "${row}"`);
    }
    expect(problems).toEqual([]);
  });
});
