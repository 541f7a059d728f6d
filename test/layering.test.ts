/**
 * The intended layering, checked on every import of the sources and the tests:
 *
 * - Each workspace package imports only the packages its row of MAY_IMPORT (test/support/packages.ts)
 *   names: grammar none of ours; compiler only grammar; lsp and runtime only compiler and grammar; panel
 *   none; vscode-extension only panel (it talks to the language server); cli any. A package with no row
 *   fails until it gets one.
 * - The machine's sources (PURE) import no Node built-in (`node:fs`, `path`, …): the runtime, the language
 *   server and the playground's page run the same modules, and the page has no Node.
 * - No cycle between source files (an import that is only a type counts too: a cycle of types is still
 *   two files that cannot be understood one without the other).
 * - A package's tests import another package by its name (vitest maps each published entry to its
 *   source), never by a path into its `src/`. The cross-package tests (test/, docs/) likewise, except for
 *   the CLI, which publishes no entry to import: its `src/` is the only way in.
 *
 * Imports are read with TypeScript's own pre-processor: `import`, `export … from`, `import()` and
 * `require()`, type-only ones included.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MAY_IMPORT, ROOT, packages, packagesWithoutRule, workspaceFolders } from './support/packages.js';

const PACKAGES = packages();
/** The npm name of each workspace folder (all of them: an import of a package with no rule is still ours). */
const NAMES = new Map(
  workspaceFolders().map((folder) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string };
    return [manifest.name, folder] as const;
  }),
);

function filesBelow(folder: string): string[] {
  const path = join(ROOT, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/.test(name) && !/\.d\.[mc]?ts$/.test(name))
    .filter((name) => !name.split(/[\\/]/).some((part) => part === 'node_modules' || part === 'dist'))
    .map((name) => relative(ROOT, join(path, name)).split('\\').join('/'))
    .sort();
}

/** Where an import leads: a file of ours, a package of ours by name (and entry), or elsewhere. */
type Target = { file: string } | { package: string; entry: string } | undefined;

function resolveImport(from: string, specifier: string): Target {
  if (specifier.startsWith('.')) {
    const base = resolve(ROOT, dirname(from), specifier);
    const candidates = [
      base,
      base.replace(/\.js$/, '.ts'),
      base.replace(/\.mjs$/, '.mts'),
      base.replace(/\.cjs$/, '.cts'),
      base.replace(/\.js$/, '.tsx'),
      `${base}.ts`,
      `${base}.tsx`,
      join(base, 'index.ts'),
    ];
    const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
    return {
      file: relative(ROOT, found ?? base)
        .split('\\')
        .join('/'),
    };
  }
  for (const [name, folder] of NAMES) {
    if (specifier === name) return { package: folder, entry: '.' };
    if (specifier.startsWith(`${name}/`)) return { package: folder, entry: specifier.slice(name.length + 1) };
  }
  return undefined;
}

function importsOf(file: string): { specifier: string; target: Target }[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName }) => ({ specifier: fileName, target: resolveImport(file, fileName) }));
}

/** The package folder a repository path lies in, and whether it is in its `src/`. */
function placeOf(file: string): { package: string | undefined; inSrc: boolean } {
  const [top, second] = file.split('/');
  const isPackage = workspaceFolders().includes(top!);
  return { package: isPackage ? top : undefined, inSrc: isPackage && second === 'src' };
}

// ------------------------------------------------------------------------------------------- checks

/** Source imports that break the layering, as `file: specifier (why)`. */
function layeringViolations(): string[] {
  const violations: string[] = [];
  for (const folder of PACKAGES) {
    const allowed = MAY_IMPORT[folder];
    if (allowed === undefined) continue;
    for (const file of filesBelow(`${folder}/src`)) {
      for (const { specifier, target } of importsOf(file)) {
        if (target === undefined) continue;
        const into = 'package' in target ? target.package : placeOf(target.file).package;
        if (into === undefined || into === folder || allowed.includes(into)) continue;
        violations.push(
          `${file}: ${specifier} (${folder} may import ${allowed.join(' and ') || 'none of ours'})`,
        );
      }
    }
  }
  return violations;
}

/** The packages whose sources import no Node built-in. */
const PURE = ['machine', 'protocol'];

/** Imports of Node built-ins in the PURE packages' sources, as `file: specifier`. */
function builtinImports(): string[] {
  const builtins = new Set(builtinModules);
  return PURE.flatMap((folder) =>
    filesBelow(`${folder}/src`).flatMap((file) =>
      importsOf(file)
        .filter(({ specifier }) => specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!))
        .map(({ specifier }) => `${file}: ${specifier}`),
    ),
  );
}

