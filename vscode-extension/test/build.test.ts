/**
 * The built extension: `node vscode-extension/build.mjs --package` runs once here (a few seconds), then
 * the bundles, the bundled server speaking LSP over stdio, the grammars and the .vsix are checked.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { SourceText, compilePlaybook } from '@kairoku-playbook/compiler';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const EXTENSION = here('../');
const dist = (name: string) => join(EXTENSION, 'dist', name);
const VSIX = dist('kairoku-playbook.vsix');
const require = createRequire(import.meta.url);

beforeAll(() => {
  execFileSync(process.execPath, [join(EXTENSION, 'build.mjs'), '--package'], { stdio: 'pipe' });
}, 180_000);

/** The entries of a zip file, from its central directory; `read` inflates one. */
function readZip(path: string): { names: string[]; read: (name: string) => Buffer } {
  const zip = readFileSync(path);
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, { method: number; size: number; offset: number }>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory entry');
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    entries.set(name, {
      method: zip.readUInt16LE(at + 10),
      size: zip.readUInt32LE(at + 20),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return {
    names: [...entries.keys()],
    read(name) {
      const entry = entries.get(name);
      if (!entry) throw new Error(`${name} is not in the zip`);
      const local = entry.offset;
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + entry.size);
      return entry.method === 8 ? inflateRawSync(data) : Buffer.from(data);
    },
  };
}

describe('the bundles', () => {
  it('are CommonJS files that need nothing but Node (and VS Code for the extension)', () => {
    for (const name of ['extension.js', 'server.js']) {
      const code = readFileSync(dist(name), 'utf8');
      expect(code.startsWith('"use strict";')).toBe(true);
      const required = new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!));
      const outside = [...required].filter(
        (m) => !m.startsWith('node:') && !require('node:module').isBuiltin(m),
      );
      expect(outside).toEqual(name === 'extension.js' ? ['vscode'] : []);
    }
  });

  it('the extension loads with a stand-in vscode module and exports activate and deactivate', () => {
    // A child process: the stand-in answers every property with itself.
    const script = `
      const Module = require('node:module');
      const stub = new Proxy(function () {}, {
        get: (t, p) => (p === 'then' ? undefined : stub),
        getPrototypeOf: () => Function.prototype,
        construct: () => stub,
        apply: () => stub,
      });
      const load = Module._load;
      Module._load = function (request, ...rest) {
        return request === 'vscode' ? { __proto__: stub, __esModule: true } : load.call(this, request, ...rest);
      };
      const extension = require(${JSON.stringify(dist('extension.js'))});
      process.stdout.write(JSON.stringify(Object.keys(extension).map((k) => [k, typeof extension[k]])));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(Object.fromEntries(JSON.parse(out))).toMatchObject({
      activate: 'function',
      deactivate: 'function',
    });
  });
});

describe('the bundled server', () => {
  let child: ChildProcess;
  let connection: MessageConnection;
  interface Published {
    code?: string | number;
    message: string;
    severity?: number;
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
  }
  const published = new Map<string, Published[]>();
  let workspace: string;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'kairoku-vscode-'));
    child = spawn(process.execPath, [dist('server.js'), '--stdio', `--clientProcessId=${process.pid}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; diagnostics: Published[] }) => {
        published.set(params.uri, params.diagnostics);
      },
    );
    connection.listen();
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill();
    connection.dispose();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('answers initialize over stdio with the capabilities the extension relies on', async () => {
    const result = await connection.sendRequest<{
      capabilities: Record<string, unknown> & {
        semanticTokensProvider: { legend: { tokenTypes: string[] } };
      };
      serverInfo: { name: string };
    }>('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'w' }],
      capabilities: {},
      initializationOptions: { validationDelay: 0 },
    });
    expect(result.serverInfo.name).toBe('kairoku-playbook');
    expect(result.capabilities).toMatchObject({
      completionProvider: expect.anything(),
      hoverProvider: true,
      definitionProvider: true,
      renameProvider: { prepareProvider: true },
      codeActionProvider: expect.anything(),
    });
    expect(result.capabilities.semanticTokensProvider.legend.tokenTypes).toContain('variable');
    await connection.sendNotification('initialized', {});
  });

  it('reports exactly the diagnostics of the compiler', async () => {
    const path = join(workspace, 'playbooks', 'pr.yml');
    const text = readFileSync(here('../../playbooks/pr.yml'), 'utf8').replace('needs: [qa]', 'needs: [qaa]');
    const uri = pathToFileURL(path).href;
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'kairoku-playbook', version: 1, text },
    });
    const deadline = Date.now() + 10_000;
    while (!published.has(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const source = new SourceText(text);
    const severities = { error: 1, warning: 2, info: 3 };
    const expected = compilePlaybook('playbooks/pr.yml', text).diagnostics.map((d) => ({
      code: d.code,
      message: d.message,
      severity: severities[d.severity],
      range: { start: source.positionAt(d.range.start), end: source.positionAt(d.range.end) },
    }));
    expect(expected.length).toBeGreaterThan(0);
    expect(
      published
        .get(uri)!
        .map((d) => ({ code: d.code, message: d.message, severity: d.severity, range: d.range })),
    ).toEqual(expected);
  });

  it('shuts down cleanly', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    expect(await exited).toBe(0);
  });
});

