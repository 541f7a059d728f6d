/**
 * The language service is pure (documents in, answers out): no connection, no timers, no disk of its own,
 * nothing written to a console or a process. Everything of that kind is the server's (src/server/), which
 * calls the service. Checked on the sources: what each file imports, and which globals it names.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const LSP = fileURLToPath(new URL('../../', import.meta.url));
const SERVICE = join(LSP, 'src', 'service');

/** What a service file may import besides the service's own files. */
const ALLOWED = new Set([
  '@kairoku-playbook/compiler',
  // the explorer behind PB310 and PB311: pure too (test/layering.test.ts holds it to no Node built-in)
  '@kairoku-playbook/machine',
  // what the parts say to each other (the graph answer's types): types and data, importing nothing
  '@kairoku-playbook/protocol',
  '@kairoku-playbook/grammar',
  '@kairoku-playbook/grammar/schema/playbook.schema.json',
  'yaml',
  // Prettier's printer and its YAML plugin: text in, text out (the config is resolved by the server)
  'prettier/standalone',
  'prettier/plugins/yaml',
  // LSP's types and text documents: data, no connection
  'vscode-languageserver-types',
  'vscode-languageserver-textdocument',
  // string functions over paths and file URIs (no file system)
  'node:path',
  'node:url',
]);

/**
 * Globals a service file must not name: timers and the event loop, the process, the console, clocks
 * that tell the date, and ways around the import rule. (`performance.now` is allowed: the symbol index's
 * warm-up measures its own compute budget with it and schedules nothing.)
 */
const FORBIDDEN_GLOBALS = new Set([
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'process',
  'console',
  'Date',
  'require',
  'fetch',
  'globalThis',
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** What a file imports that the service may not: a package not allowed, or a file outside the service. */
function forbiddenImports(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((specifier) =>
      specifier.startsWith('.')
        ? !resolve(dirname(file), specifier).startsWith(SERVICE + sep)
        : !ALLOWED.has(specifier),
    );
}

/** Identifiers in a file that name a forbidden global (not a property or a declaration of that name). */
function forbiddenGlobals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && FORBIDDEN_GLOBALS.has(node.text)) {
      const parent = node.parent;
      const isMemberName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        ((ts.isPropertyAssignment(parent) ||
          ts.isPropertySignature(parent) ||
          ts.isPropertyDeclaration(parent) ||
          ts.isMethodDeclaration(parent)) &&
          parent.name === node);
      if (!isMemberName) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(LSP, file)}:${line + 1} ${node.text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the language service (src/service)', () => {
  const files = sources(SERVICE);

  it('is every feature of the server, one file each', () => {
    expect(files.length).toBeGreaterThan(25);
    expect(files.map((f) => relative(SERVICE, f).split(sep).join('/'))).toEqual(
      expect.arrayContaining([
        'language-service.ts',
        'features/completion.ts',
        'features/graph.ts',
        'language/symbols.ts',
        'workspace/playbook-workspace.ts',
      ]),
    );
  });

  it('imports no connection, no disk, no network, no timers: only the compiler, the grammar, yaml and LSP types', () => {
    const found = files.flatMap((file) =>
      forbiddenImports(file, readFileSync(file, 'utf8')).map((s) => `${relative(LSP, file)} imports ${s}`),
    );
    expect(found).toEqual([]);
  });

  it('names no timer, process, console or date', () => {
    expect(files.flatMap((file) => forbiddenGlobals(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('would be caught importing the server package, the disk or a timer', () => {
    const file = join(SERVICE, 'features', 'example.ts');
    const text = [
      "import { createConnection } from 'vscode-languageserver/node';",
      "import type { Connection } from 'vscode-languageserver';",
      "import { readFileSync } from 'node:fs';",
      "import { createServer } from 'node:net';",
      "import { setTimeout as wait } from 'node:timers/promises';",
      "import { diskLister } from '@kairoku-playbook/compiler/disk';",
      "import { PlaybookServer } from '../../server/playbook-server.js';",
      "import { hoverAt } from './hover.js';",
      'setTimeout(() => console.log(Date.now()), process.pid);',
      'const safe = { console: 1, process: 2 }; safe.process;',
    ].join('\n');
    expect(forbiddenImports(file, text)).toEqual([
      'vscode-languageserver/node',
      'vscode-languageserver',
      'node:fs',
      'node:net',
      'node:timers/promises',
      '@kairoku-playbook/compiler/disk',
      '../../server/playbook-server.js',
    ]);
    expect(forbiddenGlobals(file, text).map((f) => f.split(' ')[1])).toEqual([
      'setTimeout', // the name imported from node:timers/promises
      'setTimeout',
      'console',
      'Date',
      'process',
    ]);
  });
});