/** Test imports that reach into another package's `src/`. */
function testViolations(): string[] {
  const violations: string[] = [];
  const testFolders = [...PACKAGES.map((p) => `${p}/test`), 'test', 'docs'];
  for (const folder of testFolders) {
    const own = placeOf(folder).package;
    for (const file of filesBelow(folder)) {
      for (const { specifier, target } of importsOf(file)) {
        if (target === undefined || !('file' in target)) continue;
        const place = placeOf(target.file);
        if (!place.inSrc || place.package === own) continue;
        if (place.package === 'cli') {
          if (own === undefined) continue; // the CLI publishes no entry to import
          violations.push(
            `${file}: ${specifier} (the CLI is above ${own}: run its bundle, or test it in cli/test or test/)`,
          );
        } else {
          const name = [...NAMES].find(([, folder]) => folder === place.package)?.[0] ?? place.package;
          violations.push(`${file}: ${specifier} (import ${name} instead)`);
        }
      }
    }
  }
  return violations;
}

/** Cycles between source files (strongly connected components of more than one file, or a self-import). */
function cycles(): string[][] {
  const files = PACKAGES.flatMap((folder) => filesBelow(`${folder}/src`));
  const known = new Set(files);
  const entryOf = (target: { package: string; entry: string }): string | undefined => {
    const manifest = JSON.parse(readFileSync(join(ROOT, target.package, 'package.json'), 'utf8')) as {
      exports?: Record<string, string | { default?: string }>;
    };
    const published = manifest.exports?.[target.entry === '.' ? '.' : `./${target.entry}`];
    const built = typeof published === 'string' ? published : published?.default;
    const source = /^\.\/dist\/(.+)\.js$/.exec(built ?? '');
    return source ? `${target.package}/src/${source[1]}.ts` : undefined;
  };
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const next: string[] = [];
    for (const { target } of importsOf(file)) {
      if (target === undefined) continue;
      const to = 'file' in target ? target.file : entryOf(target);
      if (to !== undefined && known.has(to)) next.push(to);
    }
    edges.set(file, next);
  }
  // Tarjan's strongly connected components, iteratively (the graph is large enough to matter).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work: { file: string; next: number }[] = [{ file: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const successors = edges.get(frame.file)!;
      if (frame.next < successors.length) {
        const to = successors[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      if (component.length > 1 || edges.get(frame.file)!.includes(frame.file)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * Cycles left for a change another branch is making in the same files, each with why. The test fails on
 * any other cycle, and on one of these once it is gone (then delete it here): the list cannot go stale.
 */
const WAITING_CYCLES: readonly { files: readonly string[]; why: string }[] = [];

// -------------------------------------------------------------------------------------------- tests

describe('the layering', () => {
  it('reads the imports it checks (a sanity check of the reader)', () => {
    const compilerImports = filesBelow('compiler/src').flatMap((file) => importsOf(file));
    expect(
      compilerImports.some(({ target }) => target && 'package' in target && target.package === 'grammar'),
    ).toBe(true);
  });

  it('has a rule for every workspace package', () => {
    expect(packagesWithoutRule()).toEqual([]);
  });

  it('each package imports only the packages below it', () => {
    expect(layeringViolations()).toEqual([]);
  });

  it('the pure packages import no Node built-in', () => {
    expect(filesBelow('machine/src').length).toBeGreaterThan(0);
    expect(builtinImports()).toEqual([]);
  });

  it('no cycle between source files', () => {
    const found = cycles();
    const waiting = new Set(WAITING_CYCLES.map(({ files }) => [...files].sort().join(' ↔ ')));
    const seen = new Set(found.map((files) => files.join(' ↔ ')));
    expect(found.filter((files) => !waiting.has(files.join(' ↔ ')))).toEqual([]);
    expect(
      [...waiting].filter((cycle) => !seen.has(cycle)),
      'gone: delete them from WAITING_CYCLES',
    ).toEqual([]);
  });

  it("runtime's folders import each other one way only (no cycle between two folders)", () => {
    // A folder of runtime/src (`.` for the files at its top), and the folders its files import.
    const folderOf = (file: string) => {
      const parts = file.replace(/^runtime\/src\//, '').split('/');
      return parts.length > 1 ? parts[0]! : '.';
    };
    const edges = new Map<string, Set<string>>();
    for (const file of filesBelow('runtime/src'))
      for (const { target } of importsOf(file)) {
        if (!target || !('file' in target) || !target.file.startsWith('runtime/src/')) continue;
        const [from, to] = [folderOf(file), folderOf(target.file)];
        if (from !== to) edges.set(from, new Set([...(edges.get(from) ?? []), to]));
      }
    const both = [...edges].flatMap(([from, tos]) =>
      [...tos].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} ↔ ${to}`),
    );
    expect(edges.get('serve')?.has('host')).toBe(true); // (the reader sees the folders)
    expect(both).toEqual([]);
  });

  it('tests import other packages by name, never from their src/', () => {
    expect(testViolations()).toEqual([]);
  });
});