describe('the grammars', () => {
  const injectionPath = dist('syntaxes/playbook.injection.tmLanguage.json');

  it('copies the injection grammar of grammar/textmate, selecting the playbook scope too', () => {
    const source = JSON.parse(
      readFileSync(here('../../grammar/textmate/playbook.injection.tmLanguage.json'), 'utf8'),
    );
    const copy = JSON.parse(readFileSync(injectionPath, 'utf8'));
    expect({ ...copy, injectionSelector: source.injectionSelector }).toEqual(source);
    const clauses = copy.injectionSelector.split(',').map((c: string) => c.trim());
    expect(clauses).toContain(source.injectionSelector);
    expect(clauses).toContain(source.injectionSelector.replace('source.yaml', 'source.kairoku-playbook'));
  });

  it('highlights ${{ }} in a playbook (the YAML grammar under the playbook scope) and in plain YAML', async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const files: Record<string, string> = {
      'source.yaml': here('./fixtures/yaml-stand-in.tmLanguage.json'),
      'source.kairoku-playbook': here('../syntaxes/kairoku-playbook.tmLanguage.json'),
      'source.kairoku-playbook.expression-injection': injectionPath,
    };
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async (scope) =>
        files[scope] ? textmate.parseRawGrammar(readFileSync(files[scope]!, 'utf8'), files[scope]) : null,
      // What package.json's injectTo says.
      getInjections: (scope) =>
        scope === 'source.kairoku-playbook' || scope === 'source.yaml'
          ? ['source.kairoku-playbook.expression-injection']
          : undefined,
    });
    for (const scope of ['source.kairoku-playbook', 'source.yaml']) {
      const grammar = (await registry.loadGrammar(scope))!;
      const line = 'prompt: "Plan ${{ inputs.task }}" # ${{ not.this }}';
      const tokens = grammar.tokenizeLine(line, textmate.INITIAL).tokens.map((t) => ({
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes,
      }));
      const scopesOf = (text: string) => tokens.find((t) => t.text === text)?.scopes ?? [];
      expect(scopesOf('prompt')).toEqual([scope, 'entity.name.tag.yaml']);
      expect(scopesOf('${{')).toContain('punctuation.definition.expression.begin.kairoku-playbook');
      expect(scopesOf('${{')).toContain('string.quoted.double.yaml');
      expect(scopesOf('inputs')).toContain('variable.language.kairoku-playbook');
      expect(tokens.find((t) => t.text.includes('not.this'))!.scopes).not.toContain(
        'meta.embedded.expression.kairoku-playbook',
      );
    }
  });
});

describe('the .vsix', () => {
  it('is a zip with the manifest, both bundles, the grammars, the language configuration and the README', () => {
    expect(existsSync(VSIX)).toBe(true);
    const zip = readZip(VSIX);
    expect(zip.names.filter((n) => n.startsWith('extension/')).sort()).toEqual([
      'extension/dist/extension.js',
      'extension/dist/server.js',
      'extension/dist/syntaxes/playbook.injection.tmLanguage.json',
      'extension/language-configuration.json',
      'extension/package.json',
      'extension/readme.md',
      'extension/syntaxes/kairoku-playbook.tmLanguage.json',
    ]);
    expect(zip.names).toContain('extension.vsixmanifest');
    const manifest = JSON.parse(zip.read('extension/package.json').toString('utf8'));
    const source = JSON.parse(readFileSync(join(EXTENSION, 'package.json'), 'utf8'));
    expect(manifest.main).toBe('./dist/extension.js');
    expect(manifest.contributes).toEqual(source.contributes);
    expect(zip.read('extension/dist/server.js').equals(readFileSync(dist('server.js')))).toBe(true);
    // Every grammar the manifest names is in the package.
    for (const grammar of manifest.contributes.grammars as { path: string }[])
      expect(zip.names).toContain(`extension/${grammar.path.replace(/^\.\//, '')}`);
  });
});
